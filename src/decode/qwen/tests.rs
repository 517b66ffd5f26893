//! Qwen Code's own readings, from their text: an API error's status and
//! the 0.24 shell frame. What a run writes of Qwen's lines is tested
//! through the pipeline in `tests/producer_qwen.rs`.

#[test]
fn api_error_status_parsing() {
    use super::api_error_status;
    assert_eq!(
        api_error_status("[API Error: 429 Too many requests]"),
        Some(429)
    );
    assert_eq!(api_error_status("[API Error: Connection error.]"), None);
    assert_eq!(api_error_status("[API Error: 12345]"), None);
    assert_eq!(api_error_status("hello"), None);
}

// ------------------------------------------------------------ 0.24 shell frame

/// The frame of the 0.24.4 capture `shell_fail`.
const FRAME_FAIL: &str = "Command: ls /definitely/not/here; echo to-stderr >&2; exit 3\nDirectory: (root)\nOutput: ls: cannot access '/definitely/not/here': No such file or directory\nto-stderr\nError: (none)\nExit Code: 3\nSignal: (none)\nProcess Group PGID: (none)";

#[test]
fn frame_parts() {
    use super::shell::{Frame, parse};
    assert_eq!(
        parse(FRAME_FAIL),
        Some(Frame {
            output: "ls: cannot access '/definitely/not/here': No such file or directory\nto-stderr",
            error: None,
            exit_code: Some(3),
            signal: None,
        })
    );
    // `(empty)`, exit code 0.
    let f = parse("Command: pwd\nDirectory: (root)\nOutput: (empty)\nError: (none)\nExit Code: 0\nSignal: (none)\nProcess Group PGID: (none)").unwrap();
    assert_eq!((f.output, f.exit_code), ("", Some(0)));
    // Killed: no exit code, a signal, an error that spans two lines.
    let f = parse("Command: sleep 99\nDirectory: (root)\nOutput: started\nError: spawn failed\nsecond line\nExit Code: (none)\nSignal: SIGKILL\nProcess Group PGID: 42").unwrap();
    assert_eq!(f.output, "started");
    assert_eq!(f.error, Some("spawn failed\nsecond line"));
    assert_eq!(f.exit_code, None);
    assert_eq!(f.signal, Some("SIGKILL"));
    // Lines that look like the frame's inside the output: the last ones count.
    let f = parse("Command: cat f\nOutput: Error: in the file\nExit Code: 9\nmore\nError: (none)\nExit Code: 0\nSignal: (none)").unwrap();
    assert_eq!(f.output, "Error: in the file\nExit Code: 9\nmore");
    assert_eq!(f.exit_code, Some(0));
    // Missing `Directory`, `Error`, `Signal`, `PGID`: still a frame.
    let f = parse("Command: x\nOutput: out\nExit Code: 2").unwrap();
    assert_eq!(
        f,
        Frame {
            output: "out",
            error: None,
            exit_code: Some(2),
            signal: None
        }
    );
    // A background-PIDs line (older shells) is ignored; a non-numeric exit code is none.
    let f = parse("Command: x\nOutput: o\nError: (none)\nExit Code: three\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 1").unwrap();
    assert_eq!(f.exit_code, None);
    // Not frames: 0.15's bare output, no `Output:`, no `Exit Code:`, empty.
    for text in [
        "ls: cannot access '/x': No such file or directory",
        "Command: x\nDirectory: (root)\nExit Code: 1",
        "Command: x\nOutput: o\nError: (none)",
        "Command: ",
        "",
        "command: x\nOutput: o\nExit Code: 1",
    ] {
        assert_eq!(parse(text), None, "{text:?}");
    }
}
