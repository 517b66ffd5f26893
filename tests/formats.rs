//! Golden tests of the scripting outputs on the captured fixtures:
//! `--format result` for every fixture, the summary (tables and JSON) for a
//! few and for several files at once, and the filters (`--only`, `--hide`,
//! `--tool`) in the pretty and JSONL formats. Also checks that filters never
//! change the exit status, and that every error or denial a filter hides
//! still reaches stderr.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

use std::path::Path;

mod common;

use streamview::diag::Diag;
use streamview::filter::{Filter, Filtered, Kind};
use streamview::render::summary::{Summary, write_json, write_table};
use streamview::render::{
    Html, Jsonl, Markdown, Pretty, PrettyOptions, ResultText, Sink, SummarySink, Verbosity,
};
use streamview::{ExitStatus, Runner, Session};
use termcolor::NoColor;

const MAX_LINE: usize = 64 << 20;

type Alerts = Pretty<NoColor<std::io::Sink>, NoColor<Vec<u8>>>;

fn alerts() -> Alerts {
    Pretty::alerts_only(NoColor::new(Vec::new()), 10)
}

fn alerts_text(a: Alerts) -> String {
    String::from_utf8(a.into_inner().1.into_inner()).unwrap()
}

/// Run the named inputs through `sink`; returns (status, session).
fn drive<S: Sink>(inputs: &[(&str, &[u8])], sink: &mut S) -> (ExitStatus, Session) {
    let mut diag = Diag::new(Vec::new(), false);
    let mut runner = Runner::new(sink, &mut diag, MAX_LINE);
    for (name, bytes) in inputs {
        runner.source(name, *bytes).unwrap();
    }
    let (session, status) = runner.finish().unwrap();
    (status, session)
}

fn read(rel: &str) -> Vec<u8> {
    std::fs::read(Path::new("tests/fixtures").join(rel)).unwrap()
}

fn report(status: ExitStatus, out: &str, err: &str) -> String {
    format!(
        "exit: {}\n--- stdout\n{out}--- stderr\n{err}",
        status.code()
    )
}

#[test]
fn result_format() {
    insta::glob!("fixtures/[!m]*/*.jsonl", |path| {
        let input = std::fs::read(path).unwrap();
        let mut sink = ResultText::new(Vec::new(), alerts(), false);
        let (status, _) = drive(&[("fixture", &input)], &mut sink);
        let (out, a) = sink.into_inner();
        insta::assert_snapshot!(report(
            status,
            &String::from_utf8(out).unwrap(),
            &alerts_text(a)
        ));
    });
}

/// The result format prints an answer exactly when the session succeeded,
/// for every producer.
#[test]
fn result_format_answers_every_successful_session() {
    insta::glob!("fixtures/[!m]*/*.jsonl", |path| {
        let input = std::fs::read(path).unwrap();
        let mut sink = ResultText::new(Vec::new(), alerts(), false);
        let (status, session) = drive(&[("fixture", &input)], &mut sink);
        let (out, _) = sink.into_inner();
        // Something to answer with: a result text or main-agent text.
        let (_, jsonl) = {
            let mut j = Jsonl::new(Vec::new());
            let (st, _) = drive(&[("fixture", &input)], &mut j);
            (st, String::from_utf8(j.into_inner()).unwrap())
        };
        let has_text = jsonl.lines().any(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (v["kind"] == "result" && v["text"].is_string())
                || (v["kind"] == "text" && v["role"] == "assistant" && v["parent"].is_null())
        });
        if status == ExitStatus::Success && has_text {
            assert!(!out.is_empty(), "{}: no answer", path.display());
        }
        if !has_text {
            assert!(out.is_empty(), "{}: an answer from nowhere", path.display());
        }
        if status == ExitStatus::SessionError && session.sessions().count() == 1 {
            assert!(out.is_empty(), "{}: an error is no answer", path.display());
        }
    });
}

/// (status, table, alerts on stderr, the same summary as JSON).
fn summary_of(inputs: &[(&str, &[u8])]) -> (ExitStatus, String, String, String) {
    let mut sink = SummarySink::new(NoColor::new(Vec::new()), alerts(), false);
    let (status, session) = drive(inputs, &mut sink);
    let (out, a) = sink.into_inner();
    let table = String::from_utf8(out.into_inner()).unwrap();
    let mut json = Vec::new();
    write_json(&mut json, &Summary::from_session(&session)).unwrap();
    let json = String::from_utf8(json).unwrap();
    (status, table, alerts_text(a), json)
}

