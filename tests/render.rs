//! Rendering of event shapes the captured fixtures do not contain (MCP
//! servers, `AskUserQuestion`, MCP tools, compaction, hostile text), and the
//! push-style library API against the pull-style one.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

mod common;

use streamview::diag::Diag;
use streamview::render::jsonl::write_event;
use streamview::render::{Jsonl, Pretty, PrettyOptions, Verbosity};
use streamview::{ExitStatus, Feeder, Runner};
use termcolor::{Ansi, NoColor};

fn pretty_with(input: &str, verbosity: Verbosity, colour: bool) -> (ExitStatus, String) {
    fn go<W: termcolor::WriteColor>(input: &str, opts: PrettyOptions, out: W) -> (ExitStatus, W) {
        let mut diag = Diag::new(Vec::new(), false);
        let mut sink = Pretty::new(out, NoColor::new(Vec::new()), opts);
        let mut runner = Runner::new(&mut sink, &mut diag, 1 << 20);
        runner.source("t", input.as_bytes()).unwrap();
        let (_, st) = runner.finish().unwrap();
        (st, sink.into_inner().0)
    }
    let opts = PrettyOptions {
        verbosity,
        max_lines: 3,
        mirror_errors: false,
    };
    let (st, bytes) = if colour {
        let (st, w) = go(input, opts, Ansi::new(Vec::new()));
        (st, w.into_inner())
    } else {
        let (st, w) = go(input, opts, NoColor::new(Vec::new()));
        (st, w.into_inner())
    };
    (st, String::from_utf8(bytes).unwrap())
}

fn pretty(input: &str) -> String {
    pretty_with(input, Verbosity::Normal, false).1
}

const INIT_MCP: &str = r#"{"type":"system","subtype":"init","session_id":"s1","model":"m","cwd":"/w","tools":["Read","mcp__github__search"],"mcp_servers":[{"name":"github","status":"connected"},{"name":"db","status":"failed"}]}"#;

#[test]
fn header_lists_mcp_servers_and_marks_failed_ones() {
    let out = pretty(INIT_MCP);
    let header = out.lines().next().unwrap();
    assert_eq!(header, "● m in /w · 2 tools · MCP: github db (failed)");
    let (_, coloured) = pretty_with(INIT_MCP, Verbosity::Normal, true);
    // The failed server is in bold red.
    assert!(
        coloured.contains("\x1b[1m\x1b[31m db (failed)"),
        "{coloured:?}"
    );
}

#[test]
fn ask_user_question_shows_questions_and_options() {
    let line = r#"{"type":"assistant","session_id":"s1","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"AskUserQuestion","input":{"questions":[{"question":"Which database?","header":"DB","multiSelect":false,"options":[{"label":"Postgres","description":"a"},{"label":"SQLite","description":"b"}]}]}}]}}"#;
    let out = pretty(line);
    let lines: Vec<&str> = out.lines().take(4).collect();
    assert_eq!(
        lines,
        [
            "▸ AskUserQuestion Which database?",
            "    ? Which database?",
            "      - Postgres",
            "      - SQLite"
        ]
    );
}

#[test]
fn mcp_tools_show_server_slash_tool_and_first_argument() {
    let line = r#"{"type":"assistant","session_id":"s1","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"mcp__github__search_issues","input":{"query":"is:open label:bug","limit":5}}]}}"#;
    assert!(pretty(line).starts_with("▸ github/search_issues is:open label:bug\n"));
}

