//! The configuration file: default options, one per line, read before the
//! command line's so that the command line wins.
//!
//! Where it is ([`location`]) and what its text means ([`parse`]) are pure
//! functions; [`load`] reads it and [`parse_args`] puts the two command
//! lines together. A line holds one option and its value, after `=` or a
//! space: `--max-lines 20`, `--max-lines=20`, `-v`; the rest of the line is
//! the value, without quotes (`--tool mcp__github__*`). Blank lines and
//! lines that start with `#` are skipped, and so is a UTF-8 byte order mark
//! at the start. Each line is checked by clap on its own, so an error names
//! its line.

use std::ffi::OsString;
use std::fmt;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use clap::{CommandFactory, Parser};

use super::{Cli, Env};
use crate::error::describe_io;
use crate::file::read_small;
use crate::render::Verbosity;
use crate::render::sanitize::sanitize_line;

/// A configuration file larger than this is not one (`STREAMVIEW_CONFIG=/dev/zero`).
const MAX_BYTES: u64 = 1 << 20;

/// Where the configuration file is read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// Named by `STREAMVIEW_CONFIG`: it must exist.
    Named(PathBuf),
    /// The usual place: read if it exists.
    Usual(PathBuf),
    /// No file: `STREAMVIEW_CONFIG` is empty, or there is no home to look in.
    Nowhere,
}

/// Where the configuration file is: `$STREAMVIEW_CONFIG` (empty: none),
/// else `$XDG_CONFIG_HOME/streamview/config`, else
/// `$HOME/.config/streamview/config`.
#[must_use]
pub fn location(env: &Env) -> Location {
    match &env.config {
        Some(p) if p.is_empty() => Location::Nowhere,
        Some(p) => Location::Named(PathBuf::from(p)),
        None => {
            // The XDG spec ignores a relative XDG_CONFIG_HOME.
            let xdg = env
                .xdg_config_home
                .as_ref()
                .filter(|x| Path::new(x).is_absolute());
            let base = match (xdg, &env.home) {
                (Some(x), _) => PathBuf::from(x),
                (None, Some(h)) if !h.is_empty() => Path::new(h).join(".config"),
                _ => return Location::Nowhere,
            };
            Location::Usual(base.join("streamview").join("config"))
        }
    }
}

/// A configuration file that cannot be used: the run stops (exit 2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The file.
    pub path: PathBuf,
    /// The line at fault (from 1), if one is.
    pub line: Option<usize>,
    /// What is wrong.
    pub what: String,
}

impl fmt::Display for ConfigError {
    /// `<file>:<line>: <what>`, safe for a terminal (the file can quote anything).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = match self.line {
            Some(n) => format!(
                "{}:{n}: {}; fix the line, or run with --no-config",
                self.path.display(),
                self.what
            ),
            None => format!("{}: {}", self.path.display(), self.what),
        };
        f.write_str(&sanitize_line(&text))
    }
}

/// A line of a configuration file that is not an option: its number (from
/// 1) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineError {
    /// The line, from 1.
    pub line: usize,
    /// What is wrong with it.
    pub what: String,
}

/// The options of a configuration file's text, as command-line arguments,
/// in order.
///
/// # Errors
/// The first line that is not text, not a known option, has a bad value,
/// or is not an option at all (a file name, `--`, `--help`).
pub fn parse(text: &[u8]) -> Result<Vec<OsString>, LineError> {
    // A byte order mark, as Windows editors write: no part of the first line.
    let text = text.strip_prefix("\u{feff}".as_bytes()).unwrap_or(text);
    let mut args = Vec::new();
    for (i, raw) in text.split(|&b| b == b'\n').enumerate() {
        let fail = |what: String| LineError { line: i + 1, what };
        let line = std::str::from_utf8(raw)
            .map_err(|_| fail("not UTF-8 text".into()))?
            .trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let words = split(line);
        check(line, &words).map_err(fail)?;
        args.extend(words.into_iter().map(OsString::from));
    }
    Ok(args)
}

/// A line as arguments: a long option followed by a space is two, the
/// option and its value (`--max-lines 20`), unless it is a known option
/// that takes no value (`--summary yes` stays one, which clap rejects);
/// anything else is one.
fn split(line: &str) -> Vec<&str> {
    if let Some((opt, value)) = line.split_once(char::is_whitespace)
        && let Some(long) = opt.strip_prefix("--")
        && !long.contains('=')
        && !is_switch(long)
    {
        return vec![opt, value.trim_start()];
    }
    vec![line]
}

/// A known long option that takes no value.
fn is_switch(long: &str) -> bool {
    Cli::command()
        .get_arguments()
        .any(|a| a.get_long() == Some(long) && !a.get_action().takes_values())
}

/// What is wrong with a line's arguments, in one line.
fn check(line: &str, words: &[&str]) -> Result<(), String> {
    if words == ["--"] {
        return Err("`--` has no place in a configuration file: it holds options only".into());
    }
    match Cli::try_parse_from(std::iter::once("streamview").chain(words.iter().copied())) {
        Err(e) => Err(match e.kind() {
            clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => {
                format!("`{line}` prints and exits: it has no place in a configuration file")
            }
            _ => one_line(&e),
        }),
        Ok(cli) if !cli.files.is_empty() => Err(format!(
            "`{line}` is not an option: a configuration file holds options, one per line \
             (files are given on the command line)"
        )),
        Ok(cli) if cli.generate.is_some() => {
            Err("`--generate` has no place in a configuration file".into())
        }
        Ok(cli) if cli.list_themes => {
            Err("`--list-themes` prints and exits: it has no place in a configuration file".into())
        }
        Ok(_) => Ok(()),
    }
}

