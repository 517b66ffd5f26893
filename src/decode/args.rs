//! What the producers' decoders share beyond JSON access: the key
//! arguments of tools alike across producers (a search's `pattern in dir`,
//! a todo list's `3 items`, an MCP tool's first scalar), lists of names,
//! todos and questions, and a string value as [`Content`].
//!
//! Text they compose goes into the line's [`Arena`], so that decoding
//! allocates nothing.

use std::borrow::Cow;

use crate::event::ToolKind;
use crate::event::{Content, Edit, FileChange, List, Question, Todo};
use crate::json::{Arena, J, Value, arr_at, cow_at, get, str_at, view};

/// `items` as an event's list, in the line's arena.
pub(crate) fn list<T>(a: &Arena, items: impl IntoIterator<Item = T>) -> List<'_, T> {
    List::Borrowed(a.slice(items))
}

/// The key argument of a tool without a known schema (MCP tools and the
/// like): its first scalar argument, as text; with `skip_empty`, an empty
/// string is passed over (Codex, `OpenCode`).
pub(crate) fn first_scalar<'v>(
    args: Value<'v>,
    skip_empty: bool,
    a: &'v Arena,
) -> Option<Cow<'v, str>> {
    args.as_object()?.iter().find_map(|(_, v)| match view(v) {
        J::Str(s) if !(skip_empty && s.is_empty()) => Some(Cow::Borrowed(s)),
        J::Scalar(n) => Some(json_in(n, a)),
        _ => None,
    })
}

/// The first line of the string `key` (a plan, a prompt).
pub(crate) fn first_line_at<'v>(v: Value<'v>, key: &str) -> Option<Cow<'v, str>> {
    str_at(v, key).map(|s| Cow::Borrowed(s.lines().next().unwrap_or("")))
}

/// A todo list's key argument: `3 items`.
pub(crate) fn items(n: usize, a: &Arena) -> Cow<'_, str> {
    text!(a, "{n} item{}", if n == 1 { "" } else { "s" })
}

/// A search's key argument: `pattern in dir (filter)`, the parts that are
/// there (Claude's Glob and Grep, Gemini's and Cursor's search tools).
pub(crate) fn pattern_in<'v>(
    pattern: &'v str,
    dir: Option<&str>,
    filter: Option<&str>,
    a: &'v Arena,
) -> Cow<'v, str> {
    if dir.is_none() && filter.is_none() {
        return Cow::Borrowed(pattern);
    }
    let mut out = a.text();
    out.push_str(pattern);
    if let Some(d) = dir {
        out.push_str(" in ");
        out.push_str(d);
    }
    if let Some(f) = filter {
        out.push_str(" (");
        out.push_str(f);
        out.push(')');
    }
    Cow::Borrowed(out.done())
}

/// Strings of an array (other items are skipped; `{name}` objects give their name).
pub(crate) fn names_at<'v>(v: Value<'v>, key: &str) -> impl Iterator<Item = &'v str> {
    arr_at(v, key)
        .iter()
        .filter_map(|x| x.into_string().or_else(|| str_at(x, "name")))
}

/// [`names_at`] as an event's list.
pub(crate) fn strings_at<'v>(v: Value<'v>, key: &str, a: &'v Arena) -> List<'v, Cow<'v, str>> {
    list(a, names_at(v, key).map(Cow::Borrowed))
}

/// A todo list: the items of the array `key`, their text from the first of
/// `content_keys` present, their status in Claude's words (`pending`,
/// `in_progress`, `completed`) whatever the producer's spelling.
pub(crate) fn todos_at<'v>(
    v: Value<'v>,
    key: &str,
    content_keys: &[&str],
    a: &'v Arena,
) -> List<'v, Todo<'v>> {
    list(
        a,
        arr_at(v, key).iter().map(|t| Todo {
            content: content_keys
                .iter()
                .find_map(|k| cow_at(t, k))
                .unwrap_or_default(),
            status: str_at(t, "status").map_or(Cow::Borrowed("pending"), todo_status),
        }),
    )
}

/// `todo`/`in-progress` (Amp), `TODO_STATUS_COMPLETED` (Cursor) and the like.
pub(crate) fn todo_status(s: &str) -> Cow<'_, str> {
    const CANONICAL: [(&str, &str); 11] = [
        ("todo", "pending"),
        ("pending", "pending"),
        ("not_started", "pending"),
        ("in_progress", "in_progress"),
        ("inprogress", "in_progress"),
        ("active", "in_progress"),
        ("completed", "completed"),
        ("complete", "completed"),
        ("done", "completed"),
        ("cancelled", "cancelled"),
        ("canceled", "cancelled"),
    ];
    let s = s.strip_prefix("TODO_STATUS_").unwrap_or(s);
    // Case-insensitive, `-` read as `_`, without a lowered copy.
    let same = |name: &str| {
        name.len() == s.len()
            && name.bytes().zip(s.bytes()).all(|(n, c)| {
                n == if c == b'-' {
                    b'_'
                } else {
                    c.to_ascii_lowercase()
                }
            })
    };
    match CANONICAL.iter().find(|(name, _)| same(name)) {
        Some((_, canonical)) => Cow::Borrowed(canonical),
        None => Cow::Borrowed(s),
    }
}

