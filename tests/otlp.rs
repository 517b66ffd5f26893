//! `--format otlp` (issue 50; its hardening, issue 51): every fixture of
//! every producer exported, and held to outside references.
//!
//! - Every line parses as an `ExportTraceServiceRequest` or an
//!   `ExportMetricsServiceRequest` with OpenTelemetry's own definitions:
//!   `tests/otlp/check.py` reads it with the `opentelemetry-proto`
//!   package's classes and protobuf's strict `json_format.Parse` (ids in
//!   hex, fields in lowerCamelCase, no unknown field). Python and the
//!   packages are not Rust crates: without them the test says it skipped,
//!   unless `STREAMVIEW_REQUIRE_OTLP_PROTO` is set (`.ci/run` installs them
//!   and sets it).
//! - Per session, counted here from the spans (not by the exporter): the
//!   `execute_tool` spans are the summary's tool calls, those with status
//!   ERROR its errors and denials, the root's output tokens its output;
//!   every parent span is in its trace; no span ends before it starts.
//! - The same library exported twice, from another folder, or on several
//!   threads gives the same ids; hostile ids and strings stay well-formed;
//!   a session of very many calls goes out in bounded requests.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

mod common;

use std::collections::{HashMap, HashSet};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{all_fixtures, assert_terminal_safe, fixture, read, sv, temp_file};
use serde_json::Value;

/// Every input of the fixtures: each stream file and each saved library
/// (a folder: Cline's, Copilot's, Droid's sessions…).
fn inputs() -> Vec<PathBuf> {
    let mut v = all_fixtures();
    for dir in std::fs::read_dir(fixture("")).unwrap() {
        let dir = dir.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                v.push(p);
            }
        }
    }
    v.sort();
    v
}

fn export(args: &[&str], input: &Path) -> Vec<u8> {
    let out = sv()
        .args(["--format", "otlp", "--otlp-anonymous"])
        .args(args)
        .arg(input)
        .output()
        .unwrap();
    out.stdout
}

fn lines(out: &[u8]) -> Vec<Value> {
    out.split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect()
}

fn attr<'a>(attrs: &'a Value, key: &str) -> Option<&'a Value> {
    let kv = attrs.as_array()?.iter().find(|kv| kv["key"] == key)?;
    let v = kv["value"].as_object()?;
    v.values().next()
}

fn int_attr(attrs: &Value, key: &str) -> Option<u64> {
    attr(attrs, key)?.as_str()?.parse().ok()
}

/// Every span of the output, in order.
fn spans(out: &[Value]) -> Vec<&Value> {
    out.iter()
        .filter_map(|l| l["resourceSpans"].as_array())
        .flatten()
        .flat_map(|rs| rs["scopeSpans"].as_array().unwrap())
        .flat_map(|ss| ss["spans"].as_array().unwrap())
        .collect()
}

/// What a session's spans say, counted from them.
#[derive(Debug, PartialEq)]
struct Counted {
    session: Option<String>,
    tool_calls: u64,
    errors: u64,
    output: Option<u64>,
}