#[test]
fn unknown_tools_show_compact_input_cut_visibly() {
    let long = "x".repeat(300);
    let line = format!(
        r#"{{"type":"assistant","session_id":"s1","message":{{"id":"m1","content":[{{"type":"tool_use","id":"t1","name":"FancyTool","input":{{"a":1,"b":"{long}"}}}}]}}}}"#
    );
    let out = pretty(&line);
    let first = out.lines().next().unwrap();
    assert!(
        first.starts_with(r#"▸ FancyTool {"a":1,"b":"xxx"#),
        "{first}"
    );
    assert!(first.ends_with('…'), "a cut must be marked: {first}");
    assert!(first.chars().count() < 140);
}

#[test]
fn compaction_and_hostile_text_are_one_safe_line_each() {
    let input = [
        r#"{"type":"system","subtype":"compact_boundary","session_id":"s1","compact_metadata":{"trigger":"auto","pre_tokens":150000}}"#,
        r#"{"type":"assistant","session_id":"s1","message":{"id":"m1","content":[{"type":"text","text":"ok \u001b]52;c;ZXZpbA==\u0007 \u001b[2J\r\u009b31m \u202egnp.exe"}]}}"#,
    ]
    .join("\n");
    for colour in [false, true] {
        let (_, out) = pretty_with(&input, Verbosity::Normal, colour);
        assert!(
            out.contains("· context compacted (auto): 150000 tokens before"),
            "{out}"
        );
        assert!(
            out.contains("ok ␛]52;c;ZXZpbA==␇ ␛[2J␍<U+009B>31m <U+202E>gnp.exe"),
            "{out}"
        );
        // The only ESC bytes are streamview's own colour codes.
        let stripped = out
            .replace("\x1b[0m", "")
            .replace("\x1b[1m", "")
            .replace("\x1b[2m", "");
        assert!(
            !stripped.contains("\x1b]") && !stripped.contains("\x1b[2J"),
            "{out:?}"
        );
        assert!(!out.contains('\u{9b}') && !out.contains('\u{202e}') && !out.contains('\r'));
    }
}

#[test]
fn long_tool_errors_are_cut_with_a_count() {
    let input = [
        r#"{"type":"assistant","session_id":"s1","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"make"}}]}}"#,
        r#"{"type":"user","session_id":"s1","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"Exit code 2\na\nb\nc\nd\ne"}]}}"#,
    ]
    .join("\n");
    let out = pretty(&input);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        &lines[..5],
        [
            "▸ Bash make",
            "✗ Bash make failed",
            "  ⎿ Exit code 2",
            "    a",
            "    b"
        ]
    );
    assert_eq!(lines[5], "    … 3 more lines (--max-lines)");
}

/// Feeding any chunking of a fixture to `Feeder` gives the same events as
/// `Runner` reading the file.
#[test]
fn feeder_matches_runner_for_every_chunk_size() {
    for name in [
        "subagent",
        "permission_denied",
        "partial_messages",
        "max_budget",
    ] {
        let input = std::fs::read(format!("tests/fixtures/claude/{name}.jsonl")).unwrap();
        let mut sink = Jsonl::new(Vec::new());
        let mut diag = Diag::new(Vec::new(), false);
        let mut runner = Runner::new(&mut sink, &mut diag, 1 << 20);
        runner.source("t", &input[..]).unwrap();
        let (_, status) = runner.finish().unwrap();
        // The feeder reads no named input: its events have no `source`.
        let expected = String::from_utf8(sink.into_inner())
            .unwrap()
            .replace(r#""source":"t""#, r#""source":null"#);
        for chunk in [1, 2, 7, 64, 4096, input.len()] {
            let mut got = Vec::new();
            let mut feeder = Feeder::new();
            let mut on = |ev: &streamview::Event<'_>, s: &streamview::Session| {
                if !s.note().duplicate {
                    write_event(&mut got, ev, s);
                    got.push(b'\n');
                }
            };
            for c in input.chunks(chunk) {
                feeder.feed(c, &mut on);
            }
            let session = feeder.finish(&mut on);
            assert_eq!(
                String::from_utf8(got).unwrap(),
                expected,
                "{name} in chunks of {chunk}"
            );
            assert_eq!(
                ExitStatus::from_outcome(session.worst_outcome()),
                status,
                "{name}"
            );
        }
    }
}

