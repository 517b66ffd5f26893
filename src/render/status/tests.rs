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
    let text = st.text(t0 + Duration::from_secs(12), f.session(), 200);
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
    let before = st.text(t0 + Duration::from_secs(29), f.session(), 200);
    assert!(!before.contains("waiting"), "{before}");
    let text = st.text(t0 + Duration::from_secs(45), f.session(), 200);
    // The call still open is named, with how long it has run.
    assert!(
        text.starts_with("⏳ waiting 45s — Bash npm test · 45s · turn 1"),
        "{text}"
    );
    // A result ends the work: no alarm however long the pipe stays open.
    feed(&mut f, &mut st, &[RESULT, DONE], t0);
    let text = st.text(t0 + Duration::from_secs(100), f.session(), 200);
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
    let text = st.text(t0, f.session(), 200);
    assert!(
        text.contains("working — last: Bash npm test (done)"),
        "{text}"
    );
    let failed = RESULT.replace(r#""content":"ok""#, r#""content":"boom","is_error":true"#);
    let (mut st, _) = line(200, 30);
    let mut f = Feeder::new();
    feed(&mut f, &mut st, &[INIT, CALL, &failed], t0);
    let text = st.text(t0, f.session(), 200);
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
        // The marks are narrow, anything else outside ASCII may be wide.
        let cols: usize = text
            .chars()
            .map(|c| {
                if c.is_ascii() || "…·—⠙".contains(c) {
                    1
                } else {
                    2
                }
            })
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
    let text = st.text(t0, f.session(), 200);
    assert!(text.contains(" · API retry 2"), "{text}");
    let text = st.text(t0 + Duration::from_secs(40), f.session(), 200);
    assert!(
        text.starts_with("⏳ waiting 40s") && text.contains("API retry 2"),
        "{text}"
    );
    feed(&mut f, &mut st, &[CALL], t0);
    let text = st.text(t0, f.session(), 200);
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
    let text = st.text(t0, f.session(), 200);
    assert!(text.contains(" · API retry 3"), "{text}");
}

/// A call whose path is 105 characters long, as deep repositories have.
const LONG: &str = r#"{"type":"assistant","session_id":"s","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/home/dev/work/monorepo/services/billing/internal/adapters/postgres/migrations/0042_invoices.sql"}}],"usage":{"input_tokens":1200,"output_tokens":30}}}"#;

/// The text of the line at `cols` columns, 12 s after the long call, its
/// last event 3 s ago.
fn long_call_at(cols: usize) -> String {
    let (mut st, _) = line(cols + 1, 30);
    let mut f = Feeder::new();
    let t0 = Instant::now();
    feed(&mut f, &mut st, &[INIT, LONG], t0);
    let usage = r#"{"type":"system","subtype":"status","status":"ok","session_id":"s"}"#;
    feed(&mut f, &mut st, &[usage], t0 + Duration::from_secs(9));
    st.text(t0 + Duration::from_secs(12), f.session(), cols)
}

#[test]
fn a_long_path_is_cut_not_the_times() {
    // Issue 15: at 120 columns the time since the last event was cut off
    // because the path came first.
    let text = long_call_at(119);
    assert_eq!(
        text,
        "⠋ Read /home/dev/work/monorepo/services/billing/internal/adapters/pos… · 12s · last event 3s \
         ago · turn 1 · 1.2k tokens"
    );
    assert!(width(&text) <= 119, "{text}");
    let text = long_call_at(79);
    assert_eq!(
        text,
        "⠋ Read /home/dev/work/monorep… · 12s · last event 3s ago · turn 1 · 1.2k tokens"
    );
    // Narrow: the label keeps its room, the counters go from the end.
    let text = long_call_at(39);
    assert_eq!(text, "⠋ Read /home/dev/work/monorepo/s… · 12s");
    // Wide: nothing is cut.
    let text = long_call_at(300);
    assert!(text.contains("/0042_invoices.sql · 12s · "), "{text}");
    for cols in [0, 1, 5, 10, 20, 30, 60, 100] {
        let text = long_call_at(cols);
        assert!(width(&text) <= cols.max(1), "{cols}: {text}");
    }
}

