//! The command line: what the user typed ([`Cli`]) and what was decided from
//! it ([`Options`]). The only module that reads the environment or asks
//! whether a stream is a terminal.

use std::ffi::OsString;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Parser, ValueEnum};

mod command;
pub mod config;
pub mod homes;
mod live;
mod man;
mod pager;

pub use command::{Command, Refusal, command};
pub use config::{ArgsError, parse_args};
pub use pager::Pager;

use crate::error::ExitStatus;
use crate::event::Producer;
use crate::filter::grep::{Grep, Listing};
use crate::filter::{Filter, Kind};
use crate::input::Source;
use crate::render::theme::{BUILT_IN, Depth, Theme};
use crate::render::{Alerts, Verbosity};
use crate::run::DEFAULT_MAX_LINE_BYTES;
use crate::session::group::By;
use crate::time::Timestamp;
use crate::time::window::{End, When, Window};
use crate::time::zone::Zone;

/// One example of the long help and the man page: what it does, the command.
pub struct Example {
    /// What the command does.
    pub what: &'static str,
    /// The command line.
    pub command: &'static str,
}

/// The examples of `--help` and the man page.
pub const EXAMPLES: &[Example] = &[
    Example {
        what: "Watch a live Claude Code session",
        command: "claude -p \"fix the tests\" --output-format stream-json --verbose | streamview",
    },
    Example {
        what: "A shell function that does it every time",
        command: "cc() { claude -p \"$*\" --output-format stream-json --verbose | streamview; }",
    },
    Example {
        what: "Other agents (detected from their first line)",
        command: "codex exec --json \"fix the tests\" | streamview",
    },
    Example {
        what: "Replay a saved session, with tool results and thinking",
        command: "streamview -v session.jsonl",
    },
    Example {
        what: "Only the tool calls and what went wrong",
        command: "streamview --only tools,errors,denials session.jsonl",
    },
    Example {
        what: "Only the calls of MCP tools",
        command: "streamview --only tools --tool 'mcp__*' session.jsonl",
    },
    Example {
        what: "Only the shell commands and file edits, whatever the agent calls its tools",
        command: "streamview --only tools,errors --tool-kind shell,edit session.jsonl",
    },
    Example {
        what: "The final answer in a variable; the exit status tells whether the session succeeded",
        command: "answer=$(claude -p \"…\" --output-format stream-json --verbose | streamview --format result)",
    },
    Example {
        what: "What Claude Code did in the last two hours, across all its saved sessions",
        command: "streamview --since 2h ~/.claude/projects",
    },
    Example {
        what: "Totals of a folder of logs: per session, per tool, per model",
        command: "streamview --format summary logs/*.jsonl",
    },
    Example {
        what: "Tool calls by name (jq)",
        command: "streamview --format jsonl session.jsonl | jq -r 'select(.kind==\"tool_call\") | .name' | sort | uniq -c",
    },
    Example {
        what: "Failed shell commands, whichever agent ran them (jq)",
        command: "streamview --format jsonl session.jsonl | jq -rs 'INDEX(.[] | select(.kind==\"tool_call\"); .id) as $c | .[] | select(.kind==\"tool_result\" and .is_error and .tool_kind==\"shell\") | $c[.id].key_arg'",
    },
    Example {
        what: "Tool calls by name (DuckDB)",
        command: "streamview --format jsonl session.jsonl | duckdb -c \"SELECT name, count(*) AS calls FROM read_json_auto('/dev/stdin') WHERE kind = 'tool_call' GROUP BY name ORDER BY calls DESC, name\"",
    },
    Example {
        what: "Watch an agent started in the background with its output going to a file",
        command: "claude -p \"…\" --output-format stream-json --verbose > session.jsonl & streamview -f session.jsonl",
    },
    Example {
        what: "Keep a log and the errors apart",
        command: "claude -p \"…\" --output-format stream-json --verbose | streamview > run.log 2> errors.log",
    },
];

/// The environment variables, for the long help and the man page.
pub const ENVIRONMENT: &[(&str, &str)] = &[
    (
        "STREAMVIEW_VERBOSE",
        "set to 1: like -v (a -v or -q on the command line wins over it, and it over the configuration file)",
    ),
    (
        "STREAMVIEW_QUIET",
        "set to 1: like -q (a -v or -q on the command line wins over it, and it over the configuration file)",
    ),
    (
        "STREAMVIEW_CONFIG",
        "the configuration file of default options (see --no-config); unset: $XDG_CONFIG_HOME/streamview/config, else ~/.config/streamview/config; empty: none",
    ),
    (
        "STREAMVIEW_CACHE_DIR",
        "where a report keeps its index of a library's sessions (see --no-cache); unset: $XDG_CACHE_HOME/streamview, else ~/.cache/streamview",
    ),
    (
        "STREAMVIEW_PAGER",
        "the pager of --paging (split at spaces, no shell), used as given",
    ),
    (
        "PAGER",
        "the pager when STREAMVIEW_PAGER is unset (`less` gets -R, for the colours); neither: less -RFX",
    ),
    (
        "TZ",
        "the time zone of the dates and times --since and --until are given without an offset (`Europe/Paris`, `UTC`, `CET-1`); unset: /etc/localtime; unreadable: UTC",
    ),
    (
        "NO_COLOR",
        "non-empty: no colour with --color auto (https://no-color.org)",
    ),
    (
        "CLICOLOR_FORCE",
        "non-empty and not 0: colour with --color auto even when the output is not a terminal (wins over NO_COLOR)",
    ),
];

/// What the long help says after the options: examples, exit statuses,
/// environment (the man page has them as sections of their own).
#[must_use]
pub fn long_help_tail() -> String {
    let mut s = String::from("Examples:\n");
    for e in EXAMPLES {
        s.push_str(&format!("  {}:\n    {}\n\n", e.what, e.command));
    }
    s.push_str("Exit status:\n");
    for status in ExitStatus::ALL {
        s.push_str(&format!("  {}  {}\n", status.code(), status.meaning()));
    }
    s.push_str(
        "  With several sessions the worst status wins (3 > 1 > 0; 2 over all). Filters never change it.\n  With --grep, as grep: 0 something matched, 1 nothing did, 2 an error.\n  With --since/--until, only the events in the window count: nothing in it is 1.\n",
    );
    s.push_str("\nEnvironment:\n");
    for (var, what) in ENVIRONMENT {
        s.push_str(&format!("  {var:<20}{what}\n"));
    }
    s.push_str("\nThe JSONL schema: docs/schema.md; the man page: man streamview (or man -l man/streamview.1).");
    s
}

/// The arguments `-h` shows (the ones people use most), each with its
/// help in one line; `--help` shows every option with its whole help.
const SHORT_HELP: &[(&str, &str)] = &[
    (
        "files",
        "Files, or folders of saved sessions; none or `-`: standard input",
    ),
    (
        "follow",
        "Follow a file still being written, like `tail -f`",
    ),
    ("format", "Output format (default: pretty)"),
    (
        "verbose",
        "Show more: tool results, thinking, session details",
    ),
    (
        "quiet",
        "Nothing on stdout; errors and denials still on stderr",
    ),
    (
        "tools",
        "Only the calls of the tools NAME matches (`*`, `?`)",
    ),
    (
        "grep",
        "Show only the events that match PATTERN, one line each",
    ),
    (
        "since",
        "Only what happened since WHEN (2h, 3d, today, 2026-11-24)",
    ),
    ("by", "A table of the totals by KEY"),
    (
        "latest",
        "Replay the saved session that began last (=N: the N latest)",
    ),
    ("list", "List the saved sessions, one line each"),
];

/// What `-h` says after its options: the common tasks, one example each.
const SHORT_HELP_TAIL: &str = "\
Common tasks:
  Watch a live Claude Code session:
    claude -p \"fix the tests\" --output-format stream-json --verbose | streamview
  streamview --latest -v               the last session, tool results too
  streamview --by day                  what this machine's agents cost, by day
  streamview --list                    the saved sessions, to replay one
  streamview --only tools,errors FILE  only the calls and what went wrong
  streamview --grep 'npm test' DIR     the events that say `npm test`
  streamview --format jsonl FILE | jq  one JSON event per line, for jq

--help for every option, the examples, exit statuses and environment variables.";

/// An argument as `-h` shows it ([`SHORT_HELP`]): its help cut to one
/// line, or hidden; `--help` shows its whole help as before.
fn short_help(a: clap::Arg) -> clap::Arg {
    match SHORT_HELP.iter().find(|(id, _)| a.get_id() == *id) {
        Some((_, short)) => {
            let long = a.get_long_help().or(a.get_help()).cloned();
            let a = a.help(*short);
            match long {
                Some(l) => a.long_help(l),
                None => a,
            }
        }
        None => a.hide_short_help(true),
    }
}

/// Output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Human-readable progress lines.
    Pretty,
    /// One normalized JSON event per line (schema: docs/schema.md).
    Jsonl,
    /// Only the final answer: the text of each session's last successful result.
    Result,
    /// Only the summary tables: per session, per tool, per model.
    Summary,
    /// Only the summary, as one JSON object on one line.
    SummaryJson,
    /// The session as Markdown, for a pull request or an issue.
    Markdown,
    /// The session as one self-contained HTML page (no network request), with a filter bar.
    Html,
    /// OpenTelemetry OTLP/JSON: one export request per line, for a collector (docs/otlp.md).
    Otlp,
}

/// What `--generate` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Generate {
    /// The man page (roff), as in `man/streamview.1`.
    Man,
    /// Bash completions.
    Bash,
    /// Zsh completions.
    Zsh,
    /// Fish completions.
    Fish,
    /// Elvish completions.
    Elvish,
    /// `PowerShell` completions.
    Powershell,
}

impl Generate {
    /// Every kind, in the order of `completions/`.
    pub const ALL: [Generate; 6] = [
        Generate::Man,
        Generate::Bash,
        Generate::Zsh,
        Generate::Fish,
        Generate::Elvish,
        Generate::Powershell,
    ];

    /// Where the generated file is checked in, relative to the repository.
    #[must_use]
    pub fn path(self) -> &'static str {
        match self {
            Generate::Man => "man/streamview.1",
            Generate::Bash => "completions/streamview.bash",
            Generate::Zsh => "completions/_streamview",
            Generate::Fish => "completions/streamview.fish",
            Generate::Elvish => "completions/streamview.elv",
            Generate::Powershell => "completions/_streamview.ps1",
        }
    }
}

