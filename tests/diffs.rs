//! Diffs of the edits tool calls report (issue 16): checked against real
//! edits of the fixtures, whose tool results give the file before the edit
//! (`originalFile`) and Claude Code's own patch of it (`structuredPatch`);
//! patches read as they came; the unified text read back; hostile file
//! content shown inert in the pretty diff.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

mod common;

use common::{assert_terminal_safe, fixture, read, run};
use serde_json::Value;
use streamview::event::Edit;
use streamview::render::diff::{DiffLine, Differ, HunkRange, Stat};

/// The lines of a diff as unified text, one string each.
fn unified(lines: impl Iterator<Item = String>) -> Vec<String> {
    lines.collect()
}

fn marked(l: DiffLine<'_>) -> String {
    match l {
        DiffLine::Hunk(Some(r)) => r.to_string(),
        DiffLine::Hunk(None) => "@@".into(),
        DiffLine::Header(t) => t.into(),
        DiffLine::Context(t) => format!(" {t}"),
        DiffLine::Added(t) => format!("+{t}"),
        DiffLine::Removed(t) => format!("-{t}"),
    }
}

/// Lines `<prefix>1` to `<prefix>n`.
fn numbered(prefix: &str, n: usize) -> String {
    (1..=n)
        .map(|i| format!("{prefix}{i}\n"))
        .collect::<Vec<_>>()
        .concat()
}

/// The structured results of Claude's `Edit` calls in a fixture.
fn claude_edits(rel: &str) -> Vec<Value> {
    let data = read(&fixture(rel));
    data.split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .filter_map(|l| serde_json::from_slice::<Value>(l).ok())
        .filter_map(|v| v.get("tool_use_result").cloned())
        .filter(|r| r.get("oldString").is_some() && r["structuredPatch"].is_array())
        .collect()
}

/// Each real edit, applied to the file it was made to, gives Claude Code's
/// own patch: the same hunk, the same lines, the same counts.
#[test]
fn real_edits_match_claude_codes_own_patch() {
    let mut checked = 0;
    for rel in ["claude/edit_write.jsonl", "claude-2.1.330/edit_write.jsonl"] {
        for r in claude_edits(rel) {
            let before = r["originalFile"].as_str().unwrap();
            let (old, new) = (
                r["oldString"].as_str().unwrap(),
                r["newString"].as_str().unwrap(),
            );
            let after = if r["replaceAll"].as_bool() == Some(true) {
                before.replace(old, new)
            } else {
                before.replacen(old, new, 1)
            };
            let mut differ = Differ::new();
            let diff = differ.files(before, &after, 3);
            let got = unified(diff.lines().map(marked));
            let mut want = Vec::new();
            let (mut added, mut removed) = (0, 0);
            for h in r["structuredPatch"].as_array().unwrap() {
                let n = |k: &str| usize::try_from(h[k].as_u64().unwrap()).unwrap();
                let range = HunkRange {
                    old_start: n("oldStart") - 1,
                    old_len: n("oldLines"),
                    new_start: n("newStart") - 1,
                    new_len: n("newLines"),
                };
                want.push(range.to_string());
                for l in h["lines"].as_array().unwrap() {
                    let l = l.as_str().unwrap();
                    added += u64::from(l.starts_with('+'));
                    removed += u64::from(l.starts_with('-'));
                    want.push(l.to_string());
                }
            }
            assert_eq!(got, want, "{rel}: {old:?} → {new:?}");
            assert_eq!(diff.stat(), Stat { added, removed });
            checked += 1;
        }
    }
    assert_eq!(checked, 4);
}

