use super::*;

use std::io::Cursor;

/// An owned copy of a [`Frame`], so frames can be collected past the next
/// call into the reader.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Owned {
    Line {
        number: u64,
        bytes: Vec<u8>,
        partial: bool,
    },
    TooLong {
        number: u64,
        len: u64,
        partial: bool,
    },
}

fn own(f: &Frame<'_>) -> Owned {
    match f {
        Frame::Line(l) => Owned::Line {
            number: l.number,
            bytes: l.bytes.to_vec(),
            partial: l.partial,
        },
        Frame::TooLong {
            number,
            len,
            partial,
        } => Owned::TooLong {
            number: *number,
            len: *len,
            partial: *partial,
        },
    }
}

fn line(number: u64, bytes: &[u8]) -> Owned {
    Owned::Line {
        number,
        bytes: bytes.to_vec(),
        partial: false,
    }
}

fn last(number: u64, bytes: &[u8]) -> Owned {
    Owned::Line {
        number,
        bytes: bytes.to_vec(),
        partial: true,
    }
}

fn too_long(number: u64, len: u64) -> Owned {
    Owned::TooLong {
        number,
        len,
        partial: false,
    }
}

/// Drive the reader exactly like `run::Runner::source` does: take every
/// buffered frame, stop at end of input, otherwise read more.
fn drive<R: Read>(rdr: &mut LineReader<R>) -> Vec<Owned> {
    let mut out = Vec::new();
    loop {
        while let Some(f) = rdr.next_frame() {
            out.push(own(&f));
        }
        if rdr.is_eof() {
            break;
        }
        rdr.fill().unwrap();
    }
    out
}

/// Frames of `input` read in one go (a `Cursor` fills whatever space it gets).
fn frames(input: &[u8], max: usize) -> Vec<Owned> {
    drive(&mut LineReader::new(Cursor::new(input.to_vec()), max))
}

/// A reader that hands out at most `chunk` bytes per `read` call.
struct Chunked {
    data: Vec<u8>,
    pos: usize,
    chunk: usize,
    calls: usize,
}

impl Chunked {
    fn new(data: &[u8], chunk: usize) -> Self {
        Chunked {
            data: data.to_vec(),
            pos: 0,
            chunk,
            calls: 0,
        }
    }
}

