//! From one line of bytes to normalized [`Event`](crate::event::Event)s: the driver and the
//! dispatch.
//!
//! The [`Decoder`] trims the line (`line.rs`), parses it in reused memory
//! (`json::Parser`), and hands the value to the decoder of its producer:
//! the one `--from` named, else the one the first recognisable line showed
//! (`registry::detect`), kept for the rest of the input unless a line opens
//! another producer's stream. Each producer is one module that implements
//! `producer::Format`, listed in `registry::REGISTRY`; `args.rs` holds what
//! their decoders share.

/// `format!` into the line's arena: `text!(arena, "…", args)` is a
/// `Cow<str>` borrowed from it (see [`Arena`]).
macro_rules! text {
    ($arena:expr, $($arg:tt)*) => {
        $arena.fmt(format_args!($($arg)*))
    };
}

mod amp;
mod args;
mod chat;
mod claude;
mod cline;
mod cline_session;
mod codex;
mod codex_rollout;
mod copilot;
mod crush;
mod cursor;
mod droid;
mod gemini;
mod gemini_session;
mod grok;
mod hermes;
mod kilo;
mod kimi;
mod kimi_session;
mod line;
mod messages;
mod native;
mod openclaw;
mod opencode;
mod pi;
pub mod plausible;
mod producer;
mod qwen;
mod qwen_session;
mod registry;
mod seen;
mod transcript;

pub use line::{Decoded, LineProblem};
pub use producer::Emit;
pub(crate) use producer::{Ctx, Store};
pub use registry::store_readers;
pub(crate) use registry::{detect, stores, unsearched_key};

use std::io;

use crate::event::Producer;
use crate::input::Line;
use crate::json::{Arena, ParseError, Parser, Value, replace_lone_surrogates};
use crate::time::Timestamp;
use producer::Stream;

/// Turns lines into events. One per input source: it carries per-stream
/// state (the producer it detected, which API messages were counted…).
pub struct Decoder {
    /// The reused parse buffers.
    parser: Parser,
    /// Text composed while decoding a line (see [`Arena`]).
    arena: Arena,
    /// Forced with `--from`.
    forced: Option<Producer>,
    /// Decided from the first recognisable line.
    latched: Option<Producer>,
    /// The stream being read: the producer whose decoder reads it, and the
    /// decoder's state.
    stream: Option<(Producer, Box<dyn Stream>)>,
    /// A line with its lone surrogate escapes replaced (reused).
    repaired: Vec<u8>,
    /// Lines may be left unread (`--grep`): see [`Decoder::lines_may_be_skipped`].
    skipping: bool,
    /// Only a report is written: see [`Decoder::for_report`].
    report: bool,
    /// Lines a stream can read from their bytes are read so: see
    /// [`Decoder::read_unparsed`].
    unparsed: bool,
}

impl Default for Decoder {
    fn default() -> Self {
        Decoder::new()
    }
}

impl Decoder {
    /// A fresh decoder.
    #[must_use]
    pub fn new() -> Self {
        Decoder::with_producer(None)
    }

    /// A decoder that reads every line as `producer` (`--from`), or detects
    /// it from the first recognisable line when `None`.
    #[must_use]
    pub fn with_producer(producer: Option<Producer>) -> Self {
        Decoder::in_memory(Parser::default(), Arena::default(), Vec::new(), producer)
    }

    /// A decoder as [`Decoder::with_producer`] in the given memory (fresh,
    /// or another input's emptied: see [`Decoder::reuse`]).
    fn in_memory(
        parser: Parser,
        arena: Arena,
        repaired: Vec<u8>,
        producer: Option<Producer>,
    ) -> Self {
        Decoder {
            parser,
            arena,
            forced: producer,
            latched: None,
            stream: None,
            repaired,
            skipping: false,
            report: false,
            unparsed: true,
        }
    }

    /// A fresh decoder as [`Decoder::with_producer`] for another input, in
    /// this one's memory (its parse buffers and arena, grown to the lines
    /// it read): a library's sessions are read one after another without
    /// growing them again. Nothing of what it read carries over.
    #[must_use]
    pub fn reuse(self, producer: Option<Producer>) -> Self {
        let Decoder {
            parser,
            mut arena,
            mut repaired,
            ..
        } = self;
        arena.reset();
        repaired.clear();
        // Not over `Decoder::with_producer`, which would make parse buffers
        // only to drop them (0.25% of a report over a library of small files).
        Decoder::in_memory(parser.reuse(), arena, repaired, producer)
    }

