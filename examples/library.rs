//! Generate a session library (issue 17): a `~/.claude/projects` and a
//! `~/.codex/sessions` grown from the real captures of `tests/fixtures/`,
//! and a few saved streams, below one directory:
//!
//! ```sh
//! cargo run --release --example library -- --dir /tmp/library --files 2000 --size 1G --seed 1
//! CLAUDE_CONFIG_DIR=/tmp/library/claude streamview --format summary /tmp/library
//! ```
//!
//! See `benches/support/library.rs` for what is in it. The same files,
//! size and seed always give the same bytes. What was written is reported
//! on stderr, one `key=value` line.

use std::path::PathBuf;
use std::process::ExitCode;

#[path = "../benches/support/generate.rs"]
mod generate;
#[path = "../benches/support/library.rs"]
mod library;

const USAGE: &str = "usage: library --dir DIR [--files N] [--size N[K|M|G]] [--seed N]";

fn main() -> ExitCode {
    let (mut dir, mut files, mut size, mut seed) = (None, 2000u64, 1u64 << 30, 1u64);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args.next().unwrap_or_default();
        let ok = match arg.as_str() {
            "--dir" => {
                dir = Some(PathBuf::from(&value));
                true
            }
            "--files" => value.parse().map(|n| files = n).is_ok(),
            "--size" => generate::parse_size(&value).map(|n| size = n).is_some(),
            "--seed" => value.parse().map(|n| seed = n).is_ok(),
            _ => false,
        };
        if !ok {
            eprintln!("library: bad argument {arg} {value}\n{USAGE}");
            return ExitCode::from(2);
        }
    }
    let Some(dir) = dir else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    match library::generate(&dir, files, size, seed) {
        Ok(lib) => {
            eprintln!(
                "sessions={} agent_files={} streams={} bytes={}",
                lib.sessions, lib.agent_files, lib.streams, lib.bytes
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("library: cannot write below {}: {e}", dir.display());
            ExitCode::from(2)
        }
    }
}