/// Each session's counts, in the order their roots came; the trace
/// checked whole (parents, times, ids once).
fn count(what: &str, out: &[Value]) -> Vec<Counted> {
    let spans = spans(out);
    let mut traces: HashMap<&str, HashMap<&str, &Value>> = HashMap::new();
    let mut roots = Vec::new();
    for s in &spans {
        let (t, id) = (
            s["traceId"].as_str().unwrap(),
            s["spanId"].as_str().unwrap(),
        );
        assert_eq!(t.len(), 32, "{what}: trace id {t}");
        assert_eq!(id.len(), 16, "{what}: span id {id}");
        assert!(
            (t.chars().chain(id.chars())).all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c)),
            "{what}: ids in lowercase hex: {t} {id}"
        );
        let start: u64 = s["startTimeUnixNano"].as_str().unwrap().parse().unwrap();
        let end: u64 = s["endTimeUnixNano"].as_str().unwrap().parse().unwrap();
        assert!(start <= end, "{what}: {} ends before it starts", s["name"]);
        let earlier = traces.entry(t).or_default().insert(id, s);
        assert!(earlier.is_none(), "{what}: span {id} twice in trace {t}");
        if s.get("parentSpanId").is_none() {
            roots.push((t, *s));
        }
    }
    for (t, byid) in &traces {
        for s in byid.values() {
            if let Some(p) = s.get("parentSpanId") {
                let p = p.as_str().unwrap();
                assert!(
                    byid.contains_key(p),
                    "{what}: {} has no parent {p} in {t}",
                    s["name"]
                );
            }
        }
    }
    roots
        .into_iter()
        .map(|(t, root)| {
            let tools = traces[t].values().filter(|s| {
                attr(&s["attributes"], "gen_ai.operation.name").unwrap() == "execute_tool"
            });
            let (calls, errors) = tools.fold((0, 0), |(c, e), s| {
                (c + 1, e + u64::from(s["status"]["code"] == 2))
            });
            Counted {
                session: attr(&root["attributes"], "gen_ai.conversation.id")
                    .map(|v| v.as_str().unwrap().to_string()),
                tool_calls: calls,
                errors,
                output: int_attr(&root["attributes"], "gen_ai.usage.output_tokens"),
            }
        })
        .collect()
}

/// The session rows of `input`'s `--format summary-json`.
fn summary_sessions(input: &Path) -> Vec<Value> {
    let out = sv()
        .args(["--format", "summary-json"])
        .arg(input)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["sessions"].as_array().unwrap().clone()
}

/// The summary's tallies of each session (`--format summary-json`).
fn summary(input: &Path) -> Vec<Counted> {
    summary_sessions(input)
        .iter()
        .map(|s| Counted {
            session: s["session"].as_str().map(str::to_string),
            tool_calls: s["tool_calls"].as_u64().unwrap(),
            errors: s["tool_errors"].as_u64().unwrap() + s["denials"].as_u64().unwrap(),
            output: s["tokens"]["output"].as_u64(),
        })
        .collect()
}

/// Each session's cost as its metrics say it (the sum of its
/// `streamview.cost.usage` points; a metrics request follows the trace
/// request of its session's root), in the order of the roots.
fn costs(out: &[Value]) -> Vec<Option<f64>> {
    let mut v: Vec<Option<f64>> = Vec::new();
    for line in out {
        if line.get("resourceSpans").is_some() {
            let roots = spans(std::slice::from_ref(line))
                .iter()
                .filter(|s| s.get("parentSpanId").is_none())
                .count();
            v.extend(std::iter::repeat_n(None, roots));
            continue;
        }
        let points = line["resourceMetrics"][0]["scopeMetrics"][0]["metrics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["name"] == "streamview.cost.usage")
            .flat_map(|m| m["sum"]["dataPoints"].as_array().unwrap());
        let sum = points.map(|p| p["asDouble"].as_f64().unwrap()).sum();
        *v.last_mut().unwrap() = Some(sum);
    }
    v
}

/// The summary's cost of each session.
fn summary_costs(input: &Path) -> Vec<Option<f64>> {
    summary_sessions(input)
        .iter()
        .map(|s| s["cost_usd"].as_f64())
        .collect()
}

#[test]
fn every_fixture_exports_what_the_summary_counts() {
    let (mut sessions, mut spans_seen) = (0, 0);
    let inputs = inputs();
    for input in &inputs {
        let what = input.display().to_string();
        let out = export(&[], input);
        assert_terminal_safe(&what, &out, false);
        let parsed = lines(&out);
        spans_seen += spans(&parsed).len();
        let counted = count(&what, &parsed);
        let expected = summary(input);
        assert_eq!(counted, expected, "{what}");
        let (cost, expected) = (costs(&parsed), summary_costs(input));
        assert_eq!(cost.len(), expected.len(), "{what}");
        for (got, want) in cost.iter().zip(&expected) {
            match (got, want) {
                (Some(g), Some(w)) => assert!((g - w).abs() < 1e-6, "{what}: cost {g} for {w}"),
                (None, None) => {}
                (Some(g), None) => {
                    assert!(
                        g.abs() < 1e-12,
                        "{what}: cost {g} where the summary has none"
                    );
                }
                (None, Some(w)) => assert!(w.abs() < 1e-12, "{what}: no cost metric for {w}"),
            }
        }
        sessions += counted.len();
    }
    assert!(
        inputs.len() >= 300 && sessions >= 300,
        "{} inputs, {sessions} sessions",
        inputs.len()
    );
    assert!(spans_seen > 1500, "{spans_seen} spans");
}

fn required() -> bool {
    std::env::var_os("STREAMVIEW_REQUIRE_OTLP_PROTO").is_some_and(|v| !v.is_empty() && v != "0")
}

/// `tests/otlp/check.py` over `out`: `Some(its per-session lines)`, or
/// `None` when Python or its packages are missing.
fn proto_check(what: &str, out: &[u8]) -> Option<String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/otlp/check.py");
    let child = Command::new("python3")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let Ok(mut child) = child else {
        assert!(
            !required(),
            "python3 is missing but STREAMVIEW_REQUIRE_OTLP_PROTO is set"
        );
        return None;
    };
    let mut stdin = child.stdin.take().unwrap();
    let bytes = out.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&bytes));
    let o = child.wait_with_output().unwrap();
    let _ = writer.join();
    if o.status.code() == Some(3) {
        assert!(
            !required(),
            "opentelemetry-proto is missing but STREAMVIEW_REQUIRE_OTLP_PROTO is set (.ci/run installs it): {}",
            String::from_utf8_lossy(&o.stderr)
        );
        return None;
    }
    assert!(
        o.status.success(),
        "{what}: not OTLP/JSON as opentelemetry-proto defines it: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    Some(String::from_utf8(o.stdout).unwrap())
}

