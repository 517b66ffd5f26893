//! What was decided from the command line: [`Options`], everything a run
//! needs, each field final.

use std::path::PathBuf;
use std::time::Duration;

use crate::event::Producer;
use crate::filter::Filter;
use crate::filter::grep::{Grep, Listing};
use crate::input::Source;
use crate::render::theme::Theme;
use crate::render::{Alerts, Verbosity};
use crate::run::DEFAULT_MAX_LINE_BYTES;
use crate::session::group::By;
use crate::time::window::Window;
use crate::time::zone::Zone;

use super::{Format, Pager};

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
    /// read by [`load_prices`](super::load_prices).
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
