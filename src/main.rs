//! The `streamview` binary: parse the command line, run, map the outcome to
//! an exit status. Everything else lives in the library.

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use streamview::cli::{Cli, Env, resolve};

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Some(kind) = cli.generate {
        let mut out = std::io::stdout().lock();
        return match out.write_all(&streamview::cli::generate(kind)) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
            Err(e) => {
                let _ = writeln!(std::io::stderr(), "streamview: cannot write output: {e}");
                ExitCode::from(streamview::ExitStatus::Failure.code())
            }
        };
    }
    let opts = resolve(&cli, &Env::from_process());
    match streamview::run(&opts) {
        Ok(status) => ExitCode::from(status.code()),
        // The reader went away (`streamview log | head`): that is how pipes
        // end, not an error. We do not reset SIGPIPE; the write error is it.
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "streamview: {e}");
            ExitCode::from(streamview::ExitStatus::Failure.code())
        }
    }
}
