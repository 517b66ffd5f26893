//! The `streamview` binary: parse the command line, run, map the outcome to
//! an exit status. Everything else lives in the library.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::Arc;

use streamview::cli::{ArgsError, Env, parse_args, resolve};
use streamview::render::sanitize::{is_unsafe, sanitize};
use streamview::run::terminal_hint;
use streamview::{ExitStatus, Interrupt};

fn main() -> ExitCode {
    let env = Env::from_process();
    let cli = match parse_args(&std::env::args_os().collect::<Vec<_>>(), &env) {
        Ok(cli) => cli,
        Err(ArgsError::Usage(e)) => usage_error(&e),
        Err(ArgsError::Config(e)) => {
            let _ = writeln!(std::io::stderr(), "streamview: {e}");
            return ExitCode::from(ExitStatus::Failure.code());
        }
    };
    if cli.follow && cli.files.len() > 1 {
        use clap::CommandFactory;
        let e = streamview::cli::Cli::command().error(
            clap::error::ErrorKind::TooManyValues,
            format!(
                "--follow takes exactly one FILE ({} given): run one streamview per log",
                cli.files.len()
            ),
        );
        usage_error(&e);
    }
    if let Some(pattern) = &cli.grep
        && let Err(why) = streamview::filter::grep::Grep::new(pattern, cli.ignore_case)
    {
        use clap::CommandFactory;
        let e = streamview::cli::Cli::command().error(clap::error::ErrorKind::ValueValidation, why);
        usage_error(&e);
    }
    if let Some(kind) = cli.generate {
        let mut out = std::io::stdout().lock();
        return match out.write_all(&streamview::cli::generate(kind)) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
            Err(e) => {
                let _ = writeln!(
                    std::io::stderr(),
                    "streamview: cannot write output: {}",
                    streamview::error::describe_io(&e)
                );
                ExitCode::from(ExitStatus::Failure.code())
            }
        };
    }
    let mut opts = resolve(&cli, &env.with_inputs(&cli));
    if let Some(why) = &opts.tz_refused {
        let _ = writeln!(std::io::stderr(), "streamview: {}", sanitize(why));
        return ExitCode::from(ExitStatus::Failure.code());
    }
    if let Some(why) = &opts.by_refused {
        use clap::CommandFactory;
        let e =
            streamview::cli::Cli::command().error(clap::error::ErrorKind::ArgumentConflict, why);
        usage_error(&e);
    }
    if opts.window.is_empty() {
        use clap::CommandFactory;
        let e = streamview::cli::Cli::command().error(
            clap::error::ErrorKind::ArgumentConflict,
            format!(
                "--since is not before --until ({}): no time is left; swap them or widen the window",
                opts.window
            ),
        );
        usage_error(&e);
    }
    if let Some(path) = &opts.prices_file {
        match streamview::cli::load_prices(path) {
            Ok(p) => opts.prices = Some(Arc::new(p)),
            Err(why) => {
                let _ = writeln!(std::io::stderr(), "streamview: {}", sanitize(&why));
                return ExitCode::from(ExitStatus::Failure.code());
            }
        }
    }
    // Bare `streamview` at a prompt: say what it waits for, then wait.
    if !opts.follow
        && let Some(hint) = terminal_hint(&opts.sources, std::io::stdin().is_terminal())
    {
        let _ = writeln!(std::io::stderr(), "streamview: {hint}");
    }
    // Ctrl-C: the first one stops the run, which prints the summary so far
    // and exits 130; a second one (the summary cannot get out: a stopped
    // pager, a full pipe) exits at once. While paging, Ctrl-C is the
    // pager's (less stops a search with it): streamview ends when the pager
    // is quit.
    let interrupt = Interrupt::new();
    let on_sigint = Arc::clone(&interrupt);
    let paging = opts.pager.is_some();
    let _ = ctrlc::set_handler(move || {
        if !paging && on_sigint.trigger() {
            std::process::exit(i32::from(ExitStatus::Interrupted.code()));
        }
    });
    match streamview::run(&opts, &interrupt) {
        Ok(status) => ExitCode::from(status.code()),
        // The reader went away (`streamview log | head`): that is how pipes
        // end, not an error. We do not reset SIGPIPE; the write error is it.
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "streamview: {e}");
            ExitCode::from(ExitStatus::Failure.code())
        }
    }
}

/// clap's usage errors quote the argument they could not use, as it came
/// (from the command line, or a `--grep` pattern from the configuration
/// file): an escape sequence or a bidi control in it would reach the
/// terminal. When the error's text holds one, it is printed plain and
/// sanitized like everything else streamview writes; otherwise clap prints
/// it (with its colours). `--help` and `--version` are clap's too.
fn usage_error(e: &clap::Error) -> ! {
    // `Display` of clap's styled text is plain: any control in it is quoted.
    let hostile = e.render().to_string().chars().any(is_unsafe);
    if !hostile || !e.use_stderr() {
        e.exit();
    }
    let text = e.render().to_string();
    let _ = std::io::stderr().write_all(sanitize(&text).as_bytes());
    std::process::exit(e.exit_code());
}
