#!/usr/bin/env bash
# The status line (issue 47), timed as Claude Code runs it: after each
# message, with the session's transcript grown by a turn since the last
# refresh, over a library of 1,250 real transcripts (benches/real-library.sh)
# last written days ago. streamview --statusline beside ccusage 20's
# `statusline` (the native binary, its own cache on, as installed) fed the
# same JSON in the same rounds. Prints p50 and p95 of each (milliseconds)
# and the ratio.
#
#   benches/statusline.sh
#
# Environment:
#   STREAMVIEW_LIBRARY  the library (default /tmp/streamview-statusline-library,
#                       made by benches/real-library.sh when missing)
#   FILES               its files when made (default 1250)
#   RUNS                refreshes timed (default 41)
#   STREAMVIEW          the binary (default target/release/streamview)
#   CCUSAGE             ccusage's binary (default: as benches/library.sh installs it)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
lib=${STREAMVIEW_LIBRARY:-/tmp/streamview-statusline-library}
files=${FILES:-1250}
runs=${RUNS:-41}
sv=${STREAMVIEW:-$root/target/release/streamview}
cc=${CCUSAGE:-/tmp/ccusage-20/node_modules/@ccusage/ccusage-linux-x64/bin/ccusage}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Every agent's store but Claude's is empty: HOME is a new folder.
export HOME=$work/home STREAMVIEW_CACHE_DIR=$work/cache STREAMVIEW_CONFIG= TZ=UTC
export CLAUDE_CONFIG_DIR=$lib/claude
mkdir -p "$HOME"

say() { printf '%s\n' "$*" >&2; }

[[ -x $sv ]] || (cd "$root" && cargo build --release --quiet --bin streamview)
if [[ ! -d $lib ]]; then
    say "making $files files in $lib…"
    "$root/benches/real-library.sh" "$lib" "$files"
    # Written days ago, as most of a real history is.
    find "$lib" -type f -exec touch -d 2026-11-22T05:00:00Z {} +
fi
src=$root/tests/fixtures/claude-transcript/v2.1.330_transcript_tools_basic.jsonl
session=$lib/claude/projects/-home-dev-now/aaaaaaaa-1111-4000-8000-000000000000.jsonl
mkdir -p "$(dirname "$session")"
: >"$session"

# One turn of the session, written now: the tools transcript's lines, its
# times now, its ids new (round $1), its model one both price tables know
# (the fixture's is the scripted server's), so today's cost and the
# block's can be compared with ccusage's. Without its `cost-state` line:
# Claude Code writes one when a session ends, with the session's cost so
# far, which streamview takes over the tokens' (ccusage does not), and a
# copy of the fixture's in every turn would say the first turn's cost.
turn() {
    local t
    t=$(date -u +%Y-%m-%dT%H:%M:%S.000Z)
    sed "/\"type\":\"cost-state\"/d; s/claude-opus-5-5/claude-sonnet-4-5-20250929/g; s/\"timestamp\":\"[^\"]*\"/\"timestamp\":\"$t\"/g; s/\"msg_/\"msg_n$1_/g; s/\"req_/\"req_n$1_/g; s/\"\(uuid\|parentUuid\)\":\"/&n$1-/g" "$src" >>"$session"
}

input=$(printf '{"session_id":"aaaaaaaa-1111-4000-8000-000000000000","transcript_path":"%s","cwd":"/home/dev/now","model":{"id":"claude-opus-5-5","display_name":"Opus 5.5"},"workspace":{"current_dir":"/home/dev/now","project_dir":"/home/dev/now"},"version":"2.1.332","output_style":{"name":"default"},"cost":{"total_cost_usd":0.42,"total_duration_ms":60000,"total_api_duration_ms":30000,"total_lines_added":10,"total_lines_removed":2},"exceeds_200k_tokens":false,"context_window":{"total_input_tokens":30000,"total_output_tokens":500,"context_window_size":200000,"used_percentage":15}}' "$session")

# Milliseconds of one run of "$@" fed the input.
ms() {
    local t0 t1
    t0=$(date +%s%N)
    printf '%s' "$input" | "$@" >"$work/out" 2>/dev/null || true
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000000))
}

for i in 1 2 3; do turn "w$i"; done
# The index made, and each program's own cache warmed, before timing.
for _ in 1 2; do ms "$sv" --statusline >/dev/null; ms "$cc" statusline >/dev/null; done
say "streamview: $(printf '%s' "$input" | "$sv" --statusline --color never)"
if [[ -x $cc ]]; then
    say "ccusage:    $(printf '%s' "$input" | "$cc" statusline 2>/dev/null | sed 's/\x1b\[[0-9;]*m//g')"
fi

: >"$work/sv" ; : >"$work/cc"
for ((r = 0; r < runs; r++)); do
    turn "r$r"
    ms "$sv" --statusline >>"$work/sv"
    if [[ -x $cc ]]; then ms "$cc" statusline >>"$work/cc"; fi
done

# p50 and p95 of a file of numbers.
pct() {
    sort -n "$1" | awk -v p="$2" '{a[NR]=$1} END {i=int((NR-1)*p/100+0.5)+1; print a[i]}'
}
if [[ -x $cc ]]; then
    say "after the rounds: streamview: $(printf '%s' "$input" | "$sv" --statusline --color never)"
    say "                  ccusage:    $(printf '%s' "$input" | "$cc" statusline 2>/dev/null | sed 's/\x1b\[[0-9;]*m//g')"
fi
say "library: $(find "$lib/claude/projects" -type f | wc -l) files, $(du -sh "$lib" | cut -f1); session grown to $(($(stat -c %s "$session") >> 10)) KiB over $runs refreshes"
echo "| program | p50 ms | p95 ms |"
echo "|---|---:|---:|"
echo "| streamview --statusline | $(pct "$work/sv" 50) | $(pct "$work/sv" 95) |"
if [[ -s $work/cc ]]; then
    echo "| ccusage 20 statusline | $(pct "$work/cc" 50) | $(pct "$work/cc" 95) |"
    awk -v a="$(pct "$work/cc" 95)" -v b="$(pct "$work/sv" 95)" 'BEGIN {printf "p95 ratio: %.1fx\n", a / (b > 0 ? b : 1)}'
fi
