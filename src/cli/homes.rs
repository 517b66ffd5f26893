//! The variables that move the agents' stores, read once from the
//! environment, and the folders `--latest --from <agent>` and
//! `--all-agents` read: where each agent keeps its saved sessions is its
//! producer's `Store` (`decode::producer::Store`), in the registry.

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

use super::Env;
use crate::decode;
use crate::event::Producer;

/// The agents' own variables that move their stores: every variable a
/// producer's store names, as the environment sets them.
#[derive(Clone, Debug, Default)]
pub struct Homes(Vec<(&'static str, OsString)>);

impl Homes {
    /// Read the real environment.
    #[must_use]
    pub fn from_process() -> Homes {
        let names = decode::stores().flat_map(|s| s.moved_by.iter().chain(&s.database));
        let mut homes = Homes::default();
        for &name in names {
            if let Some(v) = std::env::var_os(name) {
                homes = homes.with(name, v);
            }
        }
        homes
    }

    /// These variables with `name` set to `value`.
    #[must_use]
    pub fn with(mut self, name: &'static str, value: impl Into<OsString>) -> Homes {
        self.0.retain(|(n, _)| *n != name);
        self.0.push((name, value.into()));
        self
    }

    /// The value of `name`, if set.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&OsStr> {
        self.0
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_os_str())
    }
}

/// Where the agent `--from` names keeps its saved sessions (Claude Code's
/// without one, or for a producer that keeps none).
pub(super) fn sessions_home(from: Option<Producer>, env: &Env) -> PathBuf {
    let store = from
        .and_then(Producer::store)
        .or_else(|| Producer::Claude.store());
    store.map_or_else(PathBuf::new, |s| locate(s, env))
}

/// Every agent's sessions folder, whether or not it exists (`--all-agents`).
pub(super) fn every_home(env: &Env) -> Vec<PathBuf> {
    decode::stores().map(|s| locate(s, env)).collect()
}

/// The agents' sessions folders (and stores) found on this machine, as
/// inputs.
pub(super) fn found_homes(env: &Env) -> Vec<crate::input::Source> {
    (every_home(env).into_iter())
        .filter(|d| d.is_dir() || d.is_file())
        .map(crate::input::Source::Path)
        .collect()
}

fn locate(store: &decode::Store, env: &Env) -> PathBuf {
    let home = PathBuf::from(env.home.clone().unwrap_or_default());
    store.locate(&home, |name| env.homes.get(name))
}
