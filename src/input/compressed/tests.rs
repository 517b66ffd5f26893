use super::*;

#[path = "../../../tests/common/compress.rs"]
mod compress;
use compress::{gzip, zstd};

/// A source that hands out at most `step` bytes per read, like a slow pipe.
struct Trickle<'a> {
    data: &'a [u8],
    step: usize,
    reads: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        self.reads += 1;
        let n = self.data.len().min(self.step).min(out.len());
        out[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

fn read_all<R: Read>(mut r: R, buf_len: usize) -> io::Result<Vec<u8>> {
    let mut all = Vec::new();
    let mut buf = vec![0; buf_len];
    loop {
        match r.read(&mut buf)? {
            0 => return Ok(all),
            n => all.extend_from_slice(&buf[..n]),
        }
    }
}

const LOG: &[u8] = b"{\"type\":\"system\"}\n{\"type\":\"result\"}\n";

#[test]
fn sniffing_decides_on_the_fewest_bytes() {
    assert_eq!(Compression::sniff(b"{"), Some(None));
    assert_eq!(Compression::sniff(b""), None);
    assert_eq!(Compression::sniff(&[0x1f]), None);
    assert_eq!(
        Compression::sniff(&[0x1f, 0x8b]),
        Some(Some(Compression::Gzip))
    );
    assert_eq!(Compression::sniff(&[0x1f, b'{']), Some(None));
    assert_eq!(Compression::sniff(b"\xef\xbb\xbf{"), Some(None));
}

#[test]
fn plain_input_passes_through_whatever_the_read_sizes() {
    for step in [1, 2, 3, 7, 4096] {
        for buf_len in [1, 2, 64 * 1024] {
            let src = Trickle {
                data: LOG,
                step,
                reads: 0,
            };
            assert_eq!(read_all(Decompress::new(src), buf_len).unwrap(), LOG);
        }
    }
}

#[test]
fn plain_input_is_decided_by_its_first_read() {
    // A live pipe that has sent one short line so far: the first read
    // returns it, without a second read that would wait for the writer.
    let mut src = Trickle {
        data: b"{}\n",
        step: 3,
        reads: 0,
    };
    let mut d = Decompress::new(&mut src);
    let mut buf = [0u8; 64];
    assert_eq!(d.read(&mut buf).unwrap(), 3);
    assert_eq!(&buf[..3], b"{}\n");
    assert_eq!(d.compression(), None);
    drop(d);
    assert_eq!(src.reads, 1);
}

#[test]
fn a_byte_that_only_begins_a_magic_number_is_kept() {
    for data in [&b"\x1f"[..], b"\x1f{}\n", b"\x1f\x1f\x8b"] {
        for step in [1, 2, 64] {
            let src = Trickle {
                data,
                step,
                reads: 0,
            };
            assert_eq!(read_all(Decompress::new(src), 64).unwrap(), data);
        }
    }
}

#[test]
fn gzip_is_decompressed_whatever_the_read_sizes() {
    let gz = gzip(LOG);
    for step in [1, 2, 3, 4096] {
        for buf_len in [1, 5, 64 * 1024] {
            let src = Trickle {
                data: &gz,
                step,
                reads: 0,
            };
            assert_eq!(read_all(Decompress::new(src), buf_len).unwrap(), LOG);
        }
    }
    let mut d = Decompress::new(&gz[..]);
    let _ = d.read(&mut [0u8; 4]).unwrap();
    assert_eq!(d.compression(), Some(Compression::Gzip));
}

#[test]
fn concatenated_gzip_members_are_read_one_after_the_other() {
    let mut gz = gzip(b"one\n");
    gz.extend(gzip(b"two\n"));
    gz.extend(gzip(b""));
    gz.extend(gzip(b"three\n"));
    assert_eq!(
        read_all(Decompress::new(&gz[..]), 4096).unwrap(),
        b"one\ntwo\nthree\n"
    );
}

#[test]
fn an_empty_input_is_empty() {
    assert_eq!(read_all(Decompress::new(&b""[..]), 16).unwrap(), b"");
}

#[test]
fn truncated_gzip_is_an_error_that_says_so() {
    let gz = gzip(&LOG.repeat(100));
    for cut in [2, 5, 10, 30, gz.len() / 2, gz.len() - 4, gz.len() - 1] {
        let err = read_all(Decompress::new(&gz[..cut]), 4096).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof, "cut at {cut}");
        assert!(err.to_string().starts_with("truncated gzip data"), "{err}");
    }
}