impl Read for Chunked {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.calls += 1;
        let n = self.chunk.min(buf.len()).min(self.data.len() - self.pos);
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// A letter that depends on `i`, for inputs whose bytes are not all equal.
fn letter(i: usize) -> u8 {
    b"abcdefghijklmnopqrstuvwxyz"[i % 26]
}

fn frames_chunked(input: &[u8], max: usize, chunk: usize) -> Vec<Owned> {
    drive(&mut LineReader::new(Chunked::new(input, chunk), max))
}

/// The reference framing: split on `\n`, drop one trailing `\r`, a non-empty
/// remainder is the partial last line, lines over `max` are `TooLong` with
/// their length after the `\r` is dropped.
fn naive(input: &[u8], max: usize) -> Vec<Owned> {
    let mut out = Vec::new();
    let mut pieces: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
    let rest = pieces.pop().unwrap_or(&[]);
    let mut number = 0;
    let mut push = |bytes: &[u8], partial: bool| {
        number += 1;
        let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        if bytes.len() > max {
            out.push(Owned::TooLong {
                number,
                len: bytes.len() as u64,
                partial,
            });
        } else {
            out.push(Owned::Line {
                number,
                bytes: bytes.to_vec(),
                partial,
            });
        }
    };
    for p in pieces {
        push(p, false);
    }
    if !rest.is_empty() {
        push(rest, true);
    }
    out
}

#[test]
fn empty_input_yields_nothing() {
    let mut rdr = LineReader::new(Cursor::new(Vec::new()), 100);
    assert_eq!(drive(&mut rdr), []);
    assert!(rdr.is_eof());
    assert_eq!(rdr.bytes_read(), 0);
    // Stays at end of input: no phantom frame, fill keeps saying "no more".
    assert!(rdr.next_frame().is_none());
    assert!(!rdr.fill().unwrap());
    assert!(rdr.next_frame().is_none());
}

#[test]
fn nothing_is_yielded_before_the_first_fill() {
    let mut rdr = LineReader::new(Cursor::new(b"a\n".to_vec()), 100);
    assert!(rdr.next_frame().is_none());
    assert!(!rdr.is_eof());
    assert!(rdr.fill().unwrap());
    assert_eq!(rdr.next_frame().map(|f| own(&f)), Some(line(1, b"a")));
    assert!(rdr.next_frame().is_none());
    assert!(!rdr.is_eof());
    assert!(!rdr.fill().unwrap());
    assert!(rdr.is_eof());
    assert!(rdr.next_frame().is_none());
}

#[test]
fn single_line_with_newline() {
    assert_eq!(frames(b"hello\n", 100), [line(1, b"hello")]);
}

#[test]
fn single_line_without_final_newline_is_partial_at_eof() {
    let mut rdr = LineReader::new(Cursor::new(b"hello".to_vec()), 100);
    // Before end of input is known, the unterminated line is held back.
    assert!(rdr.fill().unwrap());
    assert!(rdr.next_frame().is_none());
    assert!(!rdr.fill().unwrap());
    assert_eq!(rdr.next_frame().map(|f| own(&f)), Some(last(1, b"hello")));
    assert!(rdr.next_frame().is_none());
}

#[test]
fn several_lines_and_unterminated_last() {
    assert_eq!(
        frames(b"one\ntwo\nthree", 100),
        [line(1, b"one"), line(2, b"two"), last(3, b"three")]
    );
}

#[test]
fn crlf_is_stripped() {
    assert_eq!(frames(b"a\r\nb\r\n", 100), [line(1, b"a"), line(2, b"b")]);
}

#[test]
fn crlf_on_the_unterminated_last_line_is_stripped() {
    assert_eq!(frames(b"a\r\nb\r", 100), [line(1, b"a"), last(2, b"b")]);
}

#[test]
fn only_one_trailing_cr_is_stripped_and_inner_cr_kept() {
    assert_eq!(
        frames(b"a\r\r\nx\ry\n", 100),
        [line(1, b"a\r"), line(2, b"x\ry")]
    );
}

#[test]
fn lone_cr_is_not_a_line_break() {
    assert_eq!(frames(b"a\rb\n", 100), [line(1, b"a\rb")]);
}

#[test]
fn blank_lines_are_yielded_empty_and_counted() {
    assert_eq!(
        frames(b"\n\na\n\r\n\n", 100),
        [
            line(1, b""),
            line(2, b""),
            line(3, b"a"),
            line(4, b""),
            line(5, b"")
        ]
    );
}

#[test]
fn only_newlines() {
    assert_eq!(frames(b"\n", 10), [line(1, b"")]);
    assert_eq!(frames(b"\r\n", 10), [line(1, b"")]);
}

#[test]
fn bytes_are_passed_through_untouched() {
    let input = b"\x00\xff\xfe\t \x1b[31m\n";
    assert_eq!(frames(input, 100), [line(1, b"\x00\xff\xfe\t \x1b[31m")]);
}

#[test]
fn line_exactly_at_the_limit_is_kept() {
    assert_eq!(frames(b"abcde\nf\n", 5), [line(1, b"abcde"), line(2, b"f")]);
}

#[test]
fn line_at_the_limit_with_crlf_is_kept() {
    // The `\r` is not part of the line, so it does not count.
    assert_eq!(
        frames(b"abcde\r\nf\r\n", 5),
        [line(1, b"abcde"), line(2, b"f")]
    );
}

#[test]
fn line_one_byte_past_the_limit_is_too_long() {
    assert_eq!(
        frames(b"abcdef\nghi\n", 5),
        [too_long(1, 6), line(2, b"ghi")]
    );
}

#[test]
fn too_long_lines_keep_line_numbers_counting() {
    let input = b"ok\n0123456789\nfine\n01234567890123456789012345\n\nend\n";
    assert_eq!(
        frames(input, 5),
        [
            line(1, b"ok"),
            too_long(2, 10),
            line(3, b"fine"),
            too_long(4, 26),
            line(5, b""),
            line(6, b"end"),
        ]
    );
}

#[test]
fn consecutive_too_long_lines() {
    assert_eq!(
        frames(b"aaaaaaaa\nbbbbbbbbbbbb\ncc\n", 3),
        [too_long(1, 8), too_long(2, 12), line(3, b"cc")]
    );
}

#[test]
fn too_long_line_at_eof_is_partial() {
    assert_eq!(
        frames(b"ok\nabcdefghij", 5),
        [
            line(1, b"ok"),
            Owned::TooLong {
                number: 2,
                len: 10,
                partial: true
            }
        ]
    );
}

#[test]
fn one_byte_past_the_limit_at_eof_is_partial_too_long() {
    assert_eq!(
        frames(b"abcdef", 5),
        [Owned::TooLong {
            number: 1,
            len: 6,
            partial: true
        }]
    );
}

#[test]
fn too_long_with_crlf_reports_length_without_cr() {
    // Here the `\r` arrives together with the `\n`.
    assert_eq!(
        frames(b"abcdefg\r\nok\r\n", 5),
        [too_long(1, 7), line(2, b"ok")]
    );
}

#[test]
fn too_long_crlf_length_does_not_depend_on_where_the_read_splits() {
    // Limit 5: "abcdef\r\n" is 6 bytes of line; the buffer (7 bytes) fills
    // with "abcdef\r", the reader starts discarding and counts the `\r`.
    assert_eq!(
        frames(b"abcdef\r\nok\n", 5),
        [too_long(1, 6), line(2, b"ok")]
    );
    // Same line content plus one byte, read one byte at a time.
    assert_eq!(
        frames_chunked(b"abcdefg\r\nok\n", 5, 1),
        [too_long(1, 7), line(2, b"ok")]
    );
    // An unterminated over-long line ending in `\r`: the `\r` is stripped
    // from a partial line that fits, so it should not count here either.
    assert_eq!(
        frames(b"abcdefgh\r", 5),
        [Owned::TooLong {
            number: 1,
            len: 8,
            partial: true
        }]
    );
}

#[test]
fn line_split_across_fills() {
    let mut rdr = LineReader::new(Chunked::new(b"hello world\nnext\n", 4), 100);
    assert_eq!(drive(&mut rdr), [line(1, b"hello world"), line(2, b"next")]);
    assert_eq!(rdr.bytes_read(), 17);
}

#[test]
fn complete_lines_are_yielded_without_reading_again() {
    // Both lines arrive in the first read: both frames are available before
    // the reader is asked for more.
    let mut rdr = LineReader::new(Chunked::new(b"a\nb\nc", 1024), 100);
    assert!(rdr.fill().unwrap());
    assert_eq!(rdr.next_frame().map(|f| own(&f)), Some(line(1, b"a")));
    assert_eq!(rdr.next_frame().map(|f| own(&f)), Some(line(2, b"b")));
    assert!(rdr.next_frame().is_none());
    assert!(!rdr.fill().unwrap());
    assert_eq!(rdr.next_frame().map(|f| own(&f)), Some(last(3, b"c")));
}

#[test]
fn line_longer_than_the_initial_buffer_grows_it() {
    // INITIAL_CAPACITY is 64 KiB; this line needs several doublings.
    let mut input = vec![b'x'; 300_000];
    input.push(b'\n');
    input.extend_from_slice(b"tail\n");
    let got = frames(&input, 1 << 20);
    assert_eq!(got, [line(1, &vec![b'x'; 300_000]), line(2, b"tail")]);
}

#[test]
fn one_byte_reads_give_the_same_frames_as_whole_reads() {
    let inputs: [&[u8]; 6] = [
        b"",
        b"a\nbb\r\nccc",
        b"\n\n\r\n",
        b"{\"type\":\"system\"}\n{\"type\":\"result\"}\n",
        b"short\nthis one is far too long for the limit\nok\nlast-too-long-line",
        b"x\r",
    ];
    for input in inputs {
        let whole = frames(input, 10);
        let mut rdr = LineReader::new(Chunked::new(input, 1), 10);
        let byte_wise = drive(&mut rdr);
        assert_eq!(
            byte_wise,
            whole,
            "input {:?}",
            String::from_utf8_lossy(input)
        );
        assert_eq!(rdr.bytes_read(), input.len() as u64);
    }
}

#[test]
fn one_byte_reads_read_each_byte_once() {
    let input = b"abc\ndef\n";
    let mut rdr = LineReader::new(Chunked::new(input, 1), 100);
    assert_eq!(drive(&mut rdr), [line(1, b"abc"), line(2, b"def")]);
    assert_eq!(rdr.bytes_read(), 8);
}

/// Fails the first read with `Interrupted`, then behaves like `inner`.
struct InterruptOnce<R> {
    inner: R,
    interrupted: bool,
}

impl<R: Read> Read for InterruptOnce<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if !self.interrupted {
            self.interrupted = true;
            return Err(io::Error::from(io::ErrorKind::Interrupted));
        }
        self.inner.read(buf)
    }
}

