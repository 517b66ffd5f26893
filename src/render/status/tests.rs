use super::*;
use crate::decode::Decoder;
use crate::input::Line;
use std::cell::RefCell;
use std::rc::Rc;

/// A terminal that keeps what was written.
#[derive(Clone, Default)]
struct Screen(Rc<RefCell<Vec<u8>>>);

impl Write for Screen {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Screen {
    fn take(&self) -> String {
        String::from_utf8(std::mem::take(&mut *self.0.borrow_mut())).unwrap()
    }
}

fn line(width: usize, wait: u64) -> (StatusLine, Screen) {
    let screen = Screen::default();
    let st = StatusLine::new(
        Box::new(screen.clone()),
        Box::new(move || Some(width)),
        false,
        Duration::from_secs(wait),
    );
    (st, screen)
}

const INIT: &str =
    r#"{"type":"system","subtype":"init","session_id":"s","model":"m","tools":["Bash"]}"#;
const CALL: &str = r#"{"type":"assistant","session_id":"s","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"npm test"}}],"usage":{"input_tokens":1200,"output_tokens":30}}}"#;
const RESULT: &str = r#"{"type":"user","session_id":"s","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}"#;
const DONE: &str = r#"{"type":"result","subtype":"success","is_error":false,"session_id":"s","num_turns":1,"total_cost_usd":0.0421}"#;

/// The text of one draw: what is between the erase (autowrap off) and
/// autowrap back on.
fn drawn(out: &str) -> &str {
    out.strip_prefix("\r\x1b[2K\x1b[?7l")
        .and_then(|s| s.strip_suffix("\x1b[?7h"))
        .unwrap_or_else(|| panic!("not one draw: {out:?}"))
}

/// A decoder and the session it feeds, at arrival times the test chooses.
struct Feeder {
    dec: Decoder,
    session: Session,
    line: u64,
}

impl Feeder {
    fn new() -> Self {
        Feeder {
            dec: Decoder::new(),
            session: Session::new(),
            line: 0,
        }
    }