#[test]
fn every_line_parses_with_the_protocols_definitions() {
    // One library of every fixture (its sessions in one output), and with
    // the content: the strings that can be anything.
    for args in [&[][..], &["--otlp-content"]] {
        let out = export(args, &fixture(""));
        let Some(checked) = proto_check("tests/fixtures", &out) else {
            eprintln!(
                "skipped: python3 with opentelemetry-proto and protobuf is not installed (pip3 install opentelemetry-proto protobuf)"
            );
            return;
        };
        assert!(checked.lines().count() >= 300, "{checked}");
    }
}

/// The ids of an output, in order.
fn ids(out: &[u8]) -> Vec<(String, String)> {
    spans(&lines(out))
        .iter()
        .map(|s| (s["traceId"].to_string(), s["spanId"].to_string()))
        .collect()
}

#[test]
fn the_same_library_gives_the_same_ids() {
    let lib = fixture("claude-transcript");
    let once = export(&[], &lib);
    let again = export(&[], &lib);
    assert_eq!(once, again);
    assert!(!ids(&once).is_empty());
    // Named from another folder: the same sessions.
    let rel = sv()
        .current_dir(fixture(""))
        .args(["--format", "otlp", "--otlp-anonymous", "claude-transcript"])
        .output()
        .unwrap();
    assert_eq!(ids(&rel.stdout), ids(&once));
    // Copied into another folder (a library moved, or shipped from
    // another machine): the same ids, for every producer's library.
    let elsewhere = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("otlp-moved-{}", std::process::id()));
    // Not those whose logs name no session id (Cline's, Copilot's and
    // Kimi CLI's streams, Grok CLI's) or only at their end (Copilot's and
    // Kimi CLI's saved sessions): their traces are named after the file's
    // whole path and the line the session began at.
    let unnamed = [
        "cline",
        "copilot",
        "copilot-session",
        "grok",
        "kimi",
        "kimi-session",
    ];
    let mut libs: Vec<String> = std::fs::read_dir(fixture(""))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .filter(|n| !unnamed.contains(&n.as_str()) && n != "prices" && n != "misc")
        .collect();
    libs.sort();
    assert!(libs.len() >= 25, "{libs:?}");
    let mut exported = 0;
    for lib in &libs {
        let lib = lib.as_str();
        let copy = elsewhere.join("deeper").join(lib);
        copy_tree(&fixture(lib), &copy);
        let (mut here, mut there) = (ids(&export(&[], &fixture(lib))), ids(&export(&[], &copy)));
        exported += usize::from(!here.is_empty());
        // In the library's order, which is by time, and a copy of a file
        // that says none is newer: the same ids, maybe in another order.
        here.sort();
        there.sort();
        assert_eq!(there, here, "{lib}");
    }
    assert!(exported >= 20, "{exported} of {libs:?}");
    std::fs::remove_dir_all(&elsewhere).unwrap();
    // On several threads: the same bytes.
    for lib in ["codex-rollout", "cline-session", "copilot-session"] {
        let single = export(&["-j1"], &fixture(lib));
        assert_eq!(export(&["-j3"], &fixture(lib)), single, "{lib}");
    }
}

