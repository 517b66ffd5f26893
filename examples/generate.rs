//! Generate a large, realistic agent event stream on stdout (issue 5):
//!
//! ```sh
//! cargo run --release --example generate -- --profile claude --size 500M --seed 1 > /tmp/claude.jsonl
//! ```
//!
//! Profiles: `claude`, `claude-partial`, `codex`, `gemini` (see
//! `benches/support/generate.rs`). The same profile, size and seed always
//! give the same bytes. What was generated (lines, sessions, tool calls…)
//! is reported on stderr, one `key=value` line.

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

#[path = "../benches/support/generate.rs"]
mod generate;

use generate::{Profile, parse_size};

const USAGE: &str =
    "usage: generate --profile claude|claude-partial|codex|gemini --size N[K|M|G] [--seed N]";

fn main() -> ExitCode {
    let mut profile = None;
    let mut size = None;
    let mut seed = 1u64;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args.next();
        let ok = match (arg.as_str(), value.as_deref()) {
            ("--profile", Some(v)) => {
                profile = Profile::parse(v);
                profile.is_some()
            }
            ("--size", Some(v)) => {
                size = parse_size(v);
                size.is_some()
            }
            ("--seed", Some(v)) => v.parse().map(|s| seed = s).is_ok(),
            _ => false,
        };
        if !ok {
            let _ = writeln!(io::stderr(), "generate: bad argument {arg}\n{USAGE}");
            return ExitCode::from(2);
        }
    }
    let (Some(profile), Some(size)) = (profile, size) else {
        let _ = writeln!(io::stderr(), "{USAGE}");
        return ExitCode::from(2);
    };
    let out = BufWriter::with_capacity(1 << 20, io::stdout().lock());
    match generate::generate(out, profile, size, seed) {
        Ok(c) => {
            let _ = writeln!(
                io::stderr(),
                "profile={} seed={seed} bytes={} lines={} sessions={} tool_calls={} tool_results={} tool_errors={} denials={} subagent_calls={} stream_events={} longest_line={}",
                profile.name(),
                c.bytes,
                c.lines,
                c.sessions,
                c.tool_calls,
                c.tool_results,
                c.tool_errors,
                c.denials,
                c.subagent_calls,
                c.stream_events,
                c.longest_line
            );
            ExitCode::SUCCESS
        }
        // A closed pipe (`… | head`) is not worth a message.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(io::stderr(), "generate: {e}");
            ExitCode::FAILURE
        }
    }
}
