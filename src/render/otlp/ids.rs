//! Trace and span ids: hashes of what names a session, a call or a message,
//! the same on every run and in every version (FNV-1a, 128 bits, written
//! here: a hasher with a random seed, or one a crate may change, would
//! give a session new ids), written as OTLP/JSON wants them, lowercase hex.
//!
//! Whatever the input's ids are (empty, a megabyte, any character), an id
//! is 16 or 8 bytes, never all zeros (the protocol's "no id").

/// FNV-1a's 128-bit offset basis and prime.
const OFFSET: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
const PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;

/// The hash of `parts`, each preceded by its length (`["ab", "c"]` and
/// `["a", "bc"]` differ).
fn hash(parts: &[&[u8]]) -> u128 {
    parts.iter().fold(OFFSET, |h, p| {
        fnv1a(fnv1a(h, &(p.len() as u64).to_le_bytes()), p)
    })
}

/// FNV-1a over `bytes`, from `h`.
fn fnv1a(h: u128, bytes: &[u8]) -> u128 {
    bytes
        .iter()
        .fold(h, |h, &b| (h ^ u128::from(b)).wrapping_mul(PRIME))
}

/// A trace id: one session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceId([u8; 16]);

/// A span id: the session's root, a sub-agent, a call, a model response.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpanId([u8; 8]);

impl TraceId {
    /// The trace of the session `parts` name (its id, or where it was read).
    #[must_use]
    pub fn of(parts: &[&[u8]]) -> TraceId {
        let mut all = Vec::with_capacity(parts.len() + 1);
        all.push(b"streamview.trace".as_slice());
        all.extend_from_slice(parts);
        TraceId(nonzero(hash(&all)).to_be_bytes())
    }

    /// The span of this trace that `kind` and `parts` name (`tool` and a
    /// call's id, `chat` and a message's…).
    #[must_use]
    pub fn span(&self, kind: &str, parts: &[&[u8]]) -> SpanId {
        let mut all = Vec::with_capacity(parts.len() + 2);
        all.push(self.0.as_slice());
        all.push(kind.as_bytes());
        all.extend_from_slice(parts);
        // The high half: FNV's low bits mix least.
        let h = (hash(&all) >> 64) as u64;
        SpanId(nonzero_u64(h).to_be_bytes())
    }

    /// `"…"`: 32 lowercase hex digits, quoted.
    pub fn write(&self, b: &mut Vec<u8>) {
        write_hex(b, &self.0);
    }
}

impl SpanId {
    /// `"…"`: 16 lowercase hex digits, quoted.
    pub fn write(self, b: &mut Vec<u8>) {
        write_hex(b, &self.0);
    }
}

fn nonzero(h: u128) -> u128 {
    if h == 0 { 1 } else { h }
}

fn nonzero_u64(h: u64) -> u64 {
    if h == 0 { 1 } else { h }
}

fn write_hex(b: &mut Vec<u8>, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    b.push(b'"');
    for &x in bytes {
        b.push(HEX[usize::from(x >> 4)]);
        b.push(HEX[usize::from(x & 15)]);
    }
    b.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(f: impl Fn(&mut Vec<u8>)) -> String {
        let mut b = Vec::new();
        f(&mut b);
        String::from_utf8(b).unwrap_or_default()
    }

    #[test]
    fn fnv_is_the_published_one() {
        // FNV-1a 128 of the empty input is its offset basis; of "a", the
        // published test vector.
        assert_eq!(fnv1a(OFFSET, b""), OFFSET);
        assert_eq!(
            fnv1a(OFFSET, b"a"),
            0xd228_cb69_6f1a_8caf_7891_2b70_4e4a_8964
        );
    }

    #[test]
    fn ids_are_stable_hex_and_apart() {
        let t = TraceId::of(&[b"session-1"]);
        // Fixed here: a change of the hash would give every exported
        // session new ids, and a collector would keep both copies.
        assert_eq!(
            hex(|b| t.write(b)),
            hex(|b| TraceId::of(&[b"session-1"]).write(b))
        );
        let s = hex(|b| t.write(b));
        assert_eq!(s.len(), 34);
        assert!(
            s[1..33]
                .bytes()
                .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c))
        );
        assert_ne!(t, TraceId::of(&[b"session-2"]));
        assert_ne!(TraceId::of(&[b"ab", b"c"]), TraceId::of(&[b"a", b"bc"]));
        assert_ne!(t.span("tool", &[b"x"]), t.span("chat", &[b"x"]));
        assert_ne!(
            t.span("tool", &[b"x"]),
            TraceId::of(&[b"session-2"]).span("tool", &[b"x"])
        );
        // Any input: empty, long, not text.
        let long = vec![0xff_u8; 1 << 20];
        for id in [&b""[..], &long, &[0, 0xc3, 0x28]] {
            let t = TraceId::of(&[id]);
            assert_eq!(hex(|b| t.write(b)).len(), 34);
            assert_eq!(hex(|b| t.span("tool", &[id]).write(b)).len(), 18);
        }
    }
}
