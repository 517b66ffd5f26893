//! Sinks: where normalized events go. One module per output format.

mod chart;
pub mod diff;
mod escape;
pub mod html;
pub mod jsonl;
pub mod label;
mod lines;
pub mod markdown;
pub mod otlp;
pub mod pretty;
pub mod report;
pub mod result;
mod rows;
pub mod sanitize;
pub mod status;
pub mod statusline;
pub mod summary;
mod tables;
pub mod theme;
pub mod top;

use std::fmt::Write as _;
use std::io;

use crate::event::{Event, ToolKind};
use crate::session::Session;

pub use html::Html;
pub use jsonl::Jsonl;
pub use markdown::Markdown;
pub use otlp::Otlp;
pub use pretty::{Alerts, Pretty, PrettyOptions, Verbosity};
pub use result::ResultText;
pub use status::StatusLine;
pub use summary::{Summary, SummaryAfter, SummarySink};

/// An output format.
///
/// A `&mut S` is a sink too, so a sink can be lent to a wrapper
/// ([`crate::filter::Filtered`], [`SummaryAfter`]) and read back afterwards.
pub trait Sink {
    /// Render one event. `s` has already observed it (see [`Session::note`]).
    ///
    /// # Errors
    /// The output cannot be written.
    fn event(&mut self, ev: &Event<'_>, s: &Session) -> io::Result<()>;

    /// The input has ended and `s` has decided every outcome.
    ///
    /// # Errors
    /// The output cannot be written.
    fn finish(&mut self, s: &Session) -> io::Result<()>;

    /// Push buffered output out (called before the reader may block, and
    /// before a diagnostic goes to stderr).
    ///
    /// # Errors
    /// The output cannot be written.
    fn flush(&mut self) -> io::Result<()>;

    /// Where the output stops: the live status line is drawn only at the
    /// start of a line (its erase would take a partial line with it).
    fn line_end(&self) -> LineEnd {
        LineEnd::Complete
    }

    /// The output has stopped in the middle of a line for a while: end that
    /// line, so the status line can say what is stuck below it. What follows
    /// continues on the next line (at the same indentation), nothing lost
    /// or repeated.
    ///
    /// # Errors
    /// The output cannot be written.
    fn end_line(&mut self) -> io::Result<()> {
        Ok(())
    }

    /// A file of a session library has ended, and with it its session
    /// (the next input begins another): `s` still holds it, not yet
    /// closed. What a sink says about a session's end, it says here, so
    /// that each file's output is the same whichever thread reads it
    /// (`-j`).
    ///
    /// # Errors
    /// The output cannot be written.
    fn input_end(&mut self, _s: &Session) -> io::Result<()> {
        Ok(())
    }

    /// What this sink counted over its run to say at the run's end (the
    /// `--tool` patterns that matched nothing), taken out: under `-j` the
    /// run of each file hands it to the main run's sink, in the library's
    /// order ([`Sink::add_count`]).
    fn take_count(&mut self) -> Option<RunCount> {
        None
    }

    /// Add what [`Sink::take_count`] took from the run of a file read
    /// after this sink's inputs.
    fn add_count(&mut self, _count: RunCount) {}

    /// A file was read after this sink's inputs by a run of its own (`-j`),
    /// whose sink said the end of its session ([`Sink::input_end`]): the
    /// session this sink's `finish` is given is that one, and its end is
    /// said.
    fn ended_elsewhere(&mut self) {}
}

/// What [`Sink::take_count`] hands over: the sink that took it knows its
/// type.
pub type RunCount = Box<dyn std::any::Any + Send>;

/// Where a sink's output stops (see [`Sink::line_end`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineEnd {
    /// At the start of a line.
    Complete,
    /// In a line that each event extends (text being streamed): it has
    /// stalled once no event came for a while.
    Streaming,
    /// In a line that events do not extend (a tool call's line, completed
    /// once its input has streamed): it has stalled once it stayed so for a
    /// while, events or not.
    Held,
}

/// A sink lent (`&mut S`) or boxed (`Box<dyn Sink>`) is the sink it holds.
macro_rules! forward_sink {
    ($($t:ty),*) => {$(
        impl<S: Sink + ?Sized> Sink for $t {
            fn event(&mut self, ev: &Event<'_>, s: &Session) -> io::Result<()> {
                (**self).event(ev, s)
            }

            fn finish(&mut self, s: &Session) -> io::Result<()> {
                (**self).finish(s)
            }

            fn flush(&mut self) -> io::Result<()> {
                (**self).flush()
            }

            fn line_end(&self) -> LineEnd {
                (**self).line_end()
            }

            fn end_line(&mut self) -> io::Result<()> {
                (**self).end_line()
            }

            fn input_end(&mut self, s: &Session) -> io::Result<()> {
                (**self).input_end(s)
            }

            fn take_count(&mut self) -> Option<RunCount> {
                (**self).take_count()
            }

            fn add_count(&mut self, count: RunCount) {
                (**self).add_count(count);
            }

            fn ended_elsewhere(&mut self) {
                (**self).ended_elsewhere();
            }
        }
    )*};
}

forward_sink!(&mut S, Box<S>);

