# What benches/compare.sh times jq (and jaq) doing: about the job of
# `streamview --format jsonl` on Claude Code, Codex and Gemini CLI streams,
# one compact object per event: tool calls with their name and key
# argument, tool results with their text and error flag, text, thinking,
# deltas, notices and results. (No correlation, totals, nesting or
# sanitizing: streamview does more.)
def key_arg: .command // .file_path // .pattern // .url // .query // .description // null;
def text_of: if type == "string" then . else ([.[]? | .text? // empty] | join("\n")) end;
. as $e
| if .type == "assistant" then
    .message.content[]?
    | if .type == "tool_use" then {kind: "tool_call", session: $e.session_id, parent: $e.parent_tool_use_id, id, name, key_arg: (.input | key_arg), input}
      elif .type == "text" then {kind: "text", session: $e.session_id, parent: $e.parent_tool_use_id, text}
      elif .type == "thinking" then {kind: "thinking", session: $e.session_id, text: .thinking}
      else {kind: "unknown", type} end
  elif .type == "user" then
    (.message.content | if type == "array" then .[] else {type: "text", text: .} end)
    | if .type == "tool_result" then {kind: "tool_result", session: $e.session_id, parent: $e.parent_tool_use_id, id: .tool_use_id, is_error: (.is_error // false), content: (.content | text_of)}
      else {kind: "text", role: "user", session: $e.session_id, text} end
  elif .type == "stream_event" then
    .event | select(.type == "content_block_delta")
    | {kind: "delta", session: $e.session_id, text: (.delta.text // .delta.thinking // .delta.partial_json)}
  elif .type == "result" then
    {kind: "result", session: .session_id, is_error: (.is_error // (.status != "success")), cost: .total_cost_usd, turns: .num_turns, duration_ms: (.duration_ms // .stats.duration_ms)}
  elif .type == "system" then {kind: (if .subtype == "init" then "session_start" else "notice" end), session: .session_id, subtype, model}
  elif .type == "thread.started" then {kind: "session_start", session: .thread_id}
  elif .type == "item.started" or .type == "item.completed" then
    .item
    | if .type == "agent_message" then {kind: "text", text}
      elif .type == "reasoning" then {kind: "thinking", text}
      elif $e.type == "item.started" then {kind: "tool_call", id, name: .type, key_arg: (.command // .query // .changes[0].path? // .tool)}
      else {kind: "tool_result", id, is_error: (.status == "failed"), content: (.aggregated_output // (.result.content? | text_of) // "")} end
  elif .type == "turn.completed" then {kind: "result", is_error: false, tokens: .usage}
  elif .type == "init" then {kind: "session_start", session: .session_id, model}
  elif .type == "tool_use" then {kind: "tool_call", id: .tool_id, name: .tool_name, key_arg: (.parameters | key_arg), input: .parameters}
  elif .type == "tool_result" then {kind: "tool_result", id: .tool_id, is_error: (.status == "error"), content: (.output // "")}
  elif .type == "message" then {kind: (if .delta then "delta" else "text" end), role, text: .content}
  else {kind: "notice", type} end