    /// Some lines of the input may be left unread (`--grep` skips the
    /// lines that cannot match): no event may then depend on what another
    /// line said, or it would depend on which lines were read. A
    /// transcript's sub-agent is not nested under its `Agent` call (nor
    /// said to be un-nested): a search shows each match by itself.
    #[must_use]
    pub fn lines_may_be_skipped(mut self, skipping: bool) -> Self {
        self.skipping = skipping;
        self
    }

    /// Only a report is written (`--format summary`, `summary-json`,
    /// `--by`): what no report reads of a line (its producer's
    /// `Entry::unread`: request logs, prompt snapshots) is left unparsed
    /// once the producer is known. The events may then lack what they
    /// would take from it (a session header's tool list); their counts,
    /// times, models, calls and errors are the same.
    #[must_use]
    pub fn for_report(mut self, report: bool) -> Self {
        self.report = report;
        self
    }

    /// Lines at least `min_line` bytes long have their string values of
    /// at least `min_len` bytes spared the parser (see `json::scan`; by
    /// default 4 KiB and 1 KiB). Only speed may depend on it: tests and the
    /// fuzz target compare the events with the scan everywhere and nowhere.
    #[doc(hidden)]
    #[must_use]
    pub fn spare_strings(mut self, min_line: usize, min_len: usize) -> Self {
        self.parser.spare_strings(min_line, min_len);
        self
    }

    /// Lines of a shape the stream's decoder reads from their bytes (a
    /// token delta: see `Stream::decode_unparsed`) are read so (the
    /// default), or parsed as every other line. Only speed may depend on
    /// it: tests and the fuzz target compare the events both ways.
    #[doc(hidden)]
    #[must_use]
    pub fn read_unparsed(mut self, unparsed: bool) -> Self {
        self.unparsed = unparsed;
        self
    }

    /// The producer of this stream, once known.
    #[must_use]
    pub fn producer(&self) -> Option<Producer> {
        self.forced.or(self.latched)
    }

    /// The stream's text is whole only across lines (see
    /// `Stream::text_spans_lines`): a line cannot be judged alone.
    #[must_use]
    pub fn text_spans_lines(&self) -> bool {
        self.stream
            .as_ref()
            .is_some_and(|(_, s)| s.text_spans_lines())
    }

    /// Where this decoder stands between two lines, as bytes, for
    /// [`Decoder::resume`] to read on from there in a later run (the index
    /// keeps it for a saved session that grows): the producer it reads
    /// and its decoder's state. `None` when that decoder's state cannot be
    /// saved, or no line decided the producer.
    #[must_use]
    pub fn save(&self) -> Option<Vec<u8>> {
        let p = self.producer()?;
        let (q, s) = self.stream.as_ref()?;
        if *q != p {
            return None;
        }
        let state = s.save()?;
        let name = p.name().as_bytes();
        let mut out = Vec::with_capacity(name.len() + 1 + state.len());
        out.extend_from_slice(name);
        out.push(b'\n');
        out.extend_from_slice(&state);
        Some(out)
    }

    /// This decoder, fresh (as [`Decoder::reuse`] makes it, its options
    /// kept), set where [`Decoder::save`] left another: `None` when
    /// `saved` is not such a state, or one of a producer other than the one
    /// `--from` forces.
    #[must_use]
    pub fn resume(mut self, saved: &[u8]) -> Option<Self> {
        let nl = memchr::memchr(b'\n', saved)?;
        let name = std::str::from_utf8(&saved[..nl]).ok()?;
        let p = Producer::ALL.into_iter().find(|p| p.name() == name)?;
        if self.forced.is_some_and(|f| f != p) {
            return None;
        }
        let stream = registry::entry(p).format.restore(&saved[nl + 1..])?;
        if self.forced.is_none() {
            self.latched = Some(p);
        }
        self.stream = Some((p, stream));
        Some(self)
    }

    /// End of this input: producers that hold back events (joined deltas,
    /// reconstructed totals) emit them now.
    ///
    /// # Errors
    /// Only errors returned by `emit`.
    pub fn finish(&mut self, emit: &mut Emit<'_>) -> io::Result<()> {
        let mut said = None;
        let emit = &mut checked(emit, &mut said);
        let res = match (self.producer(), self.stream.as_mut()) {
            (Some(p), Some((q, s))) if p == *q => s.finish(emit),
            _ => Ok(()),
        };
        // A later stream of the same producer starts from scratch.
        self.stream = None;
        res
    }

