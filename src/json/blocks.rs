//! Which bytes of a 64-byte block are which: one bit per byte and class,
//! from SSE2 compares (every x86-64 processor has them) or AVX2 ones, 32
//! bytes per compare. The scans of long strings (`scan.rs`) and of the
//! values no report reads (`prune.rs`), the search for what a copied JSON
//! string must have escaped (`escape::has_unsafe`) and the unescaping of a
//! string's body (`escape::unescape_to`) each ask for the classes they
//! need, as constants: the compares are chosen at compile time.
//!
//! Each scan keeps its own loop over the blocks. Handed to a shared
//! function as a closure, the loop's body is compiled without the AVX2 of
//! the scan's instance and the masks are no longer inlined into it (+5% of
//! a report's instructions); an iterator of blocks copies each one (+2.6%).

/// A class of bytes.
#[derive(Clone, Copy, Debug)]
pub(super) enum Class {
    /// This byte.
    Is(u8),
    /// Either of two bytes.
    Either(u8, u8),
    /// A byte at most this one (`AtMost(0x1f)`: the controls).
    AtMost(u8),
    /// A byte at least this one (`AtLeast(0x80)`: past ASCII).
    AtLeast(u8),
}

impl Class {
    /// `c` is of this class.
    #[cfg(any(test, not(target_arch = "x86_64")))]
    fn has(self, c: u8) -> bool {
        match self {
            Class::Is(b) => c == b,
            Class::Either(a, b) => c == a || c == b,
            Class::AtMost(b) => c <= b,
            Class::AtLeast(b) => c >= b,
        }
    }
}

/// The masks of `classes` over `block` with what every processor of the
/// target has: SSE2 on x86-64, else a byte at a time.
#[allow(clippy::inline_always)]
#[inline(always)]
pub(super) fn baseline<const N: usize>(block: &[u8; 64], classes: [Class; N]) -> [u64; N] {
    by16(block, |chunk| baseline16(chunk, classes))
}

/// The masks of `classes` over the 16 bytes of `chunk`, with what every
/// processor of the target has (the lexer's keys and short strings).
#[allow(clippy::inline_always)]
#[inline(always)]
pub(super) fn baseline16<const N: usize>(chunk: &[u8; 16], classes: [Class; N]) -> [u16; N] {
    #[cfg(target_arch = "x86_64")]
    return sse2_16(chunk, classes);
    #[cfg(not(target_arch = "x86_64"))]
    return scalar16(chunk, classes);
}

/// The masks over `block` made of the masks `masks16` gives over each of
/// its four 16-byte chunks.
#[allow(clippy::inline_always)]
#[inline(always)]
fn by16<const N: usize>(block: &[u8; 64], masks16: impl Fn(&[u8; 16]) -> [u16; N]) -> [u64; N] {
    let mut m = [0u64; N];
    for (k, chunk) in block.as_chunks::<16>().0.iter().enumerate() {
        for (m, bits) in m.iter_mut().zip(masks16(chunk)) {
            *m |= u64::from(bits) << (16 * k);
        }
    }
    m
}

/// The masks of `classes` over 16 bytes, with SSE2.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code, clippy::inline_always)]
#[inline(always)]
fn sse2_16<const N: usize>(chunk: &[u8; 16], classes: [Class; N]) -> [u16; N] {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_min_epu8, _mm_movemask_epi8,
        _mm_or_si128, _mm_set1_epi8,
    };
    #[allow(clippy::cast_possible_wrap)]
    let splat = |b: u8| {
        // SAFETY: SSE2 is part of the x86-64 baseline.
        unsafe { _mm_set1_epi8(b as i8) }
    };
    // SAFETY: SSE2 is part of the x86-64 baseline; the load reads the 16
    // bytes of `chunk` (unaligned loads allow any address).
    let v = unsafe { _mm_loadu_si128(chunk.as_ptr().cast()) };
    let eq = |b: u8| -> __m128i {
        // SAFETY: as above.
        unsafe { _mm_cmpeq_epi8(v, splat(b)) }
    };
    classes.map(|class| {
        let hit = match class {
            Class::Is(b) => eq(b),
            // SAFETY: as above.
            Class::Either(a, b) => unsafe { _mm_or_si128(eq(a), eq(b)) },
            // v ≤ b exactly when min(v, b) = v. SAFETY: as above.
            Class::AtMost(b) => unsafe { _mm_cmpeq_epi8(_mm_min_epu8(v, splat(b)), v) },
            // v ≥ b exactly when max(v, b) = v. SAFETY: as above.
            Class::AtLeast(b) => unsafe { _mm_cmpeq_epi8(_mm_max_epu8(v, splat(b)), v) },
        };
        // SAFETY: as above. The mask has 16 bits.
        #[allow(clippy::cast_possible_truncation)]
        let bits = unsafe { _mm_movemask_epi8(hit) }.cast_unsigned() as u16;
        bits
    })
}

