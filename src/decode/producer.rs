//! What a producer module provides and gets: its [`Entry`] in the
//! registry, its detection rule ([`Format`], asked with a line's [`Shape`],
//! answered with [`Evidence`]), its per-stream decoder ([`Stream`]), and
//! what it decodes a line with ([`Ctx`], [`Emit`]).
//!
//! The producer modules and the registry that lists them (`registry.rs`)
//! both stand on this one: no file of `decode/` names a file that names it
//! back.

use std::borrow::Cow;
use std::ffi::OsStr;
use std::io;
use std::path::{Path, PathBuf};

use crate::event::{Event, EventKind, Level, Notice, Producer, Unknown};
use crate::input::StoreReader;
use crate::json::{Arena, Unread, Value, str_at};
use crate::time::Timestamp;

/// Callback receiving each decoded event.
pub type Emit<'e> = dyn FnMut(&Event<'_>) -> io::Result<()> + 'e;

/// A producer: who it is, and its format.
pub(crate) struct Entry {
    /// The identity its events carry.
    pub producer: Producer,
    /// The stable name used in JSONL (`"producer"`) and by `--from`.
    pub name: &'static str,
    /// The product's name, for people.
    pub label: &'static str,
    /// The command whose output this is, for `--from`'s help.
    pub invocation: &'static str,
    /// A decoder for a new stream of it (`start::<State>`).
    pub stream: fn() -> Box<dyn Stream>,
    /// How to recognise its lines.
    pub format: &'static dyn Format,
    /// Keys of its lines' top-level object that say who, when or where
    /// and that its decoder writes into nothing `--grep` searches, nor
    /// their string values: a line whose every raw match lies in them is
    /// skipped unread ([`unsearched_key`]). A key listed here must be
    /// unsearched for every producer (the raw test does not know whose
    /// line it reads).
    pub unsearched: &'static [&'static str],
    /// The values of its lines that no report reads (`--format summary`,
    /// `summary-json`, `--by`): objects and arrays of context (request
    /// logs, prompt snapshots) that a report run leaves unparsed (see
    /// `json::prune`). Any value a decoder reads into a count, a time, a
    /// model, a tool call, an error or a session's identity must not be
    /// here: `tests/ledger.rs` compares every fixture's report with and
    /// without it.
    pub unread: &'static [Unread],
    /// Where its agent keeps its saved sessions on a real machine, on the
    /// one entry of the agent that reads them (`--latest --from`,
    /// `--all-agents`); `None` on its other forms and for an agent that
    /// keeps none.
    pub store: Option<Store>,
}

/// Where an agent keeps its saved sessions: a folder of its own (its
/// default under the home folder, or where the first of its variables set
/// puts it), and the sessions' place in that folder.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Store {
    /// The agent's folder under the home folder (`.claude`; `""`: the
    /// home folder itself), `/` between the names.
    pub home: &'static str,
    /// The variables that move that folder, the first set one winning; a
    /// variable named `XDG_…` counts only when it is an absolute path
    /// (the XDG rule).
    pub moved_by: &'static [&'static str],
    /// The sessions' place in the agent's folder (`projects`).
    pub sessions: &'static str,
    /// A variable naming the agent's store itself: its database, a path or
    /// a name in the sessions' folder (`:memory:`: none on disk, the folder
    /// then), or the folder of the file that lists its stores (Crush's
    /// `CRUSH_GLOBAL_DATA`, `projects.json` in it), a path.
    pub database: Option<&'static str>,
    /// What reads the store where its files' names and places say more
    /// than their lines (`decode/<name>/store.rs`: its databases, the
    /// files that list them, a session file's first line marked); `None`
    /// for an agent whose session files say it all. The driver hands every
    /// entry's down to the library walk (`registry::store_readers`).
    pub reader: Option<&'static dyn StoreReader>,
}

