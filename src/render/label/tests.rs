use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;

use super::*;

/// Each `write` it is given, apart.
#[derive(Clone, Default)]
struct Writes(Rc<RefCell<Vec<Vec<u8>>>>);

impl Write for Writes {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().push(data.to_vec());
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Writes {
    fn texts(&self) -> Vec<String> {
        (self.0.borrow().iter())
            .map(|w| String::from_utf8(w.clone()).unwrap())
            .collect()
    }
}

#[test]
fn every_line_starts_with_the_label_and_only_whole_lines_are_written() {
    let seen = Writes::default();
    let mut w = WholeLines::new(seen.clone(), b"[api] ".to_vec());
    w.write_all(b"one\ntw").unwrap();
    w.write_all(b"o\nthree is stre").unwrap();
    w.flush().unwrap();
    // The line being written is held.
    assert_eq!(seen.texts(), ["[api] one\n[api] two\n"]);
    w.write_all(b"amed").unwrap();
    w.flush().unwrap();
    assert_eq!(seen.texts().len(), 1, "nothing new ended");
    w.write_all(b"\n\n").unwrap();
    w.flush().unwrap();
    assert_eq!(seen.texts()[1], "[api] three is streamed\n[api] \n");
    // The end: a line left open is written.
    w.write_all(b"open").unwrap();
    drop(w);
    assert_eq!(seen.texts()[2], "[api] open");
}

#[test]
fn a_write_holds_whole_lines_within_pipe_buf_and_a_long_line_alone() {
    let seen = Writes::default();
    let mut w = WholeLines::new(seen.clone(), b"[w] ".to_vec());
    let line = format!("{}\n", "x".repeat(95)); // 100 bytes with the label
    let long = format!("{}\n", "y".repeat(3 * PIPE_BUF));
    let mut all = String::new();
    for _ in 0..100 {
        all.push_str(&line);
    }
    all.push_str(&long);
    all.push_str(&line);
    // In one piece, as the buffered writer above hands it over.
    w.write_all(all.as_bytes()).unwrap();
    w.flush().unwrap();
    let writes = seen.texts();
    for (i, text) in writes.iter().enumerate() {
        assert!(text.ends_with('\n'), "write {i} ends a line");
        for l in text.lines() {
            assert!(l.starts_with("[w] ") && l.len() > 90, "{l:.20}");
        }
        let n = text.len();
        assert!(
            n <= PIPE_BUF || text.lines().count() == 1,
            "write {i}: {n} bytes"
        );
    }
    assert!(writes.iter().any(|t| t.starts_with("[w] yyy")));
    assert_eq!(writes.concat().lines().count(), 102);
    assert!(
        writes.len() < 10,
        "{} writes: lines are batched",
        writes.len()
    );
}

#[test]
fn an_unlabelled_writer_only_keeps_lines_whole() {
    let seen = Writes::default();
    let mut w = WholeLines::new(seen.clone(), Vec::new());
    w.write_all(b"{\"v\":1}\n{\"v\"").unwrap();
    w.flush().unwrap();
    w.write_all(b":1}\n").unwrap();
    w.flush().unwrap();
    assert_eq!(seen.texts(), ["{\"v\":1}\n", "{\"v\":1}\n"]);
}

#[test]
fn a_label_has_a_colour_of_its_own_and_its_name_is_inert() {
    let theme = crate::render::theme::Theme::named("default", crate::render::theme::Depth::Ansi256)
        .unwrap();
    let p = prefix("api", &theme.label_spec("api"), true);
    let p = String::from_utf8(p).unwrap();
    assert!(p.starts_with("\x1b[0m\x1b[1m\x1b[38;5;"), "{p:?}");
    assert!(p.ends_with("[api]\x1b[0m "), "{p:?}");
    assert_eq!(prefix("api", &theme.label_spec("api"), false), b"[api] ");
    let evil = String::from_utf8(prefix("a\x1b[2Jb", &theme.label_spec("x"), false)).unwrap();
    assert!(!evil.contains('\x1b'), "{evil:?}");
    assert_eq!(prefix_width("api"), 6);
}
