//! What each conversation entry becomes: an assistant message, a user's
//! prompt or tool results, a system line, an attachment, an API error or retry.

use std::fmt::Write as _;
use std::io;

use foldhash::HashMap;
use simd_json::prelude::*;

use crate::decode::args::strings_at;
use crate::decode::claude::{self, Base};
use crate::decode::producer::Ctx;
use crate::event::Level;
use crate::json::{Arr, J, Value, arr_at, bool_at, f64_at, f64_of, get, str_at, u64_at, view};

use super::{
    EntryShape, MAX_AGENT_TYPES, Out, error_message, header_model, note, one_line,
    remember_agent_prompts, start_event, strip_command_tags, tag,
};

pub(super) fn assistant<'v>(
    v: Value<'v>,
    ctx: &Ctx<'v>,
    base: &Base<'v>,
    e: &EntryShape<'v>,
    cstate: &mut claude::State,
    prompts: &mut Vec<(String, String)>,
    out: &mut Out<'_, '_>,
) -> io::Result<()> {
    let (side, content, id) = (e.side, e.content, e.msg_id);
    // Each in one walk of the keys (`Value::fields`).
    let [flagged, flagged_snake, error, cost] = v.fields([
        "isApiErrorMessage",
        "is_api_error_message",
        "error",
        "costUSD",
    ]);
    let [model, usage, stop] = e
        .msg
        .map(|m| m.fields(["model", "usage", "stop_reason"]))
        .unwrap_or_default();
    let (model, stop) = (
        model.and_then(Value::into_string),
        stop.and_then(Value::into_string),
    );
    let blocks = content.map(Arr::of).unwrap_or_default();
    let error = error.and_then(Value::into_string);
    let flagged = [flagged, flagged_snake]
        .iter()
        .any(|f| f.and_then(Value::as_bool) == Some(true));
    let error_text = api_error(model, flagged, error, content, ctx);
    remember_agent_prompts(blocks, prompts);
    if let Some(sess) = out.sess.as_deref_mut() {
        let model = model.filter(|_| error_text.is_none());
        header_model(sess, model, side, ctx.line, out.emit)?;
        if !side && sess.cost.is_some() && id.is_some_and(|id| !sess.main.index.contains_key(id)) {
            // An answer after the cost line (a session resumed, or still
            // going): its total no longer covers every message.
            sess.cost = None;
        }
        let acc = if side { &mut sess.side } else { &mut sess.main };
        acc.seen = true;
        acc.user_after = false;
        if error_text.is_none()
            && let Some(id) = id
        {
            let tokens = usage.map(crate::decode::messages::tokens);
            acc.count(id, tokens, cost.and_then(f64_of), stop.is_some());
        }
        let last = acc.last_of(id);
        if let Some(r) = stop {
            last.stop_reason = Some(r.to_string());
        }
        match &error_text {
            Some(e) => last.error = Some(e.clone()),
            None => last.answer(content, blocks),
        }
    }
    if let Some(text) = error_text {
        return out.send(&note(base, ctx, "api_error", Level::Error, text));
    }
    claude::assistant(v, ctx, base, cstate, &mut |ev| out.send(ev))
}

/// The error text of an assistant entry that reports a failed API request:
/// the CLI writes one of its own making, and it is an error, not
/// something the model said.
/// (`flagged`: `isApiErrorMessage` or `is_api_error_message` is true;
/// `error`: the entry's `error` string.)
pub(super) fn api_error(
    model: Option<&str>,
    flagged: bool,
    error: Option<&str>,
    content: Option<Value<'_>>,
    ctx: &Ctx<'_>,
) -> Option<String> {
    let api_error = model == Some("<synthetic>") || flagged || error.is_some();
    api_error.then(|| {
        let text = content
            .map(|c| crate::decode::messages::content_text(c, ctx.arena))
            .filter(|t| !t.is_empty());
        match (text, error) {
            (Some(t), _) => t.into_owned(),
            (None, Some(e)) => format!("API error: {e}"),
            (None, None) => "API error".to_string(),
        }
    })
}

