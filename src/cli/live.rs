//! The live ledger's options (`--statusline`, `--top`, `--by … -f`), decided over the
//! options `resolve` made for the rest of the command line.
//!
//! Both read the FILEs named, else every agent's store found (none found
//! is not an error: the line still shows what Claude Code says, the board
//! waits for sessions). The status line is grouped by block in the local
//! zone, each session through the index, nothing drawn on the terminal, no
//! pager; Claude Code shows the line's colours without a terminal: colour
//! is on unless `NO_COLOR` or `--color never` says otherwise.

use super::{Cli, ColorWhen, Env, Options, homes};
use crate::input::Source;
use crate::session::group::By;

/// The FILEs, else every agent's store found.
fn stores(cli: &Cli, env: &Env) -> Vec<Source> {
    if cli.files.is_empty() {
        homes::found_homes(env)
    } else {
        cli.files.iter().map(|f| Source::from_arg(f)).collect()
    }
}

/// `opts` made into `--by … -f`'s: the report made again as the library
/// grows (the FILEs, else every agent's store).
pub(super) fn redraw(cli: &Cli, env: &Env, opts: Options) -> Options {
    Options {
        sources: stores(cli, env),
        follow: false,
        status: false,
        progress: false,
        pager: None,
        redraw: true,
        ..opts
    }
}

/// `opts` made into `--top`'s.
pub(super) fn top(cli: &Cli, env: &Env, opts: Options) -> Options {
    Options {
        sources: stores(cli, env),
        status: false,
        progress: false,
        pager: None,
        top: true,
        ..opts
    }
}

/// `opts` made into the status line's.
pub(super) fn statusline(cli: &Cli, env: &Env, opts: Options) -> Options {
    let sources = stores(cli, env);
    let no_color = env.no_color.as_ref().is_some_and(|v| !v.is_empty());
    Options {
        sources,
        by: Some((By::Block, opts.zone.clone())),
        color_stdout: match cli.color {
            ColorWhen::Always => true,
            ColorWhen::Never => false,
            ColorWhen::Auto => !no_color,
        },
        color_stderr: false,
        status: false,
        progress: false,
        pager: None,
        mirror_errors: false,
        alerts: crate::render::Alerts::Nothing,
        count_hidden_errors: false,
        statusline: true,
        ..opts
    }
}
