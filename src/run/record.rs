//! A library session's events kept for the index (`crate::index`), and
//! read back from it.
//!
//! While a report reads a session, each event the decoders give is written
//! as a line of streamview's JSONL, before `--since`/`--until` leave any
//! out (the index serves every window), stripped of what no report reads:
//! the model's texts and thoughts, tool inputs, the outputs of the calls
//! that did not fail and the answer of a result that did not (a failed call's output is an alert of the
//! report's), the text and line of a notice that is not an error, and
//! every field that is `null` (`jsonl::Terse`). A session read without a problem of any line (a skipped,
//! repaired or implausible line is said with its file and line number, which
//! the index does not keep) is kept; a later report replays its lines
//! through the native decoder into the same session and sink.
//!
//! A session of one plain file also keeps where its lines ended and its
//! decoder's state there (`index::Resume`): when the file has grown (an
//! agent appends to its transcript as it works), [`read_on`] decodes only
//! its new lines, after the events kept, as a read of the whole file
//! would have, and keeps the longer recording.

use std::borrow::Cow;
use std::io::{Seek, SeekFrom};
use std::path::PathBuf;

use crate::decode::{Decoded, Decoder};
use crate::event::{
    Content, Delta, Event, EventKind, JsonText, Level, List, Notice, Role, SessionResult, Text,
    Thinking, ToolCall, ToolResult, Unknown,
};
use crate::file::open_regular;
use crate::index::{self, Index, Recorded, Resume, Stamp};
use crate::input::{Compression, Frame, LineReader, library};
use crate::render::jsonl::Terse;
use crate::session::Session;

/// A session's file changed within this long before it was read keeps its
/// decoder's state in the index (an agent may still be appending to it):
/// a day. An older file that grows again is read whole once, and is then
/// a recent one. (Saving every file's state made a first report over a
/// library of old sessions 9% slower, for files that never grow.)
const LIVE_NS: i64 = 86_400 * 1_000_000_000;

/// The events of one session being read, as the index keeps them.
pub(crate) struct Recorder {
    /// Its files as they were before the read began.
    files: Vec<(PathBuf, Stamp)>,
    /// When the read began.
    indexed_at: u64,
    events: Vec<u8>,
    /// What the JSONL writer is given for a session: nothing of the
    /// session's own goes into the lines.
    blank: Session,
    jsonl: Terse,
    /// Where its lines ended, before the decoder's end of input.
    end: Option<End>,
}

/// Where a session's lines ended: what a later read goes on from.
struct End {
    /// Bytes read.
    offset: u64,
    /// Read from the file's bytes as they are (by [`read_on`]), not
    /// through the readers that decompress or join a document.
    raw: bool,
    /// The decoder's state.
    state: Vec<u8>,
    /// Length of the events given before it.
    body: usize,
}

impl Recorder {
    /// A recording of the session whose files are `files` now.
    pub(crate) fn new(files: Vec<(PathBuf, Stamp)>) -> Recorder {
        Recorder {
            files,
            indexed_at: crate::index::now_ns(),
            events: Vec::with_capacity(1 << 12),
            blank: Session::new(),
            jsonl: Terse::default(),
            end: None,
        }
    }

    /// The session is of one file that changed lately ([`LIVE_NS`]): its
    /// end may be kept for a read that goes on ([`Recorder::end_of_lines`]).
    pub(crate) fn may_go_on(&self) -> bool {
        let since = i64::try_from(self.indexed_at).unwrap_or(i64::MAX) - LIVE_NS;
        matches!(&self.files[..], [(_, s)] if s.mtime > since)
    }

    /// The session's lines ended after `offset` bytes, its decoder's
    /// state then `state` (`None`: it cannot be saved); what the decoder
    /// gives at the end of the input comes next.
    /// `raw`: the bytes were read from the file as they are ([`End::raw`]).
    pub(crate) fn end_of_lines(&mut self, offset: u64, raw: bool, state: Option<Vec<u8>>) {
        self.end = state.map(|state| End {
            offset,
            raw,
            state,
            body: self.events.len(),
        });
    }

