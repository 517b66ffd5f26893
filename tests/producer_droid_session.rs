//! Factory Droid's saved sessions (`~/.factory/sessions/<project>/<id>.jsonl`
//! with `<id>.settings.json` beside it) through the binary, each against the
//! `droid exec -o stream-json` stream of the same run
//! (`tests/fixtures/droid-session/<name>/sessions/` beside
//! `tests/fixtures/droid/<name>.jsonl`): the same tool calls (names, key
//! arguments, failures) and exit status, and the token totals the stream's
//! `completion` reports.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of a test binary

mod common;

use common::saved::{SCENARIOS, calls, tokens};

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/droid-session");
const STREAMS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/droid");

fn stream(name: &str) -> PathBuf {
    Path::new(STREAMS).join(format!("{name}.jsonl"))
}

/// The session's file.
fn session_file(name: &str) -> PathBuf {
    let sessions = Path::new(DIR).join(name).join("sessions");
    let project = std::fs::read_dir(&sessions)
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    std::fs::read_dir(project.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .unwrap()
}

/// The stream's `completion.usage`, read without streamview (none after a
/// failure).
fn completion_usage(name: &str) -> [u64; 3] {
    let text = std::fs::read_to_string(stream(name)).unwrap();
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    let u = &last["usage"];
    ["input_tokens", "output_tokens", "cache_read_input_tokens"].map(|k| u[k].as_u64().unwrap_or(0))
}

#[test]
fn each_saved_session_replays_the_calls_and_outcome_of_its_stream() {
    for name in SCENARIOS {
        assert_eq!(calls(&session_file(name)), calls(&stream(name)), "{name}");
    }
    assert_eq!(calls(&session_file("files")).0.len(), 6);
    assert_eq!(calls(&session_file("error_500")).1, 1);
}

/// The CLI's own totals in `<id>.settings.json` (`tokenUsage`), read
/// without streamview.
fn settings_usage(name: &str) -> [u64; 3] {
    let text = std::fs::read_to_string(session_file(name).with_extension("settings.json")).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    let u = &v["tokenUsage"];
    ["inputTokens", "outputTokens", "cacheReadTokens"].map(|k| u[k].as_u64().unwrap_or(0))
}

#[test]
fn each_saved_session_totals_the_tokens_the_cli_counted() {
    for name in SCENARIOS {
        let dir = Path::new(DIR).join(name);
        assert_eq!(tokens(&dir), settings_usage(name), "{name}: the library");
        assert_eq!(
            tokens(&session_file(name)),
            settings_usage(name),
            "{name}: the file"
        );
        // The stream's `completion` says the same (a failed run prints none).
        if !name.contains("error") {
            assert_eq!(completion_usage(name), settings_usage(name), "{name}");
        }
    }
    assert_eq!(completion_usage("mixed"), [1100, 190, 3200]);
    // The request that failed with HTTP 400 is counted in the settings only.
    assert_eq!(settings_usage("error_400"), [200, 40, 800]);
    assert_eq!(completion_usage("error_400"), [0, 0, 0]);
}

#[test]
fn latest_from_droid_reads_the_factory_folder() {
    let tmp = std::env::temp_dir().join(format!("sv-droid-home-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let file = session_file("mixed");
    let to = tmp.join(".factory/sessions/-w");
    std::fs::create_dir_all(&to).unwrap();
    std::fs::copy(&file, to.join(file.file_name().unwrap())).unwrap();
    let settings = file.with_extension("settings.json");
    std::fs::copy(&settings, to.join(settings.file_name().unwrap())).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_streamview"))
        .args(["--latest", "--from", "droid", "--format", "summary-json"])
        .env("HOME", &tmp)
        .output()
        .unwrap();
    std::fs::remove_dir_all(&tmp).unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    let v: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(v["total"]["tokens"]["cache_read"], 3200);
}

#[test]
fn a_saved_session_names_the_model_of_its_settings_as_the_stream_does() {
    let model = |input: &Path| {
        let (summary, _) = common::saved::streamview(&["--format", "summary-json"], input);
        summary[0]["sessions"][0]["model"].clone()
    };
    for name in ["mixed", "files"] {
        let saved = model(&session_file(name));
        assert_eq!(saved, "custom:Mock-(loopback)-0", "{name}");
        assert_eq!(saved, model(&stream(name)), "{name}");
    }
}
