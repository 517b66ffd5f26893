//! Which pager a replay goes through, decided from the environment (the
//! run starts it: `crate::run` is below this floor, `lib.rs` spawns it).

use std::ffi::OsString;
use std::path::Path;

use super::Env;

/// The pager to start: a program and its arguments, run without a shell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pager {
    /// The program.
    pub program: OsString,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// The variable that named it (`STREAMVIEW_PAGER`, `PAGER`), for the
    /// message when it cannot be started; `None` for the built-in `less`,
    /// which falls back quietly to writing on the terminal.
    pub named_by: Option<&'static str>,
    /// What would go to stderr goes into the pager too: stderr is the
    /// terminal the pager is drawing on.
    pub takes_stderr: bool,
}

impl Pager {
    /// `$STREAMVIEW_PAGER` as given, else `$PAGER` (with `-R` added when it
    /// is `less`, so that colours show, as bat does), else `less -RFX`: raw
    /// colours, quit at once when it all fits on one screen, and leave it
    /// on the screen. The command is split at spaces (no shell quoting);
    /// an empty variable counts as unset.
    #[must_use]
    pub fn from_env(env: &Env) -> Pager {
        let named = |v: &Option<OsString>| v.as_ref().and_then(words);
        let (mut words, named_by) = if let Some(w) = named(&env.pager) {
            (w, Some("STREAMVIEW_PAGER"))
        } else if let Some(mut w) = named(&env.pager_env) {
            if Path::new(&w[0]).file_name().is_some_and(|n| n == "less") {
                w.push("-R".into());
            }
            (w, Some("PAGER"))
        } else {
            (vec!["less".into(), "-RFX".into()], None)
        };
        let program = words.remove(0);
        Pager {
            program,
            args: words,
            named_by,
            takes_stderr: env.stderr_tty,
        }
    }

    /// The command as the user would type it, for messages.
    #[must_use]
    pub fn command_line(&self) -> String {
        let mut s = self.program.to_string_lossy().into_owned();
        for a in &self.args {
            s.push(' ');
            s.push_str(&a.to_string_lossy());
        }
        s
    }
}

/// The words of a pager variable; `None` when it holds none. A value that
/// is not UTF-8 is one word (a program's path).
fn words(v: &OsString) -> Option<Vec<OsString>> {
    let words: Vec<OsString> = match v.to_str() {
        Some(s) => s.split_whitespace().map(OsString::from).collect(),
        None => vec![v.clone()],
    };
    (!words.is_empty()).then_some(words)
}
