//! What the user can type: the clap definition of every option ([`Cli`])
//! and the value types of its options, checked as they are parsed.

use std::ffi::OsString;

use clap::{Parser, ValueEnum};

use crate::event::Producer;
use crate::filter::Kind;
use crate::render::Verbosity;
use crate::session::group::By;
use crate::time::window::When;
use crate::time::zone::Zone;

use super::{Generate, help::SHORT_HELP_TAIL, help::short_help, long_help_tail};

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
    /// over it (set by [`parse_args`](super::parse_args); `verbose` and `quiet` are the
    /// command line's).
    #[arg(skip)]
    pub config_verbosity: Option<Verbosity>,
}

/// A `--label`: printable text on one line, not too long to precede
/// every line.
pub(super) fn parse_label(s: &str) -> Result<String, String> {
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

pub(super) fn parse_size(s: &str) -> Result<usize, String> {
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
