use std::io::Read;

use super::*;

fn line(t: &str, text: &str) -> String {
    format!("{{\"text\":\"{text}\",\"timestamp\":\"{t}\"}}\n")
}

fn merged(parts: &[&[u8]]) -> String {
    let mut out = String::new();
    Interleave::new(parts.iter().copied())
        .read_to_string(&mut out)
        .unwrap();
    out
}

/// Through readers that give one byte at a time, read into a small
/// buffer: the pieces do not change the result.
fn merged_slowly(parts: &[&[u8]]) -> String {
    struct Trickle<'a>(&'a [u8]);
    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let Some((&b, rest)) = self.0.split_first() else {
                return Ok(0);
            };
            out[0] = b;
            self.0 = rest;
            Ok(1)
        }
    }
    let mut rdr = Interleave::new(parts.iter().map(|p| Trickle(p)));
    let mut out = Vec::new();
    let mut buf = [0; 3];
    loop {
        let n = rdr.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        out.extend_from_slice(&buf[..n]);
    }
    String::from_utf8(out).unwrap()
}

#[test]
fn lines_go_in_time_order_ties_to_the_first_file() {
    let main = [
        line("2026-11-22T03:53:01.000Z", "call"),
        line("2026-11-22T03:53:05.000Z", "result"),
    ]
    .concat();
    let agent = [
        line("2026-11-22T03:53:02.000Z", "a1"),
        line("2026-11-22T03:53:05.000Z", "a2"),
    ]
    .concat();
    let want = [
        line("2026-11-22T03:53:01.000Z", "call"),
        line("2026-11-22T03:53:02.000Z", "a1"),
        line("2026-11-22T03:53:05.000Z", "result"),
        line("2026-11-22T03:53:05.000Z", "a2"),
    ]
    .concat();
    let parts = [main.as_bytes(), agent.as_bytes()];
    assert_eq!(merged(&parts), want);
    assert_eq!(merged_slowly(&parts), want);
}

#[test]
fn an_undated_line_keeps_its_place_in_its_file() {
    // No time, a time past the lookahead, a time that is not one: each
    // goes with the line before it.
    let long = "x".repeat(LOOKAHEAD + 10);
    let main = [
        "{\"type\":\"summary\"}\n".to_string(),
        line("2026-11-22T03:53:01.000Z", "m1"),
        format!("{{\"text\":\"{long}\",\"timestamp\":\"2026-11-22T03:53:09.000Z\"}}\n"),
        line("2026-11-22T03:53:04.000Z", "m3"),
    ]
    .concat();
    let agent = [
        line("2026-11-22T03:53:02.000Z", "a1"),
        line("soon", "a2"),
        line("2026-11-22T03:53:03.000Z", "a3"),
    ]
    .concat();
    let out = merged(&[main.as_bytes(), agent.as_bytes()]);
    let order: Vec<&str> = out
        .lines()
        .map(|l| match l.find("\"text\":\"") {
            Some(i) => &l[i + 8..i + 10],
            None => "--",
        })
        .collect();
    assert_eq!(order, ["--", "m1", "xx", "a1", "a2", "a3", "m3"]);
    assert_eq!(out.len(), main.len() + agent.len());
    // A byte a read: the long line is passed on in pieces, each line's end
    // found again after the buffer moves.
    assert_eq!(merged_slowly(&[main.as_bytes(), agent.as_bytes()]), out);
}

#[test]
fn every_file_ends_with_a_line_break() {
    assert_eq!(
        merged(&[b"{\"a\":1}", b"{\"b\":2}"]),
        "{\"a\":1}\n{\"b\":2}\n"
    );
    assert_eq!(merged(&[b"", b"x\n", b""]), "x\n");
    assert_eq!(
        merged_slowly(&[b"{\"a\":1}", b"{\"b\":2}"]),
        "{\"a\":1}\n{\"b\":2}\n"
    );
    assert_eq!(merged(&[]), "");
}

#[test]
fn each_merged_line_knows_its_file_and_line() {
    // main: 1 call, 2 result, 3 end (its last line, with no line break);
    // agent: 1 a1, 2 a2. Merged: call, a1, a2, result, end.
    let main = format!(
        "{}{}\n{}",
        line("2026-11-22T03:53:01.000Z", "call"),
        line("2026-11-22T03:53:09.000Z", "result").trim_end(),
        line("2026-11-22T03:53:10.000Z", "end").trim_end(),
    );
    let agent = [
        line("2026-11-22T03:53:02.000Z", "a1"),
        line("2026-11-22T03:53:03.000Z", "a2"),
    ]
    .concat();
    let origins = Arc::new(Origins::new(vec!["main".into(), "agent".into()]));
    let mut out = String::new();
    Interleave::new([main.as_bytes(), agent.as_bytes()])
        .tracing(Arc::clone(&origins))
        .read_to_string(&mut out)
        .unwrap();
    let texts: Vec<&str> = out
        .lines()
        .map(|l| l.split('"').nth(3).unwrap_or_default())
        .collect();
    assert_eq!(texts, ["call", "a1", "a2", "result", "end"]);
    let at: Vec<(usize, u64)> = (1..=5).map(|n| origins.of(n)).collect();
    assert_eq!(at, [(0, 1), (1, 1), (1, 2), (0, 2), (0, 3)]);
    // No line 0: the first file's.
    assert_eq!(origins.of(0), (0, 0));
    assert_eq!(origins.files(), ["main", "agent"]);
}

#[test]
fn a_buffer_an_ended_merge_left_holds_nothing_for_the_next() {
    // A merge of long lines fills its parts' buffers and leaves them on
    // the thread; the next merge, of shorter lines and a file without its
    // last line break, gets them and must see only its own bytes.
    let long = |t: &str, c: char| line(t, &c.to_string().repeat(LOOKAHEAD / 2));
    let first = [
        long("2026-11-22T03:53:01.000Z", 'x'),
        long("2026-11-22T03:53:03.000Z", 'y'),
    ]
    .concat();
    let second = long("2026-11-22T03:53:02.000Z", 'z');
    merged(&[first.as_bytes(), second.as_bytes()]);
    assert!(
        BUFFERS.with_borrow(Vec::len) >= 2,
        "the ended parts' buffers are kept"
    );
    let a = line("2026-11-22T03:54:01.000Z", "a");
    let b = line("2026-11-22T03:54:00.000Z", "b");
    let b_cut = b.trim_end();
    assert_eq!(
        merged(&[a.as_bytes(), b_cut.as_bytes()]),
        [b.as_str(), &a].concat()
    );
    assert_eq!(
        merged_slowly(&[a.as_bytes(), b_cut.as_bytes()]),
        [b.as_str(), &a].concat()
    );
}
