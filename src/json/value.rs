//! A parsed line, read in place: [`Value`] is a view into simd-json's tape
//! of the line (reused line after line, see [`Parser`](super::Parser)),
//! and the lenient accessors the decoders read fields with (a missing or
//! wrongly typed field is `None`, never an error).
//!
//! The long string values [`scan`] spared the parser stand in the tape as
//! placeholders; [`Value::into_string`] resolves them, unescaping into a
//! pooled `String` on first read ([`Longs`]), and [`Value::write`] copies
//! them back as they came when that gives the same JSON.

use std::borrow::Cow;
use std::io;
use std::sync::{Mutex, OnceLock};

use simd_json::prelude::*;

use super::arena::Arena;
use super::escape::{unescape_to, write_json_str};
use super::scan;

/// A parsed JSON value: a view into the decoder's reused simd-json tape,
/// with the line's long strings (see [`scan`]) that its string reads
/// resolve. Copyable, allocation-free; strings borrow from the line.
#[derive(Clone, Copy)]
pub(crate) struct Value<'v> {
    t: TapeValue<'v>,
    longs: &'v Longs<'v>,
}

type TapeValue<'v> = simd_json::tape::Value<'v, 'v>;

/// The long string values of the line being decoded, which simd-json saw
/// as placeholders: `\0` and the index here.
pub(crate) struct Longs<'v> {
    pub(super) list: &'v [scan::Long<'v>],
    /// Their text, unescaped when first read.
    pub(super) text: &'v [OnceLock<String>],
    /// Emptied strings to unescape into (always there when `list` is not
    /// empty). A `String` and not the arena: a cell holding text borrowed
    /// from the arena would make `Value` invariant in its lifetime. A
    /// `Mutex` (never contended) and a `OnceLock` keep events `Sync`.
    pub(super) pool: Option<&'v Mutex<Vec<String>>>,
}

/// The pool keeps at most this many strings…
pub(super) const POOLED_TEXTS: usize = 4;
/// …of at most this capacity, so one huge line does not pin its memory.
pub(super) const POOLED_TEXT: usize = 1 << 20;

/// No long strings (a document parsed whole, in tests).
#[cfg(test)]
const NO_LONGS: Longs<'static> = Longs {
    list: &[],
    text: &[],
    pool: None,
};

impl<'v> Longs<'v> {
    /// The long string `s` stands for, if it is a placeholder.
    fn find(&self, s: &str) -> Option<usize> {
        if self.list.is_empty() {
            return None;
        }
        let i: usize = s.strip_prefix('\0')?.parse().ok()?;
        (i < self.list.len()).then_some(i)
    }

    fn text(&self, i: usize) -> &'v str {
        let long = &self.list[i];
        if long.escaped {
            self.text[i].get_or_init(|| {
                let mut t = self
                    .pool
                    .and_then(|p| p.lock().ok()?.pop())
                    .unwrap_or_default();
                t.clear();
                unescape_to(long.body, &mut t);
                t
            })
        } else {
            long.body
        }
    }
}

/// An object (see [`Value::as_object`]).
pub(crate) struct Obj<'v> {
    o: simd_json::tape::Object<'v, 'v>,
    longs: &'v Longs<'v>,
}

impl<'v> Obj<'v> {
    /// Its fields in order.
    pub(crate) fn iter(&self) -> Fields<'v> {
        Fields(self.o.iter(), self.longs)
    }

    /// Its keys in order.
    pub(crate) fn keys(&self) -> simd_json::tape::object::Keys<'v, 'v> {
        self.o.keys()
    }

    /// True without fields.
    pub(crate) fn is_empty(&self) -> bool {
        self.o.is_empty()
    }
}

impl<'v> IntoIterator for &Obj<'v> {
    type Item = (&'v str, Value<'v>);
    type IntoIter = Fields<'v>;
    fn into_iter(self) -> Fields<'v> {
        self.iter()
    }
}

/// Iterator over an object's fields (see [`Obj`]).
pub(crate) struct Fields<'v>(simd_json::tape::object::Iter<'v, 'v>, &'v Longs<'v>);

impl<'v> Iterator for Fields<'v> {
    type Item = (&'v str, Value<'v>);
    fn next(&mut self) -> Option<Self::Item> {
        let longs = self.1;
        self.0.next().map(|(k, t)| (k, Value { t, longs }))
    }
}

impl<'v> Value<'v> {
    pub(crate) fn new(t: TapeValue<'v>, longs: &'v Longs<'v>) -> Self {
        Value { t, longs }
    }

    /// The value of a document simd-json parsed whole (no string was
    /// spared it): a line parsed without a `Parser`, in tests.
    #[cfg(test)]
    pub(crate) fn of_document(t: TapeValue<'v>) -> Self {
        Value {
            t,
            longs: &NO_LONGS,
        }
    }