/// An unterminated last line too long for `--max-line-bytes` means the
/// producer was cut off, for `Feeder` as for `Runner`, whatever its length
/// around the limit (the fuzzer found `Feeder` calling the session a
/// success at exactly one byte over; input kept in
/// `misc/fuzz-crash-49092da9.bin`, which takes a limit of 200).
#[test]
fn feeder_and_runner_agree_on_a_cut_too_long_last_line() {
    let mut session = std::fs::read("tests/fixtures/claude/tools_basic.jsonl").unwrap();
    if session.last() != Some(&b'\n') {
        session.push(b'\n');
    }
    let crash = std::fs::read("tests/fixtures/misc/fuzz-crash-49092da9.bin").unwrap();
    let max = session
        .split(|&b| b == b'\n')
        .map(<[u8]>::len)
        .max()
        .unwrap();
    let mut cases: Vec<(Vec<u8>, usize)> = (max - 3..=max + 3)
        .map(|tail| {
            let mut input = session.clone();
            input.extend(std::iter::repeat_n(b'x', tail));
            (input, max)
        })
        .collect();
    // The fuzzer's input after its two control bytes.
    cases.push((crash[2..].to_vec(), 200));
    for (input, max) in cases {
        let mut sink = Jsonl::new(Vec::new());
        let mut diag = Diag::new(Vec::new(), false);
        let mut runner = Runner::new(&mut sink, &mut diag, max);
        runner.source("t", &input[..]).unwrap();
        let (_, status) = runner.finish().unwrap();
        for chunk in [1, 64, input.len()] {
            let mut feeder = Feeder::with_max_line(max);
            for c in input.chunks(chunk) {
                feeder.feed(c, &mut |_, _| {});
            }
            let outcome = feeder.finish(&mut |_, _| {}).worst_outcome();
            assert_eq!(
                ExitStatus::from_outcome(outcome),
                status,
                "{} bytes, chunks of {chunk}",
                input.len()
            );
        }
    }
}

/// With partial messages every text (and, in verbose, every thinking block)
/// is printed exactly once: streamed fragment by fragment, and not again
/// when the complete block repeats it.
#[test]
fn streamed_text_is_printed_exactly_once() {
    let cases = [
        (
            "tests/fixtures/claude/partial_messages.jsonl",
            "tests/fixtures/claude/tools_basic.jsonl",
        ),
        (
            "tests/fixtures/claude/multi_block_partial.jsonl",
            "tests/fixtures/claude/multi_block.jsonl",
        ),
        (
            "tests/fixtures/claude/thinking_partial.jsonl",
            "tests/fixtures/claude/thinking.jsonl",
        ),
    ];
    for (partial, plain) in cases {
        for verbosity in [Verbosity::Normal, Verbosity::Verbose] {
            let streamed =
                pretty_with(&std::fs::read_to_string(partial).unwrap(), verbosity, false).1;
            let whole = pretty_with(&std::fs::read_to_string(plain).unwrap(), verbosity, false).1;
            // The same scenario without partial messages: the same text and
            // thinking lines, each once.
            let prose = |out: &str| -> Vec<String> {
                out.lines()
                    // (`◂` names the call a result answers when the result
                    // does not follow it: where depends on the interleaving.)
                    .filter(|l| {
                        !l.starts_with(['●', '▸', '◂', '✓', '·', ' ', '✗']) && !l.is_empty()
                    })
                    .map(str::to_string)
                    .collect()
            };
            assert_eq!(
                prose(&streamed),
                prose(&whole),
                "{partial} at {verbosity:?}"
            );
        }
    }
    // Gemini streams every answer as chunks; the joined text is not repeated.
    let out = pretty(&std::fs::read_to_string("tests/fixtures/gemini/text.jsonl").unwrap());
    assert_eq!(
        out.matches("Hello! I am a scripted mock Gemini model.")
            .count(),
        1,
        "{out}"
    );
}