/// `from`'s files and folders copied below `to`.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let dest = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy_tree(&p, &dest);
        } else {
            std::fs::copy(&p, &dest).unwrap();
        }
    }
}

/// Sessions that are not the same never share a trace: over every input
/// of the fixtures (each stream, each library), a trace has one root, and
/// the roots of a trace id are those of one file's session, unless the
/// file is a byte-for-byte copy of another (`qwen-session` holds one).
#[test]
fn different_sessions_never_share_a_trace() {
    let mut seen: HashMap<String, (String, Vec<u8>)> = HashMap::new();
    let mut traces = 0;
    for input in inputs() {
        let out = sv()
            .args(["--format", "otlp"])
            .arg(&input)
            .output()
            .unwrap();
        let parsed = lines(&out.stdout);
        let mut here = HashSet::new();
        for root in spans(&parsed) {
            if root.get("parentSpanId").is_some() {
                continue;
            }
            let t = root["traceId"].as_str().unwrap().to_string();
            let what = input.display();
            assert!(here.insert(t.clone()), "{what}: two roots in trace {t}");
            let source = attr(&root["attributes"], "streamview.source");
            let source = source
                .and_then(Value::as_str)
                .unwrap_or("<stdin>")
                .to_string();
            let bytes = std::fs::read(&source).unwrap_or_default();
            if let Some((other, theirs)) = seen.get(&t) {
                assert!(
                    *other == source || *theirs == bytes,
                    "{what}: {source} and {other}: different sessions in trace {t}"
                );
            }
            seen.insert(t, (source, bytes));
            traces += 1;
        }
    }
    assert!(traces >= 300, "{traces} traces");
}

/// A Claude Code stream of one session `id`: calls with ids `calls`, each
/// answered with `output` (an error) when `answered`.
fn claude_stream(id: &str, calls: &[String], output: &str) -> Vec<u8> {
    stream_of(id, calls, output, true)
}

fn stream_of(id: &str, calls: &[String], output: &str, answered: bool) -> Vec<u8> {
    let q = |s: &str| serde_json::to_string(s).unwrap();
    let mut v = format!(
        r#"{{"type":"system","subtype":"init","session_id":{},"model":"claude-x","cwd":"/w","tools":[]}}"#,
        q(id)
    );
    v.push('\n');
    for (i, c) in calls.iter().enumerate() {
        v.push_str(&format!(
            r#"{{"type":"assistant","session_id":{sid},"message":{{"id":"m{i}","model":"claude-x","content":[{{"type":"tool_use","id":{c},"name":"Bash","input":{{"command":{o}}}}}],"usage":{{"input_tokens":1,"output_tokens":2}}}}}}"#,
            sid = q(id),
            c = q(c),
            o = q(output),
        ));
        v.push('\n');
        if !answered {
            continue;
        }
        v.push_str(&format!(
            r#"{{"type":"user","session_id":{sid},"message":{{"content":[{{"type":"tool_result","tool_use_id":{c},"content":{o},"is_error":true}}]}}}}"#,
            sid = q(id),
            c = q(c),
            o = q(output),
        ));
        v.push('\n');
    }
    v.push_str(&format!(
        r#"{{"type":"result","subtype":"success","is_error":false,"session_id":{},"result":"ok"}}"#,
        q(id)
    ));
    v.push('\n');
    v.into_bytes()
}