/// The man page or a shell's completions, generated from the clap
/// definition of [`Cli`]; these are the files checked into `man/` and
/// `completions/` (`tests/generated.rs` keeps them current).
#[must_use]
pub fn generate(kind: Generate) -> Vec<u8> {
    use clap::CommandFactory;
    use clap_complete::Shell;
    let mut cmd = Cli::command();
    let shell = match kind {
        // Every option, each with its whole help (`-h` hides most).
        Generate::Man => return man::render(cmd.mut_args(|a| a.hide_short_help(false))),
        Generate::Bash => Shell::Bash,
        Generate::Zsh => Shell::Zsh,
        Generate::Fish => Shell::Fish,
        Generate::Elvish => Shell::Elvish,
        Generate::Powershell => Shell::PowerShell,
    };
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "streamview", &mut out);
    out
}

/// The value of `--from`: `auto` or a producer, named and described by
/// the producer registry (so a new producer needs no line here).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProducerArg(pub Option<Producer>);

/// `auto`, then every producer in the documented order.
const PRODUCER_ARGS: [ProducerArg; Producer::ALL.len() + 1] = {
    let mut args = [ProducerArg(None); Producer::ALL.len() + 1];
    let mut i = 0;
    while i < Producer::ALL.len() {
        args[i + 1] = ProducerArg(Some(Producer::ALL[i]));
        i += 1;
    }
    args
};

impl ValueEnum for ProducerArg {
    fn value_variants<'a>() -> &'a [Self] {
        &PRODUCER_ARGS
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(match self.0 {
            None => clap::builder::PossibleValue::new("auto").help("Detect it"),
            Some(p) => clap::builder::PossibleValue::new(p.name()).help(p.invocation()),
        })
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

/// When to send the output through a pager.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Paging {
    /// For a replay on a terminal: stdout is one, every FILE is a regular file, the format is
    /// pretty or summary.
    Auto,
    /// Always, whatever the input and the output.
    Always,
    /// Never.
    Never,
}

/// Where tool errors and denials are copied besides the output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ErrorsTo {
    /// Pretty: copied to stderr when stdout is a file (not a terminal, not a pipe: the pipe
    /// carries them). Result: stderr says why a session failed, its denials, and the tool
    /// errors as a count. Summary: only a failed session's reason (the tables count the rest).
    Auto,
    /// Every tool error, denial and failure is also written to stderr, in every format.
    Stderr,
    /// Nothing is copied to stderr (they stay in the output you chose).
    Never,
}

/// Live viewer and normalizer for the event streams of AI coding agents.
///
/// Reads the newline-delimited JSON that coding agents print when they run headless (Claude Code
/// `-p --output-format stream-json --verbose` and its saved transcripts, Codex `exec --json`, Gemini
/// CLI, OpenCode, Qwen Code, Amp, Cursor Agent) and shows what the agent is doing: its text, every
/// tool call with its key argument, tool errors and permission denials (never hidden), sub-agent
/// activity and the session's cost, tokens, turns and duration. `--format jsonl` writes one
/// normalized schema for every agent instead. The exit status tells how the session ended.
///
/// Reads the FILEs in order, or standard input when none is given or for `-`. The producer is
/// detected per input from its first recognisable line.
#[allow(clippy::doc_markdown)] // the doc comment is the --help text: no code markup
#[derive(Debug, Parser)]
#[command(
    name = "streamview",
    version,
    // An alias's options can be given again: the last one wins (as in
    // ripgrep, bat, jq); list options (`--only`, `--hide`, `--tool`) add up.
    args_override_self = true,
    after_long_help = long_help_tail(),
    after_help = SHORT_HELP_TAIL,
    mut_args = short_help,
)]
pub struct Cli {
    /// Files to read, in order; `-` or none means standard input. A directory is read as a
    /// library of saved sessions: the *.jsonl files below it, in the order they began.
    #[arg(value_name = "FILE")]
    pub files: Vec<OsString>,

    /// Follow a log file that is still being written, like `tail -f` from its start.
    ///
    /// Waits for new lines at the end of the file and stops by itself once the session's
    /// final result has arrived and the file stays quiet for 1.5 s (or on Ctrl-C). Handles the
    /// file being truncated or replaced. With several FILEs, each is followed at once, every
    /// line started with the file's name (`[api]` for api.jsonl) in a colour of its own, each
    /// line written whole; it ends when every session has.
    ///
    /// With --by, the report is made again as the sessions grow (of the FILEs or directories,
    /// else of every agent's store), redrawn in place on a terminal, printed again when it changes
    /// elsewhere, until Ctrl-C: `streamview --by block -f` keeps the open block's cost, burn rate
    /// and time left in view.
    #[arg(short, long)]
    pub follow: bool,

    /// Show only the events whose words match PATTERN (a regular expression): text, tool calls
    /// and their key arguments, tool output, errors. One line per match, `FILE:LINE:SESSION:`
    /// first, as ripgrep writes them (JSONL events with --format jsonl). Status 0 when
    /// something matched, 1 when nothing did, 2 on an error.
    #[arg(long, value_name = "PATTERN")]
    pub grep: Option<String>,

    /// Estimate costs with the prices in FILE, added to the bundled table or replacing its
    /// models of the same name ($STREAMVIEW_PRICES when not given).
    ///
    /// Logs that report no cost (transcripts, Codex, Gemini, OpenCode) get one estimated from
    /// their tokens, marked `~` (JSONL: `cost_usd_estimated`). FILE is LiteLLM's price database
    /// as it is (model_prices_and_context_window.json), or the bundled table's shape, USD per
    /// million tokens: {"as_of": "2026-11-24", "models": {"gpt-5.5": {"input": 2, "output":
    /// 16, "cache_read": 0.2}}}.
    #[arg(long, value_name = "FILE")]
    pub prices: Option<std::path::PathBuf>,

    /// Add to the summary a table of the totals by day, week or month (local time: --tz; each
    /// API message when it was answered, as ccusage counts), by session id, project (working
    /// directory), model or agent, or by Claude's 5-hour usage blocks.
    ///
    /// Without --format, only that table and its total are printed (as `ccusage daily`); with
    /// --format summary, summary-json (`by`), --summary and the Markdown and HTML reports, it
    /// is added to their tables: sessions, tokens, cost (reported or estimated), calls and
    /// errors per group; every session counts, also those beyond the 1000 the table lists. A
    /// format that shows no summary (pretty, jsonl, result without --summary; -q; --grep) is
    /// a usage error.
    #[arg(long, value_enum, value_name = "KEY")]
    pub by: Option<By>,

    /// The time zone of --by's days, weeks, months and blocks and of --since and --until
    /// (default: $TZ, else the system's): a name (Europe/Paris), UTC, or a POSIX offset
    /// (CET-1).
    #[arg(long, visible_alias = "timezone", value_name = "ZONE", value_parser = Zone::named)]
    pub tz: Option<Zone>,

    /// With --grep: match letters in either case.
    #[arg(short = 'i', long)]
    pub ignore_case: bool,

    /// With --grep: show N events before and after each match (`FILE-LINE-SESSION-` first), as
    /// grep -C; groups apart are separated by `--`. Every line is then read.
    #[arg(short = 'C', long, value_name = "N")]
    pub context: Option<usize>,

    /// With --grep: print only the names of the files with a match, as grep -l (a match in a
    /// sub-agent's file names that file).
    #[arg(short = 'l', long)]
    pub files_with_matches: bool,

    /// With --grep: print each file with a match and the number of events matched in it,
    /// `FILE:COUNT`, as grep -c (a sub-agent's file on its own line).
    #[arg(short = 'c', long)]
    pub count: bool,

