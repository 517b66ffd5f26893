use super::*;

use proptest::prelude::*;

use crate::decode::Decoder;
use crate::input::Line;

/// The obvious recursive definition, to check the linear matcher against.
fn reference(p: &[char], s: &[char]) -> bool {
    match (p.first(), s.first()) {
        (None, None) => true,
        (None, Some(_)) => false,
        (Some('*'), _) => reference(&p[1..], s) || (!s.is_empty() && reference(p, &s[1..])),
        (Some(_), None) => false,
        (Some('?'), Some(_)) => reference(&p[1..], &s[1..]),
        (Some(a), Some(b)) => a == b && reference(&p[1..], &s[1..]),
    }
}

#[test]
fn globs() {
    let m = |p: &str, s: &str| Glob::new(p).matches(s);
    assert!(m("Bash", "Bash"));
    assert!(!m("Bash", "bash"), "case counts");
    assert!(!m("Bash", "BashOutput"), "the whole name");
    assert!(m("Bash*", "BashOutput"));
    assert!(m("mcp__*", "mcp__github__search"));
    assert!(!m("mcp__*", "Read"));
    assert!(m("mcp__github__*", "mcp__github__search"));
    assert!(!m("mcp__github__*", "mcp__db__query"));
    assert!(m("*__search", "mcp__github__search"));
    assert!(m("*", ""));
    assert!(m("*", "anything"));
    assert!(!m("", "x"));
    assert!(m("", ""));
    assert!(m("Re?d", "Read"));
    assert!(!m("Re?d", "Red"));
    assert!(m("*a*b*", "xxaxxbxx"));
    assert!(!m("*a*b", "xxaxxbxxc"));
    assert!(m("?*", "é"), "characters, not bytes");
    assert!(m("a*a*a*a*b", "aaaaaaaaaaaaaaaab"));
    assert!(!m("a*a*a*a*b", "aaaaaaaaaaaaaaaaa"));
}

proptest! {
    #[test]
    fn glob_agrees_with_the_reference(p in "[ab*?]{0,7}", s in "[abc]{0,9}") {
        let pc: Vec<char> = p.chars().collect();
        let sc: Vec<char> = s.chars().collect();
        prop_assert_eq!(Glob::new(&p).matches(&s), reference(&pc, &sc), "{:?} {:?}", p, s);
    }
}

#[test]
fn kind_names_are_the_command_line_names() {
    for k in Kind::ALL {
        let v = k.to_possible_value().unwrap();
        assert_eq!(v.get_name(), k.name());
        assert!(v.get_help().is_some(), "{k:?} needs a description");
    }
    assert_eq!(Kind::ALL.len(), Kind::value_variants().len());
}

/// Decode `text` and return, per event, (kind name, kinds, shown, alert).
fn classify(text: &str, filter: &Filter) -> Vec<(&'static str, KindSet, bool, bool)> {
    let mut session = Session::new();
    let mut dec = Decoder::new();
    let mut out = Vec::new();
    for (i, l) in text.lines().enumerate() {
        let line = Line {
            number: i as u64 + 1,
            bytes: l.as_bytes(),
            partial: false,
        };
        dec.decode(&line, &mut |ev: &Event<'_>| {
            session.observe(ev);
            out.push((
                ev.kind.name(),
                kinds_of(ev, &session),
                filter.shows(ev, &session),
                is_alert(ev, &session),
            ));
            Ok(())
        })
        .unwrap();
    }
    out
}

