//! Kimi CLI's folder (`~/.kimi`): the working folder its wire logs never
//! name, put in their first line, and the `context.jsonl` that is no session.
//!
//! A session's wire log is `sessions/<group>/<id>/wire.jsonl`, its group
//! named by the MD5 (hex) of its working folder's path; `kimi.json` beside
//! `sessions/` lists the folders (`work_dirs`), and the one whose path's
//! MD5 names the group is put first in the log's first line (`metadata`)
//! as `"cwd"` ([`StoreReader::mark_head`]), which `decode/kimi_session.rs`
//! reads. The `context.jsonl` beside a `wire.jsonl` holds the same
//! conversation: the walk leaves it out ([`StoreReader::no_session`]).

use std::path::Path;

use md5::{Digest, Md5};

use crate::input::marks::{begins, put_first};
use crate::input::store::StoreReader;

/// The largest `kimi.json` read.
const MAX_KIMI_JSON: u64 = 4 << 20;

/// The reader of Kimi CLI's folder (the registry's entry carries it).
pub(crate) struct Kimi;

impl StoreReader for Kimi {
    fn no_session(&self, path: &Path, name: &str) -> bool {
        name == "context.jsonl" && path.with_file_name("wire.jsonl").is_file()
    }

    fn marks(&self, path: &Path) -> bool {
        is_wire(path)
    }

    fn mark_head(&self, path: &Path, head: &mut Vec<u8>) {
        if !begins(head, br#""type": "metadata""#) {
            return;
        }
        if let Some(cwd) = folder(path) {
            let mut f = br#""cwd":"#.to_vec();
            // A `String` always serializes.
            let _ = serde_json::to_writer(&mut f, &cwd);
            f.push(b',');
            *head = put_first(head, &f);
        }
    }
}

/// Kimi CLI's `sessions/<group>/<id>/wire.jsonl`.
fn is_wire(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == "wire.jsonl")
        && path
            .ancestors()
            .nth(3)
            .and_then(Path::file_name)
            .is_some_and(|n| n == "sessions")
}

/// The working folder of a Kimi session's wire log: the folder of
/// `kimi.json`'s `work_dirs` whose path's MD5 (hex) names its group.
fn folder(wire: &Path) -> Option<String> {
    let group = wire.ancestors().nth(2)?;
    let name = group.file_name()?.to_str()?;
    let home = group.parent()?.parent()?;
    let text = crate::file::read_small(&home.join("kimi.json"), MAX_KIMI_JSON).ok()?;
    let v: serde_json::Value = serde_json::from_slice(&text).ok()?;
    let dirs = v.get("work_dirs")?.as_array()?;
    dirs.iter()
        .filter_map(|d| d.get("path")?.as_str())
        .find(|p| hex_md5(p.as_bytes()).eq_ignore_ascii_case(name))
        .map(str::to_string)
}

/// The MD5 digest of `bytes`, in lower-case hex.
fn hex_md5(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let digest = Md5::digest(bytes);
    let mut hex = String::with_capacity(32);
    for b in digest {
        let _ = write!(hex, "{b:02x}");
    }
    hex
}

#[cfg(test)]
mod tests;
