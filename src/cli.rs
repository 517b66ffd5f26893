//! The command line: what the user typed ([`Cli`]) and what was decided from
//! it ([`Options`]). The only module that reads the environment or asks
//! whether a stream is a terminal.

use std::ffi::OsString;
use std::io::IsTerminal;

use clap::{Parser, ValueEnum};

use crate::event::Producer;
use crate::input::Source;
use crate::render::Verbosity;
use crate::run::DEFAULT_MAX_LINE_BYTES;

const EXAMPLES: &str = "\
Examples:
  Watch a live Claude Code session:
    claude -p \"fix the tests\" --output-format stream-json --verbose | streamview

  A shell function that does it every time:
    cc() { claude -p \"$*\" --output-format stream-json --verbose | streamview; }

  Replay a saved session, with tool results and thinking:
    streamview -v session.jsonl

  One normalized schema for scripts (docs/schema.md):
    streamview --format jsonl session.jsonl | jq -r 'select(.kind==\"tool_call\") | .name' | sort | uniq -c

  Watch an agent started in the background with its output going to a file:
    claude -p \"…\" --output-format stream-json --verbose > session.jsonl &
    streamview -f session.jsonl

  Keep a log and the errors apart:
    claude -p \"…\" --output-format stream-json --verbose | streamview > run.log 2> errors.log

Exit status:
  0  the session succeeded (every session, for several)
  1  a session ended with an error result (API error, max turns, max budget…)
  2  usage error, or a file could not be opened/read, or output could not be written
  3  the input ended without a result event (agent crashed, stream cut off, empty input)

Environment:
  STREAMVIEW_VERBOSE=1, STREAMVIEW_QUIET=1  like -v / -q (a flag on the command line wins)
  NO_COLOR        (non-empty) no colour in --color auto
  CLICOLOR_FORCE  (non-empty, not 0) colour in --color auto even when not a terminal";

/// Output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Human-readable progress lines.
    Pretty,
    /// One normalized JSON event per line (schema: docs/schema.md).
    Jsonl,
}

/// The producer named by `--from`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum From {
    /// Detect it.
    Auto,
    /// Claude Code `-p --output-format stream-json --verbose`.
    Claude,
    /// Claude Code saved transcripts (`~/.claude/projects/…/<session>.jsonl`).
    ClaudeTranscript,
    /// Codex `exec --json`.
    Codex,
    /// Gemini CLI `--output-format stream-json`.
    Gemini,
    /// `OpenCode` `run --format json`.
    Opencode,
    /// Qwen Code `--output-format stream-json`.
    Qwen,
    /// Amp `--stream-json`.
    Amp,
    /// Cursor Agent `--output-format stream-json`.
    Cursor,
}

impl From {
    /// The producer, or `None` for `auto`.
    #[must_use]
    pub fn producer(self) -> Option<Producer> {
        match self {
            From::Auto => None,
            From::Claude => Some(Producer::Claude),
            From::ClaudeTranscript => Some(Producer::ClaudeTranscript),
            From::Codex => Some(Producer::Codex),
            From::Gemini => Some(Producer::Gemini),
            From::Opencode => Some(Producer::OpenCode),
            From::Qwen => Some(Producer::Qwen),
            From::Amp => Some(Producer::Amp),
            From::Cursor => Some(Producer::Cursor),
        }
    }
}

/// When to use colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorWhen {
    /// When stdout is a terminal and `NO_COLOR` is not set (`CLICOLOR_FORCE` forces it).
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// Live viewer for AI coding-agent event streams (Claude Code stream-json).
///
/// Reads the newline-delimited JSON that `claude -p … --output-format stream-json --verbose`
/// prints and shows what the agent is doing: its text, every tool call with its key argument,
/// tool errors and permission denials, sub-agent activity and the session's cost, tokens,
/// turns and duration. The exit status tells how the session ended.
#[derive(Debug, Parser)]
#[command(name = "streamview", version, after_long_help = EXAMPLES, after_help = "Use --help for examples, exit statuses and environment variables.")]
pub struct Cli {
    /// Files to read, in order; `-` or none means standard input.
    #[arg(value_name = "FILE")]
    pub files: Vec<OsString>,