/// A user line in the session's accounts: the calls it answers closed,
/// a prompt (not a meta line) noted, a change of permission mode (`mode`,
/// the line's `permissionMode`) said with the session's header again.
pub(super) fn user_turn(
    mode: Option<&str>,
    line: u64,
    side: bool,
    meta: bool,
    answered: &[&str],
    out: &mut Out<'_, '_>,
) -> io::Result<()> {
    if let Some(sess) = out.sess.as_deref_mut() {
        let acc = if side { &mut sess.side } else { &mut sess.main };
        acc.seen = true;
        if let Some(last) = acc.last.as_mut() {
            for id in answered {
                last.open.remove(*id);
            }
        }
        if !meta {
            acc.user_after = true;
        }
        if side == sess.side_file
            && let Some(pm) = mode
            && sess.permission_mode.as_deref() != Some(pm)
        {
            // A change (shift+tab) repeats the header; a mode learnt late
            // (the input began mid-session) does not.
            let changed = sess.permission_mode.is_some() && sess.pending.is_none();
            sess.permission_mode = Some(pm.to_string());
            if changed {
                (out.emit)(&start_event(sess, line))?;
            }
        }
    }
    Ok(())
}

pub(super) fn user<'v>(
    v: Value<'v>,
    ctx: &Ctx<'v>,
    base: &Base<'v>,
    e: &EntryShape<'v>,
    agents: &mut HashMap<String, String>,
    out: &mut Out<'_, '_>,
) -> io::Result<()> {
    let (side, meta, content) = (e.side, e.meta, e.content);
    // In one walk of the keys (`Value::fields`).
    let [result, mode, compact] = v.fields(["toolUseResult", "permissionMode", "isCompactSummary"]);
    let answered: Vec<&str> = content
        .map(Arr::of)
        .unwrap_or_default()
        .iter()
        .filter(|b| str_at(*b, "type") == Some("tool_result"))
        .filter_map(|b| str_at(b, "tool_use_id"))
        .collect();
    // An Agent call's result names the sub-agent it started.
    if let (Some(id), Some(a)) = (answered.first(), result.and_then(|r| str_at(r, "agentId"))) {
        agents.insert(a.to_string(), (*id).to_string());
    }
    let mode = mode.and_then(Value::into_string);
    user_turn(mode, ctx.line, side, meta, &answered, out)?;

    if meta {
        // Reminders and caveats the CLI adds to the conversation.
        let text = content
            .map(|c| crate::decode::messages::content_text(c, ctx.arena))
            .unwrap_or_default();
        let line = text
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty() && !matches!(*l, "<system-reminder>" | "</system-reminder>"))
            .unwrap_or("");
        return out.send(&note(
            base,
            ctx,
            "meta",
            Level::Debug,
            format!("injected by the CLI: {}", one_line(line)),
        ));
    }
    if compact.and_then(Value::as_bool) == Some(true) {
        return out.send(&note(
            base,
            ctx,
            "compact_summary",
            Level::Debug,
            "summary of the compacted conversation, given to the model".into(),
        ));
    }
    if let Some(J::Str(s)) = content.map(view)
        && s.trim_start().starts_with("<task-notification>")
    {
        // A background task (sub-agent, shell) finished: the CLI tells the
        // model in a user turn of its own.
        let status = tag(s, "status").unwrap_or("done");
        let mut text = format!("task {status}");
        for part in [tag(s, "summary"), tag(s, "result")].into_iter().flatten() {
            if !part.is_empty() {
                let _ = write!(text, ": {}", one_line(part));
            }
        }
        let level = if status == "completed" {
            Level::Info
        } else {
            Level::Warning
        };
        return out.send(&note(base, ctx, "task_notification", level, text));
    }
    claude::user(v, ctx, base, &mut |ev| out.send(ev))
}

/// `API retry 2/10 in 1.5s: overloaded (HTTP 529)`.
pub(super) fn api_retry(v: Value<'_>) -> String {
    let mut t = String::from("API retry");
    if let Some(a) = u64_at(v, "retryAttempt") {
        let _ = write!(t, " {a}");
        if let Some(m) = u64_at(v, "maxRetries") {
            let _ = write!(t, "/{m}");
        }
    }
    if let Some(ms) = f64_at(v, "retryInMs") {
        let _ = write!(t, " in {:.1}s", ms / 1000.0);
    }
    let err = get(v, "error");
    if let Some(e) = err.and_then(error_message) {
        let _ = write!(t, ": {}", one_line(e));
    }
    if let Some(s) = err.and_then(|e| u64_at(e, "status")) {
        let _ = write!(t, " (HTTP {s})");
    }
    t
}