#[test]
fn interrupted_read_is_retried() {
    let rdr = InterruptOnce {
        inner: Cursor::new(b"a\nb\n".to_vec()),
        interrupted: false,
    };
    let mut rdr = LineReader::new(rdr, 100);
    assert_eq!(drive(&mut rdr), [line(1, b"a"), line(2, b"b")]);
}

#[test]
fn interrupted_in_the_middle_of_a_line_is_retried() {
    /// Reads 2 bytes, is interrupted once, then reads the rest.
    struct Flaky {
        data: &'static [u8],
        pos: usize,
        step: u32,
    }
    impl Read for Flaky {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.step += 1;
            if self.step == 2 {
                return Err(io::Error::from(io::ErrorKind::Interrupted));
            }
            let want = if self.step == 1 { 2 } else { usize::MAX };
            let n = want.min(buf.len()).min(self.data.len() - self.pos);
            buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
            self.pos += n;
            Ok(n)
        }
    }
    let mut rdr = LineReader::new(
        Flaky {
            data: b"abcd\nef\n",
            pos: 0,
            step: 0,
        },
        100,
    );
    assert_eq!(drive(&mut rdr), [line(1, b"abcd"), line(2, b"ef")]);
}

#[test]
fn other_read_errors_are_returned() {
    struct Broken;
    impl Read for Broken {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            Err(io::Error::new(io::ErrorKind::BrokenPipe, "gone"))
        }
    }
    let mut rdr = LineReader::new(Broken, 100);
    assert!(rdr.next_frame().is_none());
    let err = rdr.fill().unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
    assert!(!rdr.is_eof());
}