    /// Replay the most recent session below the directories given (default: Claude Code's
    /// projects folder, ~/.claude/projects or $CLAUDE_CONFIG_DIR/projects; with `--from codex`,
    /// ~/.codex/sessions or $CODEX_HOME/sessions; with `--from gemini`, ~/.gemini/tmp or
    /// $GEMINI_CLI_HOME/.gemini/tmp; with `--from qwen`, `copilot`, `droid`, `pi`, `cline`,
    /// `opencode` or `kilo`, where each keeps them): the one that began last (as --list orders
    /// them; not the file touched last), its sub-agents with it. With -f, follow it (and with no
    /// session yet, wait for the first one). `--latest=N`: the N latest, read in the order
    /// they began (with --list, listed; with -f, followed together, each line labelled).
    #[arg(
        long,
        value_name = "N",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "1",
        value_parser = clap::value_parser!(u16).range(1..)
    )]
    pub latest: Option<u16>,

    /// List the sessions found, newest first, one line each: when each started, its agent,
    /// project and title (its first prompt), turns, cost, outcome and file, to find the one to
    /// replay; with --format jsonl, one JSON object per session (summary-json's rows).
    #[arg(long)]
    pub list: bool,

    /// Only the sessions whose project (the agent's working directory) contains PATTERN, for
    /// every agent: in a directory of sessions and with --latest, the others are not read.
    /// A session whose first lines name no working directory is left out.
    #[arg(long, value_name = "PATTERN")]
    pub project: Option<String>,

    /// Read the saved sessions of every agent found on this machine, each where its own
    /// variables put them (Claude Code, Codex, Gemini CLI, Qwen Code, Copilot CLI, Droid, Pi,
    /// Cline, OpenCode, Kilo):
    /// `streamview --all-agents --by day` totals them by day. A report (--by, --list,
    /// --format summary or summary-json) given no input, with a terminal on standard input,
    /// reads them too: `streamview --by day`.
    #[arg(long, conflicts_with_all = ["files", "latest", "follow"])]
    pub all_agents: bool,

    /// Print Claude Code's status line: read the JSON Claude Code gives a status-line command
    /// on standard input and print one line: the model, this session's cost, today's cost over
    /// every agent, Claude's open 5-hour block (cost, time left, burn rate), the context and
    /// rate limits used. Saved sessions are read as --all-agents reads them (or in the FILEs),
    /// through the index; always exit 0. In ~/.claude/settings.json:
    /// {"statusLine":{"type":"command","command":"streamview --statusline"}}
    #[arg(long, conflicts_with_all = [
        "latest", "follow", "list", "grep", "by", "format", "summary", "all_agents", "since",
        "until", "project",
    ])]
    pub statusline: bool,

    /// Show a live board of every agent session being written now (changed in the last 10
    /// minutes, in every agent's store, or below the FILEs): per session its agent, project,
    /// model, the call in progress with its key argument (else what it did last), the time
    /// since its last event, turns, tokens and cost; how it ended, greyed for a minute.
    /// q, Esc or Ctrl-C quits. Without a terminal, one snapshot.
    #[arg(long, conflicts_with_all = [
        "statusline", "latest", "follow", "list", "grep", "by", "format", "summary",
        "all_agents", "since", "until", "project",
    ])]
    pub top: bool,

    /// Output format [default: pretty; with --by, the grouped table alone].
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<Format>,

    /// With --format otlp: put prompts, tool inputs and tool outputs in the spans too.
    ///
    /// Left out by default: they can hold secrets. Each is cut to 64 KiB.
    #[arg(long)]
    pub otlp_content: bool,

    /// With --format otlp: leave out the host name and the working directory.
    #[arg(long)]
    pub otlp_anonymous: bool,

    /// Show more: tool results, thinking, usage per response, every system event, session details.
    ///
    /// There is no level above it (`-vv` is `-v`). The last of `-v` and `-q` wins.
    #[arg(short, long, overrides_with = "quiet")]
    pub verbose: bool,

    /// Show nothing on stdout; errors and permission denials still go to stderr.
    ///
    /// The exit status still tells how the session ended. The last of `-v` and `-q` wins.
    #[arg(short, long, overrides_with = "verbose")]
    pub quiet: bool,

    /// Add the summary tables at the end: per session, per tool, per model.
    ///
    /// On stdout in the pretty format; on stderr when stdout carries data (jsonl, result) or
    /// nothing (-q). `--format summary` prints only the tables, `--format summary-json` the same
    /// as JSON.
    #[arg(long)]
    pub summary: bool,

    /// When to use colour.
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto, value_name = "WHEN")]
    pub color: ColorWhen,

    /// Start every output line with `[NAME] `, in a colour of its own; JSONL events get
    /// `"label": "NAME"`.
    ///
    /// For several agents watched in one terminal: `a | streamview --label api & b |
    /// streamview --label web`. A labelled run writes whole lines only, each in one `write`
    /// (several lines in one while they fit in PIPE_BUF, 4096 bytes on Linux), so two
    /// processes writing to one terminal or pipe never cut each other's lines; a line being
    /// streamed shows once it ends. The pretty view, --format result and summary, the status
    /// line and the errors on stderr are labelled. With several files followed (-f A B …),
    /// one --label goes before each file's name (`[NAME/api]`), and one --label per file,
    /// in order, names each (`--label api --label web -f a.jsonl b.jsonl`).
    #[arg(long, value_name = "NAME", value_parser = parse_label, action = clap::ArgAction::Append)]
    pub label: Vec<String>,

    /// The colours of the pretty output: default, light (for light backgrounds), contrast
    /// (high contrast), mono (no colour, the same symbols), or a theme FILE of your own.
    ///
    /// A theme file holds one `role = colour attributes` a line (`tool = #ff8700 bold`,
    /// `key = 244 italic`, `error = bright-red underline`; `base = light` to start from a
    /// built-in; `#` starts a comment). The roles: header, text, thinking, tool, key (a tool's
    /// key argument), result (a tool's output), success, error, warning, denial, dim, gutter
    /// (a sub-agent's bars), cost, added, removed, label. A colour is a name (red,
    /// bright-red…), 0 to 255, or #rrggbb; attributes are bold, dim, italic, underline. A
    /// FILE is named by a path with a `/` (`~/` is your home), usually in the configuration
    /// file. 24-bit colours are shown as they are when $COLORTERM is truecolor or 24bit, as
    /// the nearest of 256 on a 256-colour terminal, else as the nearest of 8. --color never and
    /// NO_COLOR still turn every colour off. --list-themes shows them.
    #[arg(long, value_name = "NAME|FILE")]
    pub theme: Option<String>,

    /// Show each built-in theme (and --theme's) on a short sample session, and exit.
    #[arg(long)]
    pub list_themes: bool,

    /// When to show the output through a pager ($STREAMVIEW_PAGER, $PAGER, or less -RFX).
    ///
    /// `auto` pages a replay: stdout is a terminal, every FILE is a regular file (not standard
    /// input, not `-f`, not a FIFO) and the format is for people (pretty, summary). While
    /// paging there is no status line, colour stays as on the terminal, and what would be
    /// written to the terminal's stderr (skipped lines, hidden errors) goes into the pager, in
    /// its place. Quitting the pager ends streamview quietly, like a closed pipe.
    #[arg(long, value_enum, default_value_t = Paging::Auto, value_name = "WHEN")]
    pub paging: Paging,

    /// Where tool errors and denials are copied besides the output (stderr).
    ///
    /// `auto`: in the pretty format they are copied to stderr only when stdout is a file, so
    /// `streamview log > run.log` still shows them, while a pipe (`| less -R`, `| tee`,
    /// `| head`) gets them once, in the stream it carries. `--format result` says on stderr
    /// why a session failed and its denials, and counts the tool errors; `--format summary`
    /// only why a session failed. `-q` always writes them to stderr (unless `never`).
    #[arg(long, value_enum, default_value_t = ErrorsTo::Auto, value_name = "WHERE")]
    pub errors: ErrorsTo,

    /// Show only these kinds of events (comma-separated, repeatable).
    ///
    /// An event is shown when it is of one of the KINDS; `--hide` then removes kinds from
    /// that. Applies to the pretty and JSONL formats. Naming a kind that only -v shows
    /// (prompts, thinking, results, usage) turns -v on. Errors and denials that a filter keeps
    /// off stdout are written to stderr instead (on a terminal, the tool errors counted in one
    /// line at the end; `--errors stderr` lists them): filters decide what goes into the output, never what
    /// you are told. Totals, summaries and the exit status do not change.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        value_name = "KINDS",
        help_heading = "Filters"
    )]
    pub only: Vec<Kind>,

    /// Hide these kinds of events (comma-separated, repeatable; the KINDS of --only).
    ///
    /// `--hide text` keeps the running commentary out but still shows each session's final
    /// text with its result line (hide `final` as well to drop it). Hidden errors and denials
    /// go to stderr (see --only).
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        value_name = "KINDS",
        hide_possible_values = true,
        help_heading = "Filters"
    )]
    pub hide: Vec<Kind>,

    /// Show only the sessions and events since WHEN: a date (2026-11-24), a local time
    /// ("2026-11-24 18:00"), RFC 3339 (2026-11-24T18:00:00Z), or a span back from now (30m, 2h,
    /// 3d, 1w, today, yesterday).
    ///
    /// Dates and times without an offset are in the local time zone ($TZ). An event whose line
    /// gives no time is kept. A session file found below a directory is skipped when it ended
    /// before WHEN (its last timestamp, else the file's modification time). Totals, summaries
    /// and the exit status count only the events shown; nothing in the window is status 1.
    #[arg(long, value_name = "WHEN", value_parser = When::parse, help_heading = "Filters")]
    pub since: Option<When>,

    /// Show only the sessions and events before WHEN (as --since; a date alone means the end
    /// of that day: `--since 2026-11-20 --until 2026-11-24` includes the 24th).
    ///
    /// A session file found below a directory is skipped when it began at or after WHEN.
    #[arg(long, value_name = "WHEN", value_parser = When::parse, help_heading = "Filters")]
    pub until: Option<When>,

    /// Show only the calls of tools whose name matches NAME (repeatable; `*` and `?` wildcards).
    ///
    /// Matches the name as the producer spells it, case included: `Bash`, `mcp__*` (every MCP
    /// tool), `mcp__github__*`; an MCP tool also as the output shows it, `github/*`. Applies to tool calls, their results, errors and denials; other
    /// events are not affected (combine with `--only tools` to see tool calls alone).
    #[arg(long = "tool", value_name = "NAME", help_heading = "Filters")]
    pub tools: Vec<String>,

    /// Show only the calls of tools of these KINDS (comma-separated, repeatable): what a tool
    /// does, whatever the agent calls it.
    ///
    /// `shell` is Claude Code's `Bash`, Codex's `shell`, Gemini CLI's `run_shell_command`,
    /// OpenCode's `bash`, Amp's `shell_command`…; every MCP tool is `mcp`. The kind is JSONL's
    /// `tool_kind`. Applies as --tool does and adds to it: a tool event is shown when its tool
    /// matches a --tool NAME or is of one of the KINDS.
    #[arg(
        long = "tool-kind",
        value_enum,
        value_delimiter = ',',
        value_name = "KINDS",
        help_heading = "Filters"
    )]
    pub tool_kinds: Vec<crate::event::ToolKind>,

    /// Which agent printed the input; `auto` detects it for each input from its first
    /// recognisable line.
    #[arg(long, value_enum, default_value_t = ProducerArg(None), value_name = "PRODUCER", help_heading = "Input")]
    pub from: ProducerArg,

    /// Skip lines longer than this many bytes (suffixes K, M, G), reporting them.
    ///
    /// Memory stays bounded by this limit whatever the input.
    #[arg(long, value_name = "N", default_value = "64M", value_parser = parse_size, help_heading = "Input")]
    pub max_line_bytes: usize,

    /// Read the files of the directories named on N threads (default: one per core).
    ///
    /// The output is the same as with -j1, in the same order: each file of a session library
    /// is read on a thread of its own and what it gives is written in the library's order. For
    /// the pretty view, JSONL, the summaries, --grep and the filters; the reports, --format
    /// result, --follow, the status line and standard input read on one thread. N is at most
    /// 8 per core (more is taken as that many), and the threads the system cannot give are
    /// done without.
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..), help_heading = "Input")]
    pub jobs: Option<u16>,

    /// Read every file of a library: neither read nor write the index.
    ///
    /// A report over a library (--by, --format summary, summary-json, --list) keeps what each
    /// session gave it in an index, and later reports read only the files that changed since.
    /// The index is in $STREAMVIEW_CACHE_DIR, else $XDG_CACHE_HOME/streamview, else
    /// ~/.cache/streamview (made 0700; a directory others can write is not used).
    #[arg(long, help_heading = "Input")]
    pub no_cache: bool,

    /// Do not show the live status line.
    ///
    /// On a terminal, a line at the bottom says what is happening now: the running tool and its
    /// key argument, the time since the last event, the turn, tokens and cost so far. It is
    /// erased before other output and at the end, and never written to a pipe or a file.
    #[arg(long)]
    pub no_status: bool,

    /// Seconds without an event before the status line says it is waiting.
    #[arg(long, value_name = "SECS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    pub status_wait: u64,

    /// Lines of each tool result or error text to show before cutting (verbose shows results).
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub max_lines: usize,

    /// Do not read the configuration file.
    ///
    /// The configuration file holds default options, one per line as on the command line
    /// (`--max-lines 20` or `--max-lines=20`; `#` starts a comment line). It is
    /// $STREAMVIEW_CONFIG, else $XDG_CONFIG_HOME/streamview/config, else
    /// ~/.config/streamview/config. The command line wins over the STREAMVIEW_* variables,
    /// which win over the file; a list option given on the command line (--only, --hide,
    /// --tool) replaces the file's.
    #[arg(long)]
    pub no_config: bool,

    /// Print the man page or a shell's completions and exit.
    #[arg(long, value_enum, value_name = "KIND", hide = true, exclusive = true)]
    pub generate: Option<Generate>,

    /// The `-v` or `-q` of the configuration file: the environment wins
    /// over it (set by [`parse_args`]; `verbose` and `quiet` are the
    /// command line's).
    #[arg(skip)]
    pub config_verbosity: Option<Verbosity>,
}