/// A tool call is shown when its block starts (its name), and its line is
/// completed once its input has streamed: each call once, as without
/// partial messages.
#[test]
fn tool_calls_show_at_block_start_and_once() {
    let cases = [
        (
            "tests/fixtures/claude/partial_messages.jsonl",
            "tests/fixtures/claude/tools_basic.jsonl",
        ),
        (
            "tests/fixtures/claude/multi_block_partial.jsonl",
            "tests/fixtures/claude/multi_block.jsonl",
        ),
        (
            "tests/fixtures/claude/subagent_partial.jsonl",
            "tests/fixtures/claude/subagent.jsonl",
        ),
    ];
    let calls = |out: &str| -> Vec<String> {
        out.lines()
            .filter(|l| l.trim_start_matches([' ', '│']).starts_with('▸'))
            .map(str::to_string)
            .collect()
    };
    let stem = |p: &str| {
        p.rsplit('/')
            .next()
            .unwrap()
            .trim_end_matches(".jsonl")
            .to_string()
    };
    for (partial, plain) in cases {
        // The two captures ran in project directories named after them.
        let streamed = pretty(&std::fs::read_to_string(partial).unwrap()).replace(
            &format!("/{}/", stem(partial)),
            &format!("/{}/", stem(plain)),
        );
        let whole = pretty(&std::fs::read_to_string(plain).unwrap());
        assert_eq!(calls(&streamed), calls(&whole), "{partial}");
        assert!(!calls(&streamed).is_empty());
    }
    // The stream is cut while the input of a Write streams: the call was
    // announced by name, and marked as not the whole call.
    let head = [
        r#"{"type":"stream_event","session_id":"s","parent_tool_use_id":null,"event":{"type":"message_start","message":{"id":"m1"}}}"#,
        r#"{"type":"stream_event","session_id":"s","parent_tool_use_id":null,"event":{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t1","name":"Wr\u001b]0;x\u0007ite","input":{}}}}"#,
        r#"{"type":"stream_event","session_id":"s","parent_tool_use_id":null,"event":{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"file_path\":\"/tmp/a"}}}"#,
    ]
    .join("\n");
    let out = pretty(&head);
    assert!(
        out.starts_with("▸ Wr␛]0;x␇ite …\n✗ stream ended without a result"),
        "{out}"
    );
    // With the complete call, one line with the key argument.
    let full = format!(
        "{head}\n{}",
        r#"{"type":"assistant","session_id":"s","parent_tool_use_id":null,"message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Write","input":{"file_path":"/tmp/a.txt","content":"x"}}]}}"#
    );
    let out = pretty(&full.replace(r"Wr\u001b]0;x\u0007ite", "Write"));
    // (`+1`: the one line the call writes.)
    assert!(out.starts_with("▸ Write /tmp/a.txt +1\n"), "{out}");
    assert_eq!(out.matches("▸ Write").count(), 1, "{out}");
}

/// Fragments are written as they arrive, on one line, without waiting for
/// the complete block.
#[test]
fn fragments_render_before_the_block_completes() {
    let head = [
        r#"{"type":"stream_event","session_id":"s","parent_tool_use_id":null,"event":{"type":"message_start","message":{"id":"m1"}}}"#,
        r#"{"type":"stream_event","session_id":"s","parent_tool_use_id":null,"event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}}"#,
        r#"{"type":"stream_event","session_id":"s","parent_tool_use_id":null,"event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"lo \u001b[31mworld"}}}"#,
    ]
    .join("\n");
    let out = pretty(&head);
    // Shown before the complete block arrives (the input then ends: cut off).
    assert!(
        out.starts_with("Hello ␛[31mworld\n✗ stream ended without a result"),
        "{out}"
    );
    let full = format!(
        "{head}\n{}",
        r#"{"type":"assistant","session_id":"s","parent_tool_use_id":null,"message":{"id":"m1","content":[{"type":"text","text":"Hello \u001b[31mworld"}]}}"#
    );
    assert_eq!(pretty(&full).matches("Hello").count(), 1);
}

/// Tool durations by arrival time: a failure says how long the tool ran, a
/// long success is marked, and the summary counts the time per tool.
#[test]
fn tool_durations_by_arrival_time() {
    use std::time::{Duration, Instant};
    use streamview::decode::Decoder;
    use streamview::input::Line;
    use streamview::render::Sink;

    let lines = [
        r#"{"type":"assistant","session_id":"s","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"npm test"}}]}}"#,
        r#"{"type":"user","session_id":"s","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"Exit code 1"}]}}"#,
        r#"{"type":"assistant","session_id":"s","message":{"id":"m2","content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"cargo build"}}]}}"#,
        r#"{"type":"user","session_id":"s","message":{"content":[{"type":"tool_result","tool_use_id":"t2","is_error":false,"content":"ok"}]}}"#,
    ];
    // Arrival times: the first result 4.2 s after its call, the second 45 s.
    let t0 = Instant::now();
    let at = [0, 4200, 5000, 50_000].map(|ms| t0 + Duration::from_millis(ms));
    let opts = PrettyOptions {
        verbosity: Verbosity::Normal,
        max_lines: 3,
        mirror_errors: false,
    };
    let mut sink = Pretty::new(NoColor::new(Vec::new()), NoColor::new(Vec::new()), opts);
    let mut session = streamview::Session::new();
    let mut dec = Decoder::new();
    for (i, l) in lines.iter().enumerate() {
        let line = Line {
            number: i as u64 + 1,
            bytes: l.as_bytes(),
            partial: false,
        };
        dec.decode(&line, &mut |ev| {
            session.observe_at(ev, at[i]);
            sink.event(ev, &session)
        })
        .unwrap();
    }
    let out = String::from_utf8(sink.into_inner().0.into_inner()).unwrap();
    assert!(out.contains("✗ Bash npm test failed after 4.2s"), "{out}");
    assert!(
        out.contains("  ⎿ long-running: Bash took 45.0s (cargo build)"),
        "{out}"
    );
    let bash = session
        .current()
        .unwrap()
        .tools
        .iter()
        .find(|t| &*t.name == "Bash")
        .unwrap();
    assert_eq!(bash.time, Duration::from_millis(4200 + 45_000));
}