    fn session(&self) -> &Session {
        &self.session
    }
}

/// Feed `lines` arriving at `at` to the session, then to the status line.
fn feed(f: &mut Feeder, st: &mut StatusLine, lines: &[&str], at: Instant) {
    for l in lines {
        f.line += 1;
        let line = Line {
            number: f.line,
            bytes: l.as_bytes(),
            partial: false,
        };
        let session = &mut f.session;
        f.dec
            .decode(&line, &mut |ev| {
                session.observe_at(ev, at);
                st.observe(&ev.kind, session, at);
                Ok(())
            })
            .unwrap();
    }
}

#[test]
fn shows_the_running_tool_and_the_counters() {
    let (mut st, screen) = line(200, 30);
    let mut f = Feeder::new();
    let t0 = Instant::now();
    feed(&mut f, &mut st, &[INIT, CALL], t0);
    let text = st.text(t0 + Duration::from_secs(12), f.session());
    assert!(text.contains("Bash npm test · 12s"), "{text}");
    assert!(text.contains("turn 1"), "{text}");
    assert!(text.contains("1.2k tokens"), "{text}");
    assert!(text.contains("last event 12s ago"), "{text}");
    st.draw(t0, f.session());
    let out = screen.take();
    assert!(out.starts_with("\r\x1b[2K\x1b[?7l"), "{out:?}");
    assert!(out.ends_with("\x1b[?7h"), "{out:?}");
    assert!(st.is_shown());
    st.hide();
    assert_eq!(screen.take(), "\r\x1b[2K");
    assert!(!st.is_shown());
    st.hide();
    assert_eq!(screen.take(), "", "hiding twice writes nothing");
}

#[test]
fn says_it_is_waiting_after_the_configured_time() {
    let (mut st, _) = line(200, 30);
    let mut f = Feeder::new();
    let t0 = Instant::now();
    feed(&mut f, &mut st, &[INIT, CALL], t0);
    let before = st.text(t0 + Duration::from_secs(29), f.session());
    assert!(!before.contains("waiting"), "{before}");
    let text = st.text(t0 + Duration::from_secs(45), f.session());
    assert!(
        text.starts_with("⏳ waiting 45s — last: Bash npm test"),
        "{text}"
    );
    // A result ends the work: no alarm however long the pipe stays open.
    feed(&mut f, &mut st, &[RESULT, DONE], t0);
    let text = st.text(t0 + Duration::from_secs(100), f.session());
    assert!(
        text.contains("finished") && !text.contains("waiting"),
        "{text}"
    );
    assert!(text.contains("$0.0421"), "{text}");
}

#[test]
fn a_result_takes_the_tool_off_the_line() {
    let (mut st, _) = line(200, 30);
    let mut f = Feeder::new();
    let t0 = Instant::now();
    feed(&mut f, &mut st, &[INIT, CALL, RESULT], t0);
    let text = st.text(t0, f.session());
    assert!(
        text.contains("working — last: Bash npm test (done)"),
        "{text}"
    );
    let failed = RESULT.replace(r#""content":"ok""#, r#""content":"boom","is_error":true"#);
    let (mut st, _) = line(200, 30);
    let mut f = Feeder::new();
    feed(&mut f, &mut st, &[INIT, CALL, &failed], t0);
    let text = st.text(t0, f.session());
    assert!(text.contains("last: Bash npm test (failed)"), "{text}");
}

#[test]
fn redraws_at_most_every_min_redraw() {
    let (mut st, screen) = line(200, 30);
    let f = Feeder::new();
    let t0 = Instant::now();
    st.draw(t0, f.session());
    st.draw(t0 + MIN_REDRAW / 2, f.session());
    assert_eq!(screen.take().matches("\x1b[?7l").count(), 1);
    st.draw(t0 + MIN_REDRAW, f.session());
    assert_eq!(screen.take().matches("\x1b[?7l").count(), 1);
}

#[test]
fn fits_the_terminal_width() {
    for width in [2, 10, 40, 80] {
        let (mut st, screen) = line(width, 30);
        let mut f = Feeder::new();
        let t0 = Instant::now();
        feed(&mut f, &mut st, &[INIT, CALL], t0);
        st.draw(t0, f.session());
        let out = screen.take();
        let text = drawn(&out);
        let cols: usize = text
            .chars()
            .map(|c| if c.is_ascii() || c == '…' { 1 } else { 2 })
            .sum();
        assert!(cols < width.max(2), "{width}: {text:?}");
    }
}

#[test]
fn content_cannot_reach_the_terminal_raw() {
    let (mut st, screen) = line(500, 30);
    let mut f = Feeder::new();
    let evil = r#"{"type":"assistant","session_id":"s","message":{"id":"m1","content":[{"type":"tool_use","id":"t9","name":"Ba\u001b]52;c;aGk=\u0007sh","input":{"command":"echo \u001b[2J\u009b31m\u202e\rgone\nline2"}}]}}"#;
    let t0 = Instant::now();
    feed(&mut f, &mut st, &[INIT, evil], t0);
    st.draw(t0, f.session());
    let out = screen.take();
    let body = drawn(&out);
    assert!(
        !body
            .chars()
            .any(|c| c.is_control() || crate::render::sanitize::is_unsafe(c)),
        "{body:?}"
    );
    assert!(!body.contains("line2"), "one line only: {body:?}");
}

#[test]
fn a_broken_terminal_turns_it_off() {
    struct Gone;
    impl Write for Gone {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::other("gone"))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut st = StatusLine::new(Box::new(Gone), Box::new(|| None), false, DEFAULT_WAIT);
    let f = Feeder::new();
    st.draw(Instant::now(), f.session());
    assert!(!st.is_shown());
}

#[test]
fn cut_marks_what_it_drops() {
    assert_eq!(cut("abcdef", 6), "abcdef");
    assert_eq!(cut("abcdefg", 6), "abcde…");
    assert_eq!(cut("日本語のテキスト", 7), "日本語…");
}

#[test]
fn counts_api_retries_until_the_model_answers() {
    let (mut st, _) = line(200, 30);
    let mut f = Feeder::new();
    let t0 = Instant::now();
    let retry = r#"{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"retry_delay_ms":500,"error_status":529,"error":"overloaded","session_id":"s1"}"#;
    // Qwen Code 0.24's form of the same.
    let qwen_retry = r#"{"type":"system","subtype":"retry","uuid":"u","session_id":"s1","parent_tool_use_id":null,"data":{"reason":"retry","discardedToolCalls":0,"preserveText":false}}"#;
    feed(&mut f, &mut st, &[INIT, retry, retry], t0);
    let text = st.text(t0, f.session());
    assert!(text.contains(" · API retry 2"), "{text}");
    let text = st.text(t0 + Duration::from_secs(40), f.session());
    assert!(
        text.starts_with("⏳ waiting 40s") && text.contains("API retry 2"),
        "{text}"
    );
    feed(&mut f, &mut st, &[CALL], t0);
    let text = st.text(t0, f.session());
    assert!(!text.contains("retry"), "{text}");
    // Qwen's retries count the same way.
    let (mut st, _) = line(200, 30);
    let mut f = Feeder::new();
    let qwen_init = r#"{"type":"system","subtype":"init","session_id":"s1","cwd":"/w","tools":[],"mcp_servers":[],"model":"qwen","permission_mode":"yolo","qwen_code_version":"0.24.4"}"#;
    feed(
        &mut f,
        &mut st,
        &[qwen_init, qwen_retry, qwen_retry, qwen_retry],
        t0,
    );
    let text = st.text(t0, f.session());
    assert!(text.contains(" · API retry 3"), "{text}");
}