    fn wrap(self, t: TapeValue<'v>) -> Self {
        Value {
            t,
            longs: self.longs,
        }
    }

    /// The field `key` of an object (the first, if the key is repeated).
    ///
    /// Inlined, so that a constant `key` is compared as a length and a few
    /// loads instead of a call to `memcmp` per field.
    #[inline]
    pub(crate) fn get(self, key: &str) -> Option<Value<'v>> {
        let o = self.t.as_object()?;
        o.iter()
            .find(|(k, _)| k.as_bytes() == key.as_bytes())
            .map(|(_, t)| self.wrap(t))
    }

    /// The fields `keys` of an object, in one pass over its keys (instead
    /// of one per field, and a key that is missing, as most asked of a
    /// transcript entry are, is a walk of all 25): for the lines read by
    /// the hundred thousand. The first of duplicate keys wins, as with
    /// [`Value::get`].
    ///
    /// Always inlined, for the same reason as [`Value::get`]: left to
    /// itself the compiler kept it out of line, with a `memcmp` call per
    /// key compared (5% of the instructions on a delta stream).
    #[inline(always)]
    #[allow(clippy::inline_always)] // measured, see above
    pub(crate) fn fields<const N: usize>(self, keys: [&str; N]) -> [Option<Value<'v>>; N] {
        let mut out = [None; N];
        if let Some(o) = self.as_object() {
            for (k, v) in &o {
                if let Some(i) = keys.iter().position(|want| want.as_bytes() == k.as_bytes())
                    && out[i].is_none()
                {
                    out[i] = Some(v);
                }
            }
        }
        out
    }

    /// The text of a string.
    pub(crate) fn into_string(self) -> Option<&'v str> {
        let s = self.t.into_string()?;
        Some(match self.longs.find(s) {
            Some(i) => self.longs.text(i),
            None => s,
        })
    }

    /// The long string this is, if the parser was spared it.
    pub(crate) fn long(self) -> Option<&'v scan::Long<'v>> {
        let i = self.longs.find(self.t.into_string()?)?;
        Some(&self.longs.list[i])
    }

    pub(crate) fn as_object(self) -> Option<Obj<'v>> {
        Some(Obj {
            o: self.t.as_object()?,
            longs: self.longs,
        })
    }

    pub(crate) fn as_array(self) -> Option<Arr<'v>> {
        self.t.as_array().map(|a| Arr(Some((a, self.longs))))
    }

    pub(crate) fn as_u64(self) -> Option<u64> {
        self.t.as_u64()
    }

    pub(crate) fn as_i64(self) -> Option<i64> {
        self.t.as_i64()
    }

    pub(crate) fn as_f64(self) -> Option<f64> {
        self.t.as_f64()
    }

    pub(crate) fn cast_f64(self) -> Option<f64> {
        self.t.cast_f64()
    }

    pub(crate) fn as_bool(self) -> Option<bool> {
        self.t.as_bool()
    }

    pub(crate) fn value_type(self) -> simd_json::ValueType {
        self.t.value_type()
    }

    pub(crate) fn is_null(self) -> bool {
        self.t.is_null()
    }

    pub(crate) fn is_object(self) -> bool {
        self.t.is_object()
    }

    /// Compact JSON text, as simd-json writes it.
    pub(crate) fn encode(self) -> String {
        if self.longs.list.is_empty() {
            return self.t.encode();
        }
        let mut out = Vec::new();
        self.write_json(&mut out);
        String::from_utf8(out).unwrap_or_default()
    }

    /// [`Value::encode`]'s text, in the line's arena.
    pub(crate) fn encode_in(self, arena: &'v Arena) -> &'v str {
        let mut out = arena.bytes();
        self.write(&mut out);
        Arena::utf8(out).unwrap_or_default()
    }

    /// Append [`Value::encode`]'s text to `out`.
    pub(crate) fn write(self, out: &mut impl io::Write) {
        if self.longs.list.is_empty() {
            let _ = self.t.write(out);
        } else {
            self.write_json(out);
        }
    }

    /// [`Value::encode`] with long strings in it: the same text, a long
    /// string copied from the line when re-escaping it would give the same
    /// bytes.
    fn write_json(self, out: &mut impl io::Write) {
        if let Some(o) = self.as_object() {
            let _ = out.write_all(b"{");
            for (n, (k, v)) in o.iter().enumerate() {
                if n > 0 {
                    let _ = out.write_all(b",");
                }
                write_json_str(out, k);
                let _ = out.write_all(b":");
                v.write_json(out);
            }
            let _ = out.write_all(b"}");
        } else if let Some(a) = self.as_array() {
            let _ = out.write_all(b"[");
            for (n, v) in a.iter().enumerate() {
                if n > 0 {
                    let _ = out.write_all(b",");
                }
                v.write_json(out);
            }
            let _ = out.write_all(b"]");
        } else if let Some(long) = self.long() {
            if long.canonical {
                let _ = out.write_all(b"\"");
                let _ = out.write_all(long.body.as_bytes());
                let _ = out.write_all(b"\"");
            } else {
                write_json_str(out, self.into_string().unwrap_or_default());
            }
        } else if let Some(s) = self.t.into_string() {
            write_json_str(out, s);
        } else {
            // Numbers, booleans, null: simd-json's own text.
            let _ = self.t.write(out);
        }
    }
}

