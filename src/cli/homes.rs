//! Where each agent keeps its saved sessions, as its own environment
//! variables move it: the directory `--latest --from <agent>` reads.
//!
//! | `--from` | directory | moved by |
//! |---|---|---|
//! | `claude` (default) | `~/.claude/projects` | `CLAUDE_CONFIG_DIR` (for `~/.claude`) |
//! | `codex` | `~/.codex/sessions` | `CODEX_HOME` (for `~/.codex`) |
//! | `gemini` | `~/.gemini/tmp` | `GEMINI_CLI_HOME` (for `~`) |
//! | `qwen` | `~/.qwen/projects` | `QWEN_RUNTIME_DIR`, else `QWEN_HOME` (for `~/.qwen`) |
//! | `copilot` | `~/.copilot/session-state` | `COPILOT_HOME` (for `~/.copilot`) |
//! | `pi` | `~/.pi/agent/sessions` | `PI_CODING_AGENT_DIR` (for `~/.pi/agent`) |
//! | `droid` | `~/.factory/sessions` | (none documented) |
//! | `cline` | `~/.cline/data/sessions` | (none documented) |
//! | `opencode` | `~/.local/share/opencode` (its `opencode*.db`) | `OPENCODE_DB` (the database: a path, or a name in that folder), `XDG_DATA_HOME` (for `~/.local/share`) |
//! | `kilo` | `~/.local/share/kilo` (its `kilo.db`) | `XDG_DATA_HOME` |

use std::ffi::OsString;
use std::path::PathBuf;

use super::Env;
use crate::event::Producer;

/// The agents' own variables that move their stores (besides those
/// [`Env`] names for its other uses).
#[derive(Clone, Debug, Default)]
pub struct Homes {
    /// `QWEN_HOME`: where Qwen Code keeps what is in `~/.qwen`
    pub qwen_home: Option<OsString>,
    /// `QWEN_RUNTIME_DIR`: where Qwen Code keeps its `projects/` (and `tmp/`)
    pub qwen_runtime_dir: Option<OsString>,
    /// `COPILOT_HOME`: where GitHub Copilot CLI keeps what is in `~/.copilot`
    pub copilot_home: Option<OsString>,
    /// `PI_CODING_AGENT_DIR`: where Pi keeps what is in `~/.pi/agent`
    pub pi_coding_agent_dir: Option<OsString>,
    /// `XDG_DATA_HOME`: where `OpenCode` and Kilo keep their data
    /// (`~/.local/share`)
    pub xdg_data_home: Option<OsString>,
    /// `OPENCODE_DB`: `OpenCode`'s database, a path or a name in its data
    /// folder (`:memory:`: none on disk)
    pub opencode_db: Option<OsString>,
}

impl Homes {
    /// Read the real environment.
    #[must_use]
    pub fn from_process() -> Homes {
        Homes {
            qwen_home: std::env::var_os("QWEN_HOME"),
            qwen_runtime_dir: std::env::var_os("QWEN_RUNTIME_DIR"),
            copilot_home: std::env::var_os("COPILOT_HOME"),
            pi_coding_agent_dir: std::env::var_os("PI_CODING_AGENT_DIR"),
            xdg_data_home: std::env::var_os("XDG_DATA_HOME"),
            opencode_db: std::env::var_os("OPENCODE_DB"),
        }
    }
}