/// An edit's fragments: the lines removed before the lines added, no line
/// numbers (where the fragment sits is not in the call), the unchanged
/// lines around as context.
#[test]
fn an_edits_fragments_diff_without_line_numbers() {
    let edit = Edit::Replace {
        old: "fn a() {\n    one();\n    two();\n}\n".into(),
        new: "fn a() {\n    one();\n    three();\n    four();\n}\n".into(),
        all: false,
    };
    let mut differ = Differ::new();
    let diff = differ.diff(&edit, 3);
    assert_eq!(
        unified(diff.lines().map(marked)),
        [
            "@@",
            " fn a() {",
            "     one();",
            "-    two();",
            "+    three();",
            "+    four();",
            " }"
        ]
    );
    assert_eq!(
        diff.stat(),
        Stat {
            added: 2,
            removed: 1
        }
    );
    assert_eq!(
        differ.stat(&edit),
        Some(Stat {
            added: 2,
            removed: 1
        })
    );
}

/// Changes far apart are two hunks, each with its own numbers; close
/// ones share a hunk.
#[test]
fn hunks_split_where_the_unchanged_run_is_long() {
    let before = numbered("line ", 20);
    let far = before
        .replace("line 2\n", "line two\n")
        .replace("line 18\n", "line eighteen\n");
    let mut differ = Differ::new();
    let diff = differ.files(&before, &far, 3);
    let hunks: Vec<_> = diff
        .lines()
        .filter_map(|l| match l {
            DiffLine::Hunk(r) => r.map(|r| r.to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(hunks, ["@@ -1,5 +1,5 @@", "@@ -15,6 +15,6 @@"]);
    let near = before
        .replace("line 2\n", "line two\n")
        .replace("line 6\n", "line six\n");
    let diff = differ.files(&before, &near, 3);
    let n = diff
        .lines()
        .filter(|l| matches!(l, DiffLine::Hunk(_)))
        .count();
    assert_eq!(n, 1);
    assert_eq!(
        diff.stat(),
        Stat {
            added: 2,
            removed: 2
        }
    );
}

/// A whole new file: every line added, numbered from 1.
#[test]
fn a_write_adds_every_line() {
    let edit = Edit::Write("a\nb\nc".into());
    let mut differ = Differ::new();
    let diff = differ.diff(&edit, 3);
    assert_eq!(
        unified(diff.lines().map(marked)),
        ["@@ -0,0 +1,3 @@", "+a", "+b", "+c"]
    );
    assert_eq!(
        differ.stat(&edit),
        Some(Stat {
            added: 3,
            removed: 0
        })
    );
}

/// An `apply_patch` text (Amp's and `OpenCode`'s `patchText`): its headers
/// kept, its `+`/`-` lines counted, a `@@` with a context hint a header.
#[test]
fn a_patch_is_read_as_it_came() {
    let patch = "*** Begin Patch\n*** Update File: src/a.rs\n@@ fn main\n let x = 1;\n-let y = 2;\n+let y = 3;\n+let z = 4;\n*** Add File: b.txt\n+hello\n*** End Patch\n";
    let edit = Edit::Patch(patch.into());
    let mut differ = Differ::new();
    let diff = differ.diff(&edit, 3);
    assert_eq!(
        diff.stat(),
        Stat {
            added: 3,
            removed: 1
        }
    );
    let lines: Vec<_> = diff.lines().collect();
    assert_eq!(lines[2], DiffLine::Header("@@ fn main"));
    assert_eq!(lines[3], DiffLine::Context("let x = 1;"));
    assert_eq!(lines[4], DiffLine::Removed("let y = 2;"));
    assert_eq!(lines[7], DiffLine::Header("*** Add File: b.txt"));
}

/// The unified text of a diff, read back as a patch, gives the same lines
/// (streamview's JSONL read back shows the diff it wrote).
#[test]
fn unified_text_reads_back_as_the_same_lines() {
    let before = numbered("l", 30);
    let after = before.replace("l3\n", "").replace("l25\n", "l25\nnew\n");
    let mut differ = Differ::new();
    let diff = differ.files(&before, &after, 3);
    let mut text = String::new();
    diff.write_unified(&mut text);
    let first: Vec<String> = diff.lines().map(marked).collect();
    let stat = diff.stat();
    let back = Edit::Patch(text.clone().into());
    let again = differ.diff(&back, 3);
    assert_eq!(again.lines().map(marked).collect::<Vec<_>>(), first);
    assert_eq!(again.stat(), stat);
    assert!(text.starts_with("@@ -1,6 +1,5 @@\n"), "{text}");
}

/// A file's text holding escape sequences, control characters and bidi
/// overrides is shown in the `-v` diff, in colour, with nothing raw.
#[test]
fn hostile_content_in_a_diff_stays_inert() {
    let hostile = r"\u001b]0;pwned\u0007\u001b[2J\u009b31m\r\bEVIL\u202e";
    // The call, then its result's own patch of the file (shown with -v).
    let line = format!(
        r#"{{"type":"assistant","message":{{"id":"m1","role":"assistant","content":[{{"type":"tool_use","id":"t1","name":"Edit","input":{{"file_path":"/w/a.txt","old_string":"keep\nold {hostile}\n","new_string":"keep\nnew {hostile}\n"}}}}]}}}}
{{"type":"user","message":{{"role":"user","content":[{{"tool_use_id":"t1","type":"tool_result","content":"updated"}}]}},"tool_use_result":{{"filePath":"/w/a.txt","structuredPatch":[{{"oldStart":1,"oldLines":2,"newStart":1,"newLines":2,"lines":[" keep","-old {hostile}","+new {hostile}\n\u001b[2J"]}}]}}}}"#
    );
    for args in [
        &["-v", "--color", "always"][..],
        &["-v", "--color", "never"],
        &["--color", "always"],
    ] {
        let out = run(args, format!("{line}\n").as_bytes());
        assert_terminal_safe("diff", &out.stdout, args.contains(&"always"));
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains("+1") && text.contains("−1"), "{text}");
        if args[0] == "-v" {
            assert!(text.contains("-old "), "{text}");
            assert!(text.contains("+new "), "{text}");
        }
    }
}

/// The real session's lines: `edit_write.jsonl` of Claude Code 2.1.197.
fn edit_write() -> Vec<u8> {
    read(&fixture("claude/edit_write.jsonl"))
}

/// Claude Code's results give each edit's patch with its place in the file
/// (`structuredPatch`): with `-v`, the diff under the result has the real
/// hunk headers, and the call's own fragment diff (a bare `@@`) is not
/// shown as well; a `Write` over an existing file is diffed against its old
/// content (`+5 −3`), not counted as all added.
#[test]
fn claude_results_give_numbered_hunks_and_a_writes_real_diff() {
    let out = run(&["-v", "--color", "never"], &edit_write());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.lines().any(|l| l.trim() == "@@"), "{text}");
    // The first Edit: `- [ ] first item` ticked, in lines 1-4 of the file.
    let edit = text.find("▸ Edit notes/todo.md\n  ⎿ +1 −1\n").expect(&text);
    assert!(
        text[edit..].contains("    @@ -1,4 +1,4 @@\n     # TODO\n     \n    -- [ ] first item\n    +- [x] first item (done)\n"),
        "{text}"
    );
    // `replace_all`: counted once, by the result, both occurrences (the
    // call's fragment is one).
    assert!(!text.contains("+1 −1\n  ⎿ +2 −2"), "{text}");
    let all = text.find("▸ Edit hello.py\n  ⎿ +2 −2\n").expect(&text);
    assert!(
        text[all..].contains("    -greet()\n    +welcome()\n"),
        "{text}"
    );
    // The Write over hello.py: the old lines removed, not only the new added.
    let write = text
        .find("▸ Write hello.py\n  ⎿ +5 −3\n    @@ -1,4 +1,6 @@\n    -def welcome():\n")
        .expect(&text);
    assert!(
        text[write..].contains("    +if __name__ == \"__main__\":\n"),
        "{text}"
    );
    // The Write of a new file: its result has no patch, all of it is added.
    assert!(
        text.contains("▸ Write notes/todo.md\n  ⎿ +4\n    @@ -0,0 +1,4 @@\n    +# TODO\n"),
        "{text}"
    );
}

/// The JSONL `tool_result` of an edit carries the changes its result
/// reports (counts and numbered diff); other results have no such field;
/// read back, the same lines come out.
#[test]
fn claude_results_changes_in_jsonl_and_read_back() {
    let out = run(&["--format", "jsonl"], &edit_write());
    let lines: Vec<Value> = out
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    let results: Vec<&Value> = lines
        .iter()
        .filter(|v| v["kind"] == "tool_result")
        .collect();
    let with: Vec<(&str, u64, u64)> = results
        .iter()
        .filter(|v| v["changes"] != serde_json::json!([]))
        .map(|v| {
            (
                v["name"].as_str().unwrap(),
                v["lines_added"].as_u64().unwrap(),
                v["lines_removed"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        with,
        [
            ("Write", 4, 0),
            ("Edit", 1, 1),
            ("Edit", 2, 2),
            ("Write", 5, 3)
        ]
    );
    let write = results.iter().rfind(|v| v["name"] == "Write").unwrap();
    let diff = write["changes"][0]["diff"].as_str().unwrap();
    assert!(
        diff.starts_with("@@ -1,4 +1,6 @@\n-def welcome():\n"),
        "{diff}"
    );
    let again = run(&["--format", "jsonl"], &out.stdout);
    let strip = |b: &[u8]| -> Vec<Value> {
        b.split(|&c| c == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| {
                let mut v: Value = serde_json::from_slice(l).unwrap();
                for k in ["producer", "line", "source"] {
                    v.as_object_mut().unwrap().remove(k);
                }
                v
            })
            .filter(|v| v["kind"] == "tool_result")
            .collect()
    };
    assert_eq!(strip(&again.stdout), strip(&out.stdout));
}

/// A `Write` result without a `structuredPatch` but with the file's old
/// content (`originalFile`): the whole file before and after is diffed,
/// numbered. The real line of the fixture, its patch taken out; in a
/// transcript's spelling (`toolUseResult`) as well.
#[test]
fn a_writes_old_content_gives_a_numbered_diff() {
    let data = String::from_utf8(edit_write()).unwrap();
    let write = data
        .lines()
        .find(|l| l.contains(r#""type":"update""#))
        .unwrap();
    let mut v: Value = serde_json::from_str(write).unwrap();
    v["tool_use_result"]
        .as_object_mut()
        .unwrap()
        .remove("structuredPatch");
    let call = data
        .lines()
        .find(|l| l.contains(r#""name":"Write""#) && l.contains("hello.py"))
        .unwrap();
    let mut t = v.clone();
    let r = t
        .as_object_mut()
        .unwrap()
        .remove("tool_use_result")
        .unwrap();
    t["toolUseResult"] = r;
    for line in [v, t] {
        let input = format!("{call}\n{line}\n");
        let out = run(&["-v", "--color", "never"], input.as_bytes());
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains("  ⎿ +5 −3\n    @@ -1,4 +1,6 @@\n    -def welcome():\n    -    print(\"hi\")\n    +def greet(name):\n"),
            "{text}"
        );
    }
}

/// The JSONL tool calls of a fixture that change files: name, and the
/// lines added and removed (`None`: the producer gives no counts).
fn edit_calls(rel: &str) -> Vec<(String, Option<(u64, u64)>)> {
    let out = run(&["--format", "jsonl"], &read(&fixture(rel)));
    out.stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice::<Value>(l).unwrap())
        .filter(|v| v["kind"] == "tool_call" && v["changes"] != serde_json::json!([]))
        .map(|v| {
            let n = |k: &str| v[k].as_u64();
            let counts = n("lines_added").zip(n("lines_removed"));
            (v["name"].as_str().unwrap().to_string(), counts)
        })
        .collect()
}

/// Every producer's edit tools, in real captures, give their changes:
/// Claude's `Edit` and `Write`, Gemini's `replace` and `write_file`,
/// `OpenCode`'s `edit` and `write`, Qwen's `edit` and `write_file`, Amp's
/// `edit_file`, `create_file` and `apply_patch`, Codex's `file_change`
/// (paths and actions, no counts) and a rollout's `apply_patch`.
#[test]
fn every_producers_edit_tools_give_their_changes() {
    let c = |name: &str, a: u64, r: u64| (name.to_string(), Some((a, r)));
    let table = [
        (
            "claude/edit_write.jsonl",
            vec![
                c("Write", 4, 0),
                c("Edit", 1, 1),
                c("Edit", 1, 1),
                c("Write", 6, 0),
            ],
        ),
        (
            "gemini/files.jsonl",
            vec![c("write_file", 3, 0), c("replace", 1, 1)],
        ),
        (
            "opencode/files.jsonl",
            vec![c("write", 3, 0), c("edit", 1, 1)],
        ),
        (
            "qwen/files.jsonl",
            vec![c("write_file", 3, 0), c("edit", 1, 1)],
        ),
        (
            "amp/multi.jsonl",
            vec![
                c("create_file", 3, 0),
                c("create_file", 5, 0),
                c("edit_file", 2, 0),
                c("edit_file", 1, 1),
                c("apply_patch", 2, 0),
            ],
        ),
        (
            "codex/apply_patch.jsonl",
            vec![("apply_patch".to_string(), None); 3],
        ),
        (
            "codex-rollout/apply_patch.rollout.jsonl",
            vec![
                c("apply_patch", 2, 0),
                c("apply_patch", 2, 1),
                c("apply_patch", 1, 1),
                c("apply_patch", 1, 0),
            ],
        ),
    ];
    for (rel, want) in table {
        let mut got = edit_calls(rel);
        let mut want = want;
        got.sort();
        want.sort();
        assert_eq!(got, want, "{rel}");
    }
}

/// `MultiEdit` (Claude Code ≤ 1.0) and `NotebookEdit`, which no capture
/// holds: the real `Edit` line of the fixture given their documented
/// inputs (`edits[]`; `new_source`, `edit_mode`).
#[test]
fn multi_edit_and_notebook_edit_give_their_changes() {
    let data = String::from_utf8(edit_write()).unwrap();
    let edit = data
        .lines()
        .find(|l| l.contains(r#""name":"Edit""#))
        .unwrap();
    let v: Value = serde_json::from_str(edit).unwrap();
    let input = v["message"]["content"][0]["input"].clone();
    let with = |name: &str, input: Value| {
        let mut v = v.clone();
        let block = &mut v["message"]["content"][0];
        block["name"] = name.into();
        block["input"] = input;
        let out = run(&["--format", "jsonl"], format!("{v}\n").as_bytes());
        let call = (out.stdout.split(|&b| b == b'\n'))
            .filter_map(|l| serde_json::from_slice::<Value>(l).ok())
            .find(|l| l["kind"] == "tool_call")
            .unwrap();
        call["changes"].clone()
    };
    let multi = with(
        "MultiEdit",
        serde_json::json!({
            "file_path": input["file_path"],
            "edits": [
                {"old_string": input["old_string"], "new_string": input["new_string"]},
                {"old_string": "a\nb\n", "new_string": "c\n", "replace_all": true},
            ],
        }),
    );
    let counts: Vec<(u64, u64)> = multi
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["lines_added"].as_u64().unwrap(),
                c["lines_removed"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(counts, [(1, 1), (1, 2)], "{multi}");
    let cell = with(
        "NotebookEdit",
        serde_json::json!({"notebook_path": "/w/n.ipynb", "cell_id": "c1", "new_source": "x = 1\nprint(x)\n"}),
    );
    assert_eq!(cell[0]["lines_added"], 2, "{cell}");
    let gone = with(
        "NotebookEdit",
        serde_json::json!({"notebook_path": "/w/n.ipynb", "cell_id": "c1", "edit_mode": "delete"}),
    );
    assert_eq!(gone[0]["action"], "delete", "{gone}");
}
