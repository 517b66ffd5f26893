//! The binary's relative relocations packed (`-z pack-relative-relocs`:
//! `DT_RELR`, 0.38 MB less than the 24-byte RELA entries of a position-
//! independent executable; issue 52) where the linker and the C library
//! both support it, as LLVM's build decides it: a small program with
//! relative relocations is linked with the flag (silently) and run. An older glibc
//! (before 2.36) or binutils (before 2.38), a cross build, another system:
//! the binary is linked as before. `STREAMVIEW_NO_RELR` set: never.

use std::env;
use std::fs;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// A program whose table of pointers needs relative relocations in a
/// position-independent executable: the loader refuses `DT_RELR` it cannot
/// apply (`DT_RELR without GLIBC_ABI_DT_RELR dependency`).
const PROBE: &str = "static const char *w[] = {\"a\", \"b\", \"c\", \"d\", \"e\", \"f\", \"g\", \"h\"};\n\
                     int main(void) { return w[7][0] != 'h'; }\n";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=STREAMVIEW_NO_RELR");
    println!("cargo:rerun-if-env-changed=CC");
    if env::var_os("STREAMVIEW_NO_RELR").is_some() || !native_glibc() {
        return;
    }
    if let Some(out) = env::var_os("OUT_DIR").map(PathBuf::from)
        && packs(&out)
    {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}

/// Built for the machine that builds it, a Linux with glibc.
fn native_glibc() -> bool {
    let var = |k: &str| env::var(k).unwrap_or_default();
    var("TARGET") == var("HOST")
        && var("CARGO_CFG_TARGET_OS") == "linux"
        && var("CARGO_CFG_TARGET_ENV") == "gnu"
}

/// The probe links with the flag, without a word from the linker (one
/// that does not know the flag warns that it ignores it), and runs.
fn packs(out: &std::path::Path) -> bool {
    let (src, exe) = (out.join("relr.c"), out.join("relr"));
    if fs::write(&src, PROBE).is_err() {
        return false;
    }
    let cc = env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let linked = Command::new(cc)
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .args(["-fPIE", "-pie", "-Wl,-z,pack-relative-relocs"])
        .stdin(Stdio::null())
        .output()
        .is_ok_and(|o| o.status.success() && o.stdout.is_empty() && o.stderr.is_empty());
    linked
        && Command::new(&exe)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
}
