//! The command line made into what the binary does: run with [`Options`],
//! write a generated file, or refuse, with the one line (or clap's usage
//! error) and the exit status to refuse with.

use std::ffi::OsString;
use std::io::Write;
use std::sync::Arc;

use clap::CommandFactory;

use crate::error::ExitStatus;
use crate::render::sanitize::{is_unsafe, sanitize, sanitize_line};
use crate::render::theme::{BUILT_IN, Theme, list};

use super::{ArgsError, Cli, Env, Generate, Options, load_prices, parse_args, resolve};

/// What the command line asks for.
#[derive(Debug)]
pub enum Command {
    /// Run with these options.
    Run(Box<Options>),
    /// Write the man page or a completion script on standard output.
    Generate(Generate),
    /// Write this on standard output (`--list-themes`).
    Print(Vec<u8>),
}

/// Why the command line is not run.
#[derive(Debug)]
pub enum Refusal {
    /// The command line itself (`--help` and `--version` too): printed as
    /// clap prints it, with its status (2, or 0 for help).
    Usage(clap::Error),
    /// A file it names cannot be used (the configuration file, the zone, a
    /// price table): one line, status 2.
    Failure(String),
}

impl Refusal {
    /// A usage error of `kind` saying `why`, as clap words its own.
    pub(crate) fn usage(kind: clap::error::ErrorKind, why: impl std::fmt::Display) -> Refusal {
        Refusal::Usage(Cli::command().error(kind, why))
    }

    /// Say it on stderr (help on stdout) and give the exit status.
    ///
    /// clap's usage errors quote the argument they could not use, as it
    /// came (from the command line, or a `--grep` pattern from the
    /// configuration file): an escape sequence or a bidi control in it
    /// would reach the terminal. When the error's text holds one, it is
    /// printed plain and sanitized like everything else streamview writes;
    /// otherwise clap prints it (with its colours).
    #[must_use]
    pub fn report(&self) -> u8 {
        match self {
            Refusal::Usage(e) => {
                // `Display` of clap's styled text is plain: any control in
                // it is quoted.
                let text = e.render().to_string();
                if text.chars().any(is_unsafe) && e.use_stderr() {
                    let _ = std::io::stderr().write_all(sanitize(&text).as_bytes());
                } else {
                    let _ = e.print();
                }
                u8::try_from(e.exit_code()).unwrap_or(ExitStatus::Failure.code())
            }
            Refusal::Failure(why) => {
                // One line: a file name from an option or the environment
                // may hold a line break.
                let _ = writeln!(std::io::stderr(), "streamview: {}", sanitize_line(why));
                ExitStatus::Failure.code()
            }
        }
    }
}

impl From<ArgsError> for Refusal {
    fn from(e: ArgsError) -> Refusal {
        match e {
            ArgsError::Usage(e) => Refusal::Usage(e),
            ArgsError::Config(e) => Refusal::Failure(e.to_string()),
        }
    }
}

/// Parse `args` (the program first) over the configuration file, decide the
/// options ([`resolve`](super::resolve)) and load the price table they name.
///
/// # Errors
/// See [`Refusal`].
pub fn command(args: &[OsString], env: &Env) -> Result<Command, Refusal> {
    let cli = parse_args(args, env)?;
    if let Some(kind) = cli.generate {
        return Ok(Command::Generate(kind));
    }
    let mut opts = resolve(&cli, &env.clone().with_inputs(&cli))?;
    if cli.list_themes {
        return Ok(Command::Print(list_themes(&opts)));
    }
    if let Some(path) = &opts.prices_file {
        opts.prices = Some(Arc::new(load_prices(path).map_err(Refusal::Failure)?));
    }
    Ok(Command::Run(Box::new(opts)))
}

/// `--list-themes`: the built-in themes, and `--theme`'s when it is a
/// file, each on a sample, in colour as the output would be.
fn list_themes(opts: &Options) -> Vec<u8> {
    let depth = opts.theme.depth();
    let mut themes: Vec<(Theme, &str)> = (BUILT_IN.iter())
        .filter_map(|b| Some((Theme::named(b.name, depth)?, b.about)))
        .collect();
    if !themes.iter().any(|(t, _)| t.name == opts.theme.name) {
        themes.push((opts.theme.clone(), "your theme (--theme)"));
    }
    list(&themes, opts.color_stdout)
}
