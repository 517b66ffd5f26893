//! Codex rollout decoding on its own floor: detection by the envelope,
//! framed outputs, and malformed lines. What a run writes of a rollout is
//! tested through the pipeline in `tests/producer_codex_rollout.rs`, and
//! the corpus pairs are compared with their streams there too.

use serde_json::{Value as J, json};

use super::tools::framed;
use crate::decode::{Decoded, Decoder};
use crate::event::{Event, Producer};
use crate::input::Line;
use crate::json::Arena;

#[test]
fn detected_by_the_envelope() {
    use crate::decode::detect;
    let d = |s: &str| {
        let mut parser = crate::json::Parser::default();
        parser.parse(s.as_bytes(), |v| detect(v.unwrap()))
    };
    assert_eq!(
        d(r#"{"timestamp":"t","type":"session_meta","payload":{"id":"x"}}"#),
        Some(Producer::CodexRollout)
    );
    assert_eq!(
        d(r#"{"type":"event_msg","payload":{"type":"token_count"}}"#),
        Some(Producer::CodexRollout)
    );
    assert_eq!(d(r#"{"type":"event_msg","payload":"x"}"#), None);
    assert_eq!(d(r#"{"type":"turn_context"}"#), None);
}

#[test]
fn framed_outputs() {
    let a = Arena::default();
    let t = |s: &'static str| {
        let (e, c) = framed(s, &a);
        (e, c.text().into_owned())
    };
    assert_eq!(
        t("Chunk ID: 1\nWall time: 0 seconds\nProcess exited with code 3\nOutput:\nbad\n"),
        (true, "exit code 3\nbad\n".into())
    );
    assert_eq!(
        t("Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess.\n"),
        (false, "Success.\n".into())
    );
    assert_eq!(t("Plan updated"), (false, "Plan updated".into()));
    assert_eq!(t("Output:"), (false, String::new()));
    assert_eq!(
        t("Process exited with code x\nOutput:\n"),
        (false, String::new())
    );
}

/// Values of every type in every field of every line of the corpus, and
/// every line cut short: no panic, and every line gives events or is
/// skipped with a reason.
#[test]
fn malformed_lines() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/codex-rollout");
    let odd = [
        json!(null),
        json!(7),
        json!("s"),
        json!([]),
        json!({}),
        json!([{"type": 1}]),
        json!(-1.5),
    ];
    for name in [
        "apply_patch",
        "mcp",
        "image",
        "plan",
        "reasoning",
        "web_search",
        "error_500",
    ] {
        let text = std::fs::read_to_string(format!("{dir}/{name}.rollout.jsonl")).unwrap();
        let mut dec = Decoder::with_producer(Some(Producer::CodexRollout));
        let mut feed = |bytes: &[u8]| {
            let line = Line {
                number: 1,
                bytes,
                partial: false,
            };
            let d = dec.decode(&line, &mut |_: &Event<'_>| Ok(())).unwrap();
            assert!(
                !matches!(d, Decoded::Blank),
                "{}",
                String::from_utf8_lossy(bytes)
            );
        };
        for l in text.lines() {
            let v: J = serde_json::from_str(l).unwrap();
            for variant in variants(&v, &odd) {
                feed(variant.to_string().as_bytes());
            }
            for cut in (1..l.len()).step_by(l.len() / 9 + 1) {
                if l.is_char_boundary(cut) {
                    feed(&l.as_bytes()[..cut]);
                }
            }
        }
        dec.finish(&mut |_: &Event<'_>| Ok(())).unwrap();
    }
}

/// `v` with each field of its payload, its payload's item and their
/// objects one level down replaced by each of `odd` in turn.
fn variants(v: &J, odd: &[J]) -> Vec<J> {
    let mut out = Vec::new();
    let paths: [&[&str]; 4] = [
        &[],
        &["payload"],
        &["payload", "item"],
        &["payload", "info"],
    ];
    for path in paths {
        let Some(obj) = path
            .iter()
            .try_fold(v, |v, k| v.get(k))
            .and_then(J::as_object)
        else {
            continue;
        };
        for key in obj.keys() {
            for o in odd {
                let mut w = v.clone();
                let mut at = &mut w;
                for k in path {
                    at = &mut at[*k];
                }
                at[key.as_str()] = o.clone();
                out.push(w);
            }
        }
    }
    out
}