impl Store {
    /// The sessions' folder (or database) under `home`, as the variables
    /// `var` gives (the environment, passed in as data) move it.
    pub(crate) fn locate<'e>(
        &self,
        home: &Path,
        var: impl Fn(&str) -> Option<&'e OsStr>,
    ) -> PathBuf {
        let set = |name: &str| {
            var(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .filter(|p| !name.starts_with("XDG_") || p.is_absolute())
        };
        let mut path = self
            .moved_by
            .iter()
            .find_map(|name| set(name))
            .unwrap_or_else(|| under(home.to_path_buf(), self.home));
        path = under(path, self.sessions);
        match self.database.and_then(set) {
            Some(db) if db.as_os_str() == ":memory:" => path,
            Some(db) => path.join(db),
            None => path,
        }
    }
}

/// `path` with the `/`-separated names of `rel` pushed onto it.
fn under(mut path: PathBuf, rel: &str) -> PathBuf {
    for name in rel.split('/').filter(|n| !n.is_empty()) {
        path.push(name);
    }
    path
}

/// How strongly a line says which producer printed it, strongest first
/// (the discriminator table of `docs/protocols.md` §1.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Evidence {
    /// A line type or field only this producer writes.
    Type,
    /// This producer's session header (`system`/`init` and its telltales).
    Init,
    /// A line of Claude Code's family that no other producer claimed.
    Family,
    /// A shared shape (`assistant`, `user`, `result`) with this producer's
    /// session id.
    Session,
    /// A shared shape with a field only this producer's version of it has.
    Hint,
}

/// A parsed line as detection sees it: its `type`, read once for every
/// producer's rule (asked of every line: most lines have it first).
#[derive(Clone, Copy)]
pub(crate) struct Shape<'v> {
    /// The line.
    pub v: Value<'v>,
    /// Its `type` (`""` for a line without one).
    pub ty: &'v str,
    /// A `system` line of subtype `init` (see [`Shape::is_init`]): read
    /// once here, where five producers' rules asked it of every line.
    init: bool,
}

impl<'v> Shape<'v> {
    /// The shape of `v`.
    pub(crate) fn of(v: Value<'v>) -> Self {
        // Gemini CLI's session files have lines without one (`$set`, the
        // header): `""`.
        let ty = str_at(v, "type").unwrap_or("");
        let init = ty == "system" && str_at(v, "subtype") == Some("init");
        Shape { v, ty, init }
    }

    /// Its `subtype`, if any.
    pub(crate) fn sub(&self) -> Option<&'v str> {
        str_at(self.v, "subtype")
    }

    /// A `system` line of subtype `init`: the session header of Claude
    /// Code and of the producers that print its shape.
    pub(crate) fn is_init(&self) -> bool {
        self.init
    }
}

