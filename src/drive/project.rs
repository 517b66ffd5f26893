//! `--project`: which sessions of a library were run in a project, told
//! from their first lines, before they are read.

use std::io::Read;

use crate::decode::store_readers;
use crate::index::Index;
use crate::input::library;
use crate::run::Feeder;

/// How much of a session is read to find its working directory: every
/// producer that says it says it in its first lines (the session header,
/// a transcript's first entry).
const HEAD: usize = 1 << 20;

/// Whether `session` was run in a working directory containing `pattern`.
/// A session whose first [`HEAD`] bytes name none does not match.
pub(super) fn matches(session: &library::Session, pattern: &str, index: Option<&Index>) -> bool {
    cwd_of(session, index).is_some_and(|cwd| cwd.contains(pattern))
}

/// The main agent's working directory, from the first lines of `session`,
/// or of its events as the index kept them when it may be trusted (the
/// same events: the same directory).
fn cwd_of(session: &library::Session, index: Option<&Index>) -> Option<String> {
    let kept = index.and_then(|ix| ix.peek(&session.name(), &session.stamps()?));
    let mut rdr: Box<dyn Read> = match kept {
        Some(r) => Box::new(std::io::Cursor::new(r.events)),
        None => session.open(store_readers()).ok()?,
    };
    let mut feeder = Feeder::new();
    let mut buf = vec![0; 64 * 1024];
    let mut read = 0;
    while read < HEAD {
        let n = rdr.read(&mut buf).ok()?;
        if n == 0 {
            break;
        }
        read += n;
        feeder.feed(&buf[..n], &mut |_, _| {});
        if let Some(cwd) = feeder.session().cwd() {
            return Some(cwd.to_string());
        }
    }
    feeder
        .finish(&mut |_, _| {})
        .sessions()
        .find_map(|s| s.cwd.clone())
}
