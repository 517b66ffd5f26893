//! The text Qwen Code 0.24 writes as a `run_shell_command` result:
//!
//! ```text
//! Command: ls /nope; exit 3
//! Directory: (root)
//! Output: ls: cannot access '/nope': No such file or directory
//! Error: (none)
//! Exit Code: 3
//! Signal: (none)
//! Process Group PGID: (none)
//! ```
//!
//! It comes with `is_error: true` for a failed command, and sometimes with
//! `is_error: false` and `Exit Code: 0`. A result is read as the project
//! writes a command's outcome elsewhere (Codex, OpenCode): the output, after
//! an `exit code N` line when the command failed. Qwen Code 0.15 wrote the
//! bare output: that text is not a frame and stays as it is.

use std::borrow::Cow;
use std::fmt::{self, Write as _};

use crate::event::{Content, ToolResult};
use crate::json::Arena;

/// How a frame starts.
const START: &str = "Command: ";

/// What a frame says `(none)` or `(empty)` with.
const NONE: &str = "(none)";
const EMPTY: &str = "(empty)";

/// The parts of a frame that say what the command did.
#[derive(Debug, PartialEq, Eq)]
pub(in crate::decode) struct Frame<'t> {
    /// `Output:`, multi-line; `""` for `(empty)`.
    pub(in crate::decode) output: &'t str,
    /// `Error:` unless `(none)` or absent.
    pub(in crate::decode) error: Option<&'t str>,
    /// `Exit Code:` when it is a number (`(none)` after a signal).
    pub(in crate::decode) exit_code: Option<i64>,
    /// `Signal:` unless `(none)` or absent.
    pub(in crate::decode) signal: Option<&'t str>,
}

/// `text` read as a frame: it starts with `Command: ` and has an
/// `Output: ` part and an `Exit Code: ` line, in that order; the other
/// lines may be missing. `None` for any other text.
pub(super) fn parse(text: &str) -> Option<Frame<'_>> {
    let rest = text.strip_prefix(START)?;
    let output_at = rest.find("\nOutput: ")? + 1;
    parse_output(&rest[output_at..])
}

/// The frame from its `Output: ` part on (Gemini CLI writes no
/// `Command:` line): `None` for a text that does not start with it or has
/// no `Exit Code: ` line.
pub(in crate::decode) fn parse_output(text: &str) -> Option<Frame<'_>> {
    let rest = text.strip_prefix("Output: ")?;
    // The last such line: the output may hold one too.
    let exit_at = rest.rfind("\nExit Code: ")?;
    let (body, trailer) = rest.split_at(exit_at);
    let exit = field(trailer, "\nExit Code: ")?;
    // The `Error:` value may span lines; the output may hold such a line.
    let (output, error) = match body.rfind("\nError: ") {
        Some(at) => (&body[..at], Some(&body[at + "\nError: ".len()..])),
        None => (body, None),
    };
    Some(Frame {
        output: if output == EMPTY { "" } else { output },
        error: error.filter(|e| *e != NONE),
        exit_code: exit.trim().parse().ok(),
        signal: field(trailer, "\nSignal: ").filter(|s| *s != NONE),
    })
}

/// The value of the one-line field `label` in `trailer`.
fn field<'t>(trailer: &'t str, label: &str) -> Option<&'t str> {
    let at = trailer.find(label)? + label.len();
    let value = &trailer[at..];
    Some(value.split_once('\n').map_or(value, |(line, _)| line))
}

/// `r` with its frame read, or `None` when its content is not a frame:
/// failed when Qwen said so or the exit code is not 0; its content the
/// output, after `exit code N` (or `signal S`) when failed, then the
/// `Error:` part if there is one.
pub(in crate::decode) fn read<'t>(r: &ToolResult<'t>, a: &'t Arena) -> Option<ToolResult<'t>> {
    if !starts_framed(&r.content) {
        return None;
    }
    let frame = parse(r.content.text_in(a))?;
    let failed = r.is_error || frame.exit_code.is_some_and(|c| c != 0);
    Some(ToolResult {
        id: r.id.clone(),
        is_error: failed,
        denied: r.denied,
        content: content(&frame, failed, a).into(),
        answers: crate::event::List::default(),
        changes: crate::event::List::default(),
    })
}

/// Whether `c` starts like a frame, read without unescaping it.
fn starts_framed(c: &Content<'_>) -> bool {
    match c.json_body() {
        Some((body, _)) => body.starts_with(START),
        None => c.text().starts_with(START),
    }
}

/// A frame's content as the project writes a command's outcome.
pub(in crate::decode) fn content<'t>(f: &Frame<'t>, failed: bool, a: &'t Arena) -> Cow<'t, str> {
    let head = match (f.exit_code, f.signal) {
        (Some(c), _) if failed && c != 0 => Some(Head::Exit(c)),
        (_, Some(s)) if failed => Some(Head::Signal(s)),
        _ => None,
    };
    if head.is_none() && f.error.is_none() {
        return Cow::Borrowed(f.output);
    }
    let mut t = a.text();
    let mut sep = "";
    if let Some(h) = head {
        let _ = write!(t, "{h}");
        sep = "\n";
    }
    if !f.output.is_empty() {
        let _ = write!(t, "{sep}{}", f.output);
        sep = "\n";
    }
    if let Some(e) = f.error {
        let _ = write!(t, "{sep}Error: {e}");
    }
    Cow::Borrowed(t.done())
}

/// The first line of a failed command's content.
enum Head<'t> {
    Exit(i64),
    Signal(&'t str),
}

impl fmt::Display for Head<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Head::Exit(c) => write!(f, "exit code {c}"),
            Head::Signal(s) => write!(f, "signal {s}"),
        }
    }
}
