//! The man page: `clap_mangen` renders the name, synopsis, description and
//! options from the clap definition; the sections a man page needs beyond
//! that (output, filters, JSONL schema, environment, exit status, examples)
//! are built here from the same tables `--help` prints, so the two cannot
//! disagree.

use clap_mangen::Man;
use clap_mangen::roff::{Roff, bold, italic, roman};

use super::{ENVIRONMENT, EXAMPLES};
use crate::error::ExitStatus;
use crate::event::Producer;

/// The man page of `cmd`, as roff.
pub(super) fn render(mut cmd: clap::Command) -> Vec<u8> {
    cmd.build();
    let mut synopsis = Roff::new();
    self::synopsis(&mut synopsis, &cmd);
    let man = Man::new(cmd).manual("streamview manual");
    let mut out = Vec::new();
    // Writing into a Vec cannot fail.
    let _ = man.render_title(&mut out);
    let _ = man.render_name_section(&mut out);
    // Not `render_synopsis_section`: it leaves out the options' values
    // (`[--format]` for `--format FORMAT`).
    let _ = synopsis.to_writer(&mut out);
    let _ = man.render_description_section(&mut out);
    let _ = man.render_options_section(&mut out);
    // Not `render_extra_section`: it would repeat the long help's tail,
    // which the sections below give in man-page form.
    let mut r = Roff::new();
    output(&mut r);
    filters(&mut r);
    schema(&mut r);
    environment(&mut r);
    exit_status(&mut r);
    examples(&mut r);
    see_also(&mut r);
    let _ = r.to_writer(&mut out);
    let _ = man.render_version_section(&mut out);
    ascii_roff(&out)
}

/// Non-ASCII characters as groff's `\[uXXXX]` escapes (which mandoc reads
/// too): troff itself takes only ASCII unless run through `preconv`, as
/// `man` does but `groff -man` or other formatters need not.
fn ascii_roff(roff: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(roff);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            out.push_str(&format!("\\[u{:04X}]", u32::from(c)));
        }
    }
    out.into_bytes()
}

/// `streamview [-f|--follow] [--format FORMAT] … [FILE]...`: every option
/// shown with its value, in the order of OPTIONS.
fn synopsis(r: &mut Roff, cmd: &clap::Command) {
    r.control("SH", ["SYNOPSIS"]);
    let mut line = vec![bold(cmd.get_name()), roman(" ")];
    let mut opts: Vec<_> = cmd
        .get_arguments()
        .filter(|a| !a.is_hide_set() && !a.is_positional())
        .collect();
    opts.sort_by_key(|a| a.get_display_order());
    let value = |a: &clap::Arg| {
        a.get_value_names()
            .and_then(|v| v.first())
            .map_or_else(|| a.get_id().as_str().to_uppercase(), ToString::to_string)
    };
    for a in opts {
        line.push(roman("["));
        if let Some(s) = a.get_short() {
            line.push(bold(format!("-{s}")));
            if a.get_long().is_some() {
                line.push(roman("|"));
            }
        }
        if let Some(l) = a.get_long() {
            line.push(bold(format!("--{l}")));
        }
        if a.get_action().takes_values() {
            line.push(roman(" "));
            line.push(italic(value(a)));
        }
        line.push(roman("] "));
    }
    for a in cmd.get_positionals().filter(|a| !a.is_hide_set()) {
        line.push(roman("["));
        line.push(italic(value(a)));
        line.push(roman("]"));
        if a.get_num_args().is_some_and(|n| n.max_values() > 1) {
            line.push(roman("..."));
        }
    }
    r.text(line);
}

fn para(r: &mut Roff, text: &str) {
    r.control("PP", []).text([roman(text)]);
}

/// A tagged paragraph: `tag` in bold, `text` indented below it.
fn item(r: &mut Roff, tag: &str, text: &str) {
    r.control("TP", []).text([bold(tag)]).text([roman(text)]);
}

/// Lines of code, indented and not filled.
fn code(r: &mut Roff, lines: &[&str]) {
    r.control("RS", []).control("nf", []);
    for l in lines {
        r.text([roman(*l)]);
    }
    r.control("fi", []).control("RE", []);
}

fn output(r: &mut Roff) {
    r.control("SH", ["OUTPUT"]);
    para(
        r,
        "The pretty format (the default) writes one line per event, as it arrives. \
         Text from the agent and its tools is made safe for the terminal first: control \
         characters and escape sequences are shown as visible stand-ins (ESC as \u{241b}).",
    );
    for (mark, what) in [
        (
            "\u{25cf}",
            "session header: model, working directory, number of tools, MCP servers",
        ),
        (
            "\u{25b8}",
            "a tool call with its key argument (path, command, pattern, URL, sub-agent…); a path under the session's working directory is shown relative to it",
        ),
        (
            "\u{25c2}",
            "a sub-agent's answer; the sub-agent's own activity is indented under \u{2502}",
        ),
        (
            "\u{2717}",
            "a failed tool call, an API error, a failed session",
        ),
        ("\u{2298}", "a permission denial (each one once)"),
        ("!", "a warning: API retry, failed hook"),
        (
            "\u{b7}",
            "another system event: compaction, task notifications",
        ),
        (
            "\u{2713}",
            "the result line of a session: turns, duration, cost, tokens, cache read share",
        ),
    ] {
        item(r, mark, what);
    }
    para(
        r,
        "Errors and permission denials are never hidden: with -q they go to stderr, and when \
         stdout is not a terminal they are written to stderr as well, so \
         `streamview > run.log 2> errors.log' separates them.",
    );
    para(
        r,
        "--format result prints the text of each session's last successful result \
         (producers whose result has no text: the last assistant text before it), exactly as \
         sent unless stdout is a terminal. An error result prints nothing on stdout; its reason \
         goes to stderr. --format summary prints the summary tables, --format summary-json \
         the same as one JSON object on one line (see JSONL SCHEMA). In these three formats, \
         errors and denials go to stderr as they happen, as with -q.",
    );
    para(
        r,
        "The summary gives, per session, its outcome, turns, duration, cost, tokens \
         (in, out), cache read share, tool calls and tool errors, with a total row when \
         there are several sessions (a folder of logs); then per tool its calls, errors and \
         denials; per model its tokens and cost; and the tool calls never answered, the \
         permission denials and the input lines skipped. A value the producer does not \
         report is shown as \u{2013}, never as 0. Time per tool is not reported.",
    );
}

