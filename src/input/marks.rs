//! What only a session file's place says, put into its first line: a
//! reader of the file's lines alone could not know it.
//!
//! * `OpenClaw`'s JSONL sessions (`agents/<agent>/sessions/*.jsonl`, also
//!   `.jsonl.deleted.<time>`, `.jsonl.reset.<time>`) are Pi's entries to
//!   the byte: the header is marked `"store":"openclaw"`, as its database's
//!   reader (`store/openclaw.rs`) marks it.
//! * Kimi CLI's wire log (`sessions/<md5 of the folder>/<id>/wire.jsonl`)
//!   never names its working folder: `kimi.json` beside `sessions/` lists
//!   the folders, and the one whose path's MD5 names the session's group
//!   is put in the first line (`metadata`) as `"cwd"`.
//!
//! Fields are put first in the line's object, so every line keeps its
//! number. `marked` does it to a reader, [`mark_head`] to the first bytes
//! of a file read piece by piece (`--top`).

use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

use md5::{Digest, Md5};

/// What marks an `OpenClaw` session's header: its lines are not Pi's.
pub(crate) const OPENCLAW: &[u8] = br#""store":"openclaw","#;

/// The longest first line looked at.
const MAX_HEAD: u64 = 64 << 10;

/// The largest `kimi.json` read.
const MAX_KIMI_JSON: u64 = 4 << 20;

/// `rdr`, the bytes of the file at `path`, with its first line marked as
/// its place says (see the module docs); as it is otherwise.
pub(crate) fn marked<R: Read + Send + 'static>(path: &Path, rdr: R) -> Box<dyn Read + Send> {
    if !may_mark(path) {
        return Box::new(rdr);
    }
    let mut rdr = BufReader::new(rdr);
    let mut first = Vec::new();
    // A first line too long, or unreadable, is left as it is.
    if (&mut rdr)
        .take(MAX_HEAD)
        .read_until(b'\n', &mut first)
        .is_ok()
    {
        mark_head(path, &mut first);
    }
    Box::new(io::Cursor::new(first).chain(rdr))
}

/// `head`, the first bytes of the file at `path`, with its first line
/// marked as its place says.
pub fn mark_head(path: &Path, head: &mut Vec<u8>) {
    let fields = if is_openclaw_session(path) {
        is_session_header(head).then(|| OPENCLAW.to_vec())
    } else if is_kimi_wire(path) && begins(head, br#""type": "metadata""#) {
        kimi_folder(path).map(|cwd| {
            let mut f = br#""cwd":"#.to_vec();
            // A `String` always serializes.
            let _ = serde_json::to_writer(&mut f, &cwd);
            f.push(b',');
            f
        })
    } else {
        None
    };
    if let Some(f) = fields {
        *head = put_first(head, &f);
    }
}

/// The file is one of `OpenClaw`'s JSONL sessions:
/// `agents/<agent>/sessions/<id>.jsonl`, or such a file kept after its
/// session was deleted or reset (`.jsonl.deleted.<time>`,
/// `.jsonl.reset.<time>`).
#[must_use]
pub fn is_openclaw_session(path: &Path) -> bool {
    // The place first: asked of every file a walk finds.
    if !in_openclaw_sessions(path) {
        return false;
    }
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let kept = |mark: &str| {
        name.split_once(mark)
            .is_some_and(|(stem, _)| !stem.is_empty())
    };
    let jsonl = Path::new(name).extension().is_some_and(|e| e == "jsonl");
    (jsonl || kept(".jsonl.deleted.") || kept(".jsonl.reset.")) && !name.contains(".trajectory")
}

/// The file is one of the runtime traces `OpenClaw` keeps beside its
/// sessions (`<id>.trajectory.jsonl`): no session of its own.
#[must_use]
pub fn is_openclaw_trajectory(path: &Path) -> bool {
    in_openclaw_sessions(path)
        && (path.file_name().and_then(|n| n.to_str())).is_some_and(|n| n.contains(".trajectory"))
}

/// The file is in `agents/<agent>/sessions/`.
fn in_openclaw_sessions(path: &Path) -> bool {
    let sessions = path.parent();
    let agents = sessions.and_then(Path::parent).and_then(Path::parent);
    dir_named(sessions, "sessions") && dir_named(agents, "agents")
}

/// `dir` is a folder named `name`.
fn dir_named(dir: Option<&Path>, name: &str) -> bool {
    dir.and_then(Path::file_name).is_some_and(|n| n == name)
}

/// The line is a Pi-style session header: `{"type":"session"` first.
pub(crate) fn is_session_header(line: &[u8]) -> bool {
    begins(line, br#""type":"session""#)
}

/// The file may be one [`mark_head`] marks.
fn may_mark(path: &Path) -> bool {
    is_openclaw_session(path) || is_kimi_wire(path)
}

/// Kimi CLI's `sessions/<group>/<id>/wire.jsonl`.
fn is_kimi_wire(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == "wire.jsonl")
        && path
            .ancestors()
            .nth(3)
            .and_then(Path::file_name)
            .is_some_and(|n| n == "sessions")
}

/// The working folder of a Kimi session's wire log: the folder of
/// `kimi.json`'s `work_dirs` whose path's MD5 (hex) names its group.
fn kimi_folder(wire: &Path) -> Option<String> {
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

fn hex_md5(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let digest = Md5::digest(bytes);
    let mut hex = String::with_capacity(32);
    for b in digest {
        let _ = write!(hex, "{b:02x}");
    }
    hex
}

/// The line is an object whose first key and value are `pair` (as the
/// agent writes it, spaces and all).
pub(crate) fn begins(line: &[u8], pair: &[u8]) -> bool {
    line.trim_ascii_start()
        .strip_prefix(b"{")
        .is_some_and(|rest| rest.trim_ascii_start().starts_with(pair))
}

/// `line` with `fields` (`"key":value,`) put first in its object.
pub(crate) fn put_first(line: &[u8], fields: &[u8]) -> Vec<u8> {
    let at = line.iter().position(|&b| b == b'{').map_or(0, |i| i + 1);
    let mut out = Vec::with_capacity(line.len() + fields.len());
    out.extend_from_slice(&line[..at]);
    out.extend_from_slice(fields);
    out.extend_from_slice(&line[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn md5_is_the_digest_kimi_names_folders_by() {
        // RFC 1321's test suite.
        assert_eq!(hex_md5(b""), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(hex_md5(b"abc"), "900150983cd24fb0d6963f7d28e17f72");
    }

    #[test]
    fn fields_go_first_and_the_line_keeps_its_end() {
        let line = b"{\"type\": \"metadata\", \"protocol_version\": \"1.10\"}\n";
        let out = put_first(line, br#""cwd":"/w","#);
        assert_eq!(
            out,
            b"{\"cwd\":\"/w\",\"type\": \"metadata\", \"protocol_version\": \"1.10\"}\n"
        );
        assert!(begins(line, br#""type": "metadata""#));
        assert!(!begins(b"[1]", br#""type""#));
    }
}
