//! `--statusline`'s options: what Claude Code's status bar needs of a run,
//! decided over the options `resolve` made for the rest of the command
//! line.
//!
//! Its library is the FILEs named, else every agent's store found (none
//! found is not an error: the line still shows what Claude Code says);
//! grouped by block in the local zone, each session through the index;
//! nothing drawn on the terminal, no pager. Claude Code shows the line's
//! colours without a terminal: colour is on unless `NO_COLOR` or
//! `--color never` says otherwise.

use super::{Cli, ColorWhen, Env, Options, homes};
use crate::input::Source;
use crate::session::group::By;

/// `opts` made into the status line's.
pub(super) fn options(cli: &Cli, env: &Env, opts: Options) -> Options {
    let sources = if cli.files.is_empty() {
        (homes::every_home(env).into_iter())
            .filter(|d| d.is_dir() || d.is_file())
            .map(Source::Path)
            .collect()
    } else {
        cli.files.iter().map(|f| Source::from_arg(f)).collect()
    };
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
