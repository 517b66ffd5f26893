//! `--format jsonl` output against `docs/streamview-event.schema.json`.
//!
//! Every line the binary writes for the recorded Claude Code fixtures (and for
//! a small synthetic stream that reaches the kinds the fixtures do not) is
//! checked against the schema branch of its `kind`: required keys present, no
//! key outside `properties`, JSON types, `const`/`enum` values, nested objects
//! and array items. The schema is read with `serde_json` and interpreted by the
//! few keywords it uses; no JSON Schema crate is needed.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of a test binary

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const SCHEMA: &str = "docs/streamview-event.schema.json";
/// Every producer's captured streams (`misc/` holds non-stream captures).
fn fixture_dirs() -> Vec<PathBuf> {
    let root = Path::new(ROOT).join("tests/fixtures");
    let mut dirs: Vec<PathBuf> = fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() && !p.ends_with("misc"))
        .collect();
    dirs.sort();
    dirs
}

/// Claude-like lines that reach what the recorded fixtures do not: a plain
/// text line, unknown event types and content blocks, an aborted message, a
/// tool call without input, `AskUserQuestion`/`TodoWrite`, a user string, an
/// error result with a non-string `result` and a denial list, and a line of
/// our own schema with a kind the reader does not know.
const SYNTHETIC: &str = r#"{"type":"system","subtype":"init","session_id":"s1","model":"m","tools":["Bash"],"mcp_servers":[{"name":"x","status":"connected"}]}
this line is not JSON
{"type":"brand_new_event","session_id":"s1","foo":1}
{"type":"system","subtype":"mystery","session_id":"s1"}
{"type":"assistant","session_id":"s1","aborted":true,"message":{"id":"m1","model":"m","content":[{"type":"tool_use","id":"t1","name":"mcp__srv__do"},{"type":"weird_block"}]}}
{"type":"assistant","session_id":"s1","message":{"id":"m2","model":"m","usage":{"input_tokens":5},"content":[{"type":"tool_use","id":"t2","name":"AskUserQuestion","input":{"questions":[{"question":"Which?","options":[{"label":"A"},"B"]}]}},{"type":"tool_use","id":"t3","name":"TodoWrite","input":{"todos":[{"content":"do it","status":"pending"}]}}]}}
{"type":"user","session_id":"s1","message":{"content":"hello from the user"}}
{"v":1,"kind":"no_such_kind","producer":"claude","line":8}
{"type":"result","subtype":"error_during_execution","session_id":"s1","result":{"a":1},"is_error":true,"permission_denials":[{"tool_name":"Bash","tool_use_id":"t9","tool_input":{"command":"rm -rf /"}}]}
"#;