/// Questions put to the user: the items of the array `key`, the question
/// text from the first of `question_keys`, option labels from strings or
/// `{label}` objects.
pub(crate) fn questions_at<'v>(
    v: Value<'v>,
    key: &str,
    question_keys: &[&str],
    a: &'v Arena,
) -> List<'v, Question<'v>> {
    list(
        a,
        arr_at(v, key).iter().map(|q| Question {
            question: question_keys
                .iter()
                .find_map(|k| cow_at(q, k))
                .unwrap_or_default(),
            options: list(
                a,
                arr_at(q, "options")
                    .iter()
                    .filter_map(|o| o.into_string().or_else(|| str_at(o, "label")))
                    .map(Cow::Borrowed),
            ),
        }),
    )
}

/// The files an `apply_patch` text touches (`*** Update File: path`,
/// `Add File`, `Delete File`), joined with `, `.
pub(crate) fn patch_files<'v>(text: &str, a: &'v Arena) -> Option<Cow<'v, str>> {
    let mut t = a.text();
    for (_, f) in patch_headers(text) {
        if !t.is_empty() {
            t.push_str(", ");
        }
        t.push_str(f);
    }
    (!t.is_empty()).then(|| Cow::Borrowed(t.done()))
}

/// What an `apply_patch` text does, as Codex's stream names its changes:
/// `add /dir/a, update /dir/b`, relative paths read under `cwd`.
pub(crate) fn patch_changes<'v>(
    text: &str,
    cwd: Option<&str>,
    a: &'v Arena,
) -> Option<Cow<'v, str>> {
    let mut t = a.text();
    for (kind, f) in patch_headers(text) {
        if !t.is_empty() {
            t.push_str(", ");
        }
        t.push_str(kind);
        t.push(' ');
        if let Some(dir) = cwd.filter(|d| !f.starts_with('/') && !d.is_empty()) {
            t.push_str(dir.strip_suffix('/').unwrap_or(dir));
            t.push('/');
        }
        t.push_str(f);
    }
    (!t.is_empty()).then(|| Cow::Borrowed(t.done()))
}

/// The file headers of an `apply_patch` text: (`add`|`update`|`delete`,
/// path).
fn patch_headers(text: &str) -> impl Iterator<Item = (&'static str, &str)> {
    text.lines().filter_map(|l| {
        let (kind, f) = if let Some(f) = l.strip_prefix("*** Update File: ") {
            ("update", f)
        } else if let Some(f) = l.strip_prefix("*** Add File: ") {
            ("add", f)
        } else {
            ("delete", l.strip_prefix("*** Delete File: ")?)
        };
        Some((kind, f.trim()))
    })
}

/// The change of a tool that replaces `old` by `new` in one file (Claude's
/// `Edit`, Gemini's `replace`, Amp's `edit_file`…): the input's strings
/// `old`, `new` and the flag `all`, as one [`FileChange`] of the call's
/// file.
pub(crate) fn replace_at<'v>(
    input: Value<'v>,
    [old, new, all]: [&str; 3],
    a: &'v Arena,
) -> List<'v, FileChange<'v>> {
    match replace_of(input, [old, new, all]) {
        Some(edit) => list(a, [FileChange { path: None, edit }]),
        None => List::default(),
    }
}

/// [`replace_at`]'s edit (`None` without the new text).
pub(crate) fn replace_of<'v>(input: Value<'v>, [old, new, all]: [&str; 3]) -> Option<Edit<'v>> {
    let [o, n, al] = input.fields([old, new, all]);
    Some(Edit::Replace {
        old: o.and_then(content_of).unwrap_or_default(),
        new: content_of(n?)?,
        all: al.and_then(Value::as_bool).unwrap_or(false),
    })
}

/// The change of a tool that writes a whole file (Claude's `Write`,
/// Gemini's `write_file`…): the input's string `key` as its new content.
pub(crate) fn write_at<'v>(input: Value<'v>, key: &str, a: &'v Arena) -> List<'v, FileChange<'v>> {
    match get(input, key).and_then(content_of) {
        Some(c) => list(
            a,
            [FileChange {
                path: None,
                edit: Edit::Write(c),
            }],
        ),
        None => List::default(),
    }
}

/// The change of a tool that applies a patch (Codex's and Amp's
/// `apply_patch`, `OpenCode`'s `patch`): the input's string `key`.
pub(crate) fn patch_at<'v>(input: Value<'v>, key: &str, a: &'v Arena) -> List<'v, FileChange<'v>> {
    match get(input, key).and_then(content_of) {
        Some(c) => list(
            a,
            [FileChange {
                path: None,
                edit: Edit::Patch(c),
            }],
        ),
        None => List::default(),
    }
}

/// A string value as [`Content`]: a long one stays in its JSON form.
pub(crate) fn content_of(v: Value<'_>) -> Option<Content<'_>> {
    match v.long() {
        Some(l) => Some(Content::json(l.body, l.canonical)),
        None => v.into_string().map(Content::from),
    }
}

/// Compact JSON text of a value (for tool inputs and the like).
/// [`to_json`] in the line's arena.
pub(crate) fn json_in<'v>(v: Value<'v>, arena: &'v Arena) -> Cow<'v, str> {
    Cow::Borrowed(v.encode_in(arena))
}

pub(crate) fn to_json(v: Value<'_>) -> String {
    v.encode()
}

/// [`ToolKind::Mcp`] for a tool named `mcp__<server>__<tool>` (as Claude
/// Code, Qwen Code, Codex and Cursor name MCP tools, or streamview names them
/// for them), else [`ToolKind::Other`]: the last arm of a producer's
/// `tool_kind`.
pub(crate) fn mcp_or_other(name: &str) -> ToolKind {
    if name.starts_with("mcp__") {
        ToolKind::Mcp
    } else {
        ToolKind::Other
    }
}