    /// Keep `ev`, as a report reads it.
    pub(crate) fn event(&mut self, ev: &Event<'_>) {
        match stripped(ev) {
            Some(s) => self.jsonl.write(&mut self.events, &s, &self.blank),
            None => self.jsonl.write(&mut self.events, ev, &self.blank),
        }
        self.events.push(b'\n');
    }

    /// What the index keeps of `session`, of `lines` lines: its events,
    /// and where a read of its file goes on from if it can.
    pub(crate) fn recorded(mut self, lines: u64, session: &library::Session) -> Recorded {
        let resume = self.end.take().and_then(|end| self.resume(end, session));
        Recorded {
            files: self.files,
            lines,
            indexed_at: self.indexed_at,
            events: self.events,
            resume,
        }
    }

    /// Where a read of `session`'s file goes on from, its lines having
    /// ended at `end`, and the decoder's state there: a plain file (not a
    /// store, not compressed), of which every byte was read as it is, its
    /// last line whole.
    fn resume(&self, end: End, session: &library::Session) -> Option<(Resume, Vec<u8>)> {
        let [(path, then)] = &self.files[..] else {
            return None;
        };
        if session.stored.is_some()
            || *path != session.file
            || !(end.raw || end.offset == then.size)
        {
            return None;
        }
        let f = open_regular(path).ok()?;
        let head = index::read_at(&f, 0, usize::try_from(end.offset.min(4)).ok()?)?;
        if Compression::sniff(&head) != Some(None)
            || index::read_at(&f, end.offset.checked_sub(1)?, 1)? != b"\n"
        {
            return None;
        }
        let resume = Resume {
            offset: end.offset,
            edges: index::edges(&f, end.offset)?,
            body: end.body as u64,
        };
        Some((resume, end.state))
    }
}

/// Session `name` of a library, of the one file `now`, grown since the
/// index kept it: the events kept, then those of its new lines, decoded by
/// `dec` (fresh, with the options of a read) from where the index left
/// the file, then its end of input, as a read of the whole file gives
/// them. `None` when it cannot be read so: it is then read whole (a line
/// with a problem to say is said by that read, with its number).
pub(crate) fn read_on(
    index: &Index,
    session: &library::Session,
    now: &(PathBuf, Stamp),
    dec: Decoder,
    max_line: usize,
) -> Option<Recorded> {
    if session.stored.is_some() || !session.subagents.is_empty() || now.0 != session.file {
        return None;
    }
    let mut f = open_regular(&session.file).ok()?;
    let name = session.name();
    let old = index.resumable(&name, now, &f)?;
    let (point, state) = old.resume.as_ref()?;
    let body = usize::try_from(point.body).ok()?;
    let mut dec = dec.resume(state)?;
    f.seek(SeekFrom::Start(point.offset)).ok()?;
    let mut rec = Recorder::new(vec![now.clone()]);
    rec.events.extend_from_slice(old.events.get(..body)?);
    let mut rdr = LineReader::new(f, max_line).numbered_after(old.lines);
    let mut lines = old.lines;
    loop {
        while let Some(frame) = rdr.next_frame() {
            let Frame::Line(line) = frame else {
                return None;
            };
            lines += 1;
            let decoded = dec.decode(&line, &mut |ev| {
                rec.event(ev);
                Ok(())
            });
            if !matches!(decoded.ok()?, Decoded::Events | Decoded::Blank) {
                return None;
            }
        }
        if rdr.is_eof() {
            break;
        }
        rdr.fill().ok()?;
    }
    if rdr.is_binary() {
        return None;
    }
    rec.end_of_lines(point.offset + rdr.bytes_read(), true, dec.save());
    dec.finish(&mut |ev| {
        rec.event(ev);
        Ok(())
    })
    .ok()?;
    Some(rec.recorded(lines, session))
}