/// Run `streamview --format jsonl` on `file`, or on `stdin` when `file` is
/// `None`, and return its stdout. Exit statuses 0, 1 and 3 describe the
/// session (success, error result, no result); anything else is a failure.
fn jsonl(file: Option<&Path>, stdin: &[u8], what: &str) -> String {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_streamview"));
    cmd.args(["--format", "jsonl", "--color", "never"]);
    if let Some(f) = file {
        cmd.arg(f);
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{what}: cannot run streamview: {e}"));
    let mut pipe = child.stdin.take().unwrap();
    let input = stdin.to_vec();
    // Write from a thread: the child's stdout must be drained meanwhile.
    let writer = std::thread::spawn(move || pipe.write_all(&input));
    let out = child.wait_with_output().unwrap();
    let code = out.status.code();
    assert!(
        matches!(code, Some(0 | 1 | 3)),
        "{what}: streamview exited with {:?}; stderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    writer
        .join()
        .unwrap()
        .unwrap_or_else(|e| panic!("{what}: writing stdin: {e}"));
    String::from_utf8(out.stdout).unwrap_or_else(|e| panic!("{what}: output is not UTF-8: {e}"))
}

fn fixtures() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in fixture_dirs() {
        let entries = fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for p in entries.map(|e| e.unwrap().path()) {
            let ext = |p: &Path, x: &str| p.extension().is_some_and(|e| e == x);
            // Streams; the JSON documents an agent prints (Hermes' usage
            // reports, OpenClaw's); a store in a run's folder (Hermes',
            // OpenClaw's) or in a project's data folder (Crush's),
            // OpenClaw's older JSONL sessions.
            let document = dir.ends_with("hermes") || dir.ends_with("openclaw");
            if ext(&p, "jsonl") || (ext(&p, "json") && document) {
                files.push(p);
            } else if p.is_dir() && dir.ends_with("hermes-session") {
                files.push(p.join("state.db"));
            } else if p.is_dir() && dir.ends_with("crush-session") {
                files.push(p.join(".crush/crush.db"));
            } else if p.is_dir() && dir.ends_with("openclaw-session") {
                let agent = p.join("agents/main");
                let db = agent.join("agent/openclaw-agent.sqlite");
                if db.is_file() {
                    files.push(db);
                }
                for f in fs::read_dir(agent.join("sessions")).into_iter().flatten() {
                    files.push(f.unwrap().path());
                }
            }
        }
    }
    files.sort();
    assert!(!files.is_empty(), "no fixtures found under tests/fixtures");
    files
}

fn load_schema() -> Value {
    let path = Path::new(ROOT).join(SCHEMA);
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{SCHEMA} is not valid JSON: {e}"))
}

/// The kind names the writer can emit: the strings of `EventKind::name` in
/// `src/event.rs`, so that a new kind without a schema branch fails here.
fn writer_kinds() -> BTreeSet<String> {
    let path = Path::new(ROOT).join("src/event.rs");
    let src = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let start = src
        .find("impl EventKind")
        .expect("src/event.rs: no `impl EventKind` block");
    let block = &src[start..];
    let end = block[1..].find("\nimpl ").map_or(block.len(), |e| e + 1);
    let kinds: BTreeSet<String> = block[..end]
        .lines()
        .filter(|l| l.contains("EventKind::"))
        .filter_map(|l| {
            l.split_once("=> \"")?
                .1
                .split('"')
                .next()
                .map(str::to_string)
        })
        .collect();
    assert!(
        !kinds.is_empty(),
        "src/event.rs: found no `EventKind::X => \"name\"` arms in `impl EventKind`"
    );
    kinds
}

/// The few JSON Schema keywords `docs/streamview-event.schema.json` uses.
struct Schema {
    root: Value,
}

impl Schema {
    /// The `oneOf` branches, by the `const` of their `kind` property.
    fn branches(&self) -> Vec<(&str, &Value)> {
        let one_of = self.root["oneOf"]
            .as_array()
            .unwrap_or_else(|| panic!("{SCHEMA}: no top-level `oneOf` array"));
        one_of
            .iter()
            .map(|b| {
                let kind = b["properties"]["kind"]["const"]
                    .as_str()
                    .unwrap_or_else(|| {
                        panic!("{SCHEMA}: a `oneOf` branch has no `properties.kind.const`: {b}")
                    });
                (kind, b)
            })
            .collect()
    }

    fn branch(&self, kind: &str) -> Option<&Value> {
        self.branches()
            .into_iter()
            .find(|(k, _)| *k == kind)
            .map(|(_, b)| b)
    }

    /// Follow a local `$ref` (`#/$defs/…`).
    fn deref<'a>(&'a self, reference: &str) -> &'a Value {
        reference
            .strip_prefix('#')
            .and_then(|p| self.root.pointer(p))
            .unwrap_or_else(|| panic!("{SCHEMA}: unresolvable $ref {reference:?}"))
    }

    /// Check `value` against `schema`, pushing one message per problem.
    fn check(&self, schema: &Value, value: &Value, field: &str, errs: &mut Vec<String>) {
        if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
            self.check(self.deref(r), value, field, errs);
        }
        if let Some(ty) = schema.get("type") {
            let allowed: Vec<&str> = match ty {
                Value::String(s) => vec![s.as_str()],
                Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
                other => panic!(
                    "{SCHEMA}: field `{field}`: `type` must be a string or an array, not {other}"
                ),
            };
            if !allowed.iter().any(|t| has_type(value, t)) {
                errs.push(format!(
                    "field `{field}`: expected type {ty}, found {} ({})",
                    type_name(value),
                    short(value)
                ));
                return;
            }
        }
        if let Some(c) = schema.get("const")
            && c != value
        {
            errs.push(format!(
                "field `{field}`: expected {c}, found {}",
                short(value)
            ));
        }
        if let Some(e) = schema.get("enum").and_then(Value::as_array)
            && !e.contains(value)
        {
            errs.push(format!(
                "field `{field}`: {} is not one of {}",
                short(value),
                Value::Array(e.clone())
            ));
        }
        if let (Some(p), Some(text)) = (
            schema.get("pattern").and_then(Value::as_str),
            value.as_str(),
        ) && !regex::Regex::new(p).unwrap().is_match(text)
        {
            errs.push(format!(
                "field `{field}`: {} does not match {p}",
                short(value)
            ));
        }
        if let (Some(min), Some(n)) = (
            schema.get("minimum").and_then(Value::as_f64),
            value.as_f64(),
        ) && n < min
        {
            errs.push(format!("field `{field}`: {n} is below the minimum {min}"));
        }
        if let Value::Object(obj) = value {
            let props = schema.get("properties").and_then(Value::as_object);
            for key in schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let key = key.as_str().unwrap_or_default();
                if !obj.contains_key(key) {
                    errs.push(format!(
                        "field `{}`: required but missing",
                        join(field, key)
                    ));
                }
            }
            let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
            for (key, v) in obj {
                match props.and_then(|p| p.get(key)) {
                    Some(sub) => self.check(sub, v, &join(field, key), errs),
                    None if closed => {
                        errs.push(format!(
                            "field `{}`: not in the schema's `properties`",
                            join(field, key)
                        ));
                    }
                    None => {}
                }
            }
        }
        if let (Value::Array(items), Some(sub)) = (value, schema.get("items")) {
            for (i, v) in items.iter().enumerate() {
                self.check(sub, v, &format!("{field}[{i}]"), errs);
            }
        }
    }

    /// Check one output line; problems are returned, each naming its field.
    fn check_line(&self, line: &str) -> Vec<String> {
        let value: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => return vec![format!("not valid JSON ({e})")],
        };
        let Some(kind) = value.get("kind").and_then(Value::as_str) else {
            return vec!["field `kind`: missing or not a string".into()];
        };
        let Some(branch) = self.branch(kind) else {
            return vec![format!(
                "field `kind`: {kind:?} is not described in {SCHEMA}"
            )];
        };
        let mut errs = Vec::new();
        self.check(branch, &value, "", &mut errs);
        errs.iter().map(|e| format!("kind {kind}: {e}")).collect()
    }
}

fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_string()
    } else {
        format!("{prefix}.{key}")
    }
}

fn has_type(v: &Value, ty: &str) -> bool {
    match ty {
        "null" => v.is_null(),
        "boolean" => v.is_boolean(),
        "string" => v.is_string(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        "number" => v.is_number(),
        "integer" => v.is_i64() || v.is_u64() || v.as_f64().is_some_and(|f| f.fract() == 0.0),
        other => panic!("{SCHEMA}: unsupported type {other:?}"),
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    match s.char_indices().nth(80) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s,
    }
}

/// All output of the fixtures and the synthetic stream: (source, jsonl).
fn outputs() -> Vec<(String, String)> {
    let mut all: Vec<(String, String)> = fixtures()
        .iter()
        .map(|f| {
            let name = f.strip_prefix(ROOT).unwrap_or(f).display().to_string();
            let name = name.trim_start_matches('/').to_string();
            let out = jsonl(Some(f), b"", &name);
            (name, out)
        })
        .collect();
    let name = "synthetic stream (tests/schema.rs)".to_string();
    all.push((name.clone(), jsonl(None, SYNTHETIC.as_bytes(), &name)));
    all
}

#[test]
fn every_output_line_matches_the_schema() {
    let schema = Schema {
        root: load_schema(),
    };
    let mut problems = Vec::new();
    let mut lines = 0;
    for (source, out) in outputs() {
        for (n, line) in out.lines().enumerate() {
            lines += 1;
            let src_line = serde_json::from_str::<Value>(line)
                .ok()
                .and_then(|v| v.get("line").and_then(Value::as_u64))
                .map_or_else(|| "?".to_string(), |l| l.to_string());
            for e in schema.check_line(line) {
                problems.push(format!(
                    "{source}: output line {} (source line {src_line}): {e}",
                    n + 1
                ));
            }
        }
    }
    assert!(lines > 0, "the fixtures produced no output at all");
    if !problems.is_empty() {
        let mut msg = format!(
            "{} schema violation(s) in {lines} lines of --format jsonl output:\n",
            problems.len()
        );
        for p in problems.iter().take(40) {
            let _ = writeln!(msg, "  {p}");
        }
        if problems.len() > 40 {
            let _ = writeln!(msg, "  … and {} more", problems.len() - 40);
        }
        panic!("{msg}");
    }
}

#[test]
fn schema_describes_exactly_the_writers_kinds() {
    let schema = Schema {
        root: load_schema(),
    };
    let described: BTreeSet<String> = schema
        .branches()
        .iter()
        .map(|(k, _)| (*k).to_string())
        .collect();
    let emitted = writer_kinds();
    let missing: Vec<_> = emitted.difference(&described).collect();
    let stale: Vec<_> = described.difference(&emitted).collect();
    assert!(
        missing.is_empty(),
        "{SCHEMA}: kinds of EventKind::name (src/event.rs) without a `oneOf` branch: {missing:?}"
    );
    assert!(
        stale.is_empty(),
        "{SCHEMA}: `oneOf` branches for kinds EventKind::name does not have: {stale:?}"
    );
    let branches = schema.branches();
    assert_eq!(
        branches.len(),
        described.len(),
        "{SCHEMA}: two `oneOf` branches describe the same kind"
    );
}

#[test]
fn schema_branches_are_closed_and_require_every_property() {
    // The writer always writes every field of a kind (null when absent), so
    // each branch must require all its properties and allow no others.
    let schema = Schema {
        root: load_schema(),
    };
    for (kind, branch) in schema.branches() {
        assert_eq!(
            branch.get("additionalProperties"),
            Some(&Value::Bool(false)),
            "{SCHEMA}: branch {kind}: `additionalProperties` must be false"
        );
        let props: BTreeSet<&str> = branch["properties"]
            .as_object()
            .map(|o| o.keys().map(String::as_str).collect())
            .unwrap_or_default();
        let required: BTreeSet<&str> = branch["required"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        assert_eq!(
            props, required,
            "{SCHEMA}: branch {kind}: `required` must list exactly the `properties`"
        );
    }
}

#[test]
fn fixtures_reach_every_kind() {
    // A schema branch no output exercises is a branch nothing checks.
    let mut seen = BTreeSet::new();
    for (_, out) in outputs() {
        for line in out.lines() {
            if let Some(k) = serde_json::from_str::<Value>(line)
                .ok()
                .and_then(|v| v["kind"].as_str().map(str::to_string))
            {
                seen.insert(k);
            }
        }
    }
    let unseen: Vec<_> = writer_kinds()
        .into_iter()
        .filter(|k| !seen.contains(k))
        .collect();
    assert!(
        unseen.is_empty(),
        "no fixture or synthetic line produces kind(s) {unseen:?}; extend SYNTHETIC in tests/schema.rs"
    );
}

#[test]
fn jsonl_reads_back_to_the_same_jsonl() {
    // `streamview --format jsonl x | streamview --format jsonl` must be
    // `streamview --format jsonl x`: writer and reader agree on every field.
    for (source, out) in outputs() {
        let again = jsonl(None, out.as_bytes(), &format!("{source} (read back)"));
        if again != out {
            let (n, a, b) = out
                .lines()
                .zip(again.lines())
                .enumerate()
                .find(|(_, (a, b))| a != b)
                .map_or(
                    (out.lines().count().min(again.lines().count()), "", ""),
                    |(n, (a, b))| (n, a, b),
                );
            panic!(
                "{source}: reading the JSONL back changes output line {} ({} vs {} lines):\n  first:  {a}\n  second: {b}",
                n + 1,
                out.lines().count(),
                again.lines().count()
            );
        }
    }
}

/// The `tool_kind` of every tool the recorded fixtures call, per producer:
/// the same action has one kind whatever each agent names its tool.
const TOOL_KINDS: &str = "\
amp Grep search
amp Read read
amp Task agent
amp apply_patch edit
amp async_shell_command shell
amp create_file write
amp edit_file edit
amp glob search
amp shell_command shell
claude Agent agent
claude Bash shell
claude Edit edit
claude Glob search
claude Grep search
claude Read read
claude TaskCreate todo
claude TaskList todo
claude TaskUpdate todo
claude TodoWrite todo
claude Write write
claude-transcript Agent agent
claude-transcript Bash shell
claude-transcript Glob search
claude-transcript Grep search
claude-transcript Read read
cline editor edit
cline editor write
cline no_such_tool other
cline read_files read
cline run_commands shell
cline search_codebase search
codex apply_patch edit
codex mcp__mockecho__echo mcp
codex mcp__mockecho__explode mcp
codex shell shell
codex todo_list todo
codex web_search web_search
codex-rollout apply_patch edit
codex-rollout mcp__mockecho__echo mcp
codex-rollout mcp__mockecho__explode mcp
codex-rollout shell shell
codex-rollout update_plan todo
codex-rollout view_image read
codex-rollout web_search web_search
copilot bash shell
copilot create write
copilot edit edit
copilot glob search
copilot grep search
copilot no_such_tool other
copilot sql todo
copilot view read
crush agent agent
crush bash shell
crush edit edit
crush glob search
crush view read
cursor edit edit
cursor format other
cursor glob search
cursor grep search
cursor ls search
cursor mcp__docs__search_docs mcp
cursor read read
cursor shell shell
cursor updateTodos todo
cursor webFetch fetch
cursor write write
droid Create write
droid Edit edit
droid Execute shell
droid Glob search
droid Grep search
droid LS search
droid Read read
droid no_such_tool other
gemini glob search
gemini grep_search search
gemini list_directory search
gemini mcp_mockecho_echo mcp
gemini mcp_mockecho_explode mcp
gemini no_such_tool other
gemini read_file read
gemini replace edit
gemini run_shell_command shell
gemini write_file write
gemini write_todos todo
grok bash shell
grok create_file write
grok create_todo_list todo
grok no_such_tool other
grok search search
grok str_replace_editor edit
grok view_file read
hermes no_such_tool other
hermes patch edit
hermes read_file read
hermes search_files search
hermes terminal shell
hermes todo todo
hermes write_file write
kilo bash shell
kilo edit edit
kilo glob search
kilo grep search
kilo no_such_tool other
kilo read read
kilo todowrite todo
kilo write write
kimi Glob search
kimi Grep search
kimi ReadFile read
kimi SetTodoList todo
kimi Shell shell
kimi StrReplaceFile edit
kimi WriteFile write
kimi no_such_tool other
openclaw edit edit
openclaw exec shell
openclaw ls search
openclaw read read
openclaw write write
opencode bash shell
opencode edit edit
opencode glob search
opencode grep search
opencode invalid other
opencode read read
opencode task agent
opencode todowrite todo
opencode write write
pi bash shell
pi edit edit
pi find search
pi grep search
pi ls search
pi no_such_tool other
pi read read
pi write write
qwen edit edit
qwen glob search
qwen grep_search search
qwen list_directory search
qwen no_such_tool other
qwen read_file read
qwen run_shell_command shell
qwen todo_write todo
qwen todowrite todo
qwen write_file write
";

#[test]
fn every_tool_of_the_fixtures_has_its_kind() {
    let mut seen = BTreeSet::new();
    for (source, out) in outputs() {
        let mut calls = std::collections::HashMap::new();
        for line in out.lines() {
            let v: Value = serde_json::from_str(line).unwrap();
            let s = |k: &str| v[k].as_str().unwrap_or("").to_string();
            match v["kind"].as_str() {
                Some("tool_call") => {
                    calls.insert(s("id"), v["tool_kind"].clone());
                    if !source.starts_with("synthetic") {
                        seen.insert(format!(
                            "{} {} {}",
                            s("producer"),
                            s("name"),
                            s("tool_kind")
                        ));
                    }
                }
                // A result (and a denial) carries the kind of its call.
                Some("tool_result" | "permission_denied") => {
                    let want = calls.get(&s("id")).cloned().unwrap_or(Value::Null);
                    assert_eq!(v["tool_kind"], want, "{source}: {line}");
                }
                _ => {}
            }
        }
    }
    let want: BTreeSet<String> = TOOL_KINDS.lines().map(str::to_string).collect();
    assert_eq!(seen, want);
}

#[test]
fn every_line_names_its_input() {
    // Two inputs: each line says which it came from; standard input is
    // `<stdin>`; read back, lines keep theirs.
    let a = Path::new(ROOT).join("tests/fixtures/claude/tool_errors.jsonl");
    let b = Path::new(ROOT).join("tests/fixtures/codex/shell_fail.jsonl");
    let out = Command::new(env!("CARGO_BIN_EXE_streamview"))
        .args(["--format", "jsonl"])
        .args([&a, &b])
        .output()
        .unwrap();
    let out = String::from_utf8(out.stdout).unwrap();
    let sources = |text: &str| -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = text
            .lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                (
                    v["producer"].as_str().unwrap().to_string(),
                    v["source"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        v.dedup();
        v
    };
    let (a, b) = (a.display().to_string(), b.display().to_string());
    assert_eq!(
        sources(&out),
        [("claude".into(), a.clone()), ("codex".into(), b.clone())]
    );
    let again = jsonl(None, out.as_bytes(), "read back");
    assert_eq!(sources(&again), [("claude".into(), a), ("codex".into(), b)]);
    let piped = jsonl(
        None,
        fs::read(Path::new(ROOT).join("tests/fixtures/claude/tool_errors.jsonl"))
            .unwrap()
            .as_slice(),
        "stdin",
    );
    assert_eq!(sources(&piped), [("claude".into(), "<stdin>".into())]);
}

/// `--label` (issue 28): every line carries it, and still matches the schema.
#[test]
fn a_labelled_run_matches_the_schema() {
    let schema = Schema {
        root: load_schema(),
    };
    let out = Command::new(env!("CARGO_BIN_EXE_streamview"))
        .args(["--format", "jsonl", "--label", "api"])
        .arg(fixture_dirs()[0].join("../claude/edit_write.jsonl"))
        .env("STREAMVIEW_CONFIG", "")
        .output()
        .unwrap();
    let out = String::from_utf8(out.stdout).unwrap();
    assert!(out.lines().count() > 5, "{out}");
    for line in out.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["label"], "api", "{line}");
        assert_eq!(schema.check_line(line), Vec::<String>::new(), "{line}");
    }
}