/// A `--label`: printable text on one line, not too long to precede
/// every line.
fn parse_label(s: &str) -> Result<String, String> {
    if s.trim().is_empty() {
        return Err("a label needs a name to show (`--label api`)".into());
    }
    if s.chars()
        .any(|c| c.is_control() || crate::render::sanitize::is_unsafe(c))
    {
        return Err("a label is printable text on one line, without control characters".into());
    }
    if s.chars().count() > 32 {
        return Err("a label is at most 32 characters: it starts every line".into());
    }
    Ok(s.to_string())
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
    /// Mirror the pretty output's errors and denials to stderr (stdout is
    /// a file, or `--errors stderr`).
    pub mirror_errors: bool,
    /// What the stderr alerts of the other formats say (and of `-q`).
    pub alerts: Alerts,
    /// The errors of calls a filter (`--only`, `--hide`, `--tool`,
    /// `--grep`) does not show are counted in one line at the end, not
    /// listed (`--errors auto`, not `-q`, stdout a terminal).
    pub count_hidden_errors: bool,
    /// The producer forced with `--from` (`None`: detect).
    pub from: Option<Producer>,
    /// `--follow` the (single) file.
    pub follow: bool,
    /// `--latest[=N]`: the sources are directories, and only the N most
    /// recent sessions below them are read.
    pub latest: Option<usize>,
    /// A session chosen by the run itself (`--latest N -f`: one of the N,
    /// followed by a run of its own): read instead of the sources.
    pub session: Option<crate::input::library::Session>,
    /// One of several sources followed at once: the status line they
    /// share, and this one's slot on it.
    pub board: Option<(std::sync::Arc<crate::render::status::Board>, usize)>,
    /// `--project`: only the sessions of a library whose working directory
    /// contains this.
    pub project: Option<String>,
    /// `--grep`: only matching events are shown (and decoded).
    pub grep: Option<Grep>,
    /// What `--grep` prints: the matches (`-C`: with the events around
    /// them), the files (`-l`) or their counts (`-c`).
    pub listing: Listing,
    /// `--since`, `--until`: the events and sessions shown.
    pub window: Window,
    /// The zone local times are said in (`--tz`, `TZ`; UTC when it cannot
    /// be read and no option needs it).
    pub zone: Zone,
    /// `--by`: the groups of the summary, days in the local zone.
    pub by: Option<(By, Zone)>,
    /// `--by` without `--format`: the summary shows the groups' table
    /// alone (and its total).
    pub groups_only: bool,
    /// `--list`: the summary is the list of sessions, newest first.
    pub list: bool,
    /// Threads for the files of a library (`-j`; 1: the calling thread).
    pub jobs: usize,
    /// Where a report keeps its index of a library (`None`: `--no-cache`,
    /// or no home to keep it in; see `crate::index`).
    pub cache: Option<PathBuf>,
    /// Line length limit.
    pub max_line_bytes: usize,
    /// Lines of tool output to show.
    pub max_lines: usize,
    /// What `--only`, `--hide` and `--tool` selected.
    pub filter: Filter,
    /// `--summary`.
    pub summary: bool,
    /// `--format result` makes the text safe for a terminal (stdout is one).
    pub sanitize_result: bool,
    /// Show the live status line: stdout is a terminal that understands
    /// cursor movement, the format is meant for people, not `--no-status`.
    pub status: bool,
    /// Time without an event before the status line says it is waiting.
    pub status_wait: Duration,
    /// Show the progress line of a library read taking more than a second
    /// on stderr, a terminal: a report, `--list` or `--grep`; not `-f`,
    /// `-q` nor `TERM=dumb`.
    pub progress: bool,
    /// Show the output through this pager (`--paging`).
    pub pager: Option<Pager>,
    /// Wrap nested lines and indented bodies at the terminal's width,
    /// keeping their bars (stdout is a terminal).
    pub wrap: bool,
    /// The price table's file (`--prices`, else `$STREAMVIEW_PRICES`);
    /// read by [`load_prices`].
    pub prices_file: Option<std::path::PathBuf>,
    /// The prices costs are estimated with (`None`: the bundled table).
    pub prices: Option<std::sync::Arc<crate::session::Prices>>,
    /// `--label`: the name every output line starts with (and every
    /// JSONL event carries); the output is written in whole lines.
    pub label: Option<crate::render::label::Label>,
    /// `-f` with several files: each one's label, in the order of
    /// `sources` (empty otherwise).
    pub followed: Vec<crate::render::label::Label>,
    /// `--format otlp`: what goes in (`--otlp-content`,
    /// `--otlp-anonymous`, the host, `--label`).
    pub otlp: crate::render::otlp::OtlpOptions,
    /// `--theme`: the colours of the pretty output, resolved for the
    /// terminal.
    pub theme: Theme,
    /// `--statusline`: standard input is Claude Code's status-line JSON,
    /// the sources the library whose ledger the line says
    /// (`cli/live.rs`).
    pub statusline: bool,
    /// `--top`: the board of the sessions being written in the sources.
    pub top: bool,
    /// `--by … -f`: the report made again as the sources grow, redrawn.
    pub redraw: bool,
}

/// The bundled price table with the user's file added (see `--prices`).
///
/// # Errors
/// The file cannot be read or is not a price table: one line saying which
/// and what to do.
pub fn load_prices(path: &std::path::Path) -> Result<crate::session::Prices, String> {
    // LiteLLM's whole table is 3.5 MB today.
    const MAX_BYTES: u64 = 64 << 20;
    let shown = path.display();
    let cannot = |why: String| format!("cannot read the prices in {shown}: {why}");
    let bytes = crate::file::read_small(path, MAX_BYTES)
        .map_err(|e| cannot(crate::file::describe_io(&e)))?;
    let text = String::from_utf8(bytes).map_err(|_| cannot("not UTF-8 text".into()))?;
    let user = crate::session::Prices::parse(&text).map_err(|why| {
        format!("{shown} is not a price table ({why}); fix it, or leave out --prices and $STREAMVIEW_PRICES")
    })?;
    Ok(crate::session::Prices::bundled().with(user))
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
    /// stdin is a terminal
    pub stdin_tty: bool,
    /// stdout is a terminal
    pub stdout_tty: bool,
    /// stdout is a pipe (or a socket): what reads it sees the errors
    pub stdout_pipe: bool,
    /// stderr is a terminal
    pub stderr_tty: bool,
    /// `TERM`
    pub term: Option<OsString>,
    /// `COLORTERM`: `truecolor` or `24bit` for 24-bit colour
    pub colorterm: Option<OsString>,
    /// `STREAMVIEW_PAGER`
    pub pager: Option<OsString>,
    /// `PAGER`
    pub pager_env: Option<OsString>,
    /// Every FILE is a regular file (none is standard input, a FIFO, a
    /// terminal…): the inputs are a replay. Set with [`Env::with_inputs`].
    pub regular_inputs: bool,
    /// `STREAMVIEW_CONFIG`
    pub config: Option<OsString>,
    /// `XDG_CONFIG_HOME`
    pub xdg_config_home: Option<OsString>,
    /// `STREAMVIEW_CACHE_DIR`: where the index is kept
    pub cache_dir: Option<OsString>,
    /// `XDG_CACHE_HOME`
    pub xdg_cache_home: Option<OsString>,
    /// `HOME`
    pub home: Option<OsString>,
    /// The agents' variables that move their stores (`CODEX_HOME`…: those
    /// the registry's stores name)
    pub homes: homes::Homes,
    /// `TZ`: the zone of the times `--since` and `--until` give without
    /// an offset
    pub tz: Option<OsString>,
    /// The time now, for `--since 2h` (`None`: read the clock)
    pub now: Option<Timestamp>,
    /// `STREAMVIEW_PRICES`: a price table's file
    pub prices: Option<OsString>,
    /// Processor cores available (the default of `-j`; 0: unknown, one).
    pub cores: usize,
    /// The host's name, where the system says it (`--format otlp`'s
    /// `host.name`).
    pub host: Option<String>,
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
            stdin_tty: std::io::stdin().is_terminal(),
            stdout_tty: std::io::stdout().is_terminal(),
            stdout_pipe: stdout_is_pipe(),
            stderr_tty: std::io::stderr().is_terminal(),
            term: std::env::var_os("TERM"),
            colorterm: std::env::var_os("COLORTERM"),
            pager: std::env::var_os("STREAMVIEW_PAGER"),
            pager_env: std::env::var_os("PAGER"),
            regular_inputs: false,
            config: std::env::var_os("STREAMVIEW_CONFIG"),
            xdg_config_home: std::env::var_os("XDG_CONFIG_HOME"),
            cache_dir: std::env::var_os("STREAMVIEW_CACHE_DIR"),
            xdg_cache_home: std::env::var_os("XDG_CACHE_HOME"),
            home: std::env::var_os("HOME"),
            homes: homes::Homes::from_process(),
            tz: std::env::var_os("TZ"),
            now: Some(Timestamp::of(std::time::SystemTime::now())),
            prices: std::env::var_os("STREAMVIEW_PRICES"),
            cores: std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
            host: host_name(),
        }
    }

    /// Look at the inputs `cli` names: are they all regular files?
    #[must_use]
    pub fn with_inputs(self, cli: &Cli) -> Env {
        let regular_inputs = !cli.files.is_empty()
            && cli
                .files
                .iter()
                .all(|f| f != "-" && std::fs::metadata(f).is_ok_and(|m| m.is_file() || m.is_dir()));
        Env {
            regular_inputs,
            ..self
        }
    }
}