/// A file tool's key argument as the pretty view and the status line show
/// it: a path under the session's working directory relative to it (the
/// header gives the directory), `.` for the directory itself. Commands,
/// URLs, patterns and paths elsewhere are shown as they are, and so is any
/// key argument in JSONL.
pub(crate) fn shown_key<'a>(key: &'a str, kind: ToolKind, cwd: Option<&str>) -> &'a str {
    if !matches!(
        kind,
        ToolKind::Read | ToolKind::Write | ToolKind::Edit | ToolKind::Search
    ) {
        return key;
    }
    // `/` is nobody's project; a trailing separator is not part of the name.
    let Some(cwd) = cwd
        .map(|c| c.trim_end_matches(['/', '\\']))
        .filter(|c| !c.is_empty())
    else {
        return key;
    };
    match key.strip_prefix(cwd) {
        Some("" | "/" | "\\") => ".",
        Some(rest) => match rest.strip_prefix(['/', '\\']) {
            // Not `cwd-other/…`, and never an empty name.
            Some(r) if !r.is_empty() && !r.starts_with(['/', '\\']) => r,
            _ => key,
        },
        None => key,
    }
}

/// A sub-agent call's result as worth showing: its answer without the
/// trailing `agentId:` metadata, and `(running in the background)` for the
/// launch notice of newer CLIs, which run sub-agents in the background
/// (the model is told not to quote that metadata).
pub(crate) fn agent_answer(text: &str) -> &str {
    let text = text.find("\nagentId:").map_or(text, |p| &text[..p]);
    if text.starts_with("Async agent launched") {
        return "(running in the background)";
    }
    text
}

/// `1234` → `1.2k`, `1234567` → `1.2M`.
pub(crate) fn fmt_count(out: &mut String, n: u64) {
    #[allow(clippy::cast_precision_loss)] // display only
    let f = n as f64;
    let _ = if n < 1000 {
        write!(out, "{n}")
    } else if n < 100_000 {
        write!(out, "{:.1}k", f / 1e3)
    } else if n < 1_000_000 {
        write!(out, "{:.0}k", f / 1e3)
    } else {
        write!(out, "{:.1}M", f / 1e6)
    };
}

/// `265` → `265ms`, `12345` → `12.3s`, `185000` → `3m05s`, hours as `1h02m`.
pub(crate) fn fmt_duration(out: &mut String, ms: u64) {
    let _ = if ms < 1000 {
        write!(out, "{ms}ms")
    } else if ms < 60_000 {
        #[allow(clippy::cast_precision_loss)]
        let s = ms as f64 / 1000.0;
        write!(out, "{s:.1}s")
    } else if ms < 3_600_000 {
        write!(out, "{}m{:02}s", ms / 60_000, (ms / 1000) % 60)
    } else {
        write!(out, "{}h{:02}m", ms / 3_600_000, (ms / 60_000) % 60)
    };
}

/// Dollars with enough digits to be meaningful: `$0.0097`, `$1.23`.
pub(crate) fn fmt_cost(out: &mut String, usd: f64) {
    let _ = if usd == 0.0 {
        write!(out, "$0")
    } else if usd < 1.0 {
        write!(out, "${usd:.4}")
    } else if usd < 1e9 {
        write!(out, "${usd:.2}")
    } else {
        // Not a real cost; keep the line short (1e308 has 309 digits).
        write!(out, "${usd:.3e}")
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(f: impl Fn(&mut String)) -> String {
        let mut o = String::new();
        f(&mut o);
        o
    }

    #[test]
    fn paths_under_the_working_directory_are_relative() {
        let cwd = Some("/home/u/proj");
        let read = |k| shown_key(k, ToolKind::Read, cwd);
        assert_eq!(read("/home/u/proj/src/main.rs"), "src/main.rs");
        assert_eq!(
            shown_key("/home/u/proj/a", ToolKind::Edit, Some("/home/u/proj/")),
            "a"
        );
        assert_eq!(shown_key("/home/u/proj", ToolKind::Search, cwd), ".");
        assert_eq!(shown_key("/home/u/proj/", ToolKind::Search, cwd), ".");
        // A sibling directory, another place, a relative path: as they are.
        assert_eq!(read("/home/u/project/a"), "/home/u/project/a");
        assert_eq!(read("/etc/passwd"), "/etc/passwd");
        assert_eq!(read("src/lib.rs"), "src/lib.rs");
        // Only file tools: a command naming a script keeps its path.
        let cmd = "/home/u/proj/run.sh --fast";
        assert_eq!(shown_key(cmd, ToolKind::Shell, cwd), cmd);
        // No directory, or the root: nothing to take off.
        assert_eq!(shown_key("/a/b", ToolKind::Read, None), "/a/b");
        assert_eq!(shown_key("/a/b", ToolKind::Read, Some("/")), "/a/b");
        // Windows paths.
        let win = Some("C:\\work\\app");
        assert_eq!(
            shown_key("C:\\work\\app\\x.ts", ToolKind::Write, win),
            "x.ts"
        );
    }

    #[test]
    fn counts() {
        assert_eq!(s(|o| fmt_count(o, 999)), "999");
        assert_eq!(s(|o| fmt_count(o, 1672)), "1.7k");
        assert_eq!(s(|o| fmt_count(o, 123_456)), "123k");
        assert_eq!(s(|o| fmt_count(o, 2_500_000)), "2.5M");
    }

    #[test]
    fn durations() {
        assert_eq!(s(|o| fmt_duration(o, 265)), "265ms");
        assert_eq!(s(|o| fmt_duration(o, 12_345)), "12.3s");
        assert_eq!(s(|o| fmt_duration(o, 185_000)), "3m05s");
        assert_eq!(s(|o| fmt_duration(o, 3_720_000)), "1h02m");
    }

    #[test]
    fn costs() {
        assert_eq!(s(|o| fmt_cost(o, 0.0)), "$0");
        assert_eq!(s(|o| fmt_cost(o, 0.009_66)), "$0.0097");
        assert_eq!(s(|o| fmt_cost(o, 12.345)), "$12.35");
        assert_eq!(s(|o| fmt_cost(o, 1e308)), "$1.000e308");
    }
}