#[test]
fn lines_before_a_read_error_are_kept() {
    /// Returns its data, then fails.
    struct ThenFail(Option<&'static [u8]>);
    impl Read for ThenFail {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            match self.0.take() {
                Some(d) => {
                    buf[..d.len()].copy_from_slice(d);
                    Ok(d.len())
                }
                None => Err(io::Error::other("disk on fire")),
            }
        }
    }
    let mut rdr = LineReader::new(ThenFail(Some(b"one\ntw")), 100);
    assert!(rdr.fill().unwrap());
    assert_eq!(rdr.next_frame().map(|f| own(&f)), Some(line(1, b"one")));
    assert!(rdr.next_frame().is_none());
    assert!(rdr.fill().is_err());
}

#[test]
fn many_megabyte_line_with_a_big_limit() {
    // 12 MiB: above SHRINK_ABOVE (1 MiB), so the buffer is also given back
    // afterwards; the next line must still be read normally.
    let size: usize = 12 * 1024 * 1024;
    let mut input: Vec<u8> = (0..size).map(letter).collect();
    let expected = input.clone();
    input.extend_from_slice(b"\nnext\n");
    let mut rdr = LineReader::new(Cursor::new(input), 16 * 1024 * 1024);
    let got = drive(&mut rdr);
    assert_eq!(got.len(), 2);
    assert_eq!(got[0], line(1, &expected));
    assert_eq!(got[1], line(2, b"next"));
    assert_eq!(rdr.bytes_read(), size as u64 + 6);
}

