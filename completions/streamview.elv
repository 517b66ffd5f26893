
use builtin;
use str;

set edit:completion:arg-completer[streamview] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'streamview'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'streamview'= {
            cand --grep 'Show only the events that match PATTERN, one line each'
            cand --prices 'Estimate costs with the prices in FILE, added to the bundled table or replacing its models of the same name ($STREAMVIEW_PRICES when not given)'
            cand --by 'A table of the totals by KEY'
            cand --tz 'The time zone of --by''s days, weeks, months and blocks and of --since and --until (default: $TZ, else the system''s): a name (Europe/Paris), UTC, or a POSIX offset (CET-1)'
            cand --timezone 'The time zone of --by''s days, weeks, months and blocks and of --since and --until (default: $TZ, else the system''s): a name (Europe/Paris), UTC, or a POSIX offset (CET-1)'
            cand -C 'With --grep: show N events before and after each match (`FILE-LINE-SESSION-` first), as grep -C; groups apart are separated by `--`. Every line is then read'
            cand --context 'With --grep: show N events before and after each match (`FILE-LINE-SESSION-` first), as grep -C; groups apart are separated by `--`. Every line is then read'
            cand --latest 'Replay the saved session that began last (=N: the N latest)'
            cand --project 'Only the sessions whose project (the agent''s working directory) contains PATTERN, for every agent: in a directory of sessions and with --latest, the others are not read. A session whose first lines name no working directory is left out'
            cand --format 'Output format (default: pretty)'
            cand --color 'When to use colour'
            cand --label 'Start every output line with `[NAME] `, in a colour of its own; JSONL events get `"label": "NAME"`'
            cand --theme 'The colours of the pretty output: default, light (for light backgrounds), contrast (high contrast), mono (no colour, the same symbols), or a theme FILE of your own'
            cand --paging 'When to show the output through a pager ($STREAMVIEW_PAGER, $PAGER, or less -RFX)'
            cand --errors 'Where tool errors and denials are copied besides the output (stderr)'
            cand --only 'Show only these kinds of events (comma-separated, repeatable)'
            cand --hide 'Hide these kinds of events (comma-separated, repeatable; the KINDS of --only)'
            cand --since 'Only what happened since WHEN (2h, 3d, today, 2026-11-24)'
            cand --until 'Show only the sessions and events before WHEN (as --since; a date alone means the end of that day: `--since 2026-11-20 --until 2026-11-24` includes the 24th)'
            cand --tool 'Only the calls of the tools NAME matches (`*`, `?`)'
            cand --tool-kind 'Show only the calls of tools of these KINDS (comma-separated, repeatable): what a tool does, whatever the agent calls it'
            cand --from 'Which agent printed the input; `auto` detects it for each input from its first recognisable line'
            cand --max-line-bytes 'Skip lines longer than this many bytes (suffixes K, M, G), reporting them'
            cand -j 'Read the files of the directories named on N threads (default: one per core)'
            cand --jobs 'Read the files of the directories named on N threads (default: one per core)'
            cand --status-wait 'Seconds without an event before the status line says it is waiting'
            cand --max-lines 'Lines of each tool result or error text to show before cutting (verbose shows results)'
            cand --generate 'Print the man page or a shell''s completions and exit'
            cand -f 'Follow a file still being written, like `tail -f`'
            cand --follow 'Follow a file still being written, like `tail -f`'
            cand -i 'With --grep: match letters in either case'
            cand --ignore-case 'With --grep: match letters in either case'
            cand -l 'With --grep: print only the names of the files with a match, as grep -l (a match in a sub-agent''s file names that file)'
            cand --files-with-matches 'With --grep: print only the names of the files with a match, as grep -l (a match in a sub-agent''s file names that file)'
            cand -c 'With --grep: print each file with a match and the number of events matched in it, `FILE:COUNT`, as grep -c (a sub-agent''s file on its own line)'
            cand --count 'With --grep: print each file with a match and the number of events matched in it, `FILE:COUNT`, as grep -c (a sub-agent''s file on its own line)'
            cand --list 'List the saved sessions, one line each'
            cand --all-agents 'Read the saved sessions of every agent found on this machine, each where its own variables put them (Claude Code, Codex, Gemini CLI, Qwen Code, Copilot CLI, Droid, Pi, Cline, OpenCode, Kilo): `streamview --all-agents --by day` totals them by day. A report (--by, --list, --format summary or summary-json) given no input, with a terminal on standard input, reads them too: `streamview --by day`'
            cand --statusline 'Print Claude Code''s status line: read the JSON Claude Code gives a status-line command on standard input and print one line: the model, this session''s cost, today''s cost over every agent, Claude''s open 5-hour block (cost, time left, burn rate), the context and rate limits used. Saved sessions are read as --all-agents reads them (or in the FILEs), through the index; always exit 0. In ~/.claude/settings.json: {"statusLine":{"type":"command","command":"streamview --statusline"}}'
            cand --top 'Show a live board of every agent session being written now (changed in the last 10 minutes, in every agent''s store, or below the FILEs): per session its agent, project, model, the call in progress with its key argument (else what it did last), the time since its last event, turns, tokens and cost; how it ended, greyed for a minute. q, Esc or Ctrl-C quits. Without a terminal, one snapshot'
            cand --otlp-content 'With --format otlp: put prompts, tool inputs and tool outputs in the spans too'
            cand --otlp-anonymous 'With --format otlp: leave out the host name and the working directory'
            cand -v 'Show more: tool results, thinking, session details'
            cand --verbose 'Show more: tool results, thinking, session details'
            cand -q 'Nothing on stdout; errors and denials still on stderr'
            cand --quiet 'Nothing on stdout; errors and denials still on stderr'
            cand --summary 'Add the summary tables at the end: per session, per tool, per model'
            cand --list-themes 'Show each built-in theme (and --theme''s) on a short sample session, and exit'
            cand --no-cache 'Read every file of a library: neither read nor write the index'
            cand --no-status 'Do not show the live status line'
            cand --no-config 'Do not read the configuration file'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
    ]
    $completions[$command]
}
