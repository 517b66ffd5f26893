use super::*;
use crate::decode::testing::parsed;

#[test]
fn the_table_is_in_the_order_of_the_variants_and_names_every_producer() {
    for (i, f) in REGISTRY.iter().enumerate() {
        assert_eq!(f.producer as usize, i, "{}", f.name);
        assert_eq!(Producer::from_name(f.name), Some(f.producer));
    }
    for p in Producer::ALL {
        assert_eq!(entry(p).producer, p);
        assert!(!p.label().is_empty() && !p.invocation().is_empty());
    }
    let mut names: Vec<_> = REGISTRY.iter().map(|f| f.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), Producer::ALL.len(), "names are distinct");
    assert_eq!(Producer::from_name("nobody"), None);
}

fn d(line: &str) -> Option<Producer> {
    parsed(line, detect)
}

#[test]
fn table() {
    assert_eq!(
        d(r#"{"type":"user","parentUuid":null,"sessionId":"s"}"#),
        Some(Producer::ClaudeTranscript)
    );
    assert_eq!(
        d(r#"{"type":"summary","summary":"x"}"#),
        Some(Producer::ClaudeTranscript)
    );
    assert_eq!(
        d(r#"{"type":"thread.started","thread_id":"t"}"#),
        Some(Producer::Codex)
    );
    assert_eq!(
        d(r#"{"type":"error","message":"boom"}"#),
        Some(Producer::Codex)
    );
    assert_eq!(
        d(r#"{"type":"init","timestamp":"2025-01-01T00:00:00Z","session_id":"s","model":"m"}"#),
        Some(Producer::Gemini)
    );
    assert_eq!(
        d(
            r#"{"type":"error","timestamp":"2025-01-01T00:00:00Z","severity":"error","message":"m"}"#
        ),
        Some(Producer::Gemini)
    );
    assert_eq!(
        d(r#"{"type":"step_start","timestamp":1700000000000,"sessionID":"ses_1","part":{}}"#),
        Some(Producer::OpenCode)
    );
    assert_eq!(
        d(r#"{"type":"tool_use","timestamp":1700000000000,"sessionID":"ses_1","part":{}}"#),
        Some(Producer::OpenCode)
    );
    assert_eq!(
        d(r#"{"type":"tool_call","subtype":"started","call_id":"c"}"#),
        Some(Producer::Cursor)
    );
    assert_eq!(
        d(r#"{"type":"system","subtype":"init","qwen_code_version":"0.1","tools":[]}"#),
        Some(Producer::Qwen)
    );
    assert_eq!(
        d(r#"{"type":"system","subtype":"init","claude_code_version":"2.1","tools":[]}"#),
        Some(Producer::Claude)
    );
    assert_eq!(
        d(r#"{"type":"system","subtype":"init","apiKeySource":"login","model":"gpt","cwd":"/"}"#),
        Some(Producer::Cursor)
    );
    assert_eq!(
        d(
            r#"{"type":"system","subtype":"init","cwd":"/","tools":[],"mcp_servers":[],"session_id":"T-1"}"#
        ),
        Some(Producer::Amp)
    );
    assert_eq!(
        d(r#"{"type":"stream_event","event":{}}"#),
        Some(Producer::Claude)
    );
    assert_eq!(
        d(r#"{"type":"system","subtype":"api_retry"}"#),
        Some(Producer::Claude)
    );
}

#[test]
fn transcript_lines() {
    for line in [
        r#"{"type":"queue-operation","operation":"dequeue","timestamp":"2026-01-01T00:00:00Z","sessionId":"s"}"#,
        r#"{"parentUuid":null,"isSidechain":true,"agentId":"a1","type":"user","message":{"role":"user","content":"x"},"sessionId":"s"}"#,
        r#"{"parentUuid":"u1","type":"attachment","attachment":{"type":"date"},"sessionId":"s"}"#,
        r#"{"type":"system","subtype":"turn_duration","sessionId":"s","durationMs":5}"#,
        r#"{"type":"last-prompt","lastPrompt":"x","leafUuid":"u","sessionId":"s"}"#,
        r#"{"type":"tools-used","tools":["Read"],"sessionId":"s"}"#,
        r#"{"type":"atis-latch","atis":"","sessionId":"s"}"#,
        r#"{"type":"api-request","sessionId":"s","id":"r","params":{}}"#,
        r#"{"type":"api-request-shape","sessionId":"s","shape":{}}"#,
        r#"{"type":"api-request-blob","sessionId":"s","hash":"h","message":{}}"#,
        r#"{"type":"cost-state","sessionId":"s","totalCostUSD":0.1}"#,
    ] {
        assert_eq!(d(line), Some(Producer::ClaudeTranscript), "{line}");
    }
}

#[test]
fn amp_init_with_unexpected_fields_is_amp() {
    assert_eq!(
        d(
            r#"{"type":"system","subtype":"init","cwd":"/","tools":[],"mcp_servers":[],"model":"m","session_id":"T-1"}"#
        ),
        Some(Producer::Amp)
    );
    // A Claude init without a version field stays Claude.
    assert_eq!(
        d(r#"{"type":"system","subtype":"init","cwd":"/","tools":[],"session_id":"0b1c"}"#),
        Some(Producer::Claude)
    );
}

#[test]
fn only_session_headers_open_a_stream() {
    let opens_while = |line: &str, reading: Producer| parsed(line, |v| opener(v, reading));
    // While reading Kilo, whose rule opens no line.
    let o = |line: &str| opens_while(line, Producer::Kilo);
    assert_eq!(
        o(r#"{"type":"thread.started","thread_id":"t"}"#),
        Some(Producer::Codex)
    );
    assert_eq!(
        o(r#"{"type":"system","subtype":"init","claude_code_version":"2.1","tools":[]}"#),
        Some(Producer::Claude)
    );
    assert_eq!(o(r#"{"type":"stream_event","event":{}}"#), None);
    assert_eq!(o(r#"{"type":"turn.completed","usage":{}}"#), None);
    assert_eq!(
        o(r#"{"type":"user","parentUuid":null,"sessionId":"s"}"#),
        Some(Producer::ClaudeTranscript)
    );
    assert_eq!(
        o(r#"{"type":"user","parentUuid":"p","sessionId":"s"}"#),
        None
    );
    assert_eq!(
        o(r#"{"type":"queue-operation","operation":"enqueue","sessionId":"s"}"#),
        Some(Producer::ClaudeTranscript)
    );
    // Cline's session record, which has no type.
    assert_eq!(
        o(
            r#"{"session_id":"1795715029547_j2mu6","source":"cli","started_at":"2026-11-20T10:00:00Z","status":"completed"}"#
        ),
        Some(Producer::ClineSession)
    );
    // A line that opens the stream being read starts no other: a
    // transcript's metadata lines, an init line both Claude and Qwen open.
    let queued = r#"{"type":"queue-operation","operation":"enqueue","sessionId":"s"}"#;
    assert_eq!(opens_while(queued, Producer::ClaudeTranscript), None);
    assert_eq!(
        opens_while(queued, Producer::Codex),
        Some(Producer::ClaudeTranscript)
    );
    let init = r#"{"type":"system","subtype":"init","claude_code_version":"2.1","tools":[]}"#;
    assert_eq!(opens_while(init, Producer::Claude), None);
    assert_eq!(opens_while(init, Producer::Qwen), Some(Producer::Claude));
}

#[test]
fn ambiguous_lines_need_telltales() {
    assert_eq!(d(r#"{"type":"assistant","message":{}}"#), None);
    assert_eq!(
        d(r#"{"type":"assistant","session_id":"T-abc","message":{}}"#),
        Some(Producer::Amp)
    );
    assert_eq!(
        d(r#"{"type":"result","total_cost_usd":0.1}"#),
        Some(Producer::Claude)
    );
    assert_eq!(
        d(r#"{"type":"result","usage":{"inputTokens":1}}"#),
        Some(Producer::Cursor)
    );
    assert_eq!(d(r#"{"type":"result","error":"x"}"#), Some(Producer::Amp));
    assert_eq!(d(r#"{"type":"result","result":"x"}"#), None);
    assert_eq!(d(r#"{"no_type":1}"#), None);
}

#[test]
fn droid_init_is_told_from_claude() {
    let droid = r#"{"type":"system","subtype":"init","cwd":"/w","session_id":"17922060-a244","tools":["Read"],"model":"custom:m","reasoning_effort":"none"}"#;
    assert_eq!(d(droid), Some(Producer::Droid));
    let claude = r#"{"type":"system","subtype":"init","cwd":"/w","session_id":"0b1c","tools":[],"model":"m","claude_code_version":"2.1","uuid":"u"}"#;
    assert_eq!(d(claude), Some(Producer::Claude));
    // Droid's other lines: a numeric timestamp and `session_id`.
    let call = r#"{"type":"tool_call","id":"c","toolName":"Read","parameters":{},"timestamp":1795710974349,"session_id":"s"}"#;
    assert_eq!(d(call), Some(Producer::Droid));
}

#[test]
fn copilot_envelopes_are_not_codex() {
    let line = r#"{"type":"assistant.turn_start","data":{"turnId":"0"},"id":"x","timestamp":"2026-11-26T16:35:03.394Z","parentId":null}"#;
    assert_eq!(d(line), Some(Producer::Copilot));
    let result = r#"{"type":"result","timestamp":"2026-11-26T16:35:03.677Z","sessionId":"s","exitCode":0,"usage":{}}"#;
    assert_eq!(d(result), Some(Producer::Copilot));
    assert_eq!(
        d(r#"{"type":"turn.completed","usage":{}}"#),
        Some(Producer::Codex)
    );
}

#[test]
fn cline_is_not_claude() {
    let line = r#"{"ts":"2026-11-26T17:44:23.297Z","type":"hook_event","hookEventName":"agent_start","agentId":"a","taskId":"t","parentAgentId":null}"#;
    assert_eq!(d(line), Some(Producer::Cline));
    let line = r#"{"ts":"2026-11-26T17:44:23.310Z","type":"agent_event","event":{"type":"iteration_start","iteration":1}}"#;
    assert_eq!(d(line), Some(Producer::Cline));
}

#[test]
fn a_saved_form_names_the_agent_of_its_stream() {
    assert_eq!(Producer::ClaudeTranscript.agent(), "claude");
    assert_eq!(Producer::CodexRollout.agent(), "codex");
    assert_eq!(Producer::GeminiSession.agent(), "gemini");
    assert_eq!(Producer::QwenSession.agent(), "qwen");
    assert_eq!(Producer::ClineSession.agent(), "cline");
    // Every agent is also a producer: the stream of the saved form.
    for p in Producer::ALL {
        assert!(Producer::from_name(p.agent()).is_some(), "{p}");
    }
}

#[test]
fn no_line_of_type_stream_event_opens_a_stream() {
    // Claude's token deltas are read without the parser, so without this
    // check (`decode/claude/delta.rs`): a line of their type must open no
    // producer's stream, whatever else it carries. Each line has the keys
    // some producer's rule looks for.
    for extra in [
        r#""subtype":"init","claude_code_version":"2.1""#,
        r#""parentUuid":null,"isSidechain":false,"sessionId":"s""#,
        r#""hookEventName":"agent_start""#,
        r#""session_id":"s","started_at":"2026-11-28T00:00:00Z""#,
        r#""sessionId":"s","projectHash":"h""#,
        r#""id":"i","cwd":"/w""#,
    ] {
        let line = format!(
            r#"{{"type":"stream_event","event":{{"type":"content_block_delta"}},{extra}}}"#
        );
        parsed(&line, |v| {
            for f in &REGISTRY {
                assert!(!f.format.opens(Shape::of(v)), "{} opens {line}", f.name);
            }
        });
    }
}

/// Where `p`'s agent keeps its sessions under the home `/h`, with `vars`
/// set.
fn store_at(p: Producer, vars: &[(&str, &str)]) -> std::path::PathBuf {
    let var = |name: &str| {
        vars.iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| std::ffi::OsStr::new(*v))
    };
    p.store()
        .expect("a store")
        .locate(std::path::Path::new("/h"), var)
}

#[test]
fn each_agent_home_and_its_variables() {
    use std::path::Path;
    let at = |p| store_at(p, &[]);
    assert_eq!(at(Producer::Claude), Path::new("/h/.claude/projects"));
    assert_eq!(
        at(Producer::ClaudeTranscript),
        Path::new("/h/.claude/projects")
    );
    assert_eq!(at(Producer::Codex), Path::new("/h/.codex/sessions"));
    assert_eq!(at(Producer::Gemini), Path::new("/h/.gemini/tmp"));
    assert_eq!(at(Producer::Qwen), Path::new("/h/.qwen/projects"));
    assert_eq!(
        at(Producer::Copilot),
        Path::new("/h/.copilot/session-state")
    );
    assert_eq!(at(Producer::Pi), Path::new("/h/.pi/agent/sessions"));
    assert_eq!(at(Producer::Droid), Path::new("/h/.factory/sessions"));
    assert_eq!(
        at(Producer::OpenCode),
        Path::new("/h/.local/share/opencode")
    );
    assert_eq!(at(Producer::Kilo), Path::new("/h/.local/share/kilo"));
    assert_eq!(at(Producer::Cline), Path::new("/h/.cline/data/sessions"));
    assert!(Producer::Amp.store().is_none() && Producer::Cursor.store().is_none());
    // An absolute database path wins; a name is in the data folder; a
    // relative XDG_DATA_HOME is not one.
    let data = |xdg, db| {
        store_at(
            Producer::OpenCode,
            &[("XDG_DATA_HOME", xdg), ("OPENCODE_DB", db)],
        )
    };
    assert_eq!(data("/x", "/db/o.db"), Path::new("/db/o.db"));
    assert_eq!(
        data("/x", "opencode-beta.db"),
        Path::new("/x/opencode/opencode-beta.db")
    );
    assert_eq!(data("/x", ":memory:"), Path::new("/x/opencode"));
    assert_eq!(
        store_at(Producer::Kilo, &[("XDG_DATA_HOME", "rel")]),
        Path::new("/h/.local/share/kilo")
    );
    let moved = [
        ("QWEN_HOME", "/q"),
        ("COPILOT_HOME", "/c"),
        ("PI_CODING_AGENT_DIR", "/p"),
        ("CLAUDE_CONFIG_DIR", "/cl"),
        ("CODEX_HOME", "/co"),
        ("GEMINI_CLI_HOME", "/g"),
        ("QWEN_RUNTIME_DIR", ""),
    ];
    let at = |p| store_at(p, &moved);
    assert_eq!(at(Producer::QwenSession), Path::new("/q/projects"));
    assert_eq!(at(Producer::Copilot), Path::new("/c/session-state"));
    assert_eq!(at(Producer::Pi), Path::new("/p/sessions"));
    assert_eq!(at(Producer::Claude), Path::new("/cl/projects"));
    assert_eq!(at(Producer::CodexRollout), Path::new("/co/sessions"));
    assert_eq!(at(Producer::GeminiSession), Path::new("/g/.gemini/tmp"));
    let runtime = store_at(
        Producer::Qwen,
        &[("QWEN_HOME", "/q"), ("QWEN_RUNTIME_DIR", "/r")],
    );
    assert_eq!(runtime, Path::new("/r/projects"));
    // Crush: its own folder, `crush` in the data folder, or the one
    // CRUSH_GLOBAL_DATA names (projects.json in it).
    let crush = |vars: &[(&str, &str)]| store_at(Producer::Crush, vars);
    assert_eq!(crush(&[]), Path::new("/h/.local/share/crush"));
    assert_eq!(crush(&[("XDG_DATA_HOME", "/x")]), Path::new("/x/crush"));
    assert_eq!(
        crush(&[("XDG_DATA_HOME", "/x"), ("CRUSH_GLOBAL_DATA", "/g/data")]),
        Path::new("/g/data")
    );
    assert_eq!(
        store_at(Producer::Hermes, &[("HERMES_HOME", "/he")]),
        Path::new("/he")
    );
}

#[test]
fn each_agent_has_one_store_on_one_of_its_forms() {
    for p in Producer::ALL {
        let agent_stores = REGISTRY
            .iter()
            .filter(|e| e.store.is_some() && e.producer.agent() == p.agent())
            .count();
        assert!(agent_stores <= 1, "{}", p.name());
    }
}

#[test]
fn each_store_is_one_readers_whatever_their_order() {
    let readers = store_readers();
    assert_eq!(
        readers.0.len(),
        6,
        "OpenCode, Kilo, Kimi, Hermes, OpenClaw, Crush"
    );
    for name in [
        "opencode.db",
        "opencode-beta.db",
        "kilo.db",
        "state.db",
        "openclaw-agent.sqlite",
        "crush.db",
    ] {
        let path = std::path::Path::new(name);
        let claims = readers.0.iter().filter(|r| r.is_store(path)).count();
        assert_eq!(claims, 1, "{name}");
    }
    for name in ["sessions.db", "s.jsonl", "projects.json", "state.db-wal"] {
        assert!(
            readers.store(std::path::Path::new(name)).is_none(),
            "{name}"
        );
    }
}