const STREAM: &str = r#"{"type":"system","subtype":"init","session_id":"s","model":"m","tools":["Bash"]}
{"type":"assistant","session_id":"s","message":{"id":"m1","content":[{"type":"text","text":"hi"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"false"}},{"type":"tool_use","id":"t2","name":"mcp__gh__search","input":{"q":"x"}}]}}
{"type":"user","session_id":"s","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"Exit code 1"},{"type":"tool_result","tool_use_id":"t2","content":"found"}]}}
{"type":"assistant","session_id":"s","parent_tool_use_id":"t9","message":{"id":"m2","content":[{"type":"text","text":"sub"}]}}
{"type":"result","subtype":"error_max_turns","is_error":true,"session_id":"s","num_turns":1}"#;

#[test]
fn every_event_has_its_kinds() {
    let got = classify(STREAM, &Filter::default());
    let kinds: Vec<(&str, KindSet)> = got.iter().map(|(n, k, _, _)| (*n, *k)).collect();
    assert_eq!(
        kinds,
        [
            ("session_start", KindSet::of(&[Kind::Header])),
            ("text", KindSet::of(&[Kind::Text])),
            ("tool_call", KindSet::of(&[Kind::Tools])),
            ("tool_call", KindSet::of(&[Kind::Tools])),
            ("tool_result", KindSet::of(&[Kind::Errors])),
            ("tool_result", KindSet::of(&[Kind::Results])),
            ("text", KindSet::of(&[Kind::Text, Kind::Subagents])),
            ("result", KindSet::of(&[Kind::Final, Kind::Errors])),
        ]
    );
    assert!(
        got.iter().all(|(_, _, shown, _)| *shown),
        "no filter shows all"
    );
    let alerts: Vec<&str> = got.iter().filter(|g| g.3).map(|g| g.0).collect();
    assert_eq!(alerts, ["tool_result", "result"]);
}

fn shown(filter: &Filter) -> Vec<&'static str> {
    classify(STREAM, filter)
        .into_iter()
        .filter(|g| g.2)
        .map(|g| g.0)
        .collect()
}

#[test]
fn only_hide_and_tool_select() {
    let f = Filter::new(&[Kind::Tools], &[], &[]);
    assert_eq!(shown(&f), ["tool_call", "tool_call"]);
    let f = Filter::new(&[Kind::Errors], &[], &[]);
    assert_eq!(
        shown(&f),
        ["tool_result", "result"],
        "an error result is an error"
    );
    let f = Filter::new(&[], &[Kind::Usage, Kind::Subagents, Kind::Final], &[]);
    assert_eq!(
        shown(&f),
        [
            "session_start",
            "text",
            "tool_call",
            "tool_call",
            "tool_result",
            "tool_result"
        ]
    );
    // --only then --hide.
    let f = Filter::new(&[Kind::Text], &[Kind::Subagents], &[]);
    assert_eq!(shown(&f), ["text"]);
    // --tool narrows the tool events only.
    let f = Filter::new(&[], &[Kind::Usage], &["mcp__*".to_string()]);
    assert_eq!(
        shown(&f),
        [
            "session_start",
            "text",
            "tool_call",
            "tool_result",
            "text",
            "result"
        ]
    );
    let f = Filter::new(&[Kind::Tools], &[], &["Bash".into(), "Read".into()]);
    assert_eq!(shown(&f), ["tool_call"]);
    assert!(Filter::default().is_all());
    assert!(!f.is_all());
}

#[test]
fn needs_verbose_only_for_what_normal_verbosity_hides() {
    let v: Vec<&str> = Kind::ALL
        .iter()
        .filter(|k| k.needs_verbose())
        .map(|k| k.name())
        .collect();
    assert_eq!(v, ["prompts", "thinking", "results", "usage"]);
}

#[test]
fn fragments_are_also_of_what_they_stream() {
    let stream = r#"{"type":"stream_event","session_id":"s","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}}
{"type":"stream_event","session_id":"s","event":{"type":"content_block_delta","index":1,"delta":{"type":"thinking_delta","thinking":"hmm"}}}
{"type":"stream_event","session_id":"s","event":{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"a"}}}"#;
    let kinds: Vec<KindSet> = classify(stream, &Filter::default())
        .into_iter()
        .map(|g| g.1)
        .collect();
    assert_eq!(
        kinds,
        [
            KindSet::of(&[Kind::Deltas, Kind::Text]),
            KindSet::of(&[Kind::Deltas, Kind::Thinking]),
            KindSet::of(&[Kind::Deltas, Kind::Tools]),
        ]
    );
}

