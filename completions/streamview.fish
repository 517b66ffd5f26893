complete -c streamview -l grep -d 'Show only the events that match PATTERN, one line each' -r
complete -c streamview -l prices -d 'Estimate costs with the prices in FILE, added to the bundled table or replacing its models of the same name ($STREAMVIEW_PRICES when not given)' -r -F
complete -c streamview -l by -d 'A table of the totals by KEY' -r -f -a "day\t'The local day each API message was answered (a session counts on the day it began)'
week\t'The week (from Monday), named by its Monday'
month\t'The month'
session\t'Its session id (a session resumed under its id: its files together)'
project\t'Its working directory'
model\t'The models that answered (a session of two models counts in both)'
agent\t'The agent that wrote it'
block\t'Claude\'s 5-hour usage blocks: each API message in the block of the hour it was answered in'"
complete -c streamview -l tz -l timezone -d 'The time zone of --by\'s days, weeks, months and blocks and of --since and --until (default: $TZ, else the system\'s): a name (Europe/Paris), UTC, or a POSIX offset (CET-1)' -r
complete -c streamview -s C -l context -d 'With --grep: show N events before and after each match (`FILE-LINE-SESSION-` first), as grep -C; groups apart are separated by `--`. Every line is then read' -r
complete -c streamview -l latest -d 'Replay the saved session that began last (=N: the N latest)' -r
complete -c streamview -l project -d 'Only the sessions whose project (the agent\'s working directory) contains PATTERN, for every agent: in a directory of sessions and with --latest, the others are not read. A session whose first lines name no working directory is left out' -r
complete -c streamview -l format -d 'Output format (default: pretty)' -r -f -a "pretty\t'Human-readable progress lines'
jsonl\t'One normalized JSON event per line (schema: docs/schema.md)'
result\t'Only the final answer: the text of each session\'s last successful result'
summary\t'Only the summary tables: per session, per tool, per model'
summary-json\t'Only the summary, as one JSON object on one line'
markdown\t'The session as Markdown, for a pull request or an issue'
html\t'The session as one self-contained HTML page (no network request), with a filter bar'
otlp\t'OpenTelemetry OTLP/JSON: one export request per line, for a collector (docs/otlp.md)'"
complete -c streamview -l color -d 'When to use colour' -r -f -a "auto\t'When stdout is a terminal and `NO_COLOR` is not set (`CLICOLOR_FORCE` forces it)'
always\t'Always'
never\t'Never'"
complete -c streamview -l label -d 'Start every output line with `[NAME] `, in a colour of its own; JSONL events get `"label": "NAME"`' -r
complete -c streamview -l theme -d 'The colours of the pretty output: default, light (for light backgrounds), contrast (high contrast), mono (no colour, the same symbols), or a theme FILE of your own' -r
complete -c streamview -l paging -d 'When to show the output through a pager ($STREAMVIEW_PAGER, $PAGER, or less -RFX)' -r -f -a "auto\t'For a replay on a terminal: stdout is one, every FILE is a regular file, the format is pretty or summary'
always\t'Always, whatever the input and the output'
never\t'Never'"
complete -c streamview -l errors -d 'Where tool errors and denials are copied besides the output (stderr)' -r -f -a "auto\t'Pretty: copied to stderr when stdout is a file (not a terminal, not a pipe: the pipe carries them). Result: stderr says why a session failed, its denials, and the tool errors as a count. Summary: only a failed session\'s reason (the tables count the rest)'
stderr\t'Every tool error, denial and failure is also written to stderr, in every format'
never\t'Nothing is copied to stderr (they stay in the output you chose)'"
complete -c streamview -l only -d 'Show only these kinds of events (comma-separated, repeatable)' -r -f -a "header\t'Session headers (model, directory, tools)'
text\t'The assistant\'s text'
prompts\t'Text given to the model as the user: prompts, sub-agent prompts (shown with -v)'
thinking\t'Reasoning (shown with -v)'
tools\t'Tool calls'
results\t'Tool results that are not errors; a sub-agent\'s answer and the user\'s answer to a question are (others shown with -v)'
errors\t'Failed tool calls, API errors, error results'
denials\t'Permission denials'
warnings\t'Warnings: API retries, failed hooks'
system\t'Other system events: compaction, task notifications, hooks (all of them with -v)'
usage\t'Token usage per API call (shown with -v)'
final\t'The result line of each session: outcome, totals, the final text when not shown before'
subagents\t'Everything a sub-agent did'
deltas\t'Streamed fragments (`--include-partial-messages`); each is also of the kind it is part of (text, thinking, tools)'
other\t'Plain-text lines and events of unknown type'"
complete -c streamview -l hide -d 'Hide these kinds of events (comma-separated, repeatable; the KINDS of --only)' -r -f -a "header\t'Session headers (model, directory, tools)'
text\t'The assistant\'s text'
prompts\t'Text given to the model as the user: prompts, sub-agent prompts (shown with -v)'
thinking\t'Reasoning (shown with -v)'
tools\t'Tool calls'
results\t'Tool results that are not errors; a sub-agent\'s answer and the user\'s answer to a question are (others shown with -v)'
errors\t'Failed tool calls, API errors, error results'
denials\t'Permission denials'
warnings\t'Warnings: API retries, failed hooks'
system\t'Other system events: compaction, task notifications, hooks (all of them with -v)'
usage\t'Token usage per API call (shown with -v)'
final\t'The result line of each session: outcome, totals, the final text when not shown before'
subagents\t'Everything a sub-agent did'
deltas\t'Streamed fragments (`--include-partial-messages`); each is also of the kind it is part of (text, thinking, tools)'
other\t'Plain-text lines and events of unknown type'"
complete -c streamview -l since -d 'Only what happened since WHEN (2h, 3d, today, 2026-11-24)' -r
complete -c streamview -l until -d 'Show only the sessions and events before WHEN (as --since; a date alone means the end of that day: `--since 2026-11-20 --until 2026-11-24` includes the 24th)' -r
complete -c streamview -l tool -d 'Only the calls of the tools NAME matches (`*`, `?`)' -r
complete -c streamview -l tool-kind -d 'Show only the calls of tools of these KINDS (comma-separated, repeatable): what a tool does, whatever the agent calls it' -r -f -a "shell\t'runs a shell command'
read\t'reads a file'
write\t'creates or overwrites a file'
edit\t'changes part of a file (edit, patch, replace, delete)'
search\t'looks for files or text (glob, grep, directory listing)'
fetch\t'fetches a URL'
web_search\t'searches the web'
agent\t'starts or talks to a sub-agent'
todo\t'writes or reads the todo list'
mcp\t'a tool of an MCP server'
other\t'anything else'"
complete -c streamview -l from -d 'Which agent printed the input; `auto` detects it for each input from its first recognisable line' -r -f -a "auto\t'Detect it'
claude\t'Claude Code `-p --output-format stream-json --verbose`'
claude-transcript\t'Claude Code saved transcripts (`~/.claude/projects/…/<session>.jsonl`)'
codex\t'Codex `exec --json`'
codex-rollout\t'Codex session files (`~/.codex/sessions/…/rollout-*.jsonl`)'
gemini\t'Gemini CLI `--output-format stream-json`'
gemini-session\t'Gemini CLI\'s saved sessions (~/.gemini/tmp/<project>/chats/session-*.jsonl, .json)'
opencode\t'`OpenCode` `run --format json`'
qwen\t'Qwen Code `--output-format stream-json`'
qwen-session\t'Qwen Code\'s saved sessions (~/.qwen/projects/<project>/chats/<id>.jsonl)'
amp\t'Amp `--stream-json`'
cursor\t'Cursor Agent `--output-format stream-json`'
copilot\t'GitHub Copilot CLI `-p … --output-format json`'
droid\t'Factory Droid `exec -o stream-json`'
pi\t'Pi `-p --mode json`'
cline\t'Cline CLI `--json`'
cline-session\t'Cline CLI\'s saved sessions (~/.cline/data/sessions/<id>/<id>.messages.json)'
kilo\t'Kilo CLI `run --format json`'
kimi\t'Kimi CLI `--print --output-format stream-json`'
kimi-session\t'Kimi CLI session files (`~/.kimi/sessions/…/wire.jsonl`)'
grok\t'Grok CLI `-p` (`@vibe-kit/grok-cli`)'
hermes\t'Hermes Agent sessions (`~/.hermes/state.db`), `hermes -z --usage-file` reports'
openclaw\t'OpenClaw sessions (`~/.openclaw/agents`), `openclaw agent exec --json` reports'"
complete -c streamview -l max-line-bytes -d 'Skip lines longer than this many bytes (suffixes K, M, G), reporting them' -r
complete -c streamview -s j -l jobs -d 'Read the files of the directories named on N threads (default: one per core)' -r
complete -c streamview -l status-wait -d 'Seconds without an event before the status line says it is waiting' -r
complete -c streamview -l max-lines -d 'Lines of each tool result or error text to show before cutting (verbose shows results)' -r
complete -c streamview -l generate -d 'Print the man page or a shell\'s completions and exit' -r -f -a "man\t'The man page (roff), as in `man/streamview.1`'
bash\t'Bash completions'
zsh\t'Zsh completions'
fish\t'Fish completions'
elvish\t'Elvish completions'
powershell\t'`PowerShell` completions'"
complete -c streamview -s f -l follow -d 'Follow a file still being written, like `tail -f`'
complete -c streamview -s i -l ignore-case -d 'With --grep: match letters in either case'
complete -c streamview -s l -l files-with-matches -d 'With --grep: print only the names of the files with a match, as grep -l (a match in a sub-agent\'s file names that file)'
complete -c streamview -s c -l count -d 'With --grep: print each file with a match and the number of events matched in it, `FILE:COUNT`, as grep -c (a sub-agent\'s file on its own line)'
complete -c streamview -l list -d 'List the saved sessions, one line each'
complete -c streamview -l all-agents -d 'Read the saved sessions of every agent found on this machine, each where its own variables put them (Claude Code, Codex, Gemini CLI, Qwen Code, Copilot CLI, Droid, Pi, Cline, OpenCode, Kilo): `streamview --all-agents --by day` totals them by day. A report (--by, --list, --format summary or summary-json) given no input, with a terminal on standard input, reads them too: `streamview --by day`'
complete -c streamview -l statusline -d 'Print Claude Code\'s status line: read the JSON Claude Code gives a status-line command on standard input and print one line: the model, this session\'s cost, today\'s cost over every agent, Claude\'s open 5-hour block (cost, time left, burn rate), the context and rate limits used. Saved sessions are read as --all-agents reads them (or in the FILEs), through the index; always exit 0. In ~/.claude/settings.json: {"statusLine":{"type":"command","command":"streamview --statusline"}}'
complete -c streamview -l top -d 'Show a live board of every agent session being written now (changed in the last 10 minutes, in every agent\'s store, or below the FILEs): per session its agent, project, model, the call in progress with its key argument (else what it did last), the time since its last event, turns, tokens and cost; how it ended, greyed for a minute. q, Esc or Ctrl-C quits. Without a terminal, one snapshot'
complete -c streamview -l otlp-content -d 'With --format otlp: put prompts, tool inputs and tool outputs in the spans too'
complete -c streamview -l otlp-anonymous -d 'With --format otlp: leave out the host name and the working directory'
complete -c streamview -s v -l verbose -d 'Show more: tool results, thinking, session details'
complete -c streamview -s q -l quiet -d 'Nothing on stdout; errors and denials still on stderr'
complete -c streamview -l summary -d 'Add the summary tables at the end: per session, per tool, per model'
complete -c streamview -l list-themes -d 'Show each built-in theme (and --theme\'s) on a short sample session, and exit'
complete -c streamview -l no-cache -d 'Read every file of a library: neither read nor write the index'
complete -c streamview -l no-status -d 'Do not show the live status line'
complete -c streamview -l no-config -d 'Do not read the configuration file'
complete -c streamview -s h -l help -d 'Print help (see more with \'--help\')'
complete -c streamview -s V -l version -d 'Print version'
