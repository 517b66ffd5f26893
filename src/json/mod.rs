//! The ground floor: JSON text, read and written.
//!
//! Everything above stands on this module and it names nothing else of
//! the crate (`tests/floors.rs` checks it):
//!
//! - [`Parser`] parses a line in reused memory and lends a [`Value`], a view
//!   into simd-json's tape with lenient accessors ([`str_at`], [`u64_at`],
//!   [`arr_at`]…: a missing or wrongly typed field is `None`, never an
//!   error);
//! - [`scan`] finds the long string values of a line (tool output, file
//!   contents) so that the parser is spared them; `prune` finds the
//!   objects and arrays no report reads ([`Unread`]), which a report's
//!   parse leaves out;
//! - [`Lexer`] reads the few line shapes a decoder knows without the
//!   parser (a token delta), and declines anything else;
//! - [`Arena`] holds the text a decoder composes for one line, and
//!   [`Spare`] the strings its state keeps between lines;
//! - [`repair`] reads lone UTF-16 surrogate escapes as U+FFFD and finds
//!   the escape a line failed on;
//! - [`escape`] is the one home of escaping and unescaping: JSON string
//!   bodies, strings written as JSON (simd-json's way or terminal-safe),
//!   and the characters a terminal must never receive raw.
//!
//! The event model keeps lazy JSON ([`Value`] inside `event::JsonText`) and
//! the decoders read every field through here; the sinks write through
//! [`escape`].

mod arena;
mod blocks;
pub(crate) mod escape;
mod lex;
mod parser;
mod prune;
mod repair;
pub(crate) mod scan;
mod value;

pub(crate) use arena::{Arena, Spare};
pub(crate) use lex::{Declined, Lexed, Lexer, Token};
pub(crate) use parser::{ParseError, Parser};
pub(crate) use prune::Unread;
pub(crate) use repair::{first_bad_escape, replace_lone_surrogates, structure_fault};
pub(crate) use value::{
    Arr, J, Obj, Value, arr_at, bool_at, cow_at, f64_at, f64_of, get, is_null, str_at, u64_at,
    u64_of, view,
};
