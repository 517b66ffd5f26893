//! The environment a run depends on ([`Env`]): variables, terminals, the
//! clock and the host, read once from the process (or given by a test).

use std::ffi::OsString;
use std::io::IsTerminal;

use crate::time::Timestamp;

use super::{Cli, homes};

/// The environment variables and terminal facts `resolve` depends on.
#[derive(Clone, Debug, Default)]
pub struct Env {
    /// `NO_COLOR`
    pub no_color: Option<OsString>,
    /// `CLICOLOR_FORCE`
    pub clicolor_force: Option<OsString>,
    /// `STREAMVIEW_VERBOSE`
    pub verbose: Option<OsString>,
    /// `STREAMVIEW_QUIET`
    pub quiet: Option<OsString>,
    /// stdin is a terminal
    pub stdin_tty: bool,
    /// stdout is a terminal
    pub stdout_tty: bool,
    /// stdout is a pipe (or a socket): what reads it sees the errors
    pub stdout_pipe: bool,
    /// stderr is a terminal
    pub stderr_tty: bool,
    /// `TERM`
    pub term: Option<OsString>,
    /// `COLORTERM`: `truecolor` or `24bit` for 24-bit colour
    pub colorterm: Option<OsString>,
    /// `STREAMVIEW_PAGER`
    pub pager: Option<OsString>,
    /// `PAGER`
    pub pager_env: Option<OsString>,
    /// Every FILE is a regular file (none is standard input, a FIFO, a
    /// terminal…): the inputs are a replay. Set with [`Env::with_inputs`].
    pub regular_inputs: bool,
    /// `STREAMVIEW_CONFIG`
    pub config: Option<OsString>,
    /// `XDG_CONFIG_HOME`
    pub xdg_config_home: Option<OsString>,
    /// `STREAMVIEW_CACHE_DIR`: where the index is kept
    pub cache_dir: Option<OsString>,
    /// `XDG_CACHE_HOME`
    pub xdg_cache_home: Option<OsString>,
    /// `HOME`
    pub home: Option<OsString>,
    /// The agents' variables that move their stores (`CODEX_HOME`…: those
    /// the registry's stores name)
    pub homes: homes::Homes,
    /// `TZ`: the zone of the times `--since` and `--until` give without
    /// an offset
    pub tz: Option<OsString>,
    /// The time now, for `--since 2h` (`None`: read the clock)
    pub now: Option<Timestamp>,
    /// `STREAMVIEW_PRICES`: a price table's file
    pub prices: Option<OsString>,
    /// Processor cores available (the default of `-j`; 0: unknown, one).
    pub cores: usize,
    /// The host's name, where the system says it (`--format otlp`'s
    /// `host.name`).
    pub host: Option<String>,
}

impl Env {
    /// Read the real environment and terminals.
    #[must_use]
    pub fn from_process() -> Env {
        Env {
            no_color: std::env::var_os("NO_COLOR"),
            clicolor_force: std::env::var_os("CLICOLOR_FORCE"),
            verbose: std::env::var_os("STREAMVIEW_VERBOSE"),
            quiet: std::env::var_os("STREAMVIEW_QUIET"),
            stdin_tty: std::io::stdin().is_terminal(),
            stdout_tty: std::io::stdout().is_terminal(),
            stdout_pipe: stdout_is_pipe(),
            stderr_tty: std::io::stderr().is_terminal(),
            term: std::env::var_os("TERM"),
            colorterm: std::env::var_os("COLORTERM"),
            pager: std::env::var_os("STREAMVIEW_PAGER"),
            pager_env: std::env::var_os("PAGER"),
            regular_inputs: false,
            config: std::env::var_os("STREAMVIEW_CONFIG"),
            xdg_config_home: std::env::var_os("XDG_CONFIG_HOME"),
            cache_dir: std::env::var_os("STREAMVIEW_CACHE_DIR"),
            xdg_cache_home: std::env::var_os("XDG_CACHE_HOME"),
            home: std::env::var_os("HOME"),
            homes: homes::Homes::from_process(),
            tz: std::env::var_os("TZ"),
            now: Some(Timestamp::of(std::time::SystemTime::now())),
            prices: std::env::var_os("STREAMVIEW_PRICES"),
            cores: std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
            host: host_name(),
        }
    }

    /// Look at the inputs `cli` names: are they all regular files?
    #[must_use]
    pub fn with_inputs(self, cli: &Cli) -> Env {
        let regular_inputs = !cli.files.is_empty()
            && cli
                .files
                .iter()
                .all(|f| f != "-" && std::fs::metadata(f).is_ok_and(|m| m.is_file() || m.is_dir()));
        Env {
            regular_inputs,
            ..self
        }
    }
}

/// The host's name: the kernel's (Linux), else `HOSTNAME` or
/// `COMPUTERNAME` (Windows); `None` when none says one.
fn host_name() -> Option<String> {
    let kernel = ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .into_iter()
        .find_map(|p| crate::file::read_small(std::path::Path::new(p), 4096).ok())
        .and_then(|b| String::from_utf8(b).ok());
    let named = kernel
        .or_else(|| std::env::var("HOSTNAME").ok())
        .or_else(|| std::env::var("COMPUTERNAME").ok())?;
    let name = named.trim();
    (!name.is_empty()).then(|| name.to_string())
}

pub(super) fn truthy(v: Option<&OsString>) -> bool {
    v.is_some_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// True when stdout is a pipe or a socket (Unix; elsewhere never).
fn stdout_is_pipe() -> bool {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        use std::os::unix::fs::FileTypeExt;
        let Ok(fd) = std::io::stdout().as_fd().try_clone_to_owned() else {
            return false;
        };
        std::fs::File::from(fd)
            .metadata()
            .is_ok_and(|m| m.file_type().is_fifo() || m.file_type().is_socket())
    }
    #[cfg(not(unix))]
    {
        false
    }
}
