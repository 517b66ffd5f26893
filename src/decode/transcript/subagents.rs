//! Sub-agents linked to the call that started them: by the `agentId` its
//! result names, else by the sub-agent's first prompt equal to the call's.

use std::borrow::Cow;
use std::io;

use foldhash::HashMap;
use simd_json::prelude::*;

use crate::decode::producer::Ctx;
use crate::decode::seen::Seen;
use crate::event::{Event, EventKind, Level, Notice};
use crate::json::{Arr, Value, cow_at, get, str_at};

use super::tree::{Node, Tree, abandoned};
use super::{EntryShape, Out, first_text};

/// Agent/Task calls remembered for linking a sub-agent by its prompt.
pub(super) const MAX_AGENT_PROMPTS: usize = 64;

/// Hang the entry `u` in the tree. A new prompt or answer hung on an entry
/// that already had one is a rewind: what hung there before is an abandoned
/// branch, and a notice says so.
pub(super) fn link(
    v: Value<'_>,
    ctx: &Ctx<'_>,
    u: &str,
    e: &EntryShape<'_>,
    tree: &mut Tree,
    out: &mut Out<'_, '_>,
) -> io::Result<()> {
    let (ty, side, parent_uuid, prompt, meta, results, msg_id) = (
        e.ty,
        e.side,
        e.parent_uuid,
        e.prompt,
        e.meta,
        e.results,
        e.msg_id,
    );
    let fork = parent_uuid.and_then(|p| {
        let pn = tree.get(p).filter(|pn| pn.side == side)?;
        let c = pn.child?;
        let cn = &tree.nodes[c];
        // A rewind starts with a typed prompt (never with tool results)
        // or a regenerated answer.
        let replaces = (prompt && !meta && results == 0) || ty == "assistant";
        let was_turn = cn.prompt || cn.msg.as_deref().is_some_and(|m| Some(m) != msg_id);
        (replaces && was_turn).then_some((c, pn.line))
    });
    if let Some((c, from)) = fork {
        let text = abandoned(tree, c, from);
        out.send(&Event {
            producer: ctx.producer,
            line: ctx.line,
            source: None,
            session: cow_at(v, "sessionId"),
            parent: None,
            time: ctx.time,
            kind: EventKind::Notice(Notice {
                subtype: Cow::Borrowed("rewind"),
                level: Level::Info,
                text: Cow::Owned(text),
                raw: Some(ctx.raw()),
                estimate: false,
            }),
        })?;
    }
    tree.hang(
        u,
        parent_uuid,
        Node {
            line: ctx.line,
            parent: None,
            child: None,
            prompt,
            msg: msg_id.map(str::to_string),
            side,
        },
    );
    Ok(())
}

/// What linking a sub-agent to its call reads and writes.
pub(super) struct Links<'a> {
    pub(super) agents: &'a mut HashMap<String, String>,
    pub(super) side_parent: &'a mut HashMap<String, String>,
    pub(super) prompts: &'a mut Vec<(String, String)>,
    pub(super) announced: &'a mut Seen,
}

/// The `Agent`/`Task` call a sidechain entry nests under, when this input
/// links it (its `agentId` named by the call's result, an entry of it
/// already linked, or its first prompt equal to the call's); a notice the
/// first time a sub-agent cannot be linked.
pub(super) fn sub_agent_call(
    v: Value<'_>,
    ctx: &Ctx<'_>,
    uuid: Option<&str>,
    e: &EntryShape<'_>,
    state: &mut Links<'_>,
    out: &mut Out<'_, '_>,
) -> io::Result<Option<String>> {
    let (ty, parent_uuid, content) = (e.ty, e.parent_uuid, e.content);
    let agent_id = str_at(v, "agentId").filter(|a| !a.is_empty());
    let linked = agent_id
        .and_then(|a| state.agents.get(a))
        .or_else(|| parent_uuid.and_then(|p| state.side_parent.get(p)))
        .cloned()
        .or_else(|| {
            let text = (ty == "user").then(|| first_text(content)).flatten()?;
            let i = state.prompts.iter().position(|(p, _)| p == text)?;
            let (_, call) = state.prompts.remove(i);
            if let Some(a) = agent_id {
                state.agents.insert(a.to_string(), call.clone());
            }
            Some(call)
        });
    if let (Some(u), Some(call)) = (uuid, linked.as_ref()) {
        state.side_parent.insert(u.to_string(), call.clone());
    }
    if linked.is_none() {
        let key = agent_id.unwrap_or("");
        if state.announced.insert(key) {
            let text = if key.starts_with("acompact") {
                format!(
                    "compaction sub-agent {key}: it summarizes the conversation for the \
                         context compaction (no Agent call started it)"
                )
            } else {
                let who = agent_id.map_or_else(String::new, |a| format!(" {a}"));
                format!(
                    "sub-agent{who}, shown un-nested: the Agent call that started it is \
                         not in this input (to nest it: cat <session>.jsonl \
                         <session>/subagents/agent-*.jsonl | streamview)"
                )
            };
            out.send(&Event {
                producer: ctx.producer,
                line: ctx.line,
                source: None,
                session: cow_at(v, "sessionId"),
                parent: None,
                time: ctx.time,
                kind: EventKind::Notice(Notice {
                    subtype: Cow::Borrowed("sidechain"),
                    level: Level::Info,
                    text: Cow::Owned(text),
                    raw: None,
                    estimate: false,
                }),
            })?;
        }
    }
    Ok(linked)
}

/// The prompts of `Agent`/`Task` calls, to link their sub-agents by.
pub(super) fn remember_agent_prompts(blocks: Arr<'_>, prompts: &mut Vec<(String, String)>) {
    for b in blocks {
        if matches!(str_at(b, "name"), Some("Agent" | "Task"))
            && let (Some(id), Some(p)) = (
                str_at(b, "id"),
                get(b, "input").and_then(|i| str_at(i, "prompt")),
            )
        {
            if prompts.len() >= MAX_AGENT_PROMPTS {
                prompts.remove(0);
            }
            prompts.push((p.to_string(), id.to_string()));
        }
    }
}