/// `ev` without what no report reads (`None`: it is kept whole).
fn stripped<'e>(ev: &'e Event<'_>) -> Option<Event<'e>> {
    let kind = match &ev.kind {
        EventKind::Text(t) => EventKind::Text(Text {
            role: t.role,
            // A person's first line is the session's title.
            text: Cow::Borrowed(match t.role {
                Role::User => title_part(&t.text),
                Role::Assistant => "",
            }),
            message_id: borrowed(t.message_id.as_ref()),
            command: borrowed(t.command.as_ref()),
            continues: t.continues,
        }),
        EventKind::Thinking(t) => EventKind::Thinking(Thinking {
            text: Cow::Borrowed(""),
            redacted: t.redacted,
            message_id: borrowed(t.message_id.as_ref()),
        }),
        EventKind::ToolCall(c) => EventKind::ToolCall(ToolCall {
            id: Cow::Borrowed(&c.id),
            name: Cow::Borrowed(&c.name),
            kind: c.kind,
            key_arg: borrowed(c.key_arg.as_ref()),
            input: JsonText::default(),
            todos: List::default(),
            questions: List::default(),
            changes: List::default(),
            changes_in_result: c.changes_in_result,
            message_id: borrowed(c.message_id.as_ref()),
        }),
        EventKind::ToolResult(r) if !r.is_error && !r.denied => EventKind::ToolResult(ToolResult {
            id: Cow::Borrowed(&r.id),
            is_error: false,
            denied: false,
            content: Content::default(),
            answers: List::default(),
            changes: List::default(),
        }),
        EventKind::Delta(d) => EventKind::Delta(Delta {
            kind: d.kind,
            index: d.index,
            text: Cow::Borrowed(""),
        }),
        // A successful result's answer: the report says how it ended.
        EventKind::Result(r) if !r.is_error && r.text.is_some() => {
            EventKind::Result(Box::new(SessionResult {
                text: None,
                ..(**r).clone()
            }))
        }
        // Below an error a notice is no alert: a report counts it.
        EventKind::Notice(n) if n.level < Level::Error => EventKind::Notice(Notice {
            subtype: Cow::Borrowed(&n.subtype),
            level: n.level,
            text: Cow::Borrowed(""),
            raw: None,
            estimate: n.estimate,
        }),
        EventKind::Unknown(u) => EventKind::Unknown(Unknown {
            type_name: Cow::Borrowed(&u.type_name),
            raw: Cow::Borrowed("null"),
        }),
        _ => return None,
    };
    Some(Event {
        producer: ev.producer,
        line: ev.line,
        source: borrowed(ev.source.as_ref()),
        session: borrowed(ev.session.as_ref()),
        parent: borrowed(ev.parent.as_ref()),
        time: ev.time,
        kind,
    })
}

fn borrowed<'e>(c: Option<&'e Cow<'_, str>>) -> Option<Cow<'e, str>> {
    c.map(|c| Cow::Borrowed(&**c))
}

/// Of a prompt, what its title is made of (`session::title`): up to its
/// first line with words, that line's first 81 characters after its
/// leading blanks, and the next character that is not blank after them,
/// if any (the title says "…" when the line goes on).
fn title_part(text: &str) -> &str {
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        if line.trim().is_empty() {
            start += line.len();
            continue;
        }
        let lead = line.len() - line.trim_start().len();
        let body = &line[lead..];
        let cut = body.char_indices().nth(81).map_or(body.len(), |(i, _)| i);
        let more = body[cut..]
            .char_indices()
            .find(|(_, c)| !c.is_whitespace())
            .map_or(cut, |(i, c)| cut + i + c.len_utf8());
        return &text[..start + lead + more];
    }
    ""
}

#[cfg(test)]
mod tests {
    use super::title_part;
    use crate::event::{Role, Text};
    use proptest::prelude::*;

    /// The session's title of a prompt `text`.
    fn title(text: &str) -> Option<String> {
        crate::session::title(&Text {
            role: Role::User,
            text: text.into(),
            message_id: None,
            command: None,
            continues: false,
        })
    }

    #[test]
    fn a_prompt_keeps_its_title() {
        for text in [
            "",
            "\n\n  hello  \nworld",
            &"x".repeat(200),
            &format!("{}{}y", "a".repeat(80), " ".repeat(50)),
            &format!("{}{}", "a".repeat(80), " ".repeat(50)),
            &format!("\r\n\t{}\r\nnext", "é".repeat(81)),
        ] {
            assert_eq!(title(title_part(text)), title(text), "{text:?}");
        }
    }

    proptest! {
        #[test]
        fn any_prompt_keeps_its_title(text in "[ a\\n\\té\\r]{0,200}") {
            prop_assert_eq!(title(title_part(&text)), title(&text));
        }
    }
}