#[test]
fn many_megabyte_line_in_small_reads() {
    let size = 5 * 1024 * 1024 + 3;
    let mut input = vec![b'z'; size];
    input.extend_from_slice(b"\r\nafter");
    let got = frames_chunked(&input, 8 * 1024 * 1024, 8191);
    assert_eq!(got, [line(1, &vec![b'z'; size]), last(2, b"after")]);
}

#[test]
fn many_megabyte_line_over_the_limit_is_discarded_and_counted() {
    let size = 3 * 1024 * 1024;
    let mut input = b"first\n".to_vec();
    input.extend(std::iter::repeat_n(b'q', size));
    input.extend_from_slice(b"\nthird\n");
    for chunk in [4096, 65_536, usize::MAX] {
        assert_eq!(
            frames_chunked(&input, 1024 * 1024, chunk),
            [
                line(1, b"first"),
                too_long(2, size as u64),
                line(3, b"third")
            ],
            "chunk {chunk}"
        );
    }
}

#[test]
fn limit_zero_behaves_like_one() {
    // `new` clamps the limit to at least one byte.
    assert_eq!(
        frames(b"a\nbc\n\n", 0),
        [line(1, b"a"), too_long(2, 2), line(3, b"")]
    );
}

#[test]
fn bytes_read_counts_everything_including_discarded_bytes() {
    let input = b"0123456789abcdef\nxy\n";
    let mut rdr = LineReader::new(Chunked::new(input, 3), 4);
    assert_eq!(drive(&mut rdr), [too_long(1, 16), line(2, b"xy")]);
    assert_eq!(rdr.bytes_read(), input.len() as u64);
}

// The buffer bound (never more than limit + 2 bytes) is not observable: the
// reader has no accessor for its buffer, so it is not asserted here.

/// Inputs for the chunk-size sweep.
fn sweep_inputs() -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = vec![
        b"".to_vec(),
        b"\n".to_vec(),
        b"a".to_vec(),
        b"a\n".to_vec(),
        b"a\r\nb\r\n".to_vec(),
        b"\n\n\n".to_vec(),
        b"one\ntwo\nthree".to_vec(),
        b"exactly8\nexactly9!\n12345678\r\n".to_vec(),
        b"this line is definitely longer than any limit used\nshort\n".to_vec(),
        b"x\ny\nan unterminated line that is too long".to_vec(),
        b"\r\n\r\n\rq\r\n".to_vec(),
        b"{\"type\":\"assistant\",\"message\":{\"content\":[]}}\n{}\n".to_vec(),
        b"a long line that ends in a carriage return\r\nok\r\n".to_vec(),
        b"ok\nunterminated, too long, with a carriage return\r".to_vec(),
    ];
    // A mix of lengths around typical chunk and limit sizes.
    let mut mixed = Vec::new();
    for n in 0..40_usize {
        mixed.extend(std::iter::repeat_n(letter(n), n * 3 % 23));
        if n % 5 == 0 {
            mixed.push(b'\r');
        }
        mixed.push(b'\n');
    }
    v.push(mixed);
    v
}

const SWEEP_LIMITS: [usize; 6] = [1, 7, 8, 9, 16, 1000];

/// True when `input` has a `\r\n`-terminated line that is over `max`: the
/// case of the ignored `too_long_crlf_length_does_not_depend_on_where_the_read_splits`.
fn has_too_long_crlf_line(input: &[u8], max: usize) -> bool {
    input
        .split(|&b| b == b'\n')
        .any(|l| l.ends_with(b"\r") && l.len() - 1 > max)
}

/// Every (input, limit, chunk size) whose frames differ from the naive split.
fn sweep_mismatches(skip_crlf_too_long: bool) -> Vec<String> {
    let mut bad = Vec::new();
    for input in sweep_inputs() {
        for max in SWEEP_LIMITS {
            if skip_crlf_too_long && has_too_long_crlf_line(&input, max) {
                continue;
            }
            let expected = naive(&input, max);
            // Chunk 0 stands for one whole read.
            for chunk in 0..=17 {
                let got = if chunk == 0 {
                    frames(&input, max)
                } else {
                    frames_chunked(&input, max, chunk)
                };
                if got != expected {
                    bad.push(format!(
                        "chunk {chunk}, max {max}, input {:?}: got {got:?}, expected {expected:?}",
                        String::from_utf8_lossy(&input)
                    ));
                }
            }
        }
    }
    bad
}