/// Where the agent `--from` names keeps its saved sessions (Claude Code's
/// without one, or for a producer that keeps none).
pub(super) fn sessions_home(from: Option<Producer>, env: &Env) -> PathBuf {
    let home = || PathBuf::from(env.home.clone().unwrap_or_default());
    let set = |v: &Option<OsString>| v.as_ref().filter(|v| !v.is_empty()).map(PathBuf::from);
    let h = &env.homes;
    // Only an absolute XDG path counts (the XDG rule).
    let data_home = || {
        set(&h.xdg_data_home)
            .filter(|p| p.is_absolute())
            .unwrap_or_else(|| home().join(".local").join("share"))
    };
    match from {
        Some(Producer::Codex | Producer::CodexRollout) => set(&env.codex_home)
            .unwrap_or_else(|| home().join(".codex"))
            .join("sessions"),
        Some(Producer::Gemini | Producer::GeminiSession) => set(&env.gemini_cli_home)
            .unwrap_or_else(home)
            .join(".gemini")
            .join("tmp"),
        Some(Producer::Qwen | Producer::QwenSession) => set(&h.qwen_runtime_dir)
            .or_else(|| set(&h.qwen_home))
            .unwrap_or_else(|| home().join(".qwen"))
            .join("projects"),
        Some(Producer::Copilot) => set(&h.copilot_home)
            .unwrap_or_else(|| home().join(".copilot"))
            .join("session-state"),
        Some(Producer::Pi) => set(&h.pi_coding_agent_dir)
            .unwrap_or_else(|| home().join(".pi").join("agent"))
            .join("sessions"),
        Some(Producer::Droid) => home().join(".factory").join("sessions"),
        Some(Producer::Cline | Producer::ClineSession) => {
            home().join(".cline").join("data").join("sessions")
        }
        Some(Producer::OpenCode) => {
            let data = data_home().join("opencode");
            match set(&h.opencode_db) {
                Some(db) if db.as_os_str() == ":memory:" => data,
                Some(db) => data.join(db),
                None => data,
            }
        }
        Some(Producer::Kilo) => data_home().join("kilo"),
        _ => set(&env.claude_config_dir)
            .unwrap_or_else(|| home().join(".claude"))
            .join("projects"),
    }
}

/// Every agent's sessions folder, whether or not it exists (`--all-agents`).
pub(super) fn every_home(env: &Env) -> Vec<PathBuf> {
    [
        Producer::Claude,
        Producer::Codex,
        Producer::Gemini,
        Producer::Qwen,
        Producer::Copilot,
        Producer::Droid,
        Producer::Pi,
        Producer::Cline,
        Producer::OpenCode,
        Producer::Kilo,
    ]
    .into_iter()
    .map(|p| sessions_home(Some(p), env))
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn at(from: Producer, env: &Env) -> PathBuf {
        sessions_home(Some(from), env)
    }

    #[test]
    fn each_agent_home_and_its_variables() {
        let env = Env {
            home: Some("/h".into()),
            ..Env::default()
        };
        assert_eq!(at(Producer::Qwen, &env), Path::new("/h/.qwen/projects"));
        assert_eq!(
            at(Producer::Copilot, &env),
            Path::new("/h/.copilot/session-state")
        );
        assert_eq!(at(Producer::Pi, &env), Path::new("/h/.pi/agent/sessions"));
        assert_eq!(at(Producer::Droid, &env), Path::new("/h/.factory/sessions"));
        assert_eq!(
            at(Producer::OpenCode, &env),
            Path::new("/h/.local/share/opencode")
        );
        assert_eq!(at(Producer::Kilo, &env), Path::new("/h/.local/share/kilo"));
        assert_eq!(
            at(Producer::Cline, &env),
            Path::new("/h/.cline/data/sessions")
        );
        let data = |xdg: &str, db: Option<&str>| Env {
            homes: Homes {
                xdg_data_home: Some(xdg.into()),
                opencode_db: db.map(Into::into),
                ..Homes::default()
            },
            ..env.clone()
        };
        // An absolute database path wins; a name is in the data folder; a
        // relative XDG_DATA_HOME is not one.
        let abs = data("/x", Some("/db/o.db"));
        assert_eq!(at(Producer::OpenCode, &abs), Path::new("/db/o.db"));
        let name = data("/x", Some("opencode-beta.db"));
        assert_eq!(
            at(Producer::OpenCode, &name),
            Path::new("/x/opencode/opencode-beta.db")
        );
        let relative = data("rel", None);
        assert_eq!(
            at(Producer::Kilo, &relative),
            Path::new("/h/.local/share/kilo")
        );
        let moved = Env {
            homes: Homes {
                qwen_home: Some("/q".into()),
                qwen_runtime_dir: None,
                copilot_home: Some("/c".into()),
                pi_coding_agent_dir: Some("/p".into()),
                ..Homes::default()
            },
            ..env.clone()
        };
        assert_eq!(at(Producer::QwenSession, &moved), Path::new("/q/projects"));
        assert_eq!(at(Producer::Copilot, &moved), Path::new("/c/session-state"));
        assert_eq!(at(Producer::Pi, &moved), Path::new("/p/sessions"));
        let runtime = Env {
            homes: Homes {
                qwen_runtime_dir: Some("/r".into()),
                ..moved.homes.clone()
            },
            ..moved
        };
        assert_eq!(at(Producer::Qwen, &runtime), Path::new("/r/projects"));
    }
}
