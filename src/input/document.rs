//! A pretty-printed JSON document read as one line: Gemini CLI's older
//! session files (`chats/session-*.json`, 2025) are one object over many
//! lines, where everything else streamview reads is one object a line.
//!
//! [`OneLine`] looks at the first line: when it is a lone `{` (no JSONL
//! line is), the input is one document, and its line breaks, which JSON
//! allows only between tokens, are read as spaces, with one break at the
//! end. Any other first line passes the input through as it is. A live
//! pipe is never held: the first byte after the `{` that is not a space
//! decides.

use std::io::{self, Read};

/// What the first line said.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Not decided: only blanks, and perhaps a `{`, so far.
    Looking { brace: bool },
    /// Lines as they are.
    Lines,
    /// One document: line breaks read as spaces.
    Document { ended: bool },
}

/// A `Read` that passes lines through, or joins a pretty-printed document
/// into one line (see the module docs).
pub struct OneLine<R> {
    rdr: R,
    mode: Mode,
}

impl<R: Read> OneLine<R> {
    /// Read `rdr`, joined if it is one pretty-printed document.
    pub fn new(rdr: R) -> Self {
        OneLine {
            rdr,
            mode: Mode::Looking { brace: false },
        }
    }

    /// Decide on the bytes just read, as far as they tell.
    fn look(&mut self, bytes: &[u8]) {
        for &b in bytes {
            let Mode::Looking { brace } = self.mode else {
                return;
            };
            self.mode = match b {
                b'\n' if brace => Mode::Document { ended: false },
                b' ' | b'\t' | b'\r' | b'\n' => Mode::Looking { brace },
                // A byte order mark.
                0xEF | 0xBB | 0xBF if !brace => Mode::Looking { brace },
                b'{' if !brace => Mode::Looking { brace: true },
                _ => Mode::Lines,
            };
        }
    }
}

impl<R: Read> Read for OneLine<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        if let Mode::Document { ended: true } = self.mode {
            return Ok(0);
        }
        let n = self.rdr.read(out)?;
        if let Mode::Looking { .. } = self.mode {
            self.look(&out[..n]);
        }
        if let Mode::Document { ended } = &mut self.mode {
            if n == 0 {
                *ended = true;
                out[0] = b'\n';
                return Ok(1);
            }
            for b in &mut out[..n] {
                if matches!(*b, b'\n' | b'\r') {
                    *b = b' ';
                }
            }
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(input: &[u8], chunk: usize) -> Vec<u8> {
        struct Chunks<'a>(&'a [u8], usize);
        impl Read for Chunks<'_> {
            fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
                let n = self.0.len().min(self.1).min(out.len());
                out[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut got = Vec::new();
        OneLine::new(Chunks(input, chunk))
            .read_to_end(&mut got)
            .unwrap();
        got
    }

    #[test]
    fn a_pretty_printed_document_is_one_line() {
        let doc = b"{\n  \"sessionId\": \"s\",\r\n  \"messages\": [\n    {\"id\": \"a\"}\n  ]\n}\n";
        for chunk in [1, 2, 7, 4096] {
            let got = read(doc, chunk);
            assert_eq!(memchr::memchr_iter(b'\n', &got).count(), 1, "{chunk}");
            assert_eq!(got.last(), Some(&b'\n'));
            let v: serde_json::Value = serde_json::from_slice(&got).unwrap();
            assert_eq!(v["messages"][0]["id"], "a");
        }
    }

    #[test]
    fn lines_pass_through() {
        for input in [
            &b"{\"a\":1}\n{\"b\":2}\n"[..],
            b"  {\"a\":\n",
            b"plain text\n",
            b"",
            b"{",
        ] {
            assert_eq!(read(input, 1), input, "{input:?}");
            assert_eq!(read(input, 4096), input);
        }
    }
}