#[test]
fn summary_of_one_session() {
    for rel in [
        "claude/subagent.jsonl",
        "claude/tool_errors.jsonl",
        "claude/permission_denied.jsonl",
        "claude-2.1.330/subagent.jsonl",
        "claude/api_error_500.jsonl",
        "codex/mixed.jsonl",
        "gemini/parallel.jsonl",
        "opencode/mixed.jsonl",
    ] {
        let input = read(rel);
        let (status, table, err, json) = summary_of(&[(rel, &input)]);
        let name = rel.replace(['/', '.'], "_");
        insta::assert_snapshot!(format!("summary__{name}"), report(status, &table, &err));
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["v"], 1);
        assert_eq!(v["sessions"].as_array().unwrap().len(), 1, "{rel}");
        assert_eq!(v["total"]["sessions"], 1);
    }
}

/// A folder of logs given as many files: one row per session, a total row,
/// tools and models added up across sessions.
#[test]
fn summary_of_several_files() {
    let names = [
        "claude/tools_basic.jsonl",
        "claude/tool_errors.jsonl",
        "claude/max_turns.jsonl",
        "codex/shell_fail.jsonl",
        "gemini/files.jsonl",
        "qwen/mixed.jsonl",
    ];
    let inputs: Vec<(String, Vec<u8>)> = names.iter().map(|n| (n.to_string(), read(n))).collect();
    let refs: Vec<(&str, &[u8])> = inputs
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    let (status, table, err, json) = summary_of(&refs);
    assert_eq!(status, ExitStatus::SessionError, "max_turns fails");
    insta::assert_snapshot!("summary__several_files", report(status, &table, &err));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let sessions = v["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), names.len());
    for (row, name) in sessions.iter().zip(names) {
        assert_eq!(row["source"], name);
    }
    let total = &v["total"];
    assert_eq!(total["sessions"], names.len());
    assert_eq!(total["outcome"], "error");
    assert_eq!(
        total["producer"],
        serde_json::Value::Null,
        "mixed producers"
    );
    // Codex reports no turns: absent counts add nothing.
    let sum = |k: &str| -> u64 { sessions.iter().map(|r| r[k].as_u64().unwrap_or(0)).sum() };
    for k in ["tool_calls", "tool_errors", "denials", "results", "turns"] {
        assert_eq!(total[k].as_u64().unwrap(), sum(k), "{k}");
    }
    let tool_calls: u64 = total["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["calls"].as_u64().unwrap())
        .sum();
    assert_eq!(tool_calls, sum("tool_calls"));
    insta::assert_snapshot!("summary_json__several_files", json);
}

/// What a producer does not report stays absent in the summary: Codex
/// reports no cost, so neither does the total of Codex sessions.
#[test]
fn absent_values_stay_absent() {
    let input = read("codex/shell_ok.jsonl");
    let (_, table, _, json) = summary_of(&[("codex", &input)]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(v["total"]["cost_usd"].is_null());
    assert!(v["sessions"][0]["cost_usd"].is_null());
    assert!(table.contains('–'), "{table}");
}

#[test]
fn empty_input_has_an_empty_summary() {
    let (status, table, _, json) = summary_of(&[("empty", b"")]);
    assert_eq!(status, ExitStatus::Incomplete);
    assert_eq!(table, "no session in the input\n");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["total"]["sessions"], 0);
}

#[test]
fn summary_table_after_the_pretty_output() {
    let input = read("claude/subagent.jsonl");
    let opts = PrettyOptions::default();
    let mut sink =
        Pretty::new(NoColor::new(Vec::new()), NoColor::new(Vec::new()), opts).with_summary(true);
    drive(&[("x", &input)], &mut sink);
    let out = String::from_utf8(sink.into_inner().0.into_inner()).unwrap();
    let (done, table) = out.split_once("\n\n").unwrap();
    assert!(done.lines().last().unwrap().starts_with("✓ done"));
    assert!(table.starts_with("started "), "{table}");
    // The same table as write_table over the same state.
    let mut direct = NoColor::new(Vec::new());
    let mut diag = Diag::new(Vec::new(), false);
    let mut jsonl = Jsonl::new(Vec::new());
    let mut runner = Runner::new(&mut jsonl, &mut diag, MAX_LINE);
    runner.source("x", input.as_slice()).unwrap();
    let (session, _) = runner.finish().unwrap();
    write_table(&mut direct, &Summary::from_session(&session)).unwrap();
    assert_eq!(
        table.trim_end(),
        String::from_utf8(direct.into_inner()).unwrap().trim_end()
    );
}

// ------------------------------------------------------------------ filters

fn filtered_pretty(
    input: &[u8],
    filter: Filter,
    verbosity: Verbosity,
) -> (ExitStatus, String, String) {
    let opts = PrettyOptions {
        verbosity,
        ..PrettyOptions::default()
    };
    let inner = Pretty::new(NoColor::new(Vec::new()), NoColor::new(Vec::new()), opts);
    let mut sink = Filtered::new(inner, alerts(), filter);
    let (status, _) = drive(&[("x", input)], &mut sink);
    let (inner, a) = sink.into_inner();
    let out = String::from_utf8(inner.into_inner().0.into_inner()).unwrap();
    (status, out, alerts_text(a))
}

fn filtered_jsonl(input: &[u8], filter: Filter) -> (ExitStatus, String, String) {
    let mut sink = Filtered::new(Jsonl::new(Vec::new()), alerts(), filter);
    let (status, _) = drive(&[("x", input)], &mut sink);
    let (inner, a) = sink.into_inner();
    (
        status,
        String::from_utf8(inner.into_inner()).unwrap(),
        alerts_text(a),
    )
}

#[test]
fn filter_snapshots() {
    /// Snapshot name, fixture, --only, --hide, --tool.
    type Case<'a> = (&'a str, &'a str, &'a [Kind], &'a [Kind], &'a [&'a str]);
    let cases: &[Case<'_>] = &[
        (
            "only_tools_errors",
            "claude/subagent.jsonl",
            &[Kind::Tools, Kind::Errors],
            &[],
            &[],
        ),
        (
            "hide_subagents",
            "claude/subagent.jsonl",
            &[],
            &[Kind::Subagents],
            &[],
        ),
        (
            "hide_text",
            "claude/tools_basic.jsonl",
            &[],
            &[Kind::Text],
            &[],
        ),
        (
            "hide_text_streamed",
            "claude/partial_messages.jsonl",
            &[],
            &[Kind::Text],
            &[],
        ),
        (
            "only_text_streamed",
            "claude/partial_messages.jsonl",
            &[Kind::Text],
            &[],
            &[],
        ),
        (
            "hide_errors",
            "claude/tool_errors.jsonl",
            &[],
            &[Kind::Errors],
            &[],
        ),
        (
            "only_tools_bash",
            "claude/tool_errors.jsonl",
            &[Kind::Tools],
            &[],
            &["Bash"],
        ),
        (
            "only_denials",
            "claude/permission_denied.jsonl",
            &[Kind::Denials],
            &[],
            &[],
        ),
        (
            "mcp_tools",
            "codex/mcp.jsonl",
            &[Kind::Tools, Kind::Errors],
            &[],
            &["mcp__*"],
        ),
        (
            "one_mcp_tool",
            "gemini/mcp.jsonl",
            &[],
            &[],
            &["mcp_*_echo"],
        ),
        (
            "only_thinking",
            "claude/thinking.jsonl",
            &[Kind::Thinking],
            &[],
            &[],
        ),
    ];
    for (name, rel, only, hide, tools) in cases {
        let tools: Vec<String> = tools.iter().map(ToString::to_string).collect();
        let verbosity = if only.iter().any(|k| k.needs_verbose()) {
            Verbosity::Verbose
        } else {
            Verbosity::Normal
        };
        let (status, out, err) =
            filtered_pretty(&read(rel), Filter::new(only, hide, &tools), verbosity);
        insta::assert_snapshot!(format!("filter__{name}"), report(status, &out, &err));
    }
}

/// Per kind: `--only K` in JSONL writes exactly the lines of the unfiltered
/// JSONL whose kind maps to K, and `--hide K` the others; the exit status
/// never changes; every hidden alert reaches stderr.
#[test]
fn filters_select_lines_and_never_change_the_status() {
    insta::glob!("fixtures/[!m]*/*.jsonl", |path| {
        let input = std::fs::read(path).unwrap();
        let (status, all, _) = filtered_jsonl(&input, Filter::default());
        let all_lines: Vec<&str> = all.lines().collect();
        for k in Kind::ALL {
            let (st_only, only, _) = filtered_jsonl(&input, Filter::new(&[k], &[], &[]));
            let (st_hide, hide, _) = filtered_jsonl(&input, Filter::new(&[], &[k], &[]));
            assert_eq!(st_only, status, "{} --only {}", path.display(), k.name());
            assert_eq!(st_hide, status, "{} --hide {}", path.display(), k.name());
            // Together they are the whole output, in order.
            let mut merged: Vec<&str> = only.lines().chain(hide.lines()).collect();
            merged.sort_unstable();
            let mut expected = all_lines.clone();
            expected.sort_unstable();
            assert_eq!(merged, expected, "{} {}", path.display(), k.name());
        }
        let (_, _, err) = filtered_pretty(
            &input,
            Filter::new(
                &[],
                &[Kind::Errors, Kind::Denials, Kind::Final, Kind::Header],
                &[],
            ),
            Verbosity::Normal,
        );
        let quiet = {
            let opts = PrettyOptions {
                verbosity: Verbosity::Quiet,
                ..PrettyOptions::default()
            };
            let mut sink = Pretty::new(NoColor::new(Vec::new()), NoColor::new(Vec::new()), opts);
            drive(&[("x", &input)], &mut sink);
            String::from_utf8(sink.into_inner().1.into_inner()).unwrap()
        };
        // What -q reports, the hidden alerts report too (the -q output may
        // add the closing "stream ended without a result", which the
        // pretty sink behind the filter writes on stdout instead).
        for line in err.lines() {
            assert!(quiet.contains(line), "{}: {line}", path.display());
        }
        let alerts_in_quiet = quiet
            .lines()
            .filter(|l| {
                !l.starts_with("✗ stream ended")
                    && !l.starts_with("  interrupted")
                    && !l.starts_with("  so far")
            })
            .count();
        assert_eq!(
            err.lines().count(),
            alerts_in_quiet,
            "{}: hidden alerts\n{err}\nquiet\n{quiet}",
            path.display()
        );
    });
}

/// `--tool-kind K` in JSONL keeps exactly the tool events of the unfiltered
/// output whose `tool_kind` is K and every other event (a `tool_start`
/// fragment has no kind: it goes); with `--tool NAME` as well, a tool event
/// stays when either keeps it. The exit status never changes.
#[test]
fn tool_kinds_select_the_tool_events_of_their_kind() {
    use streamview::event::ToolKind;
    /// For a tool event: (its tool's name, its kind); `None` for the others.
    fn tool_of(line: &str) -> Option<(String, String)> {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let s = |k: &str| v[k].as_str().unwrap_or("").to_string();
        match v["kind"].as_str() {
            Some("tool_call" | "tool_result") => Some((s("name"), s("tool_kind"))),
            Some("permission_denied") => Some((s("tool"), s("tool_kind"))),
            Some("delta") if v["delta_kind"] == "tool_start" => Some((s("text"), String::new())),
            _ => None,
        }
    }
    let mut kept = 0;
    insta::glob!("fixtures/[!m]*/*.jsonl", |path| {
        let input = std::fs::read(path).unwrap();
        let (status, all, _) = filtered_jsonl(&input, Filter::default());
        let select = |keep: &dyn Fn(&str, &str) -> bool| -> Vec<&str> {
            all.lines()
                .filter(|l| tool_of(l).is_none_or(|(name, kind)| keep(&name, &kind)))
                .collect()
        };
        for k in ToolKind::ALL {
            let f = Filter::new(&[], &[], &[]).with_tool_kinds(&[k]);
            let (st, out, _) = filtered_jsonl(&input, f);
            assert_eq!(st, status, "{} --tool-kind {}", path.display(), k.name());
            let want = select(&|_, kind| kind == k.name());
            assert_eq!(
                out.lines().collect::<Vec<_>>(),
                want,
                "{} {}",
                path.display(),
                k.name()
            );
            kept += want.iter().filter(|l| tool_of(l).is_some()).count();
        }
        let f = Filter::new(&[], &[], &["Read".to_string()])
            .with_tool_kinds(&[ToolKind::Shell, ToolKind::Edit]);
        let (_, out, _) = filtered_jsonl(&input, f);
        let want = select(&|name, kind| name == "Read" || kind == "shell" || kind == "edit");
        assert_eq!(out.lines().collect::<Vec<_>>(), want, "{}", path.display());
    });
    assert!(kept > 500, "{kept} tool events kept by their kind");
}

/// `--format markdown` (issue 16) of real captures of every producer:
/// header, prompts, text, calls with their key argument, outputs folded,
/// errors and denials quoted, sub-agents nested, the summary tables.
#[test]
fn markdown_format() {
    for rel in common::REPORT_CAPTURES {
        let input = read(rel);
        let mut sink = Markdown::sink(Vec::new());
        let (status, _) = drive(&[("fixture", &input)], &mut sink);
        let md = String::from_utf8(sink.into_inner().into_inner()).unwrap();
        let name = format!("markdown__{}", rel.replace(['/', '.'], "_"));
        insta::assert_snapshot!(name, format!("exit: {}\n{md}", status.code()));
    }
}

/// `--format html` (issue 16) of the same captures: the conversation
/// (`<main>`) of each page; tests/browser.rs loads them in a browser.
#[test]
fn html_format() {
    for rel in common::REPORT_CAPTURES {
        let input = read(rel);
        let mut sink = Html::sink(Vec::new());
        let (status, _) = drive(&[("fixture", &input)], &mut sink);
        let page = String::from_utf8(sink.into_inner().into_inner()).unwrap();
        let main = &page[page.find("<main").unwrap()..page.find("</main>").unwrap()];
        let name = format!("html__{}", rel.replace(['/', '.'], "_"));
        insta::assert_snapshot!(name, format!("exit: {}\n{main}", status.code()));
    }
}

/// The Markdown and the HTML report of a fixture.
fn reports(rel: &str) -> [String; 2] {
    let input = read(rel);
    let mut md = Markdown::sink(Vec::new());
    drive(&[("fixture", &input)], &mut md);
    let mut html = Html::sink(Vec::new());
    drive(&[("fixture", &input)], &mut html);
    [md.into_inner().into_inner(), html.into_inner().into_inner()]
        .map(|b| String::from_utf8(b).unwrap())
}

/// A denied Write made no change: neither report shows its diff as one
/// (no `Changes of`, no diff outside the proposal said not applied), and
/// each denial's message is shown once, in both the capture where the
/// denial is reported before the tool result (2.1.330) and after it.
#[test]
fn a_denied_write_is_no_change_and_each_denial_is_said_once() {
    let messages = [
        "The following parts require approval: rm -rf build, touch build.marker",
        "but you haven",
    ];
    for rel in [
        "claude/permission_denied.jsonl",
        "claude-2.1.330/permission_denied.jsonl",
    ] {
        let [md, html] = reports(rel);
        for (doc, page) in [("markdown", &md), ("html", &html)] {
            for m in messages {
                assert_eq!(page.matches(m).count(), 1, "{rel} {doc}: {m}");
            }
            assert!(!page.contains("Changes of"), "{rel} {doc}");
            assert!(!page.contains("Write</span> <code>marker.txt</code><span class=\"stat\""));
        }
        // The proposed line is there once, inside what says it was not
        // applied.
        assert_eq!(md.matches("+marker").count(), 1, "{rel}");
        let proposal = md.find("not applied · +1</summary>").expect(rel);
        assert!(md.find("+marker").unwrap() > proposal, "{rel}");
        assert!(md.contains("- **Write** `marker.txt`\n"), "{rel}");
        let proposal = html.find("<details class=\"proposed\">").expect(rel);
        assert!(html.find("+marker").unwrap() > proposal, "{rel}");
    }
}

/// A diff's lines keep their indentation (`hello.py`'s body, four
/// spaces), and an `Edit` with `replace_all` is counted once, by what its
/// result says was done (two lines each way), not by its fragment (one).
#[test]
fn diffs_keep_indentation_and_an_edit_is_counted_once() {
    let [md, html] = reports("claude/edit_write.jsonl");
    // Context, removed and added lines, after their marker.
    for line in [
        "       print(\"hi\")",
        "  -    print(\"hi\")",
        "  +    return f\"Hello, {name}!\"",
    ] {
        assert!(md.contains(&format!("\n{line}\n")), "markdown: {line:?}");
    }
    for line in [
        "<span class=\"dc\">     print(&quot;hi&quot;)</span>",
        "<span class=\"del\">-    print(&quot;hi&quot;)</span>",
        "<span class=\"add\">+    return f&quot;Hello, {name}!&quot;</span>",
    ] {
        assert!(html.contains(line), "html: {line}");
    }
    assert!(md.contains("- **Edit** `hello.py` +2 −2\n"));
    assert!(!md.contains("+1 −1\n\n  ```diff\n  @@ -1,4 +1,4 @@\n  -def greet"));
    let edit = "<span class=\"tn\">Edit</span> <code>hello.py</code>";
    assert_eq!(html.matches(edit).count(), 1);
    let at = html.find(edit).unwrap() + edit.len();
    let stats = &html[at..at + html[at..].find("</summary>").unwrap()];
    assert_eq!(
        stats,
        "<span class=\"stat\"> <span class=\"add\">+2</span> <span class=\"del\">−2</span></span>"
    );
    // The Write over the file counts its real diff, not the file's lines.
    assert!(md.contains("- **Write** `hello.py` +5 −3\n"));
}