/// The host's name: the kernel's (Linux), else `HOSTNAME` or
/// `COMPUTERNAME` (Windows); `None` when none says one.
fn host_name() -> Option<String> {
    let kernel = ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .into_iter()
        .find_map(|p| crate::file::read_small(std::path::Path::new(p), 4096).ok())
        .and_then(|b| String::from_utf8(b).ok());
    let named = kernel
        .or_else(|| std::env::var("HOSTNAME").ok())
        .or_else(|| std::env::var("COMPUTERNAME").ok())?;
    let name = named.trim();
    (!name.is_empty()).then(|| name.to_string())
}

fn truthy(v: Option<&OsString>) -> bool {
    v.is_some_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// True when stdout is a pipe or a socket (Unix; elsewhere never).
fn stdout_is_pipe() -> bool {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        use std::os::unix::fs::FileTypeExt;
        let Ok(fd) = std::io::stdout().as_fd().try_clone_to_owned() else {
            return false;
        };
        std::fs::File::from(fd)
            .metadata()
            .is_ok_and(|m| m.file_type().is_fifo() || m.file_type().is_socket())
    }
    #[cfg(not(unix))]
    {
        false
    }
}

/// Decide the options from the command line and the environment.
///
/// # Errors
/// The options cannot be run together or as given ([`Refusal::Usage`]:
/// `--follow` with several files, a `--grep` pattern that is not one,
/// `--by` with a format that shows no summary, an empty `--since` window),
/// or the zone a time needs cannot be read ([`Refusal::Failure`]).
pub fn resolve(cli: &Cli, env: &Env) -> Result<Options, Refusal> {
    let verbosity = verbosity(cli, env);
    let (format, groups_only) = report_format(cli, verbosity)?;
    let (color_stdout, color_stderr) = colors(cli, env);
    let theme = theme(cli, env)?;
    let paging = paging(cli, env, format, verbosity);
    // Read only when a time needs it (the file may be large or not a file).
    let needs_zone =
        cli.since.is_some() || cli.until.is_some() || cli.by.is_some() || cli.statusline;
    let zone = match needs_zone.then(|| zone(cli, env)) {
        Some(z) => z.map_err(Refusal::Failure)?,
        // The tables say when each session began.
        None if has_tables(cli, format) => zone(cli, env).unwrap_or_default(),
        None => Zone::utc(),
    };
    labels(cli)?;
    otlp_options(cli, format)?;
    let opts = Options {
        sources: sources(cli, env)?,
        format,
        verbosity,
        // JSONL is data: never coloured.
        color_stdout: color_stdout && matches!(format, Format::Pretty | Format::Summary),
        color_stderr,
        mirror_errors: match cli.errors {
            // The pager shows them in the stream.
            ErrorsTo::Auto => !paging && !env.stdout_tty && !env.stdout_pipe,
            ErrorsTo::Stderr => true,
            ErrorsTo::Never => false,
        },
        alerts: alerts(cli.errors, verbosity, format),
        // On a terminal; in a pipe or a file, scripts read each.
        count_hidden_errors: cli.errors == ErrorsTo::Auto
            && verbosity != Verbosity::Quiet
            && env.stdout_tty,
        from: cli.from.0.map(|p| {
            if cli.latest.is_some() {
                saved_form(p)
            } else {
                p
            }
        }),
        follow: cli.follow,
        latest: cli.latest.map(usize::from),
        session: None,
        board: None,
        project: cli.project.clone(),
        grep: grep(cli)?,
        listing: listing(cli, format)?,
        window: window(cli, env, &zone)?,
        by: cli.by.map(|b| (b, zone.clone())),
        zone,
        groups_only,
        list: cli.list,
        max_line_bytes: cli.max_line_bytes,
        jobs: jobs(cli.jobs, env.cores),
        cache: (!cli.no_cache)
            .then(|| {
                crate::index::cache_dir(
                    env.cache_dir.as_deref(),
                    env.xdg_cache_home.as_deref(),
                    env.home.as_deref(),
                )
            })
            .flatten(),
        max_lines: cli.max_lines,
        filter: Filter::new(&cli.only, &cli.hide, &cli.tools).with_tool_kinds(&cli.tool_kinds),
        summary: cli.summary,
        sanitize_result: env.stdout_tty,
        status: status_line(cli, env, format, verbosity) && !paging,
        status_wait: Duration::from_secs(cli.status_wait),
        progress: progress_line(cli, env, format, verbosity),
        pager: paging.then(|| Pager::from_env(env)),
        wrap: env.stdout_tty,
        prices_file: (cli.prices.clone())
            .or_else(|| env.prices.clone().filter(|p| !p.is_empty()).map(Into::into)),
        prices: None,
        label: label(cli, format, verbosity, (color_stdout, color_stderr), &theme),
        followed: followed(cli, format, verbosity, (color_stdout, color_stderr), &theme),
        otlp: crate::render::otlp::OtlpOptions {
            content: cli.otlp_content,
            anonymous: cli.otlp_anonymous,
            host: env.host.clone().filter(|_| !cli.otlp_anonymous),
            label: match cli.label.as_slice() {
                [one] => Some(one.clone()),
                _ => None,
            },
        },
        theme,
        statusline: false,
        top: false,
        redraw: false,
    };
    Ok(if cli.statusline {
        live::statusline(cli, env, opts)
    } else if cli.top {
        live::top(cli, env, opts)
    } else if cli.follow && cli.by.is_some() {
        live::redraw(cli, env, opts)
    } else {
        opts
    })
}

/// `--theme`: a built-in theme by its name, or a theme file by its path,
/// for the colours the terminal shows (`COLORTERM`, `TERM`).
fn theme(cli: &Cli, env: &Env) -> Result<Theme, Refusal> {
    let text = |v: &Option<OsString>| v.as_ref().map(|v| v.to_string_lossy().into_owned());
    let depth = Depth::of(text(&env.colorterm).as_deref(), text(&env.term).as_deref());
    let Some(name) = cli.theme.as_deref() else {
        return Ok(Theme::named("default", depth).unwrap_or_default());
    };
    if let Some(t) = Theme::named(name, depth) {
        return Ok(t);
    }
    if !name.contains(['/', std::path::MAIN_SEPARATOR]) {
        let names: Vec<&str> = BUILT_IN.iter().map(|b| b.name).collect();
        return Err(Refusal::usage(
            clap::error::ErrorKind::InvalidValue,
            format!(
                "no theme `{name}`: the built-in themes are {}; a theme file is named by a path \
                 with a `/` (./{name})",
                names.join(", ")
            ),
        ));
    }
    let path = match (name.strip_prefix("~/"), &env.home) {
        (Some(rest), Some(home)) => Path::new(home).join(rest),
        _ => PathBuf::from(name),
    };
    Theme::load(&path, depth).map_err(Refusal::Failure)
}

/// `-f A B …`: a label for each file ([`names_of`](crate::render::label::names_of)),
/// each in a colour of its own; `--latest N -f`: N labels, named when the
/// sessions are found (`drive`).
fn followed(
    cli: &Cli,
    format: Format,
    verbosity: Verbosity,
    colors: (bool, bool),
    theme: &Theme,
) -> Vec<crate::render::label::Label> {
    let names = match cli.latest {
        Some(n) if cli.follow && n > 1 => (1..=n).map(|i| i.to_string()).collect(),
        _ if !cli.follow || cli.files.len() < 2 => return Vec::new(),
        // One per file: each file's own.
        _ if cli.label.len() == cli.files.len() => cli.label.clone(),
        _ => {
            let paths: Vec<&std::path::Path> = cli.files.iter().map(std::path::Path::new).collect();
            let base = cli.label.first().map(String::as_str);
            crate::render::label::names_of(&paths, base)
        }
    };
    (names.into_iter().enumerate())
        .map(|(i, name)| {
            let mut l = labelled(name, cli, format, verbosity, colors, theme);
            l.spec = theme.label_spec_nth(i);
            l
        })
        .collect()
}

/// Several `--label`s name the files followed, one each: refused
/// otherwise.
fn labels(cli: &Cli) -> Result<(), Refusal> {
    let (n, files) = (cli.label.len(), cli.files.len());
    if n < 2 || (cli.follow && cli.latest.is_none() && n == files) {
        return Ok(());
    }
    Err(Refusal::usage(
        clap::error::ErrorKind::ArgumentConflict,
        format!(
            "--label is given {n} times: give one (for every line), or one per file followed with -f ({files} here)"
        ),
    ))
}

/// `--otlp-content` and `--otlp-anonymous` say what `--format otlp`
/// writes: with another format, they are refused.
fn otlp_options(cli: &Cli, format: Format) -> Result<(), Refusal> {
    let given = [
        (cli.otlp_content, "--otlp-content"),
        (cli.otlp_anonymous, "--otlp-anonymous"),
    ];
    match given.iter().find(|(on, _)| *on) {
        Some((_, name)) if format != Format::Otlp => Err(Refusal::usage(
            clap::error::ErrorKind::ArgumentConflict,
            format!("{name} says what --format otlp writes: give --format otlp, or leave it out"),
        )),
        _ => Ok(()),
    }
}

