//! The probe a JSON-lines reader is measured against (issues 5 and 27):
//! lines framed with memchr, each parsed by simd-json into a tree
//! (`BorrowedValue`) with reused buffers, nothing decoded, nothing
//! written. With `--tape`, into a reused tape instead: the floor of any
//! reader that parses every line (streamview parses into a tape, and
//! leaves the long strings of a long line to its own scan).
//! `benches/compare.sh` times both beside streamview on the same files.
//!
//!   cargo run --release --example probe -- [--tape] FILE...
//!
//! Prints the lines and the JSON values parsed on stderr.

use std::fs::File;
use std::io::{self, Read, Write};

use simd_json::prelude::*;
use simd_json::tape::Tape;

/// Reused memory, and how lines are parsed.
struct Probe {
    tape_only: bool,
    scratch: Vec<u8>,
    buffers: simd_json::Buffers,
    tape: Option<Tape<'static>>,
}

impl Probe {
    /// The values of one line (0 when it is no JSON): the top-level keys
    /// of its tree, or the nodes of its tape.
    fn parse(&mut self, line: &[u8]) -> u64 {
        self.scratch.clear();
        self.scratch.extend_from_slice(line);
        if !self.tape_only {
            return match simd_json::to_borrowed_value_with_buffers(
                &mut self.scratch,
                &mut self.buffers,
            ) {
                Ok(v) if v.is_object() => v.as_object().map_or(0, |o| o.len() as u64),
                Ok(_) => 1,
                Err(_) => 0,
            };
        }
        let len = self.scratch.len();
        self.scratch.resize(len + simd_json::INPUT_PADDING, 0);
        let mut t = self.tape.take().unwrap_or_else(|| Tape(Vec::new())).reset();
        let n = match simd_json::fill_tape_padded(&mut self.scratch, len, &mut self.buffers, &mut t)
        {
            Ok(()) => t.0.len() as u64,
            Err(_) => 0,
        };
        self.tape = Some(t.reset());
        n
    }
}

fn main() -> io::Result<()> {
    let mut args: Vec<_> = std::env::args_os().skip(1).collect();
    let tape_only = args.first().is_some_and(|a| a == "--tape");
    if tape_only {
        args.remove(0);
    }
    let mut probe = Probe {
        tape_only,
        scratch: Vec::new(),
        buffers: simd_json::Buffers::default(),
        tape: None,
    };
    let (mut lines, mut values) = (0u64, 0u64);
    let mut buf = vec![0u8; 256 << 10];
    for path in args {
        let mut f = File::open(&path)?;
        let mut held = 0;
        loop {
            if held == buf.len() {
                // A line longer than the buffer: grow it.
                buf.resize(buf.len() * 2, 0);
            }
            let n = f.read(&mut buf[held..])?;
            let end = held + n;
            let mut start = 0;
            while let Some(i) = memchr::memchr(b'\n', &buf[start..end]) {
                values += probe.parse(&buf[start..start + i]);
                lines += 1;
                start += i + 1;
            }
            if n == 0 {
                if start < end {
                    values += probe.parse(&buf[start..end]);
                    lines += 1;
                }
                break;
            }
            buf.copy_within(start..end, 0);
            held = end - start;
        }
    }
    writeln!(io::stderr(), "{lines} lines, {values} values")
}
