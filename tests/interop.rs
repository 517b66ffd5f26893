//! Interop with the tools people pipe streamview into:
//!
//! - every example in README.md, docs/usage.md and docs/schema.md that runs
//!   on `examples/sample-session.jsonl` or `tests/fixtures/` and shows its
//!   output is run, and must print exactly that output (the jq one-liners,
//!   the `DuckDB` queries, `--format result`, the summaries); every jq or
//!   `DuckDB` pipeline those pages and `--help` show is one of them;
//! - the `DuckDB` queries of docs/schema.md run on the view they define and
//!   print what the page shows;
//! - the JSONL of every fixture loads in `DuckDB`, one row per line: per
//!   producer with `read_json_auto`, all mixed with the columns declared
//!   (as the README says), and a query by `tool_kind` finds every call.
//!
//! jq and `DuckDB` are not Rust crates: these tests use a `jq` binary and a
//! `duckdb` binary (`PyPI` `duckdb-cli`) or Python's `duckdb` module when they
//! are installed, and otherwise say that they skipped. `.ci/run` installs
//! them and sets `STREAMVIEW_REQUIRE_INTEROP=1`, which turns a missing tool
//! into a failure, so CI cannot skip them silently.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

mod common;

use common::ENV_VARS;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn required() -> bool {
    std::env::var_os("STREAMVIEW_REQUIRE_INTEROP").is_some_and(|v| !v.is_empty() && v != "0")
}

/// True when `tool` can be used; otherwise skip (or fail in CI).
fn available(tool: &str, found: bool) -> bool {
    assert!(
        found || !required(),
        "{tool} is not installed but STREAMVIEW_REQUIRE_INTEROP is set (.ci/run installs it)"
    );
    if !found {
        eprintln!("skipped: {tool} is not installed");
    }
    found
}

