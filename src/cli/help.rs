//! The help texts: the examples and environment of `--help` and the man
//! page, the short `-h`, and the man page and completions generated from them.

use clap::ValueEnum;

use crate::error::ExitStatus;

use super::{Cli, man};

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
pub(super) const SHORT_HELP_TAIL: &str = "\
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
pub(super) fn short_help(a: clap::Arg) -> clap::Arg {
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
