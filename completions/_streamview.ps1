
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'streamview' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'streamview'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'streamview' {
            [CompletionResult]::new('--grep', '--grep', [CompletionResultType]::ParameterName, 'Show only the events that match PATTERN, one line each')
            [CompletionResult]::new('--prices', '--prices', [CompletionResultType]::ParameterName, 'Estimate costs with the prices in FILE, added to the bundled table or replacing its models of the same name ($STREAMVIEW_PRICES when not given)')
            [CompletionResult]::new('--by', '--by', [CompletionResultType]::ParameterName, 'A table of the totals by KEY')
            [CompletionResult]::new('--tz', '--tz', [CompletionResultType]::ParameterName, 'The time zone of --by''s days, weeks, months and blocks and of --since and --until (default: $TZ, else the system''s): a name (Europe/Paris), UTC, or a POSIX offset (CET-1)')
            [CompletionResult]::new('--timezone', '--timezone', [CompletionResultType]::ParameterName, 'The time zone of --by''s days, weeks, months and blocks and of --since and --until (default: $TZ, else the system''s): a name (Europe/Paris), UTC, or a POSIX offset (CET-1)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'With --grep: show N events before and after each match (`FILE-LINE-SESSION-` first), as grep -C; groups apart are separated by `--`. Every line is then read')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'With --grep: show N events before and after each match (`FILE-LINE-SESSION-` first), as grep -C; groups apart are separated by `--`. Every line is then read')
            [CompletionResult]::new('--latest', '--latest', [CompletionResultType]::ParameterName, 'Replay the saved session that began last (=N: the N latest)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Only the sessions whose project (the agent''s working directory) contains PATTERN, for every agent: in a directory of sessions and with --latest, the others are not read. A session whose first lines name no working directory is left out')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format (default: pretty)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--label', '--label', [CompletionResultType]::ParameterName, 'Start every output line with `[NAME] `, in a colour of its own; JSONL events get `"label": "NAME"`')
            [CompletionResult]::new('--theme', '--theme', [CompletionResultType]::ParameterName, 'The colours of the pretty output: default, light (for light backgrounds), contrast (high contrast), mono (no colour, the same symbols), or a theme FILE of your own')
            [CompletionResult]::new('--paging', '--paging', [CompletionResultType]::ParameterName, 'When to show the output through a pager ($STREAMVIEW_PAGER, $PAGER, or less -RFX)')
            [CompletionResult]::new('--errors', '--errors', [CompletionResultType]::ParameterName, 'Where tool errors and denials are copied besides the output (stderr)')
            [CompletionResult]::new('--only', '--only', [CompletionResultType]::ParameterName, 'Show only these kinds of events (comma-separated, repeatable)')
            [CompletionResult]::new('--hide', '--hide', [CompletionResultType]::ParameterName, 'Hide these kinds of events (comma-separated, repeatable; the KINDS of --only)')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only what happened since WHEN (2h, 3d, today, 2026-11-24)')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Show only the sessions and events before WHEN (as --since; a date alone means the end of that day: `--since 2026-11-20 --until 2026-11-24` includes the 24th)')
            [CompletionResult]::new('--tool', '--tool', [CompletionResultType]::ParameterName, 'Only the calls of the tools NAME matches (`*`, `?`)')
            [CompletionResult]::new('--tool-kind', '--tool-kind', [CompletionResultType]::ParameterName, 'Show only the calls of tools of these KINDS (comma-separated, repeatable): what a tool does, whatever the agent calls it')
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'Which agent printed the input; `auto` detects it for each input from its first recognisable line')
            [CompletionResult]::new('--max-line-bytes', '--max-line-bytes', [CompletionResultType]::ParameterName, 'Skip lines longer than this many bytes (suffixes K, M, G), reporting them')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Read the files of the directories named on N threads (default: one per core)')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Read the files of the directories named on N threads (default: one per core)')
            [CompletionResult]::new('--status-wait', '--status-wait', [CompletionResultType]::ParameterName, 'Seconds without an event before the status line says it is waiting')
            [CompletionResult]::new('--max-lines', '--max-lines', [CompletionResultType]::ParameterName, 'Lines of each tool result or error text to show before cutting (verbose shows results)')
            [CompletionResult]::new('--generate', '--generate', [CompletionResultType]::ParameterName, 'Print the man page or a shell''s completions and exit')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Follow a file still being written, like `tail -f`')
            [CompletionResult]::new('--follow', '--follow', [CompletionResultType]::ParameterName, 'Follow a file still being written, like `tail -f`')
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, 'With --grep: match letters in either case')
            [CompletionResult]::new('--ignore-case', '--ignore-case', [CompletionResultType]::ParameterName, 'With --grep: match letters in either case')
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'With --grep: print only the names of the files with a match, as grep -l (a match in a sub-agent''s file names that file)')
            [CompletionResult]::new('--files-with-matches', '--files-with-matches', [CompletionResultType]::ParameterName, 'With --grep: print only the names of the files with a match, as grep -l (a match in a sub-agent''s file names that file)')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'With --grep: print each file with a match and the number of events matched in it, `FILE:COUNT`, as grep -c (a sub-agent''s file on its own line)')
            [CompletionResult]::new('--count', '--count', [CompletionResultType]::ParameterName, 'With --grep: print each file with a match and the number of events matched in it, `FILE:COUNT`, as grep -c (a sub-agent''s file on its own line)')
            [CompletionResult]::new('--list', '--list', [CompletionResultType]::ParameterName, 'List the saved sessions, one line each')
            [CompletionResult]::new('--all-agents', '--all-agents', [CompletionResultType]::ParameterName, 'Read the saved sessions of every agent found on this machine, each where its own variables put them (Claude Code, Codex, Gemini CLI, Qwen Code, Copilot CLI, Droid, Pi, Cline, OpenCode, Kilo): `streamview --all-agents --by day` totals them by day. A report (--by, --list, --format summary or summary-json) given no input, with a terminal on standard input, reads them too: `streamview --by day`')
            [CompletionResult]::new('--statusline', '--statusline', [CompletionResultType]::ParameterName, 'Print Claude Code''s status line: read the JSON Claude Code gives a status-line command on standard input and print one line: the model, this session''s cost, today''s cost over every agent, Claude''s open 5-hour block (cost, time left, burn rate), the context and rate limits used. Saved sessions are read as --all-agents reads them (or in the FILEs), through the index; always exit 0. In ~/.claude/settings.json: {"statusLine":{"type":"command","command":"streamview --statusline"}}')
            [CompletionResult]::new('--top', '--top', [CompletionResultType]::ParameterName, 'Show a live board of every agent session being written now (changed in the last 10 minutes, in every agent''s store, or below the FILEs): per session its agent, project, model, the call in progress with its key argument (else what it did last), the time since its last event, turns, tokens and cost; how it ended, greyed for a minute. q, Esc or Ctrl-C quits. Without a terminal, one snapshot')
            [CompletionResult]::new('--otlp-content', '--otlp-content', [CompletionResultType]::ParameterName, 'With --format otlp: put prompts, tool inputs and tool outputs in the spans too')
            [CompletionResult]::new('--otlp-anonymous', '--otlp-anonymous', [CompletionResultType]::ParameterName, 'With --format otlp: leave out the host name and the working directory')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Show more: tool results, thinking, session details')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show more: tool results, thinking, session details')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Nothing on stdout; errors and denials still on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Nothing on stdout; errors and denials still on stderr')
            [CompletionResult]::new('--summary', '--summary', [CompletionResultType]::ParameterName, 'Add the summary tables at the end: per session, per tool, per model')
            [CompletionResult]::new('--list-themes', '--list-themes', [CompletionResultType]::ParameterName, 'Show each built-in theme (and --theme''s) on a short sample session, and exit')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Read every file of a library: neither read nor write the index')
            [CompletionResult]::new('--no-status', '--no-status', [CompletionResultType]::ParameterName, 'Do not show the live status line')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Do not read the configuration file')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
