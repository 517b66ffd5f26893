#!/usr/bin/env bash
# The session library, timed (issue 17): a generated ~/.claude/projects and
# ~/.codex/sessions (examples/library.rs: 2,000 files, 1 GiB by default) read
# by streamview, in the same run as the tools people use on it today:
#
#   - `streamview --format summary-json LIB` and, like for like, what ccusage
#     does (`--by day` over the Claude part only, each API message counted
#     once) against ccusage 20 (the native binary, `ccusage daily --offline
#     --json`, CLAUDE_CONFIG_DIR pointing at the library; installed from the
#     npm registry into $CCUSAGE_DIR when missing) and DuckDB summing the
#     tokens of the same files (`read_json_auto` over a glob); each day's
#     input, output, cache-read and cache-write tokens and cost are compared
#     with ccusage's;
#   - `streamview --grep PATTERN LIB` against `rg -c PATTERN LIB`.
#
# Prints a Markdown table on stdout: median wall time, MB/s, peak RSS, and
# the ratio to streamview's. Tools that are missing are skipped, and said so.
#
#   benches/library.sh
#
# Environment:
#   STREAMVIEW_LIBRARY  the library's directory (default /tmp/streamview-library;
#                       generated when missing)
#   FILES, SIZE, SEED   what to generate (default 2000, 1G, 1)
#   RUNS                timed runs per command (default 5), in rounds: one run of each per round
#   PATTERN             what --grep and rg look for (default `No such file`: words of the
#                       conversation; `permission` is also in the values of attachments
#                       and request shapes that no view shows, so more lines are decoded)
#   STREAMVIEW          the binary to time (default: target/release/streamview, built here)
#   CCUSAGE             ccusage's binary (default: ccusage 20.0.24 from npm, in CCUSAGE_DIR,
#                       default /tmp/ccusage-20)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
lib=${STREAMVIEW_LIBRARY:-/tmp/streamview-library}
files=${FILES:-2000}
size=${SIZE:-1G}
seed=${SEED:-1}
runs=${RUNS:-5}
pattern=${PATTERN:-No such file}

say() { printf '%s\n' "$*" >&2; }

if [[ -z ${STREAMVIEW:-} ]]; then
    say "building streamview and the library generator (release)…"
    (cd "$root" && cargo build --release --quiet --bin streamview --example library)
    STREAMVIEW=$root/target/release/streamview
fi
if [[ ! -d $lib ]]; then
    say "generating $files session files, $size, in $lib…"
    "$root/target/release/examples/library" --dir "$lib" --files "$files" --size "$size" --seed "$seed"
fi
bytes=$(du -sb "$lib" | cut -f1)
say "library: $(find "$lib" -type f | wc -l) files, $((bytes >> 20)) MiB"
# Warm the page cache: every command reads from memory.
find "$lib" -type f -exec cat {} + >/dev/null

# Wall seconds of one run of the shell words in $1 (output to /dev/null).
once() {
    local t0 t1
    t0=$(date +%s.%N)
    eval "$1" >/dev/null 2>&1 || true
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc -l
}

rss() {
    if [[ -x /usr/bin/time ]]; then
        # A search that finds nothing exits 1, as grep and rg do: its peak
        # is read all the same.
        { /usr/bin/time -f %M "$@" 2>&1 >/dev/null || true; } | tail -1
    else
        echo "?"
    fi
}

# The commands are registered first (`row NAME RUNS CMD…`), then timed in
# rounds, one run of each per round: a machine whose speed drifts (a shared
# VM) moves every command alike, not the ones timed during a slow minute.
names=()
cmds=()
counts=()
row() {
    local name=$1 n=$2
    shift 2
    names+=("$name")
    counts+=("$n")
    cmds+=("$(printf '%q ' "$@")")
}

