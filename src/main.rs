//! The `streamview` binary: decide what the command line asks for, do it,
//! map the outcome to an exit status. Everything else lives in the library.

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use streamview::cli::{self, Command, Env};
use streamview::{Error, ExitStatus, Interrupt, Options};

fn main() -> ExitCode {
    let args: Vec<_> = std::env::args_os().collect();
    let done = match cli::command(&args, &Env::from_process()) {
        Ok(Command::Run(opts)) => run(&opts),
        Ok(Command::Generate(kind)) => (std::io::stdout().lock())
            .write_all(&cli::generate(kind))
            .map(|()| ExitStatus::Success)
            .map_err(Error::Write),
        Ok(Command::Print(text)) => (std::io::stdout().lock())
            .write_all(&text)
            .map(|()| ExitStatus::Success)
            .map_err(Error::Write),
        Err(refusal) => return ExitCode::from(refusal.report()),
    };
    match done {
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

/// Run, with Ctrl-C: the first one stops the run, which prints the summary
/// so far and exits 130; a second one (the summary cannot get out: a
/// stopped pager, a full pipe) exits at once. While paging, Ctrl-C is the
/// pager's (less stops a search with it): streamview ends when the pager
/// is quit.
fn run(opts: &Options) -> Result<ExitStatus, Error> {
    let interrupt = Interrupt::new();
    // A file size limit reached (`ulimit -f`, as a full disk) is a write
    // that fails, said (the index not kept, the output cut), not a kill
    // that leaves a half-written file: SIGXFSZ's default is to end.
    #[cfg(unix)]
    let _ = signal_hook::flag::register(
        signal_hook::consts::SIGXFSZ,
        Arc::new(std::sync::atomic::AtomicBool::new(false)),
    );
    let on_sigint = Arc::clone(&interrupt);
    let paging = opts.pager.is_some();
    let _ = ctrlc::set_handler(move || {
        if !paging && on_sigint.trigger() {
            std::process::exit(i32::from(ExitStatus::Interrupted.code()));
        }
    });
    streamview::run(opts, &interrupt)
}