/// `--label`: where its name goes. The formats that print lines for
/// people start each with it; JSONL events carry it as a field, and the
/// reports are documents.
fn label(
    cli: &Cli,
    format: Format,
    verbosity: Verbosity,
    (color_stdout, color_stderr): (bool, bool),
    theme: &Theme,
) -> Option<crate::render::label::Label> {
    // Several: one per followed file (`followed`).
    let [name] = cli.label.as_slice() else {
        return None;
    };
    let name = name.clone();
    Some(labelled(
        name,
        cli,
        format,
        verbosity,
        (color_stdout, color_stderr),
        theme,
    ))
}

/// The label `name`, as `--label` makes it.
fn labelled(
    name: String,
    cli: &Cli,
    format: Format,
    verbosity: Verbosity,
    (color_stdout, color_stderr): (bool, bool),
    theme: &Theme,
) -> crate::render::label::Label {
    let prefixed = verbosity != Verbosity::Quiet
        && (cli.grep.is_some() && format != Format::Jsonl
            || matches!(format, Format::Pretty | Format::Summary | Format::Result));
    crate::render::label::Label {
        prefixed,
        color_stdout: color_stdout && prefixed,
        color_stderr,
        spec: theme.label_spec(&name),
        name,
    }
}

/// The output has a session table: a summary, a report, `--summary`.
fn has_tables(cli: &Cli, format: Format) -> bool {
    cli.summary
        || cli.list
        || matches!(
            format,
            Format::Summary | Format::SummaryJson | Format::Markdown | Format::Html
        )
}

/// `-q`, `-v`, their variables, the configuration file's, in that order.
fn verbosity(cli: &Cli, env: &Env) -> Verbosity {
    if cli.quiet {
        Verbosity::Quiet
    } else if cli.verbose {
        Verbosity::Verbose
    } else if truthy(env.quiet.as_ref()) {
        Verbosity::Quiet
    } else if truthy(env.verbose.as_ref()) {
        Verbosity::Verbose
    } else if let Some(v) = cli.config_verbosity {
        v
    } else if cli.only.iter().any(|k| k.needs_verbose()) {
        // `--only thinking` would otherwise show nothing at all.
        Verbosity::Verbose
    } else {
        Verbosity::Normal
    }
}

/// Colour on stdout and on stderr: `--color`, `NO_COLOR`,
/// `CLICOLOR_FORCE`, the terminals.
fn colors(cli: &Cli, env: &Env) -> (bool, bool) {
    let no_color = env.no_color.as_ref().is_some_and(|v| !v.is_empty());
    let force = truthy(env.clicolor_force.as_ref());
    let auto = |tty: bool| force || (tty && !no_color);
    match cli.color {
        ColorWhen::Always => (true, true),
        ColorWhen::Never => (false, false),
        ColorWhen::Auto => (auto(env.stdout_tty), auto(env.stderr_tty)),
    }
}

/// `--paging`: by default a replay on a terminal, for people to read.
fn paging(cli: &Cli, env: &Env, format: Format, verbosity: Verbosity) -> bool {
    match cli.paging {
        Paging::Always => true,
        Paging::Never => false,
        Paging::Auto => {
            env.stdout_tty
                && env.regular_inputs
                && !cli.follow
                && matches!(format, Format::Pretty | Format::Summary)
                && verbosity != Verbosity::Quiet
        }
    }
}

/// The live status line, unless a pager owns the screen: stdout is a
/// terminal able to erase a line; JSON is data, and quiet means nothing on
/// stdout.
fn status_line(cli: &Cli, env: &Env, format: Format, verbosity: Verbosity) -> bool {
    !cli.no_status
        && env.stdout_tty
        && env.term.as_ref().is_none_or(|t| t != "dumb")
        && matches!(format, Format::Pretty | Format::Summary | Format::Result)
        && verbosity != Verbosity::Quiet
}

/// `-j` threads at most per core: past them a thread adds no speed, only
/// memory (`-j 65535` asked the system for more threads than it gives).
const JOBS_PER_CORE: usize = 8;

/// The threads of `-j` (default: one per core), at most [`JOBS_PER_CORE`]
/// per core (`cores` 0: unknown, one).
fn jobs(asked: Option<u16>, cores: usize) -> usize {
    let cores = cores.max(1);
    asked.map_or(cores, |n| usize::from(n).min(cores * JOBS_PER_CORE))
}

/// The progress line of a long library read: stderr is a terminal able
/// to erase a line, the run writes a report, a list or a search (whose
/// output comes at the end, or in few lines), not a followed file.
fn progress_line(cli: &Cli, env: &Env, format: Format, verbosity: Verbosity) -> bool {
    env.stderr_tty
        && env.term.as_ref().is_none_or(|t| t != "dumb")
        && !cli.follow
        && verbosity != Verbosity::Quiet
        && (cli.grep.is_some()
            || cli.list
            || matches!(
                format,
                Format::Summary | Format::SummaryJson | Format::Markdown | Format::Html
            ))
}

/// Where errors and denials go besides the stream.
fn alerts(errors: ErrorsTo, verbosity: Verbosity, format: Format) -> Alerts {
    match (errors, verbosity, format) {
        (ErrorsTo::Never, ..) => Alerts::Nothing,
        (ErrorsTo::Stderr, ..) | (_, Verbosity::Quiet, _) => Alerts::All,
        (ErrorsTo::Auto, _, Format::Result) => Alerts::Brief,
        (ErrorsTo::Auto, _, Format::Summary | Format::SummaryJson) => Alerts::Counted,
        (ErrorsTo::Auto, ..) => Alerts::All,
    }
}

/// What `--latest --from p` reads the agent's store as: an agent named
/// alone means the form of it that keeps the store (what Codex keeps on
/// disk is a rollout, not the `exec --json` stream `--from codex` names);
/// a form named (`claude-transcript`) is that form.
fn saved_form(p: Producer) -> Producer {
    match p.keeper() {
        Some(keeper) if p.name() == p.agent() => keeper,
        _ => p,
    }
}

/// The inputs: the files named; else with `--latest` the agent's sessions
/// folder; else standard input. `--follow` takes one file.
fn sources(cli: &Cli, env: &Env) -> Result<Vec<Source>, Refusal> {
    if !cli.all_agents && stores_for_a_report(cli, env) {
        let found = homes::found_homes(env);
        if found.is_empty() {
            return Err(Refusal::usage(
                clap::error::ErrorKind::ValueValidation,
                "no input, and no agent's saved sessions in their usual folders: name a log file or a folder, or pipe an agent's stream in",
            ));
        }
        return Ok(found);
    }
    if cli.all_agents {
        let found = homes::found_homes(env);
        if found.is_empty() {
            return Err(Refusal::usage(
                clap::error::ErrorKind::ValueValidation,
                "--all-agents found no agent's saved sessions in their usual folders",
            ));
        }
        return Ok(found);
    }
    Ok(if cli.files.is_empty() && cli.latest.is_some() {
        vec![Source::Path(homes::sessions_home(cli.from.0, env))]
    } else if cli.files.is_empty() {
        vec![Source::Stdin]
    } else {
        cli.files.iter().map(|f| Source::from_arg(f)).collect()
    })
}

/// A report (`--by`, `--list`, the summaries) given no input, with a
/// terminal on standard input: it reads what `--all-agents` reads, as
/// `ccusage daily` does, instead of waiting for events typed there. A pipe
/// on standard input is read as always.
fn stores_for_a_report(cli: &Cli, env: &Env) -> bool {
    env.stdin_tty
        && cli.files.is_empty()
        && cli.latest.is_none()
        && !cli.follow
        && (cli.by.is_some()
            || cli.list
            || matches!(cli.format, Some(Format::Summary | Format::SummaryJson)))
}

/// `--grep`'s pattern: one that cannot be searched for is a usage error.
fn grep(cli: &Cli) -> Result<Option<Grep>, Refusal> {
    let Some(pattern) = cli.grep.as_deref() else {
        return Ok(None);
    };
    Grep::new(pattern, cli.ignore_case)
        .map(Some)
        .map_err(|why| Refusal::usage(clap::error::ErrorKind::ValueValidation, why))
}

/// What `--grep` prints (`-C`, `-l`, `-c`): those options without
/// `--grep`, with `--format jsonl`, or together are refused.
fn listing(cli: &Cli, format: Format) -> Result<Listing, Refusal> {
    let mut given = Vec::new();
    if cli.files_with_matches {
        given.push("-l");
    }
    if cli.count {
        given.push("-c");
    }
    if cli.context.is_some() {
        given.push("-C");
    }
    let Some(first) = given.first() else {
        return Ok(Listing::default());
    };
    let why = if cli.grep.is_none() {
        format!("{first} is an option of --grep: give --grep PATTERN, or leave {first} out")
    } else if format == Format::Jsonl {
        format!(
            "{first} prints matches as lines, and --format jsonl prints events: give one of them"
        )
    } else if let [a, b, ..] = given[..] {
        format!("{a} and {b} print different things: give one of them")
    } else {
        return Ok(if cli.files_with_matches {
            Listing::Files
        } else if cli.count {
            Listing::Counts
        } else {
            Listing::Matches {
                context: cli.context.unwrap_or(0),
            }
        });
    };
    Err(Refusal::usage(
        clap::error::ErrorKind::ArgumentConflict,
        why,
    ))
}

/// The format `cli` asks for: `--by` without `--format` is the summary
/// showing the groups alone (`true`); `--by` with a format that shows no
/// summary is refused, rather than left without effect.
fn report_format(cli: &Cli, verbosity: Verbosity) -> Result<(Format, bool), Refusal> {
    if cli.list {
        return list_format(cli).map(|f| (f, false));
    }
    let Some(by) = cli.by else {
        return Ok((cli.format.unwrap_or(Format::Pretty), false));
    };
    let by = by.name();
    let refused = |why: String| {
        format!(
            "--by {by} adds a table to a summary, and {why}: leave it out, or give --format summary (or no --format: the table alone)"
        )
    };
    let format = cli.format.unwrap_or(Format::Summary);
    let why = if verbosity == Verbosity::Quiet {
        Some("-q prints nothing on stdout".to_string())
    } else if cli.grep.is_some() {
        Some("--grep prints matching events".to_string())
    } else if format == Format::Otlp {
        Some("--format otlp writes no table".to_string())
    } else if matches!(format, Format::Pretty | Format::Jsonl | Format::Result) && !cli.summary {
        let name = format
            .to_possible_value()
            .map_or_else(String::new, |v| v.get_name().to_string());
        Some(format!("--format {name} shows none without --summary"))
    } else {
        None
    };
    match why {
        Some(why) => Err(Refusal::usage(
            clap::error::ErrorKind::ArgumentConflict,
            refused(why),
        )),
        None => Ok((format, cli.format.is_none())),
    }
}

