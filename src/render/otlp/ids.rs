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
    hash_from(OFFSET, parts)
}

/// [`hash`] of parts that follow those hashed into `h`.
fn hash_from(h: u128, parts: &[&[u8]]) -> u128 {
    parts.iter().fold(h, |h, p| {
        fnv1a(fnv1a(h, &(p.len() as u64).to_le_bytes()), p)
    })
}

/// FNV-1a over `bytes`, from `h`.
fn fnv1a(h: u128, bytes: &[u8]) -> u128 {
    bytes
        .iter()
        .fold(h, |h, &b| (h ^ u128::from(b)).wrapping_mul(PRIME))
}

/// A trace id: one session. With it, the hash of its bytes as the first
/// part of a span's id (every span hashes it first: done once).
#[derive(Clone, Copy, Debug)]
pub struct TraceId([u8; 16], u128);

impl PartialEq for TraceId {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl Eq for TraceId {}

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
        let id = nonzero(hash(&all)).to_be_bytes();
        TraceId(id, hash(&[&id]))
    }

    /// The span of this trace that `kind` and `parts` name (`tool` and a
    /// call's id, `chat` and a message's…).
    #[must_use]
    pub fn span(&self, kind: &str, parts: &[&[u8]]) -> SpanId {
        // The hash of the trace's id, its kind and its parts, from the
        // trace's part hashed once.
        let h = hash_from(hash_from(self.1, &[kind.as_bytes()]), parts);
        // The high half: FNV's low bits mix least.
        let h = (h >> 64) as u64;
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

/// `bytes` (an id: 16 bytes at most) as quoted hex.
fn write_hex(b: &mut Vec<u8>, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    // Composed whole, then copied once (a push per digit was 1% of an
    // export's time).
    let mut s = [b'"'; 34];
    let bytes = &bytes[..bytes.len().min(16)];
    for (i, &x) in bytes.iter().enumerate() {
        s[1 + 2 * i] = HEX[usize::from(x >> 4)];
        s[2 + 2 * i] = HEX[usize::from(x & 15)];
    }
    let n = 2 + 2 * bytes.len();
    s[n - 1] = b'"';
    b.extend_from_slice(&s[..n]);
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
    fn a_span_id_is_the_hash_of_its_trace_kind_and_parts() {
        // The trace's part is hashed once per trace: the same id as the
        // hash of all the parts at once.
        let t = TraceId::of(&[b"session-1"]);
        for (kind, parts) in [
            ("tool", &[&b"call_1"[..]][..]),
            ("root", &[]),
            ("chat-line", &[b"ab", b""]),
        ] {
            let mut all: Vec<&[u8]> = vec![&t.0, kind.as_bytes()];
            all.extend_from_slice(parts);
            let whole = nonzero_u64((hash(&all) >> 64) as u64).to_be_bytes();
            assert_eq!(t.span(kind, parts).0, whole, "{kind}");
        }
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