// Lenient field access: a missing or wrongly typed field is `None`, never an error.

#[inline]
pub(crate) fn get<'v>(v: Value<'v>, key: &str) -> Option<Value<'v>> {
    v.get(key)
}

#[inline]
pub(crate) fn str_at<'v>(v: Value<'v>, key: &str) -> Option<&'v str> {
    v.get(key)?.into_string()
}

#[inline]
pub(crate) fn cow_at<'v>(v: Value<'v>, key: &str) -> Option<Cow<'v, str>> {
    str_at(v, key).map(Cow::Borrowed)
}

#[inline]
pub(crate) fn u64_at(v: Value<'_>, key: &str) -> Option<u64> {
    u64_of(v.get(key)?)
}

/// A non-negative integer.
pub(crate) fn u64_of(x: Value<'_>) -> Option<u64> {
    x.as_u64().or_else(|| {
        // Some producers write integral floats (`605.0`); accept them.
        let f = x.as_f64()?;
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // range checked
        ((0.0..1.8e19).contains(&f) && f.fract() == 0.0).then_some(f as u64)
    })
}

#[inline]
pub(crate) fn f64_at(v: Value<'_>, key: &str) -> Option<f64> {
    f64_of(v.get(key)?)
}

/// A finite number, integral or not.
#[inline]
pub(crate) fn f64_of(x: Value<'_>) -> Option<f64> {
    x.cast_f64().filter(|f| f.is_finite())
}

#[inline]
pub(crate) fn bool_at(v: Value<'_>, key: &str) -> Option<bool> {
    v.get(key)?.as_bool()
}

/// True for JSON `null`.
pub(crate) fn is_null(v: Value<'_>) -> bool {
    v.value_type() == simd_json::ValueType::Null
}

/// The array `key` (empty when missing or not an array).
#[inline]
pub(crate) fn arr_at<'v>(v: Value<'v>, key: &str) -> Arr<'v> {
    v.get(key).and_then(Value::as_array).unwrap_or_default()
}

/// An array, or nothing (the default): what [`arr_at`] found.
#[derive(Clone, Copy, Default)]
pub(crate) struct Arr<'v>(Option<(simd_json::tape::Array<'v, 'v>, &'v Longs<'v>)>);

impl<'v> Arr<'v> {
    /// `v` if it is an array, else empty.
    pub(crate) fn of(v: Value<'v>) -> Arr<'v> {
        v.as_array().unwrap_or_default()
    }

    /// The items.
    pub(crate) fn iter(self) -> Items<'v> {
        Items(self.0.map(|(a, l)| (a.iter(), l)))
    }

    /// Number of items.
    pub(crate) fn len(self) -> usize {
        self.0.map_or(0, |(a, _)| a.len())
    }

    /// True without items.
    pub(crate) fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// The first item.
    pub(crate) fn first(self) -> Option<Value<'v>> {
        self.0
            .and_then(|(a, longs)| a.get(0).map(|t| Value { t, longs }))
    }
}

impl<'v> IntoIterator for Arr<'v> {
    type Item = Value<'v>;
    type IntoIter = Items<'v>;
    fn into_iter(self) -> Items<'v> {
        self.iter()
    }
}

/// Iterator over an array's items (see [`Arr`]).
pub(crate) struct Items<'v>(Option<(simd_json::tape::array::Iter<'v, 'v>, &'v Longs<'v>)>);

impl<'v> Iterator for Items<'v> {
    type Item = Value<'v>;
    fn next(&mut self) -> Option<Value<'v>> {
        let (it, longs) = self.0.as_mut()?;
        it.next().map(|t| Value { t, longs })
    }
}

/// What a value is, for `match`.
pub(crate) enum J<'v> {
    /// `null`
    Null,
    /// A string.
    Str(&'v str),
    /// An array.
    Arr(Arr<'v>),
    /// An object.
    Obj,
    /// A number or boolean.
    Scalar(Value<'v>),
}

/// The [`J`] view of `v`.
pub(crate) fn view(v: Value<'_>) -> J<'_> {
    if let Some(s) = v.into_string() {
        return J::Str(s);
    }
    match v.value_type() {
        simd_json::ValueType::Null => J::Null,
        simd_json::ValueType::Array => J::Arr(Arr::of(v)),
        simd_json::ValueType::Object => J::Obj,
        _ => J::Scalar(v),
    }
}