/// Events, decoders and the push API can move to other threads (a program
/// may decode on one and render on another): the lazy forms of this
/// session's work (`Content`, `JsonText`) keep them `Send` and `Sync`.
#[test]
fn events_and_decoders_cross_threads() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    send_sync::<streamview::Event<'static>>();
    send_sync::<streamview::event::Content<'static>>();
    send_sync::<streamview::event::JsonText<'static>>();
    send::<streamview::decode::Decoder>();
    send::<Feeder>();
    send::<streamview::Session>();
}

#[test]
fn a_slash_command_shows_as_typed_and_thinking_estimates_once() {
    let input = [
        r#"{"type":"system","subtype":"init","session_id":"s1","model":"m","cwd":"/w","tools":[]}"#,
        r#"{"type":"user","session_id":"s1","message":{"role":"user","content":"<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args>opus</command-args>"}}"#,
        r#"{"type":"system","subtype":"thinking_tokens","session_id":"s1","estimated_tokens":12}"#,
        r#"{"type":"system","subtype":"thinking_tokens","session_id":"s1","estimated_tokens":40}"#,
    ]
    .join("\n");
    let (_, out) = pretty_with(&input, Verbosity::Verbose, false);
    let lines: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with('›'))
        .take(2)
        .collect();
    assert_eq!(lines, ["› /model opus", "· thinking… ~12 tokens"]);
    // Through JSONL and back, the same.
    let mut jsonl = Vec::new();
    let mut diag = Diag::new(Vec::new(), false);
    let mut sink = Jsonl::new(&mut jsonl);
    let mut runner = Runner::new(&mut sink, &mut diag, 1 << 20);
    runner.source("t", input.as_bytes()).unwrap();
    runner.finish().unwrap();
    let again = pretty_with(
        std::str::from_utf8(&jsonl).unwrap(),
        Verbosity::Verbose,
        false,
    )
    .1;
    assert!(
        again.contains("› /model opus\n· thinking… ~12 tokens\n✗"),
        "{again}"
    );
}

/// Claude Code's answer to an `AskUserQuestion` call (shape from its types:
/// no capture has one yet): the structured result names question and answer.
const ASKED: &str = r#"{"type":"assistant","session_id":"s1","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"AskUserQuestion","input":{"questions":[{"question":"Which database?","header":"DB","multiSelect":false,"options":[{"label":"Postgres","description":"a"},{"label":"SQLite","description":"b"}]},{"question":"Which extras?","header":"X","multiSelect":true,"options":[{"label":"cache","description":"c"},{"label":"queue","description":"d"}]}]}}]}}"#;
const ANSWERED: &str = r#"{"type":"user","session_id":"s1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"User has answered your questions: \"Which database?\"=\"Postgres\", \"Which extras?\"=\"cache, queue\". You can now continue with the user's answers in mind."}]},"tool_use_result":{"questions":[],"answers":{"Which database?":"Postgres","Which extras?":["cache","queue"]}}}"#;