#[test]
fn a_tool_start_is_a_tool_event_of_its_tool() {
    let stream = r#"{"type":"stream_event","session_id":"s","event":{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t1","name":"Bash","input":{}}}}
{"type":"stream_event","session_id":"s","event":{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t2","name":"Read","input":{}}}}
{"type":"stream_event","session_id":"s","event":{"type":"content_block_start","index":2,"content_block":{"type":"text","text":""}}}"#;
    let got = classify(stream, &Filter::new(&[], &[], &["Bash".to_string()]));
    let got: Vec<(&str, KindSet, bool)> = got.into_iter().map(|g| (g.0, g.1, g.2)).collect();
    let tools = KindSet::of(&[Kind::Deltas, Kind::Tools]);
    // The text block's start announces nothing.
    assert_eq!(got, [("delta", tools, true), ("delta", tools, false)]);
}

/// `--tool` matches an MCP tool by its name or by the `server/tool` form
/// the output shows it in.
#[test]
fn tool_globs_match_the_shown_mcp_form() {
    let g = Glob::new("ledger*");
    assert!(g.matches_tool("mcp__ledger__lookup_sku"));
    assert!(!g.matches("mcp__ledger__lookup_sku"));
    assert!(Glob::new("ledger/lookup_sku").matches_tool("mcp__ledger__lookup_sku"));
    assert!(Glob::new("*/lookup_*").matches_tool("mcp__ledger__lookup_sku"));
    assert!(Glob::new("mcp__ledger__*").matches_tool("mcp__ledger__lookup_sku"));
    assert!(!Glob::new("ledger*").matches_tool("Bash"));
    assert!(!Glob::new("other/*").matches_tool("mcp__ledger__lookup_sku"));
    // Too long for the stack buffer: only the name itself is matched.
    let long = format!("mcp__{}__t", "s".repeat(300));
    assert!(!Glob::new("s*").matches_tool(&long));
    assert!(Glob::new("mcp__*").matches_tool(&long));
}

#[test]
fn tools_seen_are_bounded_and_patterns_that_matched_nothing_reported() {
    let tools = [Glob::new("Bash"), Glob::new("Nope*")];
    let mut seen = ToolsSeen {
        matched: vec![false; 2],
        ..ToolsSeen::default()
    };
    for i in 0..100 {
        seen.call(&format!("T{i}"), &tools);
        seen.call("Bash", &tools);
    }
    seen.call("Bash", &tools);
    assert_eq!(seen.matched, [true, false]);
    assert_eq!(seen.names.len(), MAX_SEEN_TOOLS);
    assert!(seen.more);
    let mut out = Vec::new();
    seen.report(&tools, &mut out).unwrap();
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.starts_with(
            "streamview: --tool 'Nope*' matched no tool call (tools seen: T0, Bash, T1,"
        ),
        "{out}"
    );
    assert!(out.ends_with(", …)\n"), "{out}");
    assert_eq!(out.lines().count(), 1);
    // A name from the agent cannot act on the terminal.
    let mut seen = ToolsSeen {
        matched: vec![false; 2],
        ..ToolsSeen::default()
    };
    seen.call("x\x1b[2J", &tools);
    let mut out = Vec::new();
    seen.report(&tools, &mut out).unwrap();
    assert!(!out.contains(&0x1b), "{out:?}");
}

#[test]
fn tool_kind_names_are_the_command_line_names() {
    for k in ToolKind::ALL {
        let v = k.to_possible_value().unwrap();
        assert_eq!(v.get_name(), k.name());
        assert_eq!(ToolKind::from_name(k.name()), Some(k));
        assert!(v.get_help().is_some(), "{k:?} needs a description");
    }
    assert!(ToolKind::from_name("Bash").is_none());
}
