//! A library session's events kept for the index (`crate::index`), and
//! read back from it.
//!
//! While a report reads a session, each event the decoders give is written
//! as a line of streamview's JSONL, before `--since`/`--until` leave any
//! out (the index serves every window), stripped of what no report reads:
//! the model's texts and thoughts, tool inputs, the outputs of the calls
//! that did not fail and the answer of a result that did not (a failed call's output is an alert of the
//! report's). A session read without a problem of any line (a skipped,
//! repaired or implausible line is said with its file and line number, which
//! the index does not keep) is kept; a later report replays its lines
//! through the native decoder into the same session and sink.

use std::borrow::Cow;
use std::path::PathBuf;

use crate::event::{
    Content, Delta, Event, EventKind, JsonText, List, Role, SessionResult, Text, Thinking,
    ToolCall, ToolResult, Unknown,
};
use crate::index::{Recorded, Stamp};
use crate::render::jsonl::write_event;
use crate::session::Session;

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
}

impl Recorder {
    /// A recording of the session whose files are `files` now.
    pub(crate) fn new(files: Vec<(PathBuf, Stamp)>) -> Recorder {
        Recorder {
            files,
            indexed_at: crate::index::now_ns(),
            events: Vec::with_capacity(1 << 12),
            blank: Session::new(),
        }
    }

    /// Keep `ev`, as a report reads it.
    pub(crate) fn event(&mut self, ev: &Event<'_>) {
        match stripped(ev) {
            Some(s) => write_event(&mut self.events, &s, &self.blank),
            None => write_event(&mut self.events, ev, &self.blank),
        }
        self.events.push(b'\n');
    }

    /// What the index keeps of the session, of `lines` lines.
    pub(crate) fn recorded(self, lines: u64) -> Recorded {
        Recorded {
            files: self.files,
            lines,
            indexed_at: self.indexed_at,
            events: self.events,
        }
    }
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