fn runs(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn have_jq() -> bool {
    runs("jq", &["--version"])
}

fn have_duckdb_cli() -> bool {
    runs("duckdb", &["-version"])
}

fn have_duckdb_python() -> bool {
    runs("python3", &["-c", "import duckdb"])
}

/// A shell with the freshly built `streamview` first on `PATH`, in the
/// repository, with a hermetic environment.
fn shell(script: &str) -> std::process::Output {
    let bin = assert_cmd::cargo::cargo_bin("streamview");
    let dir = bin.parent().unwrap();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut paths = vec![dir.to_path_buf()];
    paths.extend(std::env::split_paths(&path));
    let mut cmd = Command::new("sh");
    cmd.args(["-c", script])
        .current_dir(root())
        .env("PATH", std::env::join_paths(paths).unwrap())
        // The tables say local times: the README's are in UTC.
        .env("TZ", "UTC")
        .stdin(Stdio::null());
    for v in ENV_VARS {
        cmd.env_remove(v);
    }
    cmd.output().unwrap()
}

/// A README example: the command and the output shown under it.
#[derive(Debug)]
struct Example {
    file: &'static str,
    line: usize,
    command: String,
    output: String,
}

/// The pages whose examples are run.
const PAGES: [&str; 3] = ["README.md", "docs/usage.md", "docs/schema.md"];

/// Every ```sh block of one `streamview …` command on
/// `examples/sample-session.jsonl` or files of `tests/fixtures/` that is
/// followed by a ```text block, in the README, the usage guide and the
/// schema.
fn readme_examples() -> Vec<Example> {
    PAGES.into_iter().flat_map(examples_in).collect()
}

/// Runs on files of the repository (not on a placeholder such as
/// `session.jsonl`).
fn on_repository_files(command: &str) -> bool {
    command.contains("examples/sample-session.jsonl") || command.contains("tests/fixtures/")
}

/// The fenced code blocks of `file`: (line of the block's first line, its
/// language, its lines, the text of the `text` block that follows, if one
/// does).
fn code_blocks(file: &str) -> Vec<(usize, String, Vec<String>, Option<String>)> {
    let text = std::fs::read_to_string(root().join(file)).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let block = |start: usize| -> Option<(Vec<String>, usize)> {
        let mut body = Vec::new();
        for (i, l) in lines.iter().enumerate().skip(start + 1) {
            if *l == "```" {
                return Some((body, i));
            }
            body.push((*l).to_string());
        }
        None
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if let Some(lang) = lines[i].strip_prefix("```")
            && let Some((body, end)) = block(i)
        {
            let next = (end + 1..lines.len()).find(|&j| !lines[j].trim().is_empty());
            let shown = next
                .filter(|&j| lines[j] == "```text")
                .and_then(block)
                .map(|(b, _)| b.join("\n") + "\n");
            out.push((i + 2, lang.to_string(), body, shown));
            i = end;
        }
        i += 1;
    }
    out
}

fn examples_in(file: &'static str) -> Vec<Example> {
    code_blocks(file)
        .into_iter()
        .filter_map(
            |(line, lang, body, shown)| match (lang.as_str(), body.as_slice(), shown) {
                ("sh", [command], Some(output))
                    if command.starts_with("streamview ") && on_repository_files(command) =>
                {
                    Some(Example {
                        file,
                        line,
                        command: command.clone(),
                        output,
                    })
                }
                _ => None,
            },
        )
        .collect()
}

#[test]
fn readme_has_the_documented_examples() {
    let ex = readme_examples();
    let has = |needle: &str| ex.iter().any(|e| e.command.contains(needle));
    assert!(has(
        "| jq -r 'select(.kind==\"tool_call\") | .name' | sort | uniq -c"
    ));
    assert!(
        has(".is_error and .tool_kind==\"shell\") | $c[.id].key_arg"),
        "failed shell commands of any agent"
    );
    assert!(has("| duckdb -c"));
    assert!(
        has("tests/fixtures/*/shell_fail.jsonl | duckdb"),
        "agents mixed"
    );
    assert!(has("--format result"));
    assert!(has("--format summary "));
    assert!(ex.len() >= 20, "{ex:#?}");
}

/// A line of an `sh` block that pipes into jq or `DuckDB`.
fn is_pipeline(line: &str) -> bool {
    line.contains("| jq ") || line.contains("| duckdb ")
}

#[test]
fn every_documented_pipeline_is_run() {
    // Each jq or DuckDB pipeline of the pages is an example that is run
    // (the quick look at the top of the README ends in `jq …`: no recipe).
    let run: Vec<String> = readme_examples().into_iter().map(|e| e.command).collect();
    let mut seen = 0;
    for file in PAGES {
        for (line, lang, body, _) in code_blocks(file) {
            if lang != "sh" {
                continue;
            }
            for l in body.iter().filter(|l| is_pipeline(l) && !l.contains('…')) {
                assert!(
                    run.contains(l),
                    "{file}:{line}: `{l}` is not run by tests/interop.rs: give it a file of the \
                     repository and the output it prints (a ```text block)"
                );
                seen += 1;
            }
        }
    }
    assert!(seen >= 15, "{seen}");
}

#[test]
fn help_pipelines_are_readme_examples() {
    // `--help`'s jq and DuckDB examples read `session.jsonl`; on the sample
    // session they are README examples, which are run.
    let run: Vec<String> = readme_examples().into_iter().map(|e| e.command).collect();
    let pipelines: Vec<&str> = streamview::cli::EXAMPLES
        .iter()
        .map(|e| e.command)
        .filter(|c| is_pipeline(c))
        .collect();
    assert!(pipelines.len() >= 3, "{pipelines:?}");
    for p in pipelines {
        let on_sample = p.replace("session.jsonl", "examples/sample-session.jsonl");
        assert!(
            run.contains(&on_sample),
            "--help shows `{p}`, which the README does not run on the sample session"
        );
    }
}

/// The cells of a `DuckDB` box table (`│ a │ b │` rows below the header).
fn box_cells(table: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let mut body = false;
    for l in table.lines() {
        if l.starts_with('├') {
            body = true;
        } else if l.starts_with('└') {
            break;
        } else if body {
            rows.push(
                l.trim_matches('│')
                    .split('│')
                    .map(|c| c.trim().to_string())
                    .collect(),
            );
        }
    }
    rows
}

/// Run `sql` (which may read `/dev/stdin`) over the output of `feed` with
/// the `DuckDB` CLI or, failing that, Python's module; rows as strings.
fn duckdb_rows(feed: &str, sql: &str) -> Vec<Vec<String>> {
    let script = if have_duckdb_cli() {
        let quoted = sql.replace('\'', "'\\''");
        format!("{feed} | duckdb -noheader -csv -c '{quoted}'")
    } else {
        // The module does not detect the format of a pipe: go through a file.
        let file = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("interop-stdin-{}.jsonl", std::process::id()));
        let file = file.display();
        let quoted = sql
            .replace("/dev/stdin", &file.to_string())
            .replace('\'', "'\\''");
        format!(
            "{feed} > '{file}' && python3 -c 'import duckdb, sys\nfor r in duckdb.sql(sys.argv[1]).fetchall(): print(\",\".join(\"\" if v is None else str(v) for v in r))' '{quoted}'"
        )
    };
    let out = shell(&script);
    assert!(
        out.status.success(),
        "{script}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

#[test]
fn readme_examples_print_what_the_readme_shows() {
    let mut ran = 0;
    for ex in readme_examples() {
        let needs_jq = ex.command.contains("| jq ");
        let needs_duckdb = ex.command.contains("| duckdb ");
        if needs_jq && !available("jq", have_jq()) {
            continue;
        }
        if needs_duckdb {
            if !available("duckdb", have_duckdb_cli() || have_duckdb_python()) {
                continue;
            }
            if !have_duckdb_cli() {
                // Python's module has no box output: compare the cells.
                let (feed, rest) = ex.command.split_once("| duckdb -c \"").unwrap();
                let sql = rest.strip_suffix('"').unwrap();
                assert_eq!(
                    duckdb_rows(feed, sql),
                    box_cells(&ex.output),
                    "{}:{}",
                    ex.file,
                    ex.line
                );
                ran += 1;
                continue;
            }
        }
        let out = shell(&ex.command);
        let stdout = String::from_utf8(out.stdout).unwrap();
        if std::env::var_os("STREAMVIEW_BLESS").is_some() && stdout != ex.output {
            bless(&ex, &stdout);
            continue;
        }
        assert_eq!(
            stdout,
            ex.output,
            "{}:{}: `{}` printed something else (stderr: {})",
            ex.file,
            ex.line,
            ex.command,
            String::from_utf8_lossy(&out.stderr)
        );
        ran += 1;
    }
    eprintln!("{ran} README examples run");
}

/// `STREAMVIEW_BLESS=1 cargo test --test interop`: the page shows what the
/// example prints now (review the change with `git diff`).
fn bless(ex: &Example, printed: &str) {
    let path = root().join(ex.file);
    let page = std::fs::read_to_string(&path).unwrap();
    let block = |out: &str| format!("```sh\n{}\n```\n\n```text\n{out}```", ex.command);
    let old = block(&ex.output);
    assert_eq!(
        page.matches(&old).count(),
        1,
        "{}:{}: cannot bless",
        ex.file,
        ex.line
    );
    std::fs::write(&path, page.replace(&old, &block(printed))).unwrap();
}

/// Run `sql` with the `DuckDB` CLI (statements on its standard input);
/// what it prints.
fn duckdb_cli(sql: &str) -> String {
    let mut child = Command::new("duckdb")
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), sql.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && stderr.is_empty(), "{sql}\n{stderr}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn schema_duckdb_queries_print_what_the_page_shows() {
    if !available("duckdb", have_duckdb_cli()) {
        return;
    }
    let blocks = code_blocks("docs/schema.md");
    // The events: the page's `streamview … > events.jsonl`, into a file of ours.
    let events = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("schema-events.jsonl");
    let (_, _, write, _) = blocks
        .iter()
        .find(|(_, lang, body, _)| {
            lang == "sh" && body.len() == 1 && body[0].ends_with("> events.jsonl")
        })
        .expect("docs/schema.md writes events.jsonl for its DuckDB examples");
    let command = write[0].replace("> events.jsonl", &format!("> '{}'", events.display()));
    assert!(shell(&command).status.success(), "{command}");
    let at = |sql: &str| sql.replace("'events.jsonl'", &format!("'{}'", events.display()));
    let sql: Vec<_> = blocks
        .iter()
        .filter(|(_, lang, _, _)| lang == "sql")
        .collect();
    let (_, _, view, _) = sql[0];
    let view = at(&view.join("\n"));
    assert!(view.starts_with("CREATE VIEW ev AS"), "{view}");
    assert!(sql.len() >= 4);
    for (line, _, query, shown) in &sql[1..] {
        let shown = shown
            .as_ref()
            .unwrap_or_else(|| panic!("docs/schema.md:{line}: a query without its output"));
        let printed = duckdb_cli(&format!("{view}\n{}\n", at(&query.join("\n"))));
        assert_eq!(&printed, shown, "docs/schema.md:{line}");
    }
}

/// JSONL of every fixture, written to files: (producer directory, files).
fn fixture_jsonl() -> Vec<(String, Vec<(PathBuf, usize)>)> {
    let out_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("interop-jsonl");
    std::fs::create_dir_all(&out_dir).unwrap();
    let bin = assert_cmd::cargo::cargo_bin("streamview");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root().join("tests/fixtures"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() && !p.ends_with("misc"))
        .collect();
    dirs.sort();
    let mut all = Vec::new();
    for dir in dirs {
        let producer = dir.file_name().unwrap().to_str().unwrap().to_string();
        let mut inputs: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .collect();
        inputs.sort();
        let mut files = Vec::new();
        for input in inputs {
            let out = Command::new(&bin)
                .args(["--format", "jsonl"])
                .arg(&input)
                .output()
                .unwrap();
            let name = format!(
                "{producer}__{}",
                input.file_name().unwrap().to_str().unwrap()
            );
            let path = out_dir.join(name);
            let lines = memchr::memchr_iter(b'\n', &out.stdout).count();
            std::fs::write(&path, &out.stdout).unwrap();
            if lines > 0 {
                files.push((path, lines));
            }
        }
        all.push((producer, files));
    }
    all
}

fn sql_list(files: &[&(PathBuf, usize)]) -> String {
    let names: Vec<String> = files
        .iter()
        .map(|(p, _)| format!("'{}'", p.display()))
        .collect();
    format!("[{}]", names.join(", "))
}

/// `read_json_auto` reads every line of every fixture's JSONL as one row,
/// with the kind in its column, per producer; all producers mixed load
/// with the columns declared (as the README says) and can be queried.
#[test]
fn jsonl_loads_in_duckdb() {
    if !available("duckdb", have_duckdb_cli() || have_duckdb_python()) {
        return;
    }
    let all = fixture_jsonl();
    let check = |files: &[&(PathBuf, usize)]| {
        let sql = format!(
            "SELECT filename, count(*), count(kind) FROM read_json_auto({}, filename = true) \
             GROUP BY filename ORDER BY filename",
            sql_list(files)
        );
        let rows = duckdb_rows("true", &sql);
        assert_eq!(rows.len(), files.len(), "{sql}");
        let mut expected: Vec<(String, usize)> = files
            .iter()
            .map(|(p, n)| (p.display().to_string(), *n))
            .collect();
        expected.sort();
        for (row, (name, lines)) in rows.iter().zip(expected) {
            assert_eq!(row[0], name);
            assert_eq!(row[1], lines.to_string(), "{name}: rows");
            assert_eq!(row[2], lines.to_string(), "{name}: every row has a kind");
        }
    };
    for (producer, files) in &all {
        let refs: Vec<&(PathBuf, usize)> = files.iter().collect();
        eprintln!("{producer}: {} files", refs.len());
        // A fixture folder of other files (no stream) has nothing to load.
        if !refs.is_empty() {
            check(&refs);
        }
    }
    // All mixed, with the columns declared (the README's way); a query by
    // kind and tool kind finds every tool call of every file.
    let mixed: Vec<&(PathBuf, usize)> = all.iter().flat_map(|(_, f)| f.iter()).collect();
    let sql = format!(
        "SELECT filename, count(*), count(kind), count(*) FILTER (WHERE kind = 'tool_call'), \
         count(*) FILTER (WHERE kind = 'tool_call' AND tool_kind = 'shell') \
         FROM read_json({}, filename = true, columns = {{kind: 'VARCHAR', tool_kind: 'VARCHAR'}}) \
         GROUP BY filename ORDER BY filename",
        sql_list(&mixed)
    );
    let rows = duckdb_rows("true", &sql);
    let mut expected: Vec<&(PathBuf, usize)> = mixed.clone();
    expected.sort();
    assert_eq!(rows.len(), expected.len(), "{sql}");
    let (mut calls, mut shell) = (0, 0);
    for (row, (path, lines)) in rows.iter().zip(expected) {
        let text = std::fs::read_to_string(path).unwrap();
        let count = |needles: &[&str]| {
            text.lines()
                .filter(|l| needles.iter().all(|n| l.contains(n)))
                .count()
        };
        let name = path.display().to_string();
        assert_eq!(row[0], name);
        assert_eq!(row[1], lines.to_string(), "{name}: rows");
        assert_eq!(row[2], lines.to_string(), "{name}: every row has a kind");
        let c = count(&[r#""kind":"tool_call""#]);
        let sh = count(&[r#""kind":"tool_call""#, r#""tool_kind":"shell""#]);
        assert_eq!(row[3], c.to_string(), "{name}: tool calls");
        assert_eq!(row[4], sh.to_string(), "{name}: shell commands");
        calls += c;
        shell += sh;
    }
    assert!(
        calls > 250 && shell > 100,
        "{calls} calls, {shell} shell commands"
    );

    // Typed access to nested fields: tool calls and their commands.
    let (_, claude) = all.iter().find(|(p, _)| p == "claude").unwrap();
    let tool_errors = claude
        .iter()
        .find(|(p, _)| p.to_str().unwrap().ends_with("tool_errors.jsonl"))
        .unwrap();
    let rows = duckdb_rows(
        "true",
        &format!(
            "SELECT name, input.command FROM read_json_auto('{}') \
             WHERE kind = 'tool_call' AND name = 'Bash' ORDER BY line",
            tool_errors.0.display()
        ),
    );
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_eq!(rows[1], ["Bash", "sleep 5"]);
}
