//! What only a session file's place says, put into its first line as the
//! file is opened: a reader of the file's lines alone could not know it.
//!
//! Which files are marked, and with what, is their agent's store reader's
//! to say ([`marks`](super::StoreReader::marks),
//! [`mark_head`](super::StoreReader::mark_head): `OpenClaw`'s
//! JSONL header marked as its database's, Kimi CLI's working folder, for
//! instance). Fields are put first in the line's object ([`put_first`]),
//! so every line keeps its number. `marked` does it to a reader,
//! [`Readers::mark_head`] to the first bytes of a file read piece by piece
//! (`--top`).

use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

use super::store::Readers;

/// The longest first line looked at.
const MAX_HEAD: u64 = 64 << 10;

/// `rdr`, the bytes of the file at `path`, with its first line marked as
/// its place says (see the module docs); as it is otherwise.
pub(crate) fn marked<R: Read + Send + 'static>(
    readers: Readers,
    path: &Path,
    rdr: R,
) -> Box<dyn Read + Send> {
    let Some(marker) = readers.marker(path) else {
        return Box::new(rdr);
    };
    let mut rdr = BufReader::new(rdr);
    let mut first = Vec::new();
    // A first line too long, or unreadable, is left as it is.
    if (&mut rdr)
        .take(MAX_HEAD)
        .read_until(b'\n', &mut first)
        .is_ok()
    {
        marker.mark_head(path, &mut first);
    }
    Box::new(io::Cursor::new(first).chain(rdr))
}

/// The line is an object whose first key and value are `pair` (as the
/// agent writes it, spaces and all).
#[must_use]
pub fn begins(line: &[u8], pair: &[u8]) -> bool {
    line.trim_ascii_start()
        .strip_prefix(b"{")
        .is_some_and(|rest| rest.trim_ascii_start().starts_with(pair))
}

/// `line` with `fields` (`"key":value,`) put first in its object.
#[must_use]
pub fn put_first(line: &[u8], fields: &[u8]) -> Vec<u8> {
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
    use crate::input::store::StoreReader;

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

    /// Marks every `.jsonl` file's first line that begins `{"type":"a"`.
    struct Marker;

    impl StoreReader for Marker {
        fn marks(&self, path: &Path) -> bool {
            path.extension().is_some_and(|e| e == "jsonl")
        }

        fn mark_head(&self, _path: &Path, head: &mut Vec<u8>) {
            if begins(head, br#""type":"a""#) {
                *head = put_first(head, br#""marked":true,"#);
            }
        }
    }

    #[test]
    fn the_first_line_is_marked_as_its_reader_says() {
        let read = |readers: Readers, path: &str, text: &'static [u8]| {
            let mut out = String::new();
            marked(readers, Path::new(path), text)
                .read_to_string(&mut out)
                .unwrap();
            out
        };
        let text = b"{\"type\":\"a\"}\n{\"type\":\"a\"}\n";
        let mine = Readers(&[&Marker]);
        assert_eq!(
            read(mine, "s.jsonl", text),
            "{\"marked\":true,\"type\":\"a\"}\n{\"type\":\"a\"}\n"
        );
        assert_eq!(read(mine, "s.json", text), String::from_utf8_lossy(text));
        assert_eq!(
            read(Readers::NONE, "s.jsonl", text),
            String::from_utf8_lossy(text)
        );
    }
}