#[test]
fn corrupt_gzip_is_an_error_that_says_so() {
    let mut gz = gzip(&LOG.repeat(100));
    let mid = gz.len() / 2;
    gz[mid..mid + 8].copy_from_slice(b"\xff\x00\xff\x00\xff\x00\xff\x00");
    let err = read_all(Decompress::new(&gz[..]), 4096).unwrap_err();
    assert!(err.to_string().starts_with("corrupt gzip data ("), "{err}");
    // A bad header: the magic number, then a method that is not deflate.
    let err = read_all(
        Decompress::new(&b"\x1f\x8b\x07\x00\x00\x00\x00\x00\x00\x03{}\n"[..]),
        64,
    )
    .unwrap_err();
    assert!(err.to_string().starts_with("corrupt gzip data ("), "{err}");
}

#[test]
fn a_read_error_while_deciding_keeps_what_was_read() {
    struct FailOnce {
        failed: bool,
        rest: &'static [u8],
    }
    impl Read for FailOnce {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            if !self.failed && self.rest.len() == 2 {
                self.failed = true;
                return Err(io::Error::other("hiccup"));
            }
            let n = self.rest.len().min(1).min(out.len());
            out[..n].copy_from_slice(&self.rest[..n]);
            self.rest = &self.rest[n..];
            Ok(n)
        }
    }
    let mut d = Decompress::new(FailOnce {
        failed: false,
        rest: b"\x1f{}",
    });
    let mut buf = [0u8; 8];
    assert_eq!(d.read(&mut buf).unwrap_err().to_string(), "hiccup");
    assert_eq!(read_all(d, 8).unwrap(), b"\x1f{}");
}

#[test]
fn zstd_is_decompressed_whatever_the_read_sizes() {
    assert_eq!(
        Compression::sniff(&[0x28, 0xb5, 0x2f, 0xfd]),
        Some(Some(Compression::Zstd))
    );
    assert_eq!(Compression::sniff(&[0x28, 0xb5]), None);
    assert_eq!(Compression::sniff(b"(x"), Some(None));
    let zst = zstd(LOG);
    for step in [1, 3, 4096] {
        for buf_len in [1, 5, 64 * 1024] {
            let src = Trickle {
                data: &zst,
                step,
                reads: 0,
            };
            assert_eq!(read_all(Decompress::new(src), buf_len).unwrap(), LOG);
        }
    }
    let mut d = Decompress::new(&zst[..]);
    let _ = d.read(&mut [0u8; 4]).unwrap();
    assert_eq!(d.compression(), Some(Compression::Zstd));
}

#[test]
fn concatenated_zstd_frames_are_read_one_after_the_other() {
    let mut zst = zstd(b"one\n");
    zst.extend(zstd(b"two\n"));
    assert_eq!(
        read_all(Decompress::new(&zst[..]), 4096).unwrap(),
        b"one\ntwo\n"
    );
}

#[test]
fn truncated_or_corrupt_zstd_is_an_error_that_says_so() {
    let zst = zstd(&LOG.repeat(100));
    for cut in [4, 6, zst.len() / 2, zst.len() - 1] {
        let err = read_all(Decompress::new(&zst[..cut]), 4096).unwrap_err();
        assert!(
            err.to_string().starts_with("truncated zstd data"),
            "cut at {cut}: {err}"
        );
    }
    let mut bad = zst.clone();
    let mid = bad.len() / 2;
    for b in &mut bad[mid..mid + 8] {
        *b = !*b;
    }
    let err = read_all(Decompress::new(&bad[..]), 4096).unwrap_err();
    assert!(err.to_string().starts_with("corrupt zstd data ("), "{err}");
}

/// A terminal: each Ctrl-D is one read of 0 bytes, and more can be typed
/// after it.
struct Terminal {
    reads: Vec<&'static [u8]>,
}

impl Read for Terminal {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let next = if self.reads.is_empty() {
            &b""[..]
        } else {
            self.reads.remove(0)
        };
        out[..next.len()].copy_from_slice(next);
        Ok(next.len())
    }
}

#[test]
fn one_ctrl_d_ends_an_empty_input() {
    let mut r = Decompress::new(Terminal {
        reads: vec![b"", b"typed after the end\n"],
    });
    let mut buf = [0; 64];
    assert_eq!(r.read(&mut buf).unwrap(), 0);
}