fn filters(r: &mut Roff) {
    r.control("SH", ["FILTERING"]);
    para(
        r,
        "--only and --hide name kinds of events (listed under --only). Every event is of one kind, and also of \
         kind subagents when a sub-agent produced it; an error result is both final and \
         errors, a streamed fragment both deltas and text, thinking or tools. --only shows the events of any of its kinds, --hide removes its kinds from \
         what is left, --tool narrows tool calls, results, errors and denials to the named \
         tools. The session still sees every event: totals, the summary and the exit status \
         never depend on filters.",
    );
    para(
        r,
        "Errors and denials are not dropped silently: one that a filter keeps off stdout is \
         written to stderr instead, as -q does (on a terminal you still see it; add \
         2>/dev/null to really not see it). So `--only tools --format jsonl' keeps stdout to \
         tool calls while failures still reach stderr.",
    );
}

fn schema(r: &mut Roff) {
    r.control("SH", ["JSONL SCHEMA"]);
    para(
        r,
        "--format jsonl writes one JSON object per line, the same schema for every producer, \
         documented in full in docs/schema.md with a JSON Schema in \
         docs/streamview-event.schema.json. Every line starts with:",
    );
    item(r, "v", "schema version, 1");
    item(
        r,
        "kind",
        "session_start, text, thinking, tool_call, tool_result, permission_denied, usage, \
         notice, result, delta, plain_text or unknown",
    );
    let producers: Vec<&str> = Producer::ALL.iter().map(|p| p.name()).collect();
    item(r, "producer", &producers.join(", "));
    item(r, "line", "1-based line number in the source");
    item(r, "session", "session id, or null");
    item(
        r,
        "parent",
        "id of the tool call whose sub-agent produced the event; null for the main agent",
    );
    para(
        r,
        "Then the fields of the kind: text has role and text; tool_call has id, name, \
         key_arg and input (embedded JSON); tool_result has id, name, is_error, denied and \
         content; permission_denied has id, tool, key_arg and message; result has is_error, \
         subtype, text, errors, num_turns, duration_ms, cost_usd, tokens (input, output, \
         cache_read, cache_creation) and model_usage; notice has subtype, level, text and raw \
         (the original line). Every field of a kind is always present: null means the \
         producer did not say, never an invented 0. Unknown events are kept (kind unknown, \
         with the original line in raw). streamview reads its own JSONL back.",
    );
    para(
        r,
        "--format summary-json writes {\"v\":1,\"sessions\":[ROW...],\"total\":ROW}, where \
         a ROW has sessions, session, source, producer, model, outcome, results, turns, \
         duration_ms, cost_usd, tokens, cache_read_pct, tool_calls, tool_errors, denials, \
         unanswered, skipped_lines, copies_folded (API messages a resumed session copied, \
         counted once by message and request id), tools ([{name, calls, errors, denials}]) and models \
         ([{model, tokens, cost_usd}]).",
    );
}

fn environment(r: &mut Roff) {
    r.control("SH", ["ENVIRONMENT"]);
    for (var, what) in ENVIRONMENT {
        item(r, var, what);
    }
}

fn exit_status(r: &mut Roff) {
    r.control("SH", ["EXIT STATUS"]);
    for status in ExitStatus::ALL {
        item(r, &status.code().to_string(), status.meaning());
    }
    para(
        r,
        "With several sessions in the input the worst status wins (3 over 1 over 0; 2 over \
         all). With --since or --until only the events in the window count, and nothing in \
         it is 1. Writing into a closed pipe ends quietly with status 0. In \
         `claude ... | streamview' the shell reports streamview's status, which already \
         tells how the session ended, so no `set -o pipefail' is needed; with pipefail on, \
         the pipeline fails when either the agent or streamview does.",
    );
}

fn examples(r: &mut Roff) {
    r.control("SH", ["EXAMPLES"]);
    for e in EXAMPLES {
        r.control("PP", []).text([roman(format!("{}:", e.what))]);
        code(r, &[e.command]);
    }
    para(
        r,
        "In DuckDB, a file of JSONL events is a table: \
         SELECT name, count(*) FROM read_json_auto('events.jsonl') WHERE kind = 'tool_call' \
         GROUP BY name. For logs of several different agents in one file, add \
         maximum_depth = 1 (their raw payloads can have keys that differ only in case, which \
         DuckDB's type inference rejects); docs/schema.md has more queries.",
    );
}

fn see_also(r: &mut Roff) {
    r.control("SH", ["SEE ALSO"]);
    r.text([
        bold("jq"),
        roman("(1), "),
        bold("duckdb"),
        roman("(1), "),
        bold("claude"),
        roman("(1); "),
        italic("docs/schema.md"),
        roman(" and "),
        italic("README.md"),
        roman(" in the source distribution."),
    ]);
}
