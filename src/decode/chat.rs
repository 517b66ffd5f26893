//! `OpenAI` Chat Completions messages, one per line, as Kimi CLI's
//! `--print --output-format stream-json` and Grok CLI's `-p` print them:
//! `{role: "assistant", content, tool_calls: [{id, function: {name,
//! arguments}}]}`, `{role: "tool", tool_call_id, content}`, no `type`, no
//! ids of their own. What both read alike: which lines are such messages,
//! a call's `arguments`, JSON text inside a string, and the call they make.

use std::borrow::Cow;

use super::producer::Shape;
use crate::event::{JsonText, ToolCall, ToolKind};
use crate::json::{Parser, Value, cow_at, get, str_at};

/// A call of the tool `name`, of kind `kind`, with arguments `args` (its
/// input), or, when they are not an object, their text `raw` as its input
/// `{"arguments": …}`; its key argument and what it changes are the
/// producer's to add.
pub(crate) fn call<'v>(
    id: Cow<'v, str>,
    name: &'v str,
    kind: ToolKind,
    args: Option<Value<'v>>,
    raw: Option<Value<'v>>,
) -> ToolCall<'v> {
    ToolCall {
        id,
        name: Cow::Borrowed(name),
        kind,
        input: match args {
            Some(v) => JsonText::value(v),
            None => JsonText::fields(&[("arguments", raw)]),
        },
        ..ToolCall::default()
    }
}

/// What a `tool_calls` entry names: its id, its function's name and its
/// `arguments` as given (JSON text, or a value).
pub(crate) fn function(c: Value<'_>) -> (Cow<'_, str>, &str, Option<Value<'_>>) {
    let f = get(c, "function");
    let name = f.and_then(|f| str_at(f, "name")).unwrap_or("");
    (
        cow_at(c, "id").unwrap_or_default(),
        name,
        f.and_then(|f| get(f, "arguments")),
    )
}

/// A call's arguments as an object, given to `then`: `raw` itself, or the
/// JSON text it holds parsed in `parser` ([`with_arguments`]); `None`
/// when they are no object.
pub(crate) fn arguments<R>(
    parser: &mut Parser,
    raw: Option<Value<'_>>,
    mut then: impl FnMut(Option<Value<'_>>) -> R,
) -> R {
    match raw.and_then(Value::into_string) {
        Some(text) => with_arguments(parser, text, then),
        None => then(raw.filter(|r| r.is_object())),
    }
}

/// The `role` of a chat message: a line without `type` whose `role` is a
/// string (no other producer writes one).
pub(crate) fn role(s: Shape<'_>) -> Option<&str> {
    if !s.ty.is_empty() || s.v.get("type").is_some() {
        return None;
    }
    str_at(s.v, "role")
}

/// The object a call's `arguments` (JSON text) hold, parsed in `parser`
/// and given to `then` (`None`: not an object). Text cut short (Kimi CLI
/// prints a message while its last call's arguments still stream) is read
/// up to its last whole member, closed.
pub(crate) fn with_arguments<R>(
    parser: &mut Parser,
    text: &str,
    mut then: impl FnMut(Option<Value<'_>>) -> R,
) -> R {
    let whole = parser.parse(text.as_bytes(), |parsed| match parsed {
        Ok(v) if v.is_object() => Ok(then(Some(v))),
        _ => Err(()),
    });
    if let Ok(r) = whole {
        return r;
    }
    // Rare (a call cut short): a copy of its text, closed.
    let closed = close(text);
    parser.parse(closed.as_bytes(), |parsed| {
        then(parsed.ok().filter(|v| v.is_object()))
    })
}

/// JSON text cut short, closed after its last whole member (or its last
/// opening bracket): `{"command": "echo two", ` is `{"command": "echo
/// two"}`; a member cut in its middle is left out.
fn close(text: &str) -> String {
    let (mut open, mut in_string, mut escaped) = (Vec::new(), false, false);
    // Where the text may be cut, and the brackets then open.
    let mut cut: (usize, Vec<u8>) = (0, Vec::new());
    for (i, &c) in text.as_bytes().iter().enumerate() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            b'"' => in_string = true,
            b'{' | b'[' => {
                open.push(c);
                cut = (i + 1, open.clone());
            }
            b'}' | b']' => {
                open.pop();
            }
            b',' => cut = (i, open.clone()),
            _ => {}
        }
    }
    let (at, brackets) = cut;
    let mut closed = String::with_capacity(at + brackets.len());
    // `at` is before or after an ASCII byte: a character boundary.
    closed.push_str(text.get(..at).unwrap_or(""));
    for b in brackets.iter().rev() {
        closed.push(if *b == b'{' { '}' } else { ']' });
    }
    closed
}

#[cfg(test)]
mod tests {
    use super::close;

    #[test]
    fn text_cut_short_is_closed_after_its_last_whole_member() {
        assert_eq!(
            close(r#"{"command": "echo two", "#),
            r#"{"command": "echo two"}"#
        );
        assert_eq!(close(r#"{"command": "ec"#), "{}");
        assert_eq!(close(r#"{"a": [1, {"b": "x,"#), r#"{"a": [1, {}]}"#);
        assert_eq!(close(r#"{"a": "\"}", "b"#), r#"{"a": "\"}"}"#);
        assert_eq!(close("nothing"), "");
    }
}