/// The masks of `classes` over `block`, with AVX2 (the caller checked
/// that the processor has it; inlined into a function compiled for it).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn avx2<const N: usize>(block: &[u8; 64], classes: [Class; N]) -> [u64; N] {
    use std::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_max_epu8, _mm256_min_epu8,
        _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8,
    };
    #[allow(clippy::cast_possible_wrap)]
    let splat = |b: u8| _mm256_set1_epi8(b as i8);
    let mut m = [0u64; N];
    for (k, chunk) in block.chunks_exact(32).enumerate() {
        // SAFETY: the load reads the 32 bytes of `chunk` (unaligned loads
        // allow any address); AVX2 is enabled for this function.
        #[allow(unsafe_code)]
        let v = unsafe { _mm256_loadu_si256(chunk.as_ptr().cast()) };
        let eq = |b: u8| -> __m256i { _mm256_cmpeq_epi8(v, splat(b)) };
        for (m, class) in m.iter_mut().zip(classes) {
            let hit = match class {
                Class::Is(b) => eq(b),
                Class::Either(a, b) => _mm256_or_si256(eq(a), eq(b)),
                // v ≤ b exactly when min(v, b) = v.
                Class::AtMost(b) => _mm256_cmpeq_epi8(_mm256_min_epu8(v, splat(b)), v),
                // v ≥ b exactly when max(v, b) = v.
                Class::AtLeast(b) => _mm256_cmpeq_epi8(_mm256_max_epu8(v, splat(b)), v),
            };
            *m |= u64::from(_mm256_movemask_epi8(hit).cast_unsigned()) << (32 * k);
        }
    }
    m
}

/// The masks over 16 bytes, a byte at a time.
#[cfg(any(test, not(target_arch = "x86_64")))]
fn scalar16<const N: usize>(chunk: &[u8; 16], classes: [Class; N]) -> [u16; N] {
    let mut m = [0u16; N];
    for (i, &c) in chunk.iter().enumerate() {
        for (m, class) in m.iter_mut().zip(classes) {
            *m |= u16::from(class.has(c)) << i;
        }
    }
    m
}

/// The masks a byte at a time: the reference, and the code elsewhere.
#[cfg(any(test, not(target_arch = "x86_64")))]
pub(super) fn scalar<const N: usize>(block: &[u8; 64], classes: [Class; N]) -> [u64; N] {
    by16(block, |chunk| scalar16(chunk, classes))
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    #[test]
    fn the_vector_masks_are_the_scalar_ones() {
        let classes = [
            Class::Is(b'"'),
            Class::Either(b'{', b'['),
            Class::AtMost(0x1f),
            Class::AtLeast(0x80),
        ];
        let bytes = b"\"{[}]\x00\x1f a\\\xff\x80";
        let mut block = [0u8; 64];
        for seed in 0..200u32 {
            for (i, b) in block.iter_mut().enumerate() {
                #[allow(clippy::cast_possible_truncation)]
                let x = (seed.wrapping_mul(2_654_435_761) ^ (i as u32).wrapping_mul(40_503)) >> 7;
                *b = bytes[x as usize % bytes.len()];
            }
            // Byte by byte, apart from the functions under test.
            let mut want = [0u64; 4];
            for (i, &c) in block.iter().enumerate() {
                for (m, class) in want.iter_mut().zip(classes) {
                    *m |= u64::from(class.has(c)) << i;
                }
            }
            assert_eq!(scalar(&block, classes), want);
            assert_eq!(baseline(&block, classes), want);
            for (k, chunk) in block.as_chunks::<16>().0.iter().enumerate() {
                #[allow(clippy::cast_possible_truncation)]
                let want = want.map(|m| (m >> (16 * k)) as u16);
                assert_eq!(sse2_16(chunk, classes), want);
                assert_eq!(scalar16(chunk, classes), want);
            }
            if std::is_x86_feature_detected!("avx2") {
                // SAFETY: the processor has AVX2 (checked just above).
                #[allow(unsafe_code)]
                let got = unsafe { avx2(&block, classes) };
                assert_eq!(got, want);
            }
        }
    }
}
