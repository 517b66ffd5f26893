#!/usr/bin/env bash
# A library of real transcripts (issue 27): the Claude Code transcripts
# bundled in tests/fixtures/claude-transcript (a session with tools, one
# with thinking, one with two sub-agents), copied into FILES files (default
# 1,100) under DIR/claude/projects/<project>/<session>.jsonl, each with its
# sub-agents' files in <session>/subagents/. Message and request ids are
# kept: each API message counts once, in streamview and in ccusage alike.
# VERSION picks the transcripts: 2.1.330 (the default: 135 KB a file, 92%
# of the bytes attachments and request logs, where the generated library,
# examples/library.rs, has 83%) or 2.1.197 (14 KB a file, a dozen lines:
# what is paid per file and per line, not per byte, decides).
#
#   benches/real-library.sh DIR [FILES] [VERSION]
#   STREAMVIEW_LIBRARY=DIR benches/library.sh
set -euo pipefail

dir=${1:?usage: benches/real-library.sh DIR [FILES]}
files=${2:-1100}
case ${3:-2.1.330} in
    2.1.330) v=v2.1.330_ ;;
    2.1.197) v= ;;
    *) echo "real-library.sh: VERSION is 2.1.330 or 2.1.197" >&2; exit 2 ;;
esac
src=$(cd "$(dirname "$0")/../tests/fixtures/claude-transcript" && pwd)
[[ -e $dir ]] && { echo "real-library.sh: $dir exists; give a new directory" >&2; exit 2; }

n=0 i=0
while ((n < files)); do
    project=$dir/claude/projects/-home-dev-work-p$((i % 40))
    session=$(printf '%08x-0000-4000-8000-%012x' "$i" "$i")
    mkdir -p "$project"
    case $((i % 3)) in
        0) cp "$src/${v}transcript_tools_basic.jsonl" "$project/$session.jsonl" ;;
        1) cp "$src/${v}transcript_thinking.jsonl" "$project/$session.jsonl" ;;
        2)
            cp "$src/${v}transcript_subagent.jsonl" "$project/$session.jsonl"
            mkdir -p "$project/$session/subagents"
            for a in "$src"/${v}transcript_subagent.agent-*.jsonl; do
                cp "$a" "$project/$session/subagents/agent-${a##*.agent-}"
                n=$((n + 1))
            done
            ;;
    esac
    n=$((n + 1)) i=$((i + 1))
done
echo "$n files, $i sessions, $(du -sh "$dir" | cut -f1) in $dir" >&2