#[test]
fn names_the_call_open_longest_and_counts_the_others() {
    // claude/subagent.jsonl: two Agent calls, then their sub-agents' Read
    // (line 10) and Bash (line 12) run at once; the Read answers first.
    let fixture = include_str!("../../../tests/fixtures/claude/subagent.jsonl");
    let lines: Vec<&str> = fixture.lines().collect();
    let (mut st, _) = line(200, 30);
    let mut f = Feeder::new();
    let t0 = Instant::now();
    feed(&mut f, &mut st, &lines[..10], t0);
    feed(&mut f, &mut st, &lines[10..12], t0 + Duration::from_secs(5));
    let text = st.text(t0 + Duration::from_secs(20), f.session(), 200);
    assert!(
        text.starts_with("⠋ Read hello.py · 20s · +3 running · "),
        "the oldest tool call, not the latest (Bash): {text}"
    );
    feed(
        &mut f,
        &mut st,
        &lines[12..13],
        t0 + Duration::from_secs(21),
    );
    let text = st.text(t0 + Duration::from_secs(21), f.session(), 200);
    assert!(
        text.starts_with("⠋ Bash wc -l src/lib.rs · 16s · +2 running · "),
        "{text}"
    );
}

#[test]
fn a_multi_line_command_has_the_form_of_the_output() {
    let call = CALL.replace(
        "npm test",
        r#"for f in a b; do\n  printf '%s\\n' \"$f\"\ndone"#,
    );
    let (mut st, _) = line(200, 30);
    let mut f = Feeder::new();
    let t0 = Instant::now();
    feed(&mut f, &mut st, &[INIT, &call], t0);
    let text = st.text(t0, f.session(), 200);
    assert!(
        text.starts_with("⠋ Bash for f in a b; do (+2 lines) · 0s"),
        "{text}"
    );
    // Cut, the count of lines stays.
    let text = st.text(t0, f.session(), 24);
    assert_eq!(text, "⠋ Bash for f… (+2 lines)");
    // The same form as the pretty output's call line.
    let mut out = String::new();
    one_line_to(&mut out, "for f in a b; do\n  x\ndone", 200);
    assert_eq!(out, "for f in a b; do (+2 lines)");
    // An MCP tool is named as the output names it.
    let mcp = CALL.replace(r#""name":"Bash""#, r#""name":"mcp__github__get_issue""#);
    let (mut st, _) = line(200, 30);
    let mut f = Feeder::new();
    feed(&mut f, &mut st, &[INIT, &mcp], t0);
    let text = st.text(t0, f.session(), 200);
    assert!(text.starts_with("⠋ github/get_issue "), "{text}");
}

#[test]
fn a_line_stopped_midway_stalls_after_a_pause() {
    let (mut st, _) = line(200, 30);
    let mut f = Feeder::new();
    let t0 = Instant::now();
    feed(&mut f, &mut st, &[INIT], t0);
    let at = |ms| t0 + Duration::from_millis(ms);
    assert!(!st.line_stalled(LineEnd::Complete, at(5000)));
    // Streamed text: each event extends the line; a pause stalls it.
    assert!(!st.line_stalled(LineEnd::Streaming, at(1900)));
    assert!(st.line_stalled(LineEnd::Streaming, at(2000)));
    // A tool call's line: events come (its input) but do not extend it.
    assert!(!st.line_stalled(LineEnd::Held, at(3000)));
    feed(&mut f, &mut st, &[INIT], at(4000));
    assert!(!st.line_stalled(LineEnd::Held, at(4500)));
    assert!(st.line_stalled(LineEnd::Held, at(5000)));
    // Once the line is complete, a new held line starts its own clock.
    assert!(!st.line_stalled(LineEnd::Complete, at(5100)));
    assert!(!st.line_stalled(LineEnd::Held, at(6000)));
    // A shorter --status-wait shortens the pause.
    let (mut st, _) = line(200, 1);
    feed(&mut f, &mut st, &[INIT], t0);
    assert!(st.line_stalled(LineEnd::Streaming, at(1000)));
}

#[test]
fn a_call_whose_input_streams_has_its_time() {
    // claude/multi_block_partial.jsonl: a Read starts (line 9), its input
    // streams (lines 10-14) before the call is complete (line 15).
    let fixture = include_str!("../../../tests/fixtures/claude/multi_block_partial.jsonl");
    let lines: Vec<&str> = fixture.lines().collect();
    let (mut st, _) = line(200, 30);
    let mut f = Feeder::new();
    let t0 = Instant::now();
    feed(&mut f, &mut st, &lines[..9], t0);
    feed(&mut f, &mut st, &lines[9..14], t0 + Duration::from_secs(4));
    let text = st.text(t0 + Duration::from_secs(4), f.session(), 200);
    assert!(
        text.starts_with("⠋ working — last: Read (input streaming) · 4s · turn 1"),
        "{text}"
    );
    feed(&mut f, &mut st, &lines[14..15], t0 + Duration::from_secs(5));
    let text = st.text(t0 + Duration::from_secs(5), f.session(), 200);
    assert!(text.starts_with("⠋ Read README.md · 0s"), "{text}");
}