    /// Decode one line, passing each event to `emit`.
    ///
    /// # Errors
    /// Only errors returned by `emit` (a sink that cannot write).
    pub fn decode(&mut self, line: &Line<'_>, emit: &mut Emit<'_>) -> io::Result<Decoded> {
        let mut said = None;
        let decoded = self.decode_checked(line, &mut checked(emit, &mut said))?;
        Ok(match (decoded, said) {
            (Decoded::Events | Decoded::Repaired, Some(why)) => Decoded::Implausible(why),
            (decoded, _) => decoded,
        })
    }

    /// [`Decoder::decode`], its events checked by `emit`.
    fn decode_checked(&mut self, line: &Line<'_>, emit: &mut Emit<'_>) -> io::Result<Decoded> {
        let (text_offset, text) = line::trim(line.bytes);
        if text.is_empty() {
            return Ok(Decoded::Blank);
        }
        // A JSON line may come wrapped in terminal noise (an agent run under
        // a pseudo-terminal): it is parsed without it.
        let (noise, bytes) = line::strip_terminal_noise(text);
        let offset = text_offset + noise;
        // The arena holds one line's text: reset here, not by each reading
        // of the line (from its bytes, parsed, parsed again repaired).
        self.arena.reset();
        if let Some(decoded) = self.unparsed(line.number, bytes, emit) {
            return decoded;
        }
        let err = match self.parse(line.number, bytes, false, emit) {
            Ok(decoded) => return decoded,
            Err(e) => e,
        };
        // A lone UTF-16 surrogate escape (a string cut in the middle of an
        // emoji) is read as U+FFFD: the line again, repaired (see
        // `json::repair`).
        let mut repaired = std::mem::take(&mut self.repaired);
        let err = if line::string_error(&err) && replace_lone_surrogates(bytes, &mut repaired) {
            let again = self.parse(line.number, &repaired, true, emit);
            self.repaired = repaired;
            match again {
                Ok(decoded) => return decoded,
                Err(e) => e,
            }
        } else {
            self.repaired = repaired;
            err
        };
        if let Some(read) = self.plain_text(line.number, bytes, emit) {
            return read;
        }
        // Before anything says the input is a stream, a line with a NUL is
        // a binary file's: shown as text, it would be control pictures.
        if self.producer().is_none()
            && let Some(at) = memchr::memchr(0, text)
        {
            return Ok(Decoded::Skipped(LineProblem::Binary {
                at: text_offset + at,
            }));
        }
        let producer = self.producer().unwrap_or(Producer::Claude);
        line::classify_failure(
            (text_offset, text),
            (offset, bytes),
            line,
            producer,
            &err,
            emit,
        )
    }

    /// The line decoded from its bytes by the stream being read, when it
    /// reads lines of its shape that way (`Stream::decode_unparsed`: a
    /// token delta); `None` when it is to be parsed.
    fn unparsed(
        &mut self,
        number: u64,
        bytes: &[u8],
        emit: &mut Emit<'_>,
    ) -> Option<io::Result<Decoded>> {
        let producer = self.producer().filter(|_| self.unparsed)?;
        let Decoder { arena, stream, .. } = self;
        let (open, stream) = stream.as_mut()?;
        if *open != producer {
            return None;
        }
        let ctx = Ctx {
            line: number,
            raw: bytes,
            producer,
            arena,
            time: None,
            skipping: self.skipping,
        };
        Some(
            stream
                .decode_unparsed(&ctx, emit)?
                .map(|()| Decoded::Events),
        )
    }

    /// A line of plain text (not JSON gone wrong) read by the decoder of
    /// the stream's producer, when it reads some (`Stream::plain_text`:
    /// Kimi CLI prints a failed request so); `None` to show it as the
    /// text it is.
    fn plain_text(
        &mut self,
        number: u64,
        bytes: &[u8],
        emit: &mut Emit<'_>,
    ) -> Option<io::Result<Decoded>> {
        let producer = self.producer()?;
        if matches!(bytes.first(), Some(b'{' | b'[')) {
            return None;
        }
        let text = std::str::from_utf8(bytes).ok()?;
        let Decoder {
            arena,
            stream,
            skipping,
            ..
        } = self;
        let ctx = Ctx {
            line: number,
            raw: bytes,
            producer,
            arena,
            time: None,
            skipping: *skipping,
        };
        let read = start(stream, producer).plain_text(text, &ctx, emit)?;
        Some(read.map(|()| Decoded::Events))
    }