#[test]
fn hostile_ids_and_strings_stay_well_formed() {
    let nasty = "\u{1b}]0;pwned\u{7}\u{202e}\u{9b}\0\"\\".to_string();
    let long = "x".repeat(1 << 20);
    for (name, id) in [
        ("empty", String::new()),
        ("long", long.clone()),
        ("nasty", nasty.clone()),
    ] {
        let calls = vec![String::new(), long.clone(), nasty.clone()];
        let mut bytes = claude_stream(&id, &calls, &nasty);
        // Bytes that are not UTF-8 in a call's id.
        bytes.extend_from_slice(b"{\"type\":\"assistant\",\"message\":{\"id\":\"m\xff\",\"content\":[{\"type\":\"tool_use\",\"id\":\"\xc3\x28\",\"name\":\"Bash\",\"input\":{}}]}}\n");
        let path = temp_file(&format!("otlp-{name}.jsonl"), &bytes);
        for args in [&[][..], &["--otlp-content"]] {
            let out = export(args, &path);
            assert_terminal_safe(name, &out, false);
            let parsed = lines(&out);
            let counted = count(name, &parsed);
            assert_eq!(counted.len(), 1, "{name}");
            for s in spans(&parsed) {
                assert!(
                    s["name"].as_str().unwrap().len() <= 1024,
                    "{name}: a name cut"
                );
            }
            if args.is_empty() {
                // No output without --otlp-content (the error text is the
                // status message, cut).
                let text = String::from_utf8_lossy(&out);
                assert!(!text.contains("gen_ai.tool.call.result"), "{name}");
            } else {
                assert!(proto_check(name, &out).is_none_or(|c| c.lines().count() == 1));
            }
        }
    }
}

#[test]
fn a_session_of_many_calls_goes_out_in_bounded_requests() {
    let calls: Vec<String> = (0..5000).map(|i| format!("toolu_{i}")).collect();
    let path = temp_file("otlp-many.jsonl", &claude_stream("many", &calls, "ok"));
    let out = export(&[], &path);
    let parsed = lines(&out);
    let per_request: Vec<usize> = parsed
        .iter()
        .filter(|l| l.get("resourceSpans").is_some())
        .map(|l| spans(std::slice::from_ref(l)).len())
        .collect();
    assert!(per_request.len() >= 10, "{per_request:?}");
    assert!(per_request.iter().all(|&n| n <= 512), "{per_request:?}");
    let counted = count("many", &parsed);
    assert_eq!(counted[0].tool_calls, 5000);
    assert_eq!(counted[0].errors, 5000);
    // Every id once: 5000 calls, 5000 responses, the root.
    let unique: HashSet<_> = ids(&out).into_iter().collect();
    assert_eq!(unique.len(), 10_001);

    // Calls never answered, more than are held open: each still a span,
    // unanswered, once.
    let calls: Vec<String> = (0..20_000).map(|i| format!("toolu_{i}")).collect();
    let path = temp_file("otlp-open.jsonl", &stream_of("open", &calls, "ok", false));
    let out = export(&[], &path);
    let parsed = lines(&out);
    let counted = count("open", &parsed);
    assert_eq!((counted[0].tool_calls, counted[0].errors), (20_000, 0));
    let unanswered = spans(&parsed)
        .iter()
        .filter(|s| attr(&s["attributes"], "streamview.tool.unanswered").is_some())
        .count();
    assert_eq!(unanswered, 20_000);
}