# Time the registered commands and print the table's rows.
rows=()
table() {
    local most=0 i r
    for n in "${counts[@]}"; do ((n > most)) && most=$n; done
    declare -A times
    for ((r = 0; r < most; r++)); do
        for i in "${!cmds[@]}"; do
            ((r < counts[i])) && times[$i]+="$(once "${cmds[$i]}") "
        done
    done
    local base=""
    for i in "${!cmds[@]}"; do
        local t m
        t=$(tr ' ' '\n' <<<"${times[$i]}" | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
        m=$(eval "rss ${cmds[$i]}")
        [[ -z $base ]] && base=$t
        rows+=("| ${names[$i]} | $(printf '%.3f' "$t") | $(echo "$bytes / $t / 1000000" | bc) | $((m / 1024)) | $(echo "scale=2; $t / $base" | bc) |")
    done
}

# Every file read (--no-cache): what reading costs. The index's own
# numbers are benches/index.sh's.
row "streamview --format summary-json" "$runs" "$STREAMVIEW" --no-cache --format summary-json "$lib"
row "streamview --format summary" "$runs" "$STREAMVIEW" --no-cache --format summary "$lib"
row "streamview --format summary-json -j1" "$runs" "$STREAMVIEW" --no-cache --format summary-json -j1 "$lib"
row "streamview --format summary-json --by day LIB/claude" "$runs" "$STREAMVIEW" --no-cache --format summary-json --by day "$lib/claude/projects"
row "streamview --format summary-json --by day -j1 LIB/claude" "$runs" "$STREAMVIEW" --no-cache --format summary-json --by day -j1 "$lib/claude/projects"
row "streamview --grep $pattern" "$runs" "$STREAMVIEW" --grep "$pattern" --color never "$lib"
row "streamview --grep $pattern -j1" "$runs" "$STREAMVIEW" --grep "$pattern" --color never -j1 "$lib"
if command -v rg >/dev/null 2>&1; then
    row "rg -c $pattern" "$runs" rg -c "$pattern" "$lib"
else
    say "skipped: rg is not installed (Debian package ripgrep)"
fi
if command -v duckdb >/dev/null 2>&1; then
    sql="select sum(message.usage.input_tokens), sum(message.usage.output_tokens) from read_json_auto('$lib/claude/projects/*/*.jsonl', format='newline_delimited', union_by_name=true, ignore_errors=true, maximum_object_size=67108864)"
    row "duckdb: sum of Claude tokens" "$runs" duckdb -c "$sql"
else
    say "skipped: the DuckDB CLI is not installed"
fi
# ccusage 20 is a native binary in a platform package of its own.
ccusage_dir=${CCUSAGE_DIR:-/tmp/ccusage-20}
ccusage=${CCUSAGE:-$ccusage_dir/node_modules/@ccusage/ccusage-linux-x64/bin/ccusage}
if [[ ! -x $ccusage && -z ${CCUSAGE:-} ]] && command -v npm >/dev/null 2>&1; then
    npm install --silent --prefix "$ccusage_dir" ccusage@20.0.24 @ccusage/ccusage-linux-x64@20.0.24 >&2 || true
    chmod +x "$ccusage" 2>/dev/null || true
fi
if [[ -x $ccusage ]] && "$ccusage" --version >/dev/null 2>&1; then
    row "$("$ccusage" --version) daily --offline --json" "$runs" env CLAUDE_CONFIG_DIR="$lib/claude" "$ccusage" daily --offline --json
    theirs_json=$(CLAUDE_CONFIG_DIR="$lib/claude" TZ=UTC "$ccusage" daily --offline --json)
    ours_json=$(TZ=UTC "$STREAMVIEW" --no-cache --format summary-json --by day "$lib/claude/projects")
    # Day by day (UTC): date, tokens in, out, cache read, cache write.
    days_ours=$(jq -r '.by.rows[] | [.group, .tokens.input, .tokens.output, .tokens.cache_read, .tokens.cache_creation] | @tsv' <<<"$ours_json")
    days_theirs=$(jq -r '.daily[] | [.period // .date, .inputTokens, .outputTokens, .cacheReadTokens, .cacheCreationTokens] | @tsv' <<<"$theirs_json")
    same=$(comm -12 <(sort <<<"$days_ours") <(sort <<<"$days_theirs") | wc -l)
    say "days with the same four token counts as ccusage: $same of $(wc -l <<<"$days_theirs")"
    diff <(sort <<<"$days_ours") <(sort <<<"$days_theirs") | head -5 >&2 || true
    # The cost (to the cent), on the days ccusage prices every model of.
    cost_ours=$(jq -r '.by.rows[] | [.group, (.cost_usd // 0 | . * 100 | round)] | @tsv' <<<"$ours_json")
    cost_theirs=$(jq -r '.daily[] | select(all(.modelBreakdowns[]; (.missingPricing // false) | not)) | [.period // .date, (.totalCost | . * 100 | round)] | @tsv' <<<"$theirs_json")
    unpriced=$(jq -r '[.daily[].modelBreakdowns[] | select(.missingPricing) | .modelName] | unique | join(", ")' <<<"$theirs_json")
    same=$(comm -12 <(sort <<<"$cost_ours") <(sort <<<"$cost_theirs") | wc -l)
    say "days with the same cost (to the cent) as ccusage, of those it prices every model of: $same of $(grep -c . <<<"$cost_theirs") (ccusage has no price for: ${unpriced:-none})"
else
    say "skipped: ccusage 20 cannot run here (npm install ccusage@20.0.24 @ccusage/ccusage-linux-x64@20.0.24)"
fi

table
echo "| command | median s | MB/s | peak RSS MiB | × streamview summary-json |"
echo "|---|---:|---:|---:|---:|"
printf '%s\n' "${rows[@]}"