    /// Parse `bytes` and decode the value, or give back simd-json's error.
    fn parse(
        &mut self,
        number: u64,
        bytes: &[u8],
        repaired: bool,
        emit: &mut Emit<'_>,
    ) -> Result<io::Result<Decoded>, simd_json::Error> {
        let unread = match self.producer() {
            Some(p) if self.report => registry::entry(p).unread,
            _ => &[],
        };
        self.parser.leave_unread(unread);
        let Decoder {
            parser,
            arena,
            forced,
            latched,
            stream,
            skipping,
            ..
        } = self;
        let skipping = *skipping;
        parser.parse(bytes, |parsed| {
            let value = match parsed {
                Ok(value) => value,
                Err(ParseError::Json(e)) => return Err(e),
                Err(ParseError::TooDense { values }) => {
                    return Ok(Ok(Decoded::Skipped(LineProblem::TooDense {
                        values,
                        len: bytes.len(),
                    })));
                }
            };
            let time = time_of(value);
            let ctx = |producer| Ctx {
                line: number,
                raw: bytes,
                producer,
                arena,
                time,
                skipping,
            };
            let decoded = dispatch(value, ctx, *forced, latched, stream, emit);
            Ok(match decoded {
                Ok(Decoded::Events) if repaired => Ok(Decoded::Repaired),
                other => other,
            })
        })
    }
}

/// `emit`, with what no log means left out ([`plausible`]) and said in
/// `said` (the first of a line).
fn checked<'e>(
    emit: &'e mut Emit<'_>,
    said: &'e mut Option<String>,
) -> impl FnMut(&crate::event::Event<'_>) -> io::Result<()> + 'e {
    move |ev| match plausible::check(ev) {
        None => emit(ev),
        Some(why) => {
            said.get_or_insert(why);
            plausible::without(ev).map_or(Ok(()), |ev| emit(&ev))
        }
    }
}

/// When a line says it happened: its `timestamp` (RFC 3339 text, or
/// milliseconds since the epoch: `OpenCode`) or `timestamp_ms` (Cursor). A
/// value that is not a time is no time.
fn time_of(v: Value<'_>) -> Option<Timestamp> {
    // One pass over the keys, asked of every line, over at the first
    // `timestamp` (it wins over `timestamp_ms` wherever that stands): a
    // transcript entry's is about its 15th key of 25.
    let obj = v.as_object()?;
    let (mut ts, mut ms) = (None, None);
    for (k, x) in &obj {
        match k {
            "timestamp" => {
                ts = Some(x);
                break;
            }
            "timestamp_ms" if ms.is_none() => ms = Some(x),
            _ => {}
        }
    }
    let t = ts.or(ms)?;
    match t.into_string() {
        Some(s) => Timestamp::parse(s),
        None => Timestamp::from_epoch_number(t.cast_f64()?),
    }
}

/// The decoder of `producer`'s stream in `stream`, started if it is not
/// the one being read.
fn start(
    stream: &mut Option<(Producer, Box<dyn Stream>)>,
    producer: Producer,
) -> &mut Box<dyn Stream> {
    if stream.as_ref().is_some_and(|(p, _)| *p != producer) {
        *stream = None;
    }
    &mut stream
        .get_or_insert_with(|| (producer, (registry::entry(producer).stream)()))
        .1
}

/// The rest of [`Decoder::decode`], once the line is parsed: to the
/// decoder of its producer.
fn dispatch<'v>(
    value: Value<'v>,
    ctx: impl Fn(Producer) -> Ctx<'v>,
    forced: Option<Producer>,
    latched: &mut Option<Producer>,
    stream: &mut Option<(Producer, Box<dyn Stream>)>,
    emit: &mut Emit<'_>,
) -> io::Result<Decoded> {
    if value.as_object().is_none() {
        return Ok(Decoded::Skipped(LineProblem::NotAnObject {
            found: line::type_name(value),
        }));
    }
    // streamview's own JSONL, read back.
    if native::is_native(value) {
        native::decode(value, &ctx(Producer::Claude), emit)?;
        return Ok(Decoded::Events);
    }
    let producer = match (forced, *latched) {
        (Some(p), _) => p,
        (None, Some(p)) => match registry::opener(value, p) {
            // Logs of different agents concatenated into one input: a
            // line that can only start another producer's stream
            // switches to it.
            Some(q) => {
                // The first stream ended here: let it close.
                if let Some((open, s)) = stream.as_mut()
                    && *open == p
                {
                    s.finish(emit)?;
                }
                *stream = None;
                *latched = Some(q);
                q
            }
            None => p,
        },
        (None, None) => match detect(value) {
            Some(p) => {
                *latched = Some(p);
                p
            }
            // An ambiguous line before any recognisable one: read it the
            // Claude way (Qwen, Amp and Cursor share these shapes).
            None => Producer::Claude,
        },
    };
    start(stream, producer).decode(value, &ctx(producer), emit)?;
    Ok(Decoded::Events)
}

#[cfg(test)]
mod testing;
#[cfg(test)]
mod tests;