/// A `stop_hook_summary` line: quiet when the hooks ran, a warning when
/// one failed or ended the turn.
pub(super) fn stop_hooks(v: Value<'_>) -> (&'static str, Level, String) {
    let sub = "stop_hook_summary";
    let errors = arr_at(v, "hookErrors");
    let stopped = bool_at(v, "preventedContinuation") == Some(true);
    if errors.is_empty() && !stopped {
        (sub, Level::Debug, "stop hooks ran".to_string())
    } else {
        let why = errors
            .first()
            .and_then(|e| e.into_string().or_else(|| str_at(e, "message")))
            .or_else(|| str_at(v, "stopReason"))
            .unwrap_or("");
        let mut t = String::from(if stopped {
            "stop hook ended the turn"
        } else {
            "stop hook failed"
        });
        if !why.is_empty() {
            let _ = write!(t, ": {}", one_line(why));
        }
        (sub, Level::Warning, t)
    }
}

pub(super) fn system<'v>(
    v: Value<'v>,
    ctx: &Ctx<'v>,
    base: &Base<'v>,
    out: &mut Out<'_, '_>,
) -> io::Result<()> {
    let sub = str_at(v, "subtype")
        .filter(|s| !s.is_empty())
        .unwrap_or("system");
    let content = str_at(v, "content").unwrap_or("");
    let (subtype, level, text): (&'v str, Level, String) = match sub {
        "compact_boundary" | "microcompact_boundary" => {
            let meta = get(v, "compactMetadata").or_else(|| get(v, "microcompactMetadata"));
            let trigger = meta.and_then(|m| str_at(m, "trigger")).unwrap_or("auto");
            let mut t = format!("context compacted ({trigger})");
            if let Some(pre) = meta.and_then(|m| u64_at(m, "preTokens")) {
                let _ = write!(t, ": {pre} tokens before");
            }
            (sub, Level::Info, t)
        }
        // A failed request that the CLI retries (the stream-json
        // `api_retry`); a final failure is an assistant message.
        "api_error" => ("api_retry", Level::Warning, api_retry(v)),
        "informational" | "local_command" => {
            let level = match str_at(v, "level") {
                Some("warning" | "error") => Level::Warning,
                _ => Level::Info,
            };
            (sub, level, strip_command_tags(content).to_string())
        }
        "turn_duration" => {
            let t = match f64_at(v, "durationMs") {
                Some(ms) => format!("turn took {:.1}s", ms / 1000.0),
                None => "turn ended".to_string(),
            };
            (sub, Level::Debug, t)
        }
        "stop_hook_summary" => stop_hooks(v),
        _ => {
            let t = if content.trim().is_empty() {
                sub.replace('_', " ")
            } else {
                one_line(strip_command_tags(content))
            };
            (sub, Level::Debug, t)
        }
    };
    out.send(&note(base, ctx, subtype, level, text))
}

pub(super) fn attachment<'v>(
    v: Value<'v>,
    ctx: &Ctx<'v>,
    base: &Base<'v>,
    out: &mut Out<'_, '_>,
) -> io::Result<()> {
    let Some(a) = get(v, "attachment") else {
        return Ok(());
    };
    let ty = str_at(a, "type").unwrap_or("");
    if ty == "agent_listing_delta"
        && let Some(sess) = out.sess.as_deref_mut()
        && sess.pending.is_some()
    {
        for t in &strings_at(a, "addedTypes", ctx.arena) {
            // Bounded: each new type is compared with those listed.
            if sess.agents.len() < MAX_AGENT_TYPES && !sess.agents.iter().any(|x| x == t) {
                sess.agents.push(t.to_string());
            }
        }
    }
    // Context for the model (file contents, listings, reminders): no event,
    // except a hook that failed or stopped something.
    let failed_hook = ty.starts_with("hook_")
        && ["error", "blocking", "cancelled", "stopped"]
            .iter()
            .any(|w| ty.contains(w));
    if !failed_hook {
        return Ok(());
    }
    let name = str_at(a, "hookName")
        .or_else(|| str_at(a, "hookEvent"))
        .unwrap_or("hook");
    let mut t = format!(
        "hook {name}: {}",
        ty.trim_start_matches("hook_").replace('_', " ")
    );
    let detail = ["stderr", "blockingError", "content", "message"]
        .iter()
        .find_map(|k| str_at(a, k).or_else(|| get(a, k).and_then(error_message)))
        .map(str::trim)
        .filter(|d| !d.is_empty());
    if let Some(d) = detail {
        let _ = write!(t, ": {}", one_line(d));
    }
    out.send(&note(base, ctx, "hook", Level::Warning, t))
}