#[test]
fn content_only_when_asked_and_the_host_unless_anonymous() {
    let input = fixture("claude/tools_basic.jsonl");
    let plain = String::from_utf8(export(&[], &input)).unwrap();
    assert!(!plain.contains("gen_ai.tool.call.arguments"));
    assert!(!plain.contains("gen_ai.tool.call.result"));
    assert!(!plain.contains("host.name"));
    assert!(!plain.contains("streamview.project"));
    let content = String::from_utf8(export(&["--otlp-content"], &input)).unwrap();
    assert!(content.contains("gen_ai.tool.call.arguments"));
    assert!(content.contains("gen_ai.tool.call.result"));
    let labelled = sv()
        .args(["--format", "otlp", "--label", "ci-runner"])
        .arg(&input)
        .output()
        .unwrap();
    let text = String::from_utf8(labelled.stdout).unwrap();
    assert!(text.contains(r#"{"key":"streamview.label","value":{"stringValue":"ci-runner"}}"#));
    assert!(text.contains("streamview.project"));
    // Said for another format: refused.
    let refused = sv()
        .args(["--format", "jsonl", "--otlp-content"])
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
}

#[test]
fn metrics_say_the_models_tokens_and_cost() {
    let input = fixture("claude/permission_denied.jsonl");
    let parsed = lines(&export(&[], &input));
    let metrics: Vec<&Value> = parsed
        .iter()
        .filter_map(|l| l["resourceMetrics"].as_array())
        .flatten()
        .flat_map(|r| r["scopeMetrics"].as_array().unwrap())
        .flat_map(|s| s["metrics"].as_array().unwrap())
        .collect();
    let by_name = |n: &str| metrics.iter().find(|m| m["name"] == n).copied().unwrap();
    let tokens = by_name("gen_ai.client.token.usage");
    let output: f64 = tokens["histogram"]["dataPoints"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| attr(&p["attributes"], "gen_ai.token.type").unwrap() == "output")
        .map(|p| p["sum"].as_f64().unwrap())
        .sum();
    // The fixture's result line: "output_tokens": 179, "total_cost_usd": 0.041765.
    assert!((output - 179.0).abs() < f64::EPSILON, "{output}");
    let cost = by_name("streamview.cost.usage");
    let usd = cost["sum"]["dataPoints"][0]["asDouble"].as_f64().unwrap();
    assert!((usd - 0.041_765).abs() < 1e-9, "{usd}");
    assert_eq!(cost["sum"]["isMonotonic"], true);
}

#[test]
fn a_sub_agent_is_under_the_call_that_started_it() {
    for input in ["claude/subagent.jsonl", "claude-transcript"] {
        let parsed = lines(&export(&[], &fixture(input)));
        let spans = spans(&parsed);
        let by_id: HashMap<&str, &Value> = spans
            .iter()
            .map(|s| (s["spanId"].as_str().unwrap(), *s))
            .collect();
        let op = |s: &Value| {
            attr(&s["attributes"], "gen_ai.operation.name")
                .unwrap()
                .clone()
        };
        let subs: Vec<&&Value> = spans
            .iter()
            .filter(|s| op(s) == "invoke_agent" && s.get("parentSpanId").is_some())
            .collect();
        assert!(!subs.is_empty(), "{input}: no sub-agent span");
        for sub in subs {
            let parent = by_id[sub["parentSpanId"].as_str().unwrap()];
            assert_eq!(op(parent), "execute_tool", "{input}");
            let tool = attr(&parent["attributes"], "gen_ai.tool.name").unwrap();
            assert!(tool == "Task" || tool == "Agent", "{input}: {tool}");
            // Its own calls and responses are under it.
            let id = sub["spanId"].as_str().unwrap();
            assert!(
                spans.iter().any(|s| s["parentSpanId"] == id),
                "{input}: an empty sub-agent"
            );
        }
    }
}

/// `--format otlp` of `input` (a file, or a library read as the command
/// line reads one) through the library's API, with what no report reads
/// left unparsed (`unread`, as the command line does), or every value
/// parsed; `content`: `--otlp-content`.
fn export_api(input: &Path, unread: bool, content: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let mut err = Vec::new();
    let opts = streamview::render::otlp::OtlpOptions {
        content,
        anonymous: true,
        ..Default::default()
    };
    let mut sink = streamview::render::Otlp::new(&mut out, opts);
    let mut diag = streamview::diag::Diag::new(&mut err, false);
    let mut runner = streamview::Runner::new(&mut sink, &mut diag, 64 << 20).with_unread(unread);
    if input.is_dir() {
        for s in
            streamview::input::library::sessions_below(input, streamview::decode::store_readers())
                .sessions
        {
            runner.library_session(&s, true, None).unwrap();
        }
    } else {
        let name = input.display().to_string();
        runner
            .source(&name, std::fs::File::open(input).unwrap())
            .unwrap();
    }
    runner.finish().unwrap();
    drop(sink);
    out
}

/// What no report reads (request logs, prompt snapshots, attachments:
/// `Entry::unread`) is left unparsed by `--format otlp` too, for its speed:
/// over every fixture, file by file and folder by folder, with and without
/// the content, the export is byte for byte that of a run that parses
/// every value.
#[test]
fn an_export_that_leaves_context_unread_is_the_same_export() {
    let mut inputs = vec![fixture("")];
    let (mut checked, mut pruned) = (0, 0);
    while let Some(p) = inputs.pop() {
        if p.is_dir() {
            inputs.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
        } else if !p
            .extension()
            .is_some_and(|e| e == "jsonl" || e == "json" || e == "ndjson")
        {
            continue;
        }
        for content in [false, true] {
            let (fast, slow) = (
                export_api(&p, true, content),
                export_api(&p, false, content),
            );
            let at = (fast.iter().zip(&slow)).take_while(|(a, b)| a == b).count();
            assert!(
                fast == slow,
                "{} (content {content}): the exports differ from byte {at} on",
                p.display()
            );
        }
        if p.is_file() {
            let text = String::from_utf8_lossy(&read(&p)).into_owned();
            pruned +=
                usize::from(text.contains("\"attachment\":{") || text.contains("api-request"));
        }
        checked += 1;
    }
    assert!(
        checked > 300 && pruned > 5,
        "{checked} inputs, {pruned} with values left unread"
    );
}

/// The `gen_ai.usage.reasoning.output_tokens` of each span of `out`:
/// (the chat spans' in order, the roots').
fn reasoning(out: &[u8]) -> (Vec<u64>, Vec<Option<u64>>) {
    let parsed = lines(out);
    let (mut chats, mut roots) = (Vec::new(), Vec::new());
    for s in spans(&parsed) {
        let r = int_attr(&s["attributes"], "gen_ai.usage.reasoning.output_tokens");
        if s.get("parentSpanId").is_none() {
            roots.push(r);
        } else if let Some(r) = r {
            assert_eq!(
                attr(&s["attributes"], "gen_ai.operation.name").unwrap(),
                "chat"
            );
            chats.push(r);
        }
    }
    (chats, roots)
}

/// Reasoning tokens are the agent's own numbers, counted here from the
/// fixtures' lines: Codex's rollouts give each response's
/// (`token_usage_record`) and the thread's running total (`token_count`'s
/// `total_token_usage`), its `exec --json` stream each turn's; Gemini
/// CLI's saved sessions each response's `thoughts`.
#[test]
fn reasoning_tokens_are_the_agents_own() {
    let u = |v: &Value, k: &str| v[k].as_u64();
    let mut checked = 0;
    for e in std::fs::read_dir(fixture("codex-rollout")).unwrap() {
        let p = e.unwrap().path();
        if !p.to_string_lossy().ends_with(".rollout.jsonl") {
            continue;
        }
        let (mut records, mut total) = (Vec::new(), None);
        for line in String::from_utf8(read(&p)).unwrap().lines() {
            let v: Value = serde_json::from_str(line).unwrap();
            let pl = &v["payload"];
            if v["type"] == "token_usage_record" {
                records.extend(u(&pl["usage"], "reasoning_output_tokens"));
            } else if pl["type"] == "token_count" && pl["info"].is_object() {
                total = u(&pl["info"]["total_token_usage"], "reasoning_output_tokens");
            }
        }
        let (chats, roots) = reasoning(&export(&[], &p));
        assert_eq!(roots, vec![total], "{}", p.display());
        if !records.is_empty() {
            assert_eq!(chats, records, "{}", p.display());
            checked += 1;
        }
    }
    assert!(checked >= 8, "{checked}");
    // The stream: a turn's totals, on the root only.
    for name in ["reasoning", "mixed"] {
        let p = fixture(&format!("codex/{name}.jsonl"));
        let mut sum = 0;
        for line in String::from_utf8(read(&p)).unwrap().lines() {
            let v: Value = serde_json::from_str(line).unwrap();
            if v["type"] == "turn.completed" {
                sum += u(&v["usage"], "reasoning_output_tokens").unwrap();
            }
        }
        assert!(sum > 0, "{name}");
        assert_eq!(
            reasoning(&export(&[], &p)),
            (vec![], vec![Some(sum)]),
            "{name}"
        );
    }
    // Gemini CLI's saved session: each response's last record.
    let dir = fixture("gemini-session/thinking");
    let mut by_id: Vec<(String, u64)> = Vec::new();
    let chats = dir.join("chats");
    for e in std::fs::read_dir(&chats).unwrap() {
        for line in String::from_utf8(read(&e.unwrap().path())).unwrap().lines() {
            let v: Value = serde_json::from_str(line).unwrap();
            if v["type"] != "gemini" {
                continue;
            }
            let (id, n) = (
                v["id"].as_str().unwrap(),
                u(&v["tokens"], "thoughts").unwrap(),
            );
            match by_id.iter_mut().find(|(i, _)| i == id) {
                Some(r) => r.1 = n,
                None => by_id.push((id.to_string(), n)),
            }
        }
    }
    let thoughts: Vec<u64> = by_id.iter().map(|r| r.1).collect();
    assert!(!thoughts.is_empty());
    assert_eq!(
        reasoning(&export(&[], &dir)),
        (thoughts.clone(), vec![Some(thoughts.iter().sum())])
    );
}

/// The prompts of `out`'s `gen_ai.input.messages`, in order, each checked
/// to be a user message of the conventions' form.
fn prompts(out: &[u8]) -> Vec<String> {
    let parsed = lines(out);
    let mut v = Vec::new();
    for s in spans(&parsed) {
        let Some(m) = attr(&s["attributes"], "gen_ai.input.messages") else {
            continue;
        };
        let m = m.as_str().unwrap();
        assert!(m.len() <= 64 << 10, "{} bytes", m.len());
        let messages: Value = serde_json::from_str(m).unwrap();
        for msg in messages.as_array().unwrap() {
            assert_eq!(msg["role"], "user");
            assert_eq!(msg["parts"][0]["type"], "text");
            v.push(msg["parts"][0]["content"].as_str().unwrap().to_string());
        }
    }
    v
}

/// With `--otlp-content`, each prompt of the user's is in: the
/// `gen_ai.input.messages` of the response that answered it, counted here
/// from the transcript's own `user` lines; cut as a tool's input is when
/// long; left out without it.
#[test]
fn prompts_go_in_with_the_content() {
    let input = fixture("claude-transcript/transcript_tools_basic.jsonl");
    let text = String::from_utf8(read(&input)).unwrap();
    let typed: Vec<String> = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["type"] == "user" && v["isMeta"] != true)
        .filter_map(|v| v["message"]["content"].as_str().map(str::to_string))
        .collect();
    assert!(!typed.is_empty());
    assert_eq!(prompts(&export(&["--otlp-content"], &input)), typed);
    assert!(prompts(&export(&[], &input)).is_empty());
    // A prompt of 200 KiB, with characters JSON escapes: cut, and the
    // attribute still whole JSON of at most 64 KiB.
    let long = "\"line\"\n".repeat(30_000);
    let first = serde_json::to_string(&typed[0]).unwrap();
    let grown = text.replace(&first, &serde_json::to_string(&long).unwrap());
    let path = temp_file("otlp-long-prompt.jsonl", grown.as_bytes());
    let got = prompts(&export(&["--otlp-content"], &path));
    assert_eq!(got.len(), typed.len());
    assert!(
        got[0].len() > 30_000 && got[0].len() < long.len(),
        "{}",
        got[0].len()
    );
    assert!(long.starts_with(got[0].trim_end_matches('…')));
}