/// A clap error as one line: its first line, and its tip if it has one.
fn one_line(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let first = text.lines().next().unwrap_or_default();
    let first = first.strip_prefix("error: ").unwrap_or(first);
    // Not clap's tip for a command line (`use '-- --x'`): a configuration
    // file holds no values after `--`.
    let tip = text.lines().find_map(|l| l.trim().strip_prefix("tip: "));
    match tip.filter(|t| !t.contains("use '-- ")) {
        Some(tip) => format!("{first} ({tip})"),
        None => first.to_string(),
    }
}

/// Read the configuration file at `at`: its path and options, or `None`
/// when there is none (a missing file in the usual place is no error).
///
/// # Errors
/// The file cannot be read (a missing `STREAMVIEW_CONFIG` file included),
/// or a line is wrong.
pub fn load(at: &Location) -> Result<Option<(PathBuf, Vec<OsString>)>, ConfigError> {
    let (path, named) = match at {
        Location::Named(p) => (p, true),
        Location::Usual(p) => (p, false),
        Location::Nowhere => return Ok(None),
    };
    let fail = |line, what| ConfigError {
        path: path.clone(),
        line,
        what,
    };
    let text = match read_small(path, MAX_BYTES) {
        Ok(text) => text,
        Err(e) if !named && e.kind() == ErrorKind::NotFound => return Ok(None),
        // A device, a FIFO (its `open` would wait for a writer), a directory.
        Err(e)
            if matches!(
                e.kind(),
                ErrorKind::InvalidInput | ErrorKind::FileTooLarge | ErrorKind::IsADirectory
            ) =>
        {
            let why = format!(
                "{}, so not a configuration file (run with --no-config to skip it)",
                describe_io(&e)
            );
            return Err(fail(None, why));
        }
        Err(e) => {
            let by = if named {
                " named by STREAMVIEW_CONFIG"
            } else {
                ""
            };
            let why = format!(
                "cannot read the configuration file{by}: {} (or run with --no-config)",
                describe_io(&e)
            );
            return Err(fail(None, why));
        }
    };
    parse(&text)
        .map(|args| Some((path.clone(), args)))
        .map_err(|e| fail(Some(e.line), e.what))
}

/// Why the command line could not be used.
#[derive(Debug)]
pub enum ArgsError {
    /// The command line itself: clap's error, printed as clap prints it.
    Usage(clap::Error),
    /// The configuration file.
    Config(ConfigError),
}

/// The command line `args` (the program first) over the options of the
/// configuration file (unless `--no-config`).
///
/// # Errors
/// The command line is wrong ([`ArgsError::Usage`], `--help` and
/// `--version` included), or the configuration file is.
pub fn parse_args(args: &[OsString], env: &Env) -> Result<Cli, ArgsError> {
    let cli = Cli::try_parse_from(args).map_err(ArgsError::Usage)?;
    if cli.no_config || cli.generate.is_some() {
        return Ok(cli);
    }
    match load(&location(env)).map_err(ArgsError::Config)? {
        None => Ok(cli),
        Some((path, options)) => merge(cli, args, &options).map_err(|what| {
            ArgsError::Config(ConfigError {
                path,
                line: None,
                what,
            })
        }),
    }
}

/// The configuration's `options` under the command line `args` (already
/// parsed as `cli`): clap lets the last of an option win, so the command
/// line's come last. Then what clap cannot know: `-v`/`-q` of the
/// configuration give way to the environment (kept apart in
/// `config_verbosity`), and a list option given on the command line
/// (`--only`, `--hide`, `--tool`) replaces the configuration's instead of
/// adding to it.
fn merge(cli: Cli, args: &[OsString], options: &[OsString]) -> Result<Cli, String> {
    if options.is_empty() {
        return Ok(cli);
    }
    let program = args.first().cloned().unwrap_or_else(|| "streamview".into());
    let config =
        Cli::try_parse_from(std::iter::once(&program).chain(options)).map_err(|e| one_line(&e))?;
    let all = std::iter::once(&program)
        .chain(options)
        .chain(args.iter().skip(1));
    let mut merged = Cli::try_parse_from(all).map_err(|e| one_line(&e))?;
    merged.verbose = cli.verbose;
    merged.quiet = cli.quiet;
    merged.config_verbosity = if config.quiet {
        Some(Verbosity::Quiet)
    } else if config.verbose {
        Some(Verbosity::Verbose)
    } else {
        None
    };
    if !cli.only.is_empty() {
        merged.only = cli.only;
    }
    if !cli.hide.is_empty() {
        merged.hide = cli.hide;
    }
    if !cli.tools.is_empty() {
        merged.tools = cli.tools;
    }
    Ok(merged)
}

#[cfg(test)]
mod tests;