/// `--list`: a table, or JSON lines with `--format jsonl` (or
/// `summary-json`); with an option that prints something else, refused.
fn list_format(cli: &Cli) -> Result<Format, Refusal> {
    let conflict = if cli.by.is_some() {
        Some("--by")
    } else if cli.grep.is_some() {
        Some("--grep")
    } else if cli.follow {
        Some("--follow")
    } else if cli.quiet {
        Some("-q")
    } else {
        None
    };
    if let Some(other) = conflict {
        return Err(Refusal::usage(
            clap::error::ErrorKind::ArgumentConflict,
            format!(
                "--list prints the sessions found, and {other} prints something else: give one of them"
            ),
        ));
    }
    match cli.format {
        None | Some(Format::Summary | Format::Pretty) => Ok(Format::Summary),
        Some(Format::Jsonl | Format::SummaryJson) => Ok(Format::SummaryJson),
        Some(f) => Err(Refusal::usage(
            clap::error::ErrorKind::ArgumentConflict,
            format!(
                "--list prints a table or JSON lines, not --format {}: leave --format out, or give jsonl",
                f.to_possible_value()
                    .map_or_else(String::new, |v| v.get_name().to_string())
            ),
        )),
    }
}

/// The zone of `--tz`, else the one the environment gives.
fn zone(cli: &Cli, env: &Env) -> Result<Zone, String> {
    match &cli.tz {
        Some(z) => Ok(z.clone()),
        None => Zone::from_tz(env.tz.as_deref()),
    }
}