/// A producer's format: how to recognise its lines.
pub(crate) trait Format: Sync {
    /// What this line says of being this producer's, if anything.
    fn detect(&self, s: Shape<'_>) -> Option<Evidence>;

    /// True for a line that can only be the first of this producer's stream
    /// (a session header): it ends another producer's stream concatenated
    /// before it.
    fn opens(&self, s: Shape<'_>) -> bool;

    /// A decoder of this producer's stream restored from what
    /// [`Stream::save`] gave (`None`, the default: this producer's are
    /// not, or the bytes are not a state of its).
    fn restore(&self, saved: &[u8]) -> Option<Box<dyn Stream>> {
        let _ = saved;
        None
    }
}

/// One stream of one producer: its state between lines, and how a line
/// becomes events.
pub(crate) trait Stream: Send {
    /// Decode one parsed line, passing each event to `emit`.
    fn decode<'v>(&mut self, v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()>;

    /// Decode a line from its bytes (`ctx.raw`) alone, without the parser,
    /// when it is of a shape this stream reads that way (Claude Code's
    /// token deltas); `None`, having emitted nothing, for any other line,
    /// which is then parsed and given to [`Stream::decode`]. A line read
    /// here must give the events `decode` gives it parsed, have no time
    /// (`ctx.time` is `None`), and be one no producer's [`Format::opens`]
    /// is true for: the parsed line's checks are not made.
    fn decode_unparsed(&mut self, ctx: &Ctx<'_>, emit: &mut Emit<'_>) -> Option<io::Result<()>> {
        let _ = (ctx, emit);
        None
    }

    /// A line of plain text in the stream (not JSON): `Some`, having
    /// emitted what it makes of it, when this producer prints some (Kimi
    /// CLI writes a failed request's error so); `None` (the default) to
    /// have it shown as the text it is.
    fn plain_text(
        &mut self,
        text: &str,
        ctx: &Ctx<'_>,
        emit: &mut Emit<'_>,
    ) -> Option<io::Result<()>> {
        let _ = (text, ctx, emit);
        None
    }

    /// The stream's state between two lines, for a later run to read on
    /// from there ([`Format::restore`]: the index keeps it for a saved
    /// session that grows); `None` (the default) when it cannot be.
    fn save(&self) -> Option<Vec<u8>> {
        None
    }

    /// End of the stream: emit what was held back (joined deltas,
    /// reconstructed totals).
    fn finish(&mut self, emit: &mut Emit<'_>) -> io::Result<()> {
        let _ = emit;
        Ok(())
    }

    /// The producer's text is whole only across lines (answer chunks the
    /// decoder joins, never repeated whole): a word may be cut between two
    /// lines, so `--grep` must read every line.
    fn text_spans_lines(&self) -> bool {
        false
    }
}

/// A fresh decoder of one stream whose state is `S`: an [`Entry`]'s `stream`.
pub(crate) fn start<S: Stream + Default + 'static>() -> Box<dyn Stream> {
    Box::<S>::default()
}

/// What every producer module gets besides the parsed value.
pub(crate) struct Ctx<'a> {
    /// Line number.
    pub line: u64,
    /// The line (verbatim JSON, valid UTF-8: simd-json checked it).
    pub raw: &'a [u8],
    /// Whose format the line is read as.
    pub producer: Producer,
    /// Where text composed for this line goes (see [`Arena`]).
    pub arena: &'a Arena,
    /// When the line says it happened (its events' [`Event::time`]).
    pub time: Option<Timestamp>,
    /// Other lines may be left unread: see `Decoder::lines_may_be_skipped`.
    pub skipping: bool,
}

impl<'a> Ctx<'a> {
    /// The line as text (verbatim JSON).
    pub fn raw(&self) -> Cow<'a, str> {
        // Valid (the parse checked it): the fast check, borrowed.
        match simdutf8::basic::from_utf8(self.raw) {
            Ok(s) => Cow::Borrowed(s),
            Err(_) => String::from_utf8_lossy(self.raw),
        }
    }

    /// An event of this line, of no session and no sub-agent (producers
    /// whose lines name neither).
    pub fn event(&self, kind: EventKind<'a>) -> Event<'a> {
        Event {
            producer: self.producer,
            line: self.line,
            source: None,
            session: None,
            parent: None,
            time: self.time,
            kind,
        }
    }

    /// A notice of this line (the line kept whole as its `raw`).
    pub fn notice(&self, subtype: &'static str, level: Level, text: Cow<'a, str>) -> EventKind<'a> {
        EventKind::Notice(Notice {
            subtype: Cow::Borrowed(subtype),
            level,
            text,
            raw: Some(self.raw()),
            estimate: false,
        })
    }
}

/// True when `v` has the field `key`.
pub(crate) fn has(v: Value<'_>, key: &str) -> bool {
    v.get(key).is_some()
}

/// A line of a producer whose decoder does not know it: kept verbatim as an
/// `unknown` event named by its `type` (and `subtype`).
pub(crate) fn unknown_line<'v>(v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
    let ty = str_at(v, "type").unwrap_or("");
    let type_name = match str_at(v, "subtype").filter(|s| !s.is_empty()) {
        Some(sub) => Cow::Owned(format!("{ty}/{sub}")),
        None => Cow::Borrowed(ty),
    };
    emit(&Event {
        producer: ctx.producer,
        line: ctx.line,
        source: None,
        session: None,
        parent: None,
        time: ctx.time,
        kind: EventKind::Unknown(Unknown {
            type_name,
            raw: ctx.raw(),
        }),
    })
}
