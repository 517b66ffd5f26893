//! A token delta (`stream_event` of `content_block_delta`) read from the
//! line's bytes, without the parser: two lines of three in a stream of
//! partial messages (`--include-partial-messages`).
//!
//! The line is read whole with `json::lex` before anything is emitted, and
//! given back to the parser (`None`) for anything else: another event type,
//! a key read twice, a value of another kind than the decoder expects, a
//! time (`timestamp`, which the parsed line's events would carry), or
//! whatever the lexer does not accept. What it emits is what
//! `stream_event` emits for the parsed line (the tests compare them over
//! every fixture's deltas, their keys reordered and their values varied).
//! No producer's `opens` rule is true for a line of type `stream_event`
//! (a registry test checks it), so no line read here starts another
//! producer's stream.

use std::borrow::Cow;
use std::io;

use super::{Base, DELTAS};
use crate::decode::producer::{Ctx, Emit};
use crate::event::{Delta, DeltaKind, EventKind};
use crate::json::{Arena, Declined, Lexed, Lexer, Token};

/// The delta of this line, emitted; `None`, having emitted nothing, when
/// the line is not one this module reads (it is then parsed).
pub(super) fn read(ctx: &Ctx<'_>, emit: &mut Emit<'_>) -> Option<io::Result<()>> {
    let shown = fields(ctx).ok()?;
    // The signature of a thinking block, a citation: nothing to show.
    let Some((base, delta)) = shown else {
        return Some(Ok(()));
    };
    Some(emit(&base.event(EventKind::Delta(delta))))
}

/// The event a delta line makes, `None` for a delta nothing shows.
fn fields<'v>(ctx: &Ctx<'v>) -> Lexed<Option<(Base<'v>, Delta<'v>)>> {
    let mut lx = Lexer::new(ctx.raw);
    let (mut ty, mut event) = (false, None);
    // How Claude Code begins the line, read at once; any other order key
    // by key below.
    if lx.skip(br#"{"type":"stream_event","event":{"type":"content_block_delta""#) {
        ty = true;
        event = Some(event_fields(&mut lx, ctx.arena, true)?);
    } else if lx.value()? != Token::Object {
        return Err(Declined);
    }
    let (mut session, mut camel, mut parent) = (None, None, None);
    while let Some(key) = lx.key()? {
        match key {
            // Any other line is given up at once (most have their type first).
            b"type" if !ty => ty = is(lx.value()?, "stream_event")?,
            b"event" => once(&mut event, event_of(&mut lx, ctx.arena)?)?,
            b"session_id" => once(&mut session, text_of(lx.value()?, ctx.arena)?)?,
            b"sessionId" => once(&mut camel, text_of(lx.value()?, ctx.arena)?)?,
            b"parent_tool_use_id" => once(&mut parent, text_of(lx.value()?, ctx.arena)?)?,
            // The parsed line's events would carry its time.
            b"timestamp" | b"timestamp_ms" => return Err(Declined),
            _ => skip(&mut lx)?,
        }
    }
    if !ty || !lx.at_end() {
        return Err(Declined);
    }
    let Some((kind, index, text)) = event.ok_or(Declined)? else {
        return Ok(None);
    };
    let base = Base {
        producer: ctx.producer,
        line: ctx.line,
        session: session.flatten().or(camel.flatten()),
        parent: parent.flatten().filter(|p| !p.is_empty()),
        time: None,
    };
    let delta = Delta {
        kind,
        index,
        text: text.unwrap_or_default(),
    };
    Ok(Some((base, delta)))
}

/// What a `content_block_delta` event shows: its kind, its block's index
/// and its text; `None` for a delta of another type (nothing shown).
type Shown<'v> = Option<(DeltaKind, Option<u64>, Option<Cow<'v, str>>)>;