#[test]
fn the_users_answer_to_a_question_is_shown_by_default() {
    let input = format!("{ASKED}\n{ANSWERED}\n");
    let want = "› Which database? → Postgres\n› Which extras? → cache, queue\n";
    for verbosity in [Verbosity::Normal, Verbosity::Verbose] {
        let out = pretty_with(&input, verbosity, false).1;
        let answers: Vec<&str> = out
            .lines()
            .skip_while(|l| !l.starts_with("      - queue"))
            .skip(1)
            .take(2)
            .collect();
        assert_eq!(answers.join("\n") + "\n", want, "{verbosity:?}: {out}");
        assert!(!out.contains("User has answered"), "{out}");
    }
    // A transcript says `toolUseResult`; JSONL keeps the answers.
    let transcript = ANSWERED.replace("\"tool_use_result\"", "\"toolUseResult\"");
    let mut jsonl = Vec::new();
    let mut diag = Diag::new(Vec::new(), false);
    let mut sink = Jsonl::new(&mut jsonl);
    let mut runner = Runner::new(&mut sink, &mut diag, 1 << 20);
    runner
        .source("t", format!("{ASKED}\n{transcript}\n").as_bytes())
        .unwrap();
    runner.finish().unwrap();
    let jsonl = String::from_utf8(jsonl).unwrap();
    let result = jsonl
        .lines()
        .find(|l| l.contains(r#""kind":"tool_result""#))
        .unwrap();
    assert!(
        result.contains(r#""answers":[{"question":"Which database?","answer":"Postgres"},{"question":"Which extras?","answer":"cache, queue"}],"changes":[],"lines_added":null,"lines_removed":null,"content":"#),
        "{result}"
    );
    // Read back, the same view.
    let again = pretty_with(&jsonl, Verbosity::Normal, false).1;
    assert!(again.contains(want), "{again}");
}

#[test]
fn the_end_line_says_whose_tokens_when_sub_agents_ran() {
    // Issue 49 §11: the result counts the main agent's tokens, the
    // summary the whole session's; with sub-agents the line says which.
    let out = |rel: &str| {
        let o = common::sv()
            .args(["--color", "never"])
            .arg(common::fixture(rel))
            .output()
            .unwrap();
        String::from_utf8(o.stdout).unwrap()
    };
    let with = out("claude/subagent.jsonl");
    assert!(
        with.ends_with(
            "✓ done · 2 turns · 904ms · $0.0664 · main 3.7k in / 166 out · with sub-agents 11.7k / 321 · cache read 0%\n"
        ),
        "{with}"
    );
    // No sub-agent: as it always was.
    let without = out("claude/tools_basic.jsonl");
    assert!(
        without
            .ends_with("✓ done · 5 turns · 570ms · $0.0528 · 9.4k in / 228 out · cache read 0%\n"),
        "{without}"
    );
}

#[test]
fn a_sub_agents_file_read_alone_shows_paths_relative() {
    // Issue 49 §12: Qwen Code saves a sub-agent in a file of its own, its
    // lines nested; its paths are shown as the main agent's are (and so in
    // the `interrupted:` list, which takes the same working directory).
    let file = common::fixture(
        "qwen-session/subagent/projects/-home-dev-qwen-subagent-ws/subagents/\
         9d0cf358-6f46-4d3f-95c7-1ce4077fea6c/agent-general-purpose-call_0025.jsonl",
    );
    let whole = common::read(&file);
    let o = common::run(&["--color", "never"], &whole);
    assert!(
        o.out().contains("  │ ▸ read_file notes.txt\n"),
        "{}",
        o.out()
    );
    assert!(!o.out().contains("read_file /home/dev"), "{}", o.out());
}

#[test]
fn tool_matches_an_mcp_tools_shown_name_as_the_usage_says() {
    // Issue 49 §12: `ledger/…`, as the output shows the tool, selects it.
    let input = [
        r#"{"type":"assistant","session_id":"s1","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"mcp__ledger__add","input":{"amount":5}}]}}"#,
        r#"{"type":"assistant","session_id":"s1","message":{"id":"m2","content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"ls"}}]}}"#,
    ]
    .join("\n");
    for pattern in ["ledger/*", "mcp__ledger__*"] {
        let o = common::run(
            &["--color", "never", "--only", "tools", "--tool", pattern],
            input.as_bytes(),
        );
        assert!(o.out().contains("▸ ledger/add"), "{pattern}: {}", o.out());
        assert!(!o.out().contains("▸ Bash"), "{pattern}: {}", o.out());
    }
    let usage =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/usage.md")).unwrap();
    assert!(usage.contains("`--tool 'ledger/*'`"), "docs/usage.md");
}