#[test]
fn every_chunk_size_gives_the_naive_split() {
    let bad = sweep_mismatches(true);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn every_chunk_size_gives_the_naive_split_with_crlf_too_long_lines() {
    let bad = sweep_mismatches(false);
    assert!(
        bad.is_empty(),
        "{} mismatches:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn naive_reference_sanity() {
    // The reference itself, on a case worked out by hand.
    assert_eq!(
        naive(b"ab\r\n\ncdefgh\nij", 4),
        [line(1, b"ab"), line(2, b""), too_long(3, 6), last(4, b"ij")]
    );
}

#[test]
fn a_reused_buffer_frames_as_a_new_one() {
    // One reader's buffer, left with another input's bytes (and grown by a
    // long line), frames the next input as a new buffer does.
    let long: Vec<u8> = (0..200_000).map(letter).collect();
    let mut first = b"one\ntwo\n".to_vec();
    first.extend_from_slice(&long);
    first.extend_from_slice(b"\nunfinished");
    let second = b"alpha\nbeta\r\n\ngamma".to_vec();
    for max in [8, 100, 1 << 20] {
        let mut a = LineReader::new(Chunked::new(&first, 1000), max);
        let first_frames = drive(&mut a);
        assert_eq!(first_frames, frames_chunked(&first, max, 1000));
        let mut b = LineReader::with_buffer(Chunked::new(&second, 3), max, a.into_buffer());
        assert_eq!(drive(&mut b), frames_chunked(&second, max, 3), "max {max}");
        assert_eq!(b.bytes_read(), second.len() as u64);
    }
}

#[test]
fn a_long_lines_buffer_is_made_ready_only_as_far_as_it_is_read() {
    // The capacity doubles past the line (4 MiB for 2.3 MB), but only
    // what the reads fill is zeroed and so touched.
    let size = 2_300_000;
    let mut input = vec![b'x'; size];
    input.extend_from_slice(b"\nnext\n");
    let mut rdr = LineReader::new(Cursor::new(input), 8 * 1024 * 1024);
    loop {
        if let Some(f) = rdr.next_frame() {
            assert_eq!(own(&f), line(1, &vec![b'x'; size]));
            break;
        }
        assert!(rdr.fill().unwrap());
    }
    assert!(rdr.buf.capacity() >= size);
    assert!(rdr.buf.len() <= size + READ_AHEAD, "{}", rdr.buf.len());
    // Given back once it is empty: it is above SHRINK_ABOVE.
    let rest = drive(&mut rdr);
    assert_eq!(rest, [line(2, b"next")]);
    assert!(rdr.buf.capacity() <= SHRINK_ABOVE);
}

/// As [`drive`], passing over the lines without an `x` before each frame
/// ([`LineReader::pass_over`], as `--grep` does): the frames, and how many
/// lines were passed over.
fn drive_passing_over<R: Read>(rdr: &mut LineReader<R>) -> (Vec<Owned>, u64) {
    let mut out = Vec::new();
    let mut passed = 0;
    loop {
        loop {
            passed += rdr
                .pass_over(|lines| memchr::memchr(b'x', lines))
                .unwrap_or(0);
            let Some(f) = rdr.next_frame() else {
                break;
            };
            out.push(own(&f));
        }
        if rdr.is_eof() {
            break;
        }
        rdr.fill().unwrap();
    }
    (out, passed)
}

#[test]
fn lines_passed_over_are_counted_and_the_others_framed_as_ever() {
    // Lines of every length around the reads and the limit, some with an
    // `x`, some over the limit, `\r\n` ends, a last line cut short.
    let mut input = Vec::new();
    for i in 0..400usize {
        let len = (i * 37) % 90;
        // Letters, but no `x` of their own.
        let mut l: Vec<u8> = (0..len)
            .map(|k| match letter(i + k + 1) {
                b'x' => b'.',
                b => b,
            })
            .collect();
        if i % 5 == 0 && len > 0 {
            l[len / 2] = b'x';
        }
        input.extend_from_slice(&l);
        input.extend_from_slice(if i % 7 == 0 { b"\r\n" } else { b"\n" });
    }
    input.extend_from_slice(b"tail x");
    let lines = naive(&input, usize::MAX).len() as u64;
    for max in [40, 89, 100_000] {
        let want = naive(&input, max);
        for chunk in [1, 7, 64, 1000, input.len()] {
            let mut rdr = LineReader::new(Chunked::new(&input, chunk), max);
            let (got, passed) = drive_passing_over(&mut rdr);
            assert_eq!(got.len() as u64 + passed, lines, "max {max} chunk {chunk}");
            assert!(passed > 0, "max {max} chunk {chunk}");
            // Every frame is the reference's of that number; those with an
            // `x` and those over the limit are all there.
            let numbered = |f: &Owned| match f {
                Owned::Line { number, .. } | Owned::TooLong { number, .. } => *number,
            };
            for f in &got {
                let at = usize::try_from(numbered(f)).unwrap() - 1;
                assert_eq!(Some(f), want.get(at), "max {max}");
            }
            let kept = |f: &&Owned| match f {
                Owned::Line { bytes, .. } => bytes.contains(&b'x'),
                Owned::TooLong { .. } => true,
            };
            let must: Vec<&Owned> = want.iter().filter(kept).collect();
            let have: Vec<&Owned> = got.iter().filter(kept).collect();
            assert_eq!(have, must, "max {max} chunk {chunk}");
            if max == 100_000 && chunk == input.len() {
                // Read whole: only the lines with an `x` are framed.
                assert_eq!(got.len(), must.len());
            }
        }
    }
}

#[test]
fn newlines_are_counted_by_the_vector_count_as_one_by_one() {
    // Runs of a counter's 255 steps and past them, all newlines (each byte
    // counter at its most), none, and lengths not a multiple of 32.
    let mixed: Vec<u8> = (0..20_000usize)
        .map(|i| {
            if (i * 7919) % 13 < 3 {
                b'\n'
            } else {
                letter(i)
            }
        })
        .collect();
    let all = vec![b'\n'; 32 * 255 * 2 + 5];
    for bytes in [
        &mixed[..],
        &mixed[..8160],
        &mixed[3..8199],
        &all[..],
        &[][..],
        b"a\n",
    ] {
        // One by one: the reference.
        #[allow(clippy::naive_bytecount)]
        let want = bytes.iter().filter(|&&b| b == b'\n').count() as u64;
        assert_eq!(newlines(bytes), want, "{}", bytes.len());
    }
}

/// Read `input` to its end: whether its reader found it binary, and the
/// bytes read by then.
fn binary_after(input: impl Read, max: usize) -> (bool, u64) {
    let mut rdr = LineReader::new(input, max);
    let frames = drive(&mut rdr);
    if rdr.is_binary() {
        assert_eq!(frames, [], "a binary input ends without a frame");
        assert!(!rdr.fill().unwrap());
    }
    (rdr.is_binary(), rdr.bytes_read())
}

#[test]
fn a_first_line_of_nuls_past_the_limit_is_binary_after_a_bounded_read() {
    // `/dev/zero`: one line that never ends.
    let (binary, read) = binary_after(io::repeat(0), 1000);
    assert!(binary);
    assert!(read <= 1000 + 2 * READ_AHEAD as u64, "{read}");
    let (binary, _) = binary_after(io::repeat(0), 1 << 20);
    assert!(binary);
    // A NUL among letters, in one-byte reads.
    let mut text = vec![b'x'; 5000];
    text[10] = 0;
    assert!(binary_after(Chunked::new(&text, 1), 1000).0);
    // Not binary: a first line within the limit (NULs before a JSON line,
    // what `: > log` leaves), a long first line without a NUL, a line of
    // NULs past the limit after the first.
    let mut hole = vec![0; 900];
    hole.extend_from_slice(b"{}\n");
    assert_eq!(binary_after(Cursor::new(&hole), 1000), (false, 903));
    assert!(!binary_after(Cursor::new(vec![b'x'; 5000]), 1000).0);
    let mut later = b"{}\n".to_vec();
    later.extend_from_slice(&[0; 5000]);
    assert!(!binary_after(Cursor::new(later), 1000).0);
}