    /// Follow a log file that is still being written, like `tail -f` from its start.
    ///
    /// Waits for new lines at the end of the file and stops by itself once the session's
    /// final result has arrived and the file stays quiet for 1.5 s (or on Ctrl-C). Handles the
    /// file being truncated or replaced. Takes exactly one FILE.
    #[arg(short, long)]
    pub follow: bool,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Pretty, value_name = "FORMAT")]
    pub format: Format,

    /// Show more: tool results, thinking, usage per response, every system event, session details.
    #[arg(short, long, conflicts_with = "quiet")]
    pub verbose: bool,

    /// Show nothing on stdout; errors and permission denials still go to stderr.
    ///
    /// The exit status still tells how the session ended.
    #[arg(short, long)]
    pub quiet: bool,

    /// When to use colour.
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto, value_name = "WHEN")]
    pub color: ColorWhen,

    /// Which agent printed the input; `auto` detects it for each input from its first
    /// recognisable line.
    #[arg(long, value_enum, default_value_t = From::Auto, value_name = "PRODUCER")]
    pub from: From,

    /// Skip lines longer than this many bytes (suffixes K, M, G), reporting them.
    ///
    /// Memory stays bounded by this limit whatever the input.
    #[arg(long, value_name = "N", default_value = "64M", value_parser = parse_size)]
    pub max_line_bytes: usize,

    /// Lines of each tool result or error text to show before cutting (verbose shows results).
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub max_lines: usize,
}

fn parse_size(s: &str) -> Result<usize, String> {
    let s = s.trim();
    let (num, mult) = match s.char_indices().last() {
        Some((i, 'k' | 'K')) => (&s[..i], 1usize << 10),
        Some((i, 'm' | 'M')) => (&s[..i], 1 << 20),
        Some((i, 'g' | 'G')) => (&s[..i], 1 << 30),
        _ => (s, 1),
    };
    let n: usize = num
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a size (examples: 1000000, 512K, 64M)"))?;
    if n == 0 {
        return Err("the limit must be at least 1 byte".into());
    }
    n.checked_mul(mult)
        .ok_or_else(|| format!("`{s}` is too large"))
}

/// Everything the run needs, decided once.
#[derive(Clone, Debug)]
pub struct Options {
    /// Inputs, in order.
    pub sources: Vec<Source>,
    /// Output format.
    pub format: Format,
    /// How much to show (pretty format).
    pub verbosity: Verbosity,
    /// Colour on stdout.
    pub color_stdout: bool,
    /// Colour on stderr.
    pub color_stderr: bool,
    /// Mirror errors and denials to stderr (stdout is not a terminal).
    pub mirror_errors: bool,
    /// The producer forced with `--from` (`None`: detect).
    pub from: Option<Producer>,
    /// `--follow` the (single) file.
    pub follow: bool,
    /// Line length limit.
    pub max_line_bytes: usize,
    /// Lines of tool output to show.
    pub max_lines: usize,
}

/// The environment variables and terminal facts `resolve` depends on.
#[derive(Clone, Debug, Default)]
pub struct Env {
    /// `NO_COLOR`
    pub no_color: Option<OsString>,
    /// `CLICOLOR_FORCE`
    pub clicolor_force: Option<OsString>,
    /// `STREAMVIEW_VERBOSE`
    pub verbose: Option<OsString>,
    /// `STREAMVIEW_QUIET`
    pub quiet: Option<OsString>,
    /// stdout is a terminal
    pub stdout_tty: bool,
    /// stderr is a terminal
    pub stderr_tty: bool,
}

impl Env {
    /// Read the real environment and terminals.
    #[must_use]
    pub fn from_process() -> Env {
        Env {
            no_color: std::env::var_os("NO_COLOR"),
            clicolor_force: std::env::var_os("CLICOLOR_FORCE"),
            verbose: std::env::var_os("STREAMVIEW_VERBOSE"),
            quiet: std::env::var_os("STREAMVIEW_QUIET"),
            stdout_tty: std::io::stdout().is_terminal(),
            stderr_tty: std::io::stderr().is_terminal(),
        }
    }
}