/// The times `--since` and `--until` name, `now` and in `zone`; a window
/// with no time left is a usage error.
fn window(cli: &Cli, env: &Env, zone: &Zone) -> Result<Window, Refusal> {
    if cli.since.is_none() && cli.until.is_none() {
        return Ok(Window::default());
    }
    let now = env
        .now
        .unwrap_or_else(|| Timestamp::of(std::time::SystemTime::now()));
    let window = Window {
        since: cli.since.map(|w| w.at(End::Since, now, zone)),
        until: cli.until.map(|w| w.at(End::Until, now, zone)),
    };
    if window.is_empty() {
        return Err(Refusal::usage(
            clap::error::ErrorKind::ArgumentConflict,
            format!(
                "--since is not before --until ({window}): no time is left; swap them or widen the window"
            ),
        ));
    }
    Ok(window)
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
            alerts: Alerts::All,
            count_hidden_errors: false,
            from: None,
            follow: false,
            latest: None,
            session: None,
            board: None,
            project: None,
            grep: None,
            listing: Listing::default(),
            window: Window::default(),
            zone: Zone::utc(),
            by: None,
            groups_only: false,
            list: false,
            followed: Vec::new(),
            otlp: crate::render::otlp::OtlpOptions::default(),
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            jobs: 1,
            cache: None,
            max_lines: 10,
            filter: Filter::default(),
            summary: false,
            sanitize_result: false,
            status: false,
            status_wait: crate::render::status::DEFAULT_WAIT,
            progress: false,
            pager: None,
            wrap: false,
            prices_file: None,
            prices: None,
            label: None,
            theme: Theme::default(),
            statusline: false,
            top: false,
            redraw: false,
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
    fn since_and_until_read_the_clock_and_zone_given() {
        let env = Env {
            now: Timestamp::parse("2026-11-24T10:30:00Z"),
            tz: Some("CET-1".into()),
            ..Env::default()
        };
        let w = resolve(&cli(&["--since", "2h", "--until", "2026-11-24"]), &env)
            .unwrap()
            .window;
        assert_eq!(w.since, Timestamp::parse("2026-11-24T08:30:00Z"));
        // The end of the 24th in Paris in winter.
        assert_eq!(w.until, Timestamp::parse("2026-11-24T23:00:00Z"));
        let utc = Env {
            tz: Some("UTC".into()),
            ..env.clone()
        };
        let w = resolve(&cli(&["--since", "yesterday"]), &utc)
            .unwrap()
            .window;
        assert_eq!(w.since, Timestamp::parse("2026-11-23T00:00:00Z"));
        assert_eq!(w.until, None);
        assert!(resolve(&cli(&[]), &env).unwrap().window.is_all());
        assert!(Cli::try_parse_from(["streamview", "--since", "soon"]).is_err());
    }

    #[test]
    fn latest_from_codex_reads_rollouts() {
        let from = |args: &[&str]| resolve(&cli(args), &Env::default()).unwrap().from;
        assert_eq!(
            from(&["--latest", "--from", "codex"]),
            Some(Producer::CodexRollout)
        );
        assert_eq!(from(&["--from", "codex", "x.jsonl"]), Some(Producer::Codex));
        assert_eq!(
            from(&["--latest", "--from", "gemini"]),
            Some(Producer::GeminiSession)
        );
        let env = Env {
            home: Some("/h".into()),
            homes: homes::Homes::default().with("GEMINI_CLI_HOME", "/g"),
            ..Env::default()
        };
        let sources = |args: &[&str], env: &Env| resolve(&cli(args), env).unwrap().sources;
        assert!(
            matches!(&sources(&["--latest", "--from", "gemini"], &env)[..],
            [Source::Path(p)] if p == std::path::Path::new("/g/.gemini/tmp"))
        );
        let env = Env {
            homes: homes::Homes::default(),
            ..env
        };
        assert!(
            matches!(&sources(&["--latest", "--from", "gemini"], &env)[..],
            [Source::Path(p)] if p == std::path::Path::new("/h/.gemini/tmp"))
        );
        assert_eq!(
            from(&["--latest", "--from", "claude"]),
            Some(Producer::Claude)
        );
        for (named, read) in [
            ("qwen", Producer::QwenSession),
            ("cline", Producer::ClineSession),
            ("pi", Producer::Pi),
            ("amp", Producer::Amp),
            ("claude-transcript", Producer::ClaudeTranscript),
            ("codex-rollout", Producer::CodexRollout),
        ] {
            assert_eq!(from(&["--latest", "--from", named]), Some(read), "{named}");
        }
        // An agent that keeps no sessions: Claude Code's folder.
        assert!(matches!(&sources(&["--latest", "--from", "amp"], &env)[..],
            [Source::Path(p)] if p == std::path::Path::new("/h/.claude/projects")));
    }

    #[test]
    fn jobs_are_at_most_eight_per_core() {
        let jobs = |args: &[&str], cores: usize| {
            let env = Env {
                cores,
                ..Env::default()
            };
            resolve(&cli(args), &env).unwrap().jobs
        };
        assert_eq!(jobs(&[], 4), 4);
        assert_eq!(jobs(&[], 0), 1);
        assert_eq!(jobs(&["-j", "3"], 2), 3);
        assert_eq!(jobs(&["-j", "16"], 2), 16);
        assert_eq!(jobs(&["-j", "65535"], 2), 16);
        assert_eq!(jobs(&["-j", "65535"], 0), 8);
    }

    #[test]
    fn flag_beats_environment() {
        let env = Env {
            verbose: Some("1".into()),
            ..Env::default()
        };
        assert_eq!(
            resolve(&cli(&[]), &env).unwrap().verbosity,
            Verbosity::Verbose
        );
        assert_eq!(
            resolve(&cli(&["-q"]), &env).unwrap().verbosity,
            Verbosity::Quiet
        );
        let env = Env {
            quiet: Some("1".into()),
            ..Env::default()
        };
        assert_eq!(
            resolve(&cli(&["-v"]), &env).unwrap().verbosity,
            Verbosity::Verbose
        );
        assert_eq!(
            resolve(&cli(&[]), &env).unwrap().verbosity,
            Verbosity::Quiet
        );
        let env = Env {
            quiet: Some("0".into()),
            ..Env::default()
        };
        assert_eq!(
            resolve(&cli(&[]), &env).unwrap().verbosity,
            Verbosity::Normal
        );
    }

    #[test]
    fn colour_decisions() {
        let tty = Env {
            stdout_tty: true,
            stderr_tty: true,
            ..Env::default()
        };
        assert!(resolve(&cli(&[]), &tty).unwrap().color_stdout);
        let no = Env {
            no_color: Some("1".into()),
            ..tty.clone()
        };
        assert!(!resolve(&cli(&[]), &no).unwrap().color_stdout);
        assert!(
            resolve(&cli(&["--color", "always"]), &no)
                .unwrap()
                .color_stdout
        );
        let pipe = Env::default();
        assert!(!resolve(&cli(&[]), &pipe).unwrap().color_stdout);
        let forced = Env {
            clicolor_force: Some("1".into()),
            ..Env::default()
        };
        assert!(resolve(&cli(&[]), &forced).unwrap().color_stdout);
        assert!(
            !resolve(&cli(&["--color", "never"]), &forced)
                .unwrap()
                .color_stdout
        );
        assert!(
            !resolve(&cli(&["--format", "jsonl", "--color", "always"]), &tty)
                .unwrap()
                .color_stdout
        );
    }

    #[test]
    fn mirror_only_off_terminal() {
        assert!(resolve(&cli(&[]), &Env::default()).unwrap().mirror_errors);
        let tty = Env {
            stdout_tty: true,
            ..Env::default()
        };
        assert!(!resolve(&cli(&[]), &tty).unwrap().mirror_errors);
    }

    #[test]
    fn a_report_without_input_at_a_terminal_reads_the_stores() {
        let home = std::env::temp_dir().join(format!("sv-cli-home-{}", std::process::id()));
        std::fs::create_dir_all(home.join(".claude/projects")).unwrap();
        let env = Env {
            stdin_tty: true,
            home: Some(home.clone().into()),
            ..Env::default()
        };
        let projects = Source::Path(home.join(".claude/projects"));
        for args in [&["--by", "day"][..], &["--list"], &["--format", "summary"]] {
            let sources = resolve(&cli(args), &env).unwrap().sources;
            assert_eq!(sources, std::slice::from_ref(&projects), "{args:?}");
        }
        // A pipe on standard input, a view, a file named: as before.
        let piped = Env {
            stdin_tty: false,
            ..env.clone()
        };
        let stdin = |args: &[&str], env: &Env| resolve(&cli(args), env).unwrap().sources;
        assert_eq!(stdin(&["--by", "day"], &piped), [Source::Stdin]);
        assert_eq!(stdin(&[], &env), [Source::Stdin]);
        assert_eq!(stdin(&["--format", "jsonl"], &env), [Source::Stdin]);
        // No store at all: refused in one line that says what to do.
        let bare = Env {
            home: Some("/nonexistent".into()),
            ..env.clone()
        };
        assert!(resolve(&cli(&["--by", "day"]), &bare).is_err());
        let _ = std::fs::remove_dir_all(&home);
    }

    #[test]
    fn status_line_only_on_a_capable_terminal_for_people() {
        let tty = Env {
            stdout_tty: true,
            term: Some("xterm-256color".into()),
            ..Env::default()
        };
        assert!(resolve(&cli(&[]), &tty).unwrap().status);
        assert!(
            resolve(&cli(&["--format", "summary"]), &tty)
                .unwrap()
                .status
        );
        assert!(!resolve(&cli(&["--no-status"]), &tty).unwrap().status);
        assert!(!resolve(&cli(&["--format", "jsonl"]), &tty).unwrap().status);
        assert!(
            !resolve(&cli(&["--format", "summary-json"]), &tty)
                .unwrap()
                .status
        );
        assert!(!resolve(&cli(&["-q"]), &tty).unwrap().status);
        assert!(
            !resolve(&cli(&[]), &Env::default()).unwrap().status,
            "a pipe"
        );
        let dumb = Env {
            term: Some("dumb".into()),
            ..tty.clone()
        };
        assert!(!resolve(&cli(&[]), &dumb).unwrap().status);
        assert_eq!(
            resolve(&cli(&["--status-wait", "5"]), &tty)
                .unwrap()
                .status_wait,
            Duration::from_secs(5)
        );
        assert!(Cli::try_parse_from(["streamview", "--status-wait", "0"]).is_err());
    }

    /// Verbosity: the command line, then `STREAMVIEW_*`, then the
    /// configuration file, then the default.
    #[test]
    fn verbosity_precedence_with_a_configuration_file() {
        let from_file = |v: Verbosity, args: &[&str]| Cli {
            config_verbosity: Some(v),
            ..cli(args)
        };
        let none = Env::default();
        let verbose = Env {
            verbose: Some("1".into()),
            ..Env::default()
        };
        let quiet = Env {
            quiet: Some("1".into()),
            ..Env::default()
        };
        let v = |c: &Cli, e: &Env| resolve(c, e).unwrap().verbosity;
        // STREAMVIEW_VERBOSE
        assert_eq!(
            v(&from_file(Verbosity::Quiet, &[]), &none),
            Verbosity::Quiet
        );
        assert_eq!(
            v(&from_file(Verbosity::Quiet, &[]), &verbose),
            Verbosity::Verbose
        );
        assert_eq!(
            v(&from_file(Verbosity::Quiet, &["-q"]), &verbose),
            Verbosity::Quiet
        );
        // STREAMVIEW_QUIET
        assert_eq!(
            v(&from_file(Verbosity::Verbose, &[]), &none),
            Verbosity::Verbose
        );
        assert_eq!(
            v(&from_file(Verbosity::Verbose, &[]), &quiet),
            Verbosity::Quiet
        );
        assert_eq!(
            v(&from_file(Verbosity::Verbose, &["-v"]), &quiet),
            Verbosity::Verbose
        );
        // A variable set to 0 is unset: the file decides.
        let zero = Env {
            verbose: Some("0".into()),
            ..Env::default()
        };
        assert_eq!(
            v(&from_file(Verbosity::Quiet, &[]), &zero),
            Verbosity::Quiet
        );
        assert_eq!(v(&cli(&[]), &zero), Verbosity::Normal);
    }

    fn replay() -> Env {
        Env {
            stdout_tty: true,
            stderr_tty: true,
            term: Some("xterm-256color".into()),
            regular_inputs: true,
            ..Env::default()
        }
    }

    #[test]
    fn a_progress_line_for_reports_and_searches_on_a_terminals_stderr() {
        let env = replay();
        let progress = |args: &[&str], env: &Env| resolve(&cli(args), env).unwrap().progress;
        assert!(progress(&["--by", "day", "lib"], &env));
        assert!(progress(&["--format", "html", "lib"], &env));
        assert!(progress(&["--grep", "x", "lib"], &env));
        assert!(progress(&["--list", "lib"], &env));
        // The pretty view streams; -q and -f are not reports.
        assert!(!progress(&["lib"], &env));
        assert!(!progress(&["-q", "--grep", "x", "lib"], &env));
        assert!(!progress(&["-f", "--format", "summary", "a.jsonl"], &env));
        let piped = Env {
            stderr_tty: false,
            ..replay()
        };
        assert!(!progress(&["--by", "day", "lib"], &piped));
        let dumb = Env {
            term: Some("dumb".into()),
            ..replay()
        };
        assert!(!progress(&["--by", "day", "lib"], &dumb));
    }

    #[test]
    fn a_replay_on_a_terminal_is_paged() {
        let env = replay();
        let paged = |args: &[&str], env: &Env| resolve(&cli(args), env).unwrap().pager.is_some();
        assert!(paged(&["a.jsonl"], &env));
        assert!(paged(&["--format", "summary", "a.jsonl"], &env));
        assert!(!paged(&["--format", "jsonl", "a.jsonl"], &env));
        assert!(!paged(&["--format", "result", "a.jsonl"], &env));
        assert!(!paged(&["-q", "a.jsonl"], &env));
        assert!(!paged(&["-f", "a.jsonl"], &env));
        assert!(!paged(&["--paging", "never", "a.jsonl"], &env));
        let live = Env {
            regular_inputs: false,
            ..replay()
        };
        assert!(!paged(&[], &live), "standard input, a FIFO");
        assert!(paged(&["--paging", "always"], &live));
        let piped = Env {
            stdout_tty: false,
            stdout_pipe: true,
            ..replay()
        };
        assert!(!paged(&["a.jsonl"], &piped));
        assert!(paged(&["--paging", "always", "--format", "jsonl"], &piped));
        // While paging: no status line, colour as on the terminal, no
        // copies of the errors on stderr.
        let o = resolve(&cli(&["a.jsonl"]), &env).unwrap();
        assert!(!o.status && o.color_stdout && !o.mirror_errors);
        assert!(o.pager.as_ref().is_some_and(|p| p.takes_stderr));
        let o = resolve(&cli(&["--paging", "never", "a.jsonl"]), &env).unwrap();
        assert!(o.status && o.pager.is_none());
        let o = resolve(&cli(&["--paging", "always"]), &Env::default()).unwrap();
        assert!(!o.mirror_errors, "the pager shows them in the stream");
        let err_to_file = Env {
            stderr_tty: false,
            ..replay()
        };
        let o = resolve(&cli(&["a.jsonl"]), &err_to_file).unwrap();
        assert!(
            o.pager.is_some_and(|p| !p.takes_stderr),
            "stderr stays where it goes"
        );
    }

    #[test]
    fn which_pager() {
        let pager = |sv: Option<&str>, pager: Option<&str>| {
            let env = Env {
                pager: sv.map(Into::into),
                pager_env: pager.map(Into::into),
                ..replay()
            };
            let p = resolve(&cli(&["a.jsonl"]), &env).unwrap().pager.unwrap();
            (p.command_line(), p.named_by)
        };
        assert_eq!(pager(None, None), ("less -RFX".into(), None));
        assert_eq!(pager(Some(""), Some("  ")), ("less -RFX".into(), None));
        assert_eq!(pager(None, Some("more")), ("more".into(), Some("PAGER")));
        assert_eq!(pager(None, Some("less")), ("less -R".into(), Some("PAGER")));
        assert_eq!(
            pager(None, Some("/usr/bin/less -i")),
            ("/usr/bin/less -i -R".into(), Some("PAGER"))
        );
        assert_eq!(
            pager(Some("less -S"), Some("more")),
            ("less -S".into(), Some("STREAMVIEW_PAGER"))
        );
        assert_eq!(
            pager(Some("  bat  --plain "), None),
            ("bat --plain".into(), Some("STREAMVIEW_PAGER"))
        );
    }

    /// An alias's options given again: the last one wins, `-v`/`-q`
    /// included; list options add up.
    #[test]
    fn the_last_option_wins() {
        let env = Env::default();
        let parse = |args: &[&str]| {
            let mut all = vec!["streamview"];
            all.extend_from_slice(args);
            Cli::try_parse_from(all).unwrap()
        };
        let v = |args: &[&str]| resolve(&parse(args), &env).unwrap().verbosity;
        assert_eq!(v(&["-v", "-q"]), Verbosity::Quiet);
        assert_eq!(v(&["-q", "-v"]), Verbosity::Verbose);
        assert_eq!(v(&["-vv"]), Verbosity::Verbose);
        assert_eq!(v(&["-v", "--verbose"]), Verbosity::Verbose);
        let c = parse(&["--format", "jsonl", "--format", "summary"]);
        assert_eq!(c.format, Some(Format::Summary));
        let c = parse(&[
            "--color",
            "always",
            "--color",
            "never",
            "--no-status",
            "--no-status",
        ]);
        assert_eq!(c.color, ColorWhen::Never);
        let c = parse(&[
            "--max-lines",
            "3",
            "--max-lines",
            "7",
            "--status-wait",
            "5",
            "--status-wait",
            "9",
        ]);
        assert_eq!((c.max_lines, c.status_wait), (7, 9));
        let c = parse(&["--tool", "Bash", "--tool", "Read"]);
        assert_eq!(c.tools.len(), 2);
        let c = parse(&[
            "--from",
            "claude",
            "--from",
            "codex",
            "-f",
            "-f",
            "--summary",
            "--summary",
        ]);
        assert!(c.follow && c.summary);
    }
}