/// The `event` object at the cursor, read to its end; declined unless it
/// is a `content_block_delta` with a delta object of a type.
fn event_of<'v>(lx: &mut Lexer<'v>, arena: &'v Arena) -> Lexed<Shown<'v>> {
    if lx.value()? != Token::Object {
        return Err(Declined);
    }
    event_fields(lx, arena, false)
}

/// The rest of an `event` object, its `type` already read (`ty`) or not.
fn event_fields<'v>(lx: &mut Lexer<'v>, arena: &'v Arena, mut ty: bool) -> Lexed<Shown<'v>> {
    let (mut index, mut delta) = (None, None);
    while let Some(key) = lx.key()? {
        match key {
            b"type" if !ty => ty = is(lx.value()?, "content_block_delta")?,
            b"index" => once(&mut index, index_of(lx.value()?)?)?,
            b"delta" => once(&mut delta, delta_of(lx, arena)?)?,
            _ => skip(lx)?,
        }
    }
    let (kind, text) = delta.filter(|_| ty).ok_or(Declined)?;
    Ok(kind.map(|kind| (kind, index.flatten(), text)))
}

/// The `delta` object at the cursor, read to its end: its kind (`None`
/// for a type nothing shows) and the text of that kind; declined for a
/// delta without a type.
fn delta_of<'v>(
    lx: &mut Lexer<'v>,
    arena: &'v Arena,
) -> Lexed<(Option<DeltaKind>, Option<Cow<'v, str>>)> {
    if lx.value()? != Token::Object {
        return Err(Declined);
    }
    // Its type, and the text under each shown kind's key.
    let (mut ty, mut texts) = (None, [None; DELTAS.len()]);
    while let Some(key) = lx.key()? {
        let slot = if key == b"type" {
            &mut ty
        } else if let Some(i) = DELTAS.iter().position(|(.., k)| k.as_bytes() == key) {
            &mut texts[i]
        } else {
            skip(lx)?;
            continue;
        };
        once(slot, scalar(lx.value()?)?)?;
    }
    let Some(Token::Str(ty)) = ty else {
        return Err(Declined);
    };
    let Some(i) = DELTAS.iter().position(|(t, ..)| ty.is(t)) else {
        return Ok((None, None));
    };
    let text = match texts[i] {
        Some(Token::Str(s)) => Some(s.text(arena)),
        _ => None,
    };
    Ok((Some(DELTAS[i].1), text))
}

/// `value`, a scalar; declined for an object (not read here).
fn scalar(value: Token<'_>) -> Lexed<Token<'_>> {
    if value == Token::Object {
        return Err(Declined);
    }
    Ok(value)
}

/// The scalar value at the cursor, passed over; declined for an object.
fn skip(lx: &mut Lexer<'_>) -> Lexed<()> {
    scalar(lx.value()?).map(drop)
}

/// A string's text, `None` for `null`; declined for any other value.
fn text_of<'v>(value: Token<'v>, arena: &'v Arena) -> Lexed<Option<Cow<'v, str>>> {
    match value {
        Token::Str(s) => Ok(Some(s.text(arena))),
        Token::Null => Ok(None),
        _ => Err(Declined),
    }
}

/// A block's index: an integer, `None` for `null`; declined for any other
/// value (the parser reads it).
fn index_of(value: Token<'_>) -> Lexed<Option<u64>> {
    match value {
        Token::Int(n) => Ok(Some(n)),
        Token::Null => Ok(None),
        _ => Err(Declined),
    }
}

/// `true` if `value` is the string `s`; declined otherwise.
fn is(value: Token<'_>, s: &str) -> Lexed<bool> {
    match value {
        Token::Str(v) if v.is(s) => Ok(true),
        _ => Err(Declined),
    }
}

/// `value` into the empty `slot`; declined if a key came twice (the parsed
/// line's first would win: the parser reads it).
fn once<T>(slot: &mut Option<T>, value: T) -> Lexed<()> {
    if slot.is_some() {
        return Err(Declined);
    }
    *slot = Some(value);
    Ok(())
}