fn truthy(v: Option<&OsString>) -> bool {
    v.is_some_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// Decide the options from the command line and the environment.
#[must_use]
pub fn resolve(cli: &Cli, env: &Env) -> Options {
    let verbosity = if cli.quiet {
        Verbosity::Quiet
    } else if cli.verbose {
        Verbosity::Verbose
    } else if truthy(env.quiet.as_ref()) {
        Verbosity::Quiet
    } else if truthy(env.verbose.as_ref()) {
        Verbosity::Verbose
    } else {
        Verbosity::Normal
    };
    let no_color = env.no_color.as_ref().is_some_and(|v| !v.is_empty());
    let force = truthy(env.clicolor_force.as_ref());
    let auto = |tty: bool| force || (tty && !no_color);
    let (color_stdout, color_stderr) = match cli.color {
        ColorWhen::Always => (true, true),
        ColorWhen::Never => (false, false),
        ColorWhen::Auto => (auto(env.stdout_tty), auto(env.stderr_tty)),
    };
    let sources = if cli.files.is_empty() {
        vec![Source::Stdin]
    } else {
        cli.files.iter().map(|f| Source::from_arg(f)).collect()
    };
    Options {
        sources,
        format: cli.format,
        verbosity,
        // JSONL is data: never coloured.
        color_stdout: color_stdout && cli.format == Format::Pretty,
        color_stderr,
        mirror_errors: !env.stdout_tty,
        from: cli.from.producer(),
        follow: cli.follow,
        max_line_bytes: cli.max_line_bytes,
        max_lines: cli.max_lines,
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            sources: vec![Source::Stdin],
            format: Format::Pretty,
            verbosity: Verbosity::Normal,
            color_stdout: false,
            color_stderr: false,
            mirror_errors: false,
            from: None,
            follow: false,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            max_lines: 10,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cli(args: &[&str]) -> Cli {
        Cli::try_parse_from(std::iter::once("streamview").chain(args.iter().copied())).unwrap()
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("100"), Ok(100));
        assert_eq!(parse_size("64M"), Ok(64 << 20));
        assert_eq!(parse_size("2k"), Ok(2048));
        assert!(parse_size("0").is_err());
        assert!(parse_size("lots").is_err());
    }

    #[test]
    fn flag_beats_environment() {
        let env = Env {
            verbose: Some("1".into()),
            ..Env::default()
        };
        assert_eq!(resolve(&cli(&[]), &env).verbosity, Verbosity::Verbose);
        assert_eq!(resolve(&cli(&["-q"]), &env).verbosity, Verbosity::Quiet);
        let env = Env {
            quiet: Some("1".into()),
            ..Env::default()
        };
        assert_eq!(resolve(&cli(&["-v"]), &env).verbosity, Verbosity::Verbose);
        assert_eq!(resolve(&cli(&[]), &env).verbosity, Verbosity::Quiet);
        let env = Env {
            quiet: Some("0".into()),
            ..Env::default()
        };
        assert_eq!(resolve(&cli(&[]), &env).verbosity, Verbosity::Normal);
    }

    #[test]
    fn colour_decisions() {
        let tty = Env {
            stdout_tty: true,
            stderr_tty: true,
            ..Env::default()
        };
        assert!(resolve(&cli(&[]), &tty).color_stdout);
        let no = Env {
            no_color: Some("1".into()),
            ..tty.clone()
        };
        assert!(!resolve(&cli(&[]), &no).color_stdout);
        assert!(resolve(&cli(&["--color", "always"]), &no).color_stdout);
        let pipe = Env::default();
        assert!(!resolve(&cli(&[]), &pipe).color_stdout);
        let forced = Env {
            clicolor_force: Some("1".into()),
            ..Env::default()
        };
        assert!(resolve(&cli(&[]), &forced).color_stdout);
        assert!(!resolve(&cli(&["--color", "never"]), &forced).color_stdout);
        assert!(!resolve(&cli(&["--format", "jsonl", "--color", "always"]), &tty).color_stdout);
    }

    #[test]
    fn mirror_only_off_terminal() {
        assert!(resolve(&cli(&[]), &Env::default()).mirror_errors);
        let tty = Env {
            stdout_tty: true,
            ..Env::default()
        };
        assert!(!resolve(&cli(&[]), &tty).mirror_errors);
    }

    #[test]
    fn verbose_and_quiet_conflict() {
        assert!(Cli::try_parse_from(["streamview", "-v", "-q"]).is_err());
    }
}
