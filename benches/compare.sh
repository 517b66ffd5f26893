#!/usr/bin/env bash
# End-to-end timing of streamview against `wc -l`, the probe (memchr +
# simd-json with reused buffers: into a tree, and into a tape; see
# examples/probe.rs), jq and jaq on the same files, in the same run (issues
# 5 and 27). Prints Markdown tables on stdout:
# median wall time, ratio to `wc -l`, MB/s and peak RSS per command and
# file, then a completeness check of streamview's output per file.
#
#   benches/compare.sh              # generate the default set if missing, compare
#   benches/compare.sh FILE...      # compare on any agent streams (any producer)
#
# Environment:
#   STREAMVIEW_BENCH_DIR  where generated files go (default /tmp/streamview-bench)
#   STREAMVIEW_BENCH_SET  profile=size to generate (default
#                         "claude=500M claude-partial=200M codex=200M")
#   SEED                  generator seed (default 1)
#   RUNS                  timed runs per command (default 10; `wc -l`: WC_RUNS, default 30,
#                         since every ratio divides by its median; jq and jaq: JQ_RUNS, default 3)
#   STREAMVIEW            the binary to time (default: target/release/streamview, built here)
#   PROBE                 the probe (default: target/release/examples/probe, built here)
#
# Timing uses hyperfine when installed (Debian package `hyperfine`; its runs
# go through a shell whose start-up it subtracts, output to /dev/null), else
# repeated runs and their median. Peak RSS comes from GNU time
# (`/usr/bin/time -f %M`, Debian package `time`) over one more run. The page
# cache is warmed first, so every command reads from memory. streamview runs
# with `--color never` and stdout and stderr not a terminal, the path of
# `streamview log.jsonl > out` (errors are mirrored to stderr).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dir=${STREAMVIEW_BENCH_DIR:-/tmp/streamview-bench}
set_spec=${STREAMVIEW_BENCH_SET:-"claude=500M claude-partial=200M codex=200M"}
seed=${SEED:-1}
runs=${RUNS:-10}
wc_runs=${WC_RUNS:-30}
jq_runs=${JQ_RUNS:-3}
jq_prog=$root/benches/normalize.jq

say() { printf '%s\n' "$*" >&2; }

if [[ -z ${STREAMVIEW:-} ]]; then
    say "building streamview, the generator and the probe (release)…"
    (cd "$root" && cargo build --release --locked --quiet --bin streamview --example generate --example probe)
    sv=$root/target/release/streamview
else
    sv=$STREAMVIEW
fi

files=("$@")
if [[ ${#files[@]} -eq 0 ]]; then
    mkdir -p "$dir"
    gen=$root/target/release/examples/generate
    [[ -x $gen ]] || (cd "$root" && cargo build --release --locked --quiet --example generate)
    for spec in $set_spec; do
        profile=${spec%%=*} size=${spec#*=}
        f=$dir/$profile-$size-seed$seed.jsonl
        if [[ ! -s $f || ! -s $f.counts ]]; then
            say "generating $f…"
            "$gen" --profile "$profile" --size "$size" --seed "$seed" > "$f.tmp" 2> "$f.counts.tmp"
            mv "$f.tmp" "$f" && mv "$f.counts.tmp" "$f.counts"
        fi
        files+=("$f")
    done
fi

have() { command -v "$1" >/dev/null 2>&1; }
sv_q=$(printf '%q' "$sv")
probe=${PROBE:-$root/target/release/examples/probe}
[[ -x $probe ]] || (cd "$root" && cargo build --release --locked --quiet --example probe)
probe_q=$(printf '%q' "$probe")
jq_q=$(printf '%q' "$jq_prog")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Median of the numbers on stdin.
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# time_cmd RUNS CMD: median wall seconds of CMD (a shell command line).
time_cmd() {
    local n=$1 cmd=$2
    if have hyperfine; then
        hyperfine --runs "$n" --warmup 1 --style none --output null --ignore-failure \
            --export-json "$tmp/h.json" "$cmd" >/dev/null
        if have jq; then
            jq -r '.results[0].median' "$tmp/h.json"
        else
            python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["median"])' "$tmp/h.json"
        fi
    else
        sh -c "$cmd" >/dev/null 2>&1 || true
        for _ in $(seq "$n"); do
            local t0 t1
            t0=$(date +%s%N)
            sh -c "$cmd" >/dev/null 2>&1 || { say "failed: $cmd"; exit 1; }
            t1=$(date +%s%N)
            echo "scale=6; ($t1 - $t0) / 1000000000" | bc
        done | median
    fi
}

# Peak resident set of CMD, in MiB.
peak_rss() {
    if [[ -x /usr/bin/time ]]; then
        /usr/bin/time -f %M -o "$tmp/rss" sh -c "$1" >/dev/null 2>&1 || true
        # GNU time writes "Command exited with non-zero status N" first.
        awk '{ v = $1 } END { printf "%.1f", v / 1024 }' "$tmp/rss"
    else
        echo "–"
    fi
}

cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || echo unknown)
echo "Machine: $(nproc) cores, $cpu, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM; load average at start $(cut -d' ' -f1-3 /proc/loadavg)."
echo "Date: $(date -u +%Y-%m-%d). $("$sv" --version); $(have jq && jq --version || echo 'jq not installed'); $(have jaq && jaq --version || echo 'jaq not installed'); $(have hyperfine && hyperfine --version || echo 'no hyperfine: median of repeated runs')."
echo "Median of $runs runs ($wc_runs for wc -l, $jq_runs for jq/jaq) after one warm-up; MB = 10^6 bytes; peak RSS of one more run."
echo
echo "| file | size | lines | longest line | command | median | × wc -l | MB/s | peak RSS |"
echo "|---|---:|---:|---:|---|---:|---:|---:|---:|"

checks=()
for f in "${files[@]}"; do
    q=$(printf '%q' "$f")
    bytes=$(stat -c %s "$f")
    cat "$f" >/dev/null   # into the page cache
    lines=$(wc -l < "$f")
    longest=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$f")
    name=$(basename "$f")
    mb=$(awk -v b="$bytes" 'BEGIN { printf "%.0f MB", b / 1e6 }')
    longest_h=$(awk -v b="$longest" 'BEGIN { if (b >= 1e6) printf "%.1f MB", b / 1e6; else printf "%.0f KB", b / 1e3 }')

    declare -a names=("wc -l" "probe (memchr + simd-json tree)" "probe --tape (memchr + simd-json tape)"
        "streamview (pretty)" "streamview --format jsonl" "streamview --format summary-json")
    declare -a cmds=("wc -l $q" "$probe_q $q" "$probe_q --tape $q" "$sv_q --color never $q"
        "$sv_q --format jsonl $q" "$sv_q --format summary-json $q")
    declare -a nruns=("$wc_runs" "$runs" "$runs" "$runs" "$runs" "$runs")
    if have jq; then
        names+=("jq -c -f normalize.jq"); cmds+=("jq -c -f $jq_q $q"); nruns+=("$jq_runs")
    fi
    if have jaq; then
        names+=("jaq -c -f normalize.jq"); cmds+=("jaq -c -f $jq_q $q"); nruns+=("$jq_runs")
    fi
    wc_s=
    for i in "${!cmds[@]}"; do
        say "$(basename "$f"): ${names[$i]}…"
        s=$(time_cmd "${nruns[$i]}" "${cmds[$i]}")
        [[ -z $wc_s ]] && wc_s=$s
        rss=$(peak_rss "${cmds[$i]}")
        awk -v f="$name" -v size="$mb" -v l="$lines" -v lo="$longest_h" -v c="${names[$i]}" \
            -v s="$s" -v w="$wc_s" -v b="$bytes" -v r="$rss" 'BEGIN {
                ratio = w > 0 ? sprintf("%.1f×", s / w) : "–"
                rate = s > 0 ? sprintf("%.0f", b / 1e6 / s) : "–"
                printf "| %s | %s | %s | %s | `%s` | %.3f s | %s | %s | %s MiB |\n",
                    f, size, l, lo, c, s, ratio, rate, r }'
        # Only the first row of a file names it.
        name= mb= lines= longest_h=
    done
    unset names cmds nruns

    # Completeness: streamview's exit status and the lines it reported
    # skipped (it reports every line it cannot read), its events by kind,
    # and which input lines gave no JSONL event, by type: the framing of
    # partial messages (content_block_start/stop, message_start/delta/stop),
    # Codex item.started lines whose call is written at completion, OpenCode
    # step_start, transcript metadata. With the generator's counts beside a
    # file, its tool calls, results and sessions must match them.
    say "$(basename "$f"): completeness…"
    rm -f "$tmp/cov"
    set +e
    "$sv" --format jsonl "$f" 2> "$tmp/err" |
        awk -v cov="$tmp/cov" -v kinds="$tmp/kinds" '
            match($0, /"line":[0-9]+/) { n = substr($0, RSTART + 7, RLENGTH - 7); if (!(n in seen)) { seen[n] = 1; print n > cov } }
            match($0, /"kind":"[a-z_]+"/) { k[substr($0, RSTART + 8, RLENGTH - 9)]++ }
            END { printf "%d %d %d %d\n", NR, k["tool_call"], k["tool_result"], k["result"] > kinds }'
    status=${PIPESTATUS[0]}
    set -e
    skipped=$(grep -c '; skipped$' "$tmp/err" || true)
    read -r events calls results finals < "$tmp/kinds"
    touch "$tmp/cov"
    read -r nonblank covered silent silent_types < <(awk -v cov="$tmp/cov" '
        BEGIN { while ((getline n < cov) > 0) c[n] = 1 }
        /[^ \t\r]/ {
            nb++
            if (FNR in c) { covered++; next }
            silent++
            t = "other"
            if (match($0, /"type":"[^"]*"/)) {
                t = substr($0, RSTART + 8, RLENGTH - 9)
                if (t == "stream_event" && match($0, /"event":\{"type":"[^"]*"/)) t = substr($0, RSTART + 17, RLENGTH - 18)
            }
            cnt[t]++
        }
        END {
            for (t in cnt) types = types (types == "" ? "" : ",") t "×" cnt[t]
            printf "%d %d %d %s\n", nb, covered, silent, (types == "" ? "-" : types)
        }' "$f")
    # Exit 1 (an error result) or 3 (no result) are the session's outcome;
    # 2 is an I/O error.
    verdict=complete
    [[ $status -ne 2 && $skipped -eq 0 ]] || verdict=INCOMPLETE
    [[ $silent -eq 0 ]] || silent="$silent (${silent_types//,/, })"
    gen=–
    if [[ -s $f.counts ]]; then
        want() { tr ' ' '\n' < "$f.counts" | awk -F= -v k="$1" '$1 == k { print $2 }'; }
        if [[ $(want tool_calls) == "$calls" && $(want tool_results) == "$results" && $(want sessions) == "$finals" ]]; then
            gen="matches ($(want tool_calls) calls, $(want sessions) sessions)"
        else
            gen="MISMATCH: generated $(want tool_calls) calls, $(want tool_results) results, $(want sessions) sessions"
            verdict=INCOMPLETE
        fi
    fi
    checks+=("| $(basename "$f") | $status | $skipped | $nonblank | $events | $covered | $silent | $calls | $results | $finals | $gen | **$verdict** |")
done

echo
echo "Completeness of \`streamview --format jsonl\`: exit status, lines reported skipped (the verdict needs none), events, input lines with at least one event and those without (partial-message framing and bookkeeping lines the decoders read without an event), and the generator's counts when the file has them:"
echo
echo "| file | exit | skipped | input lines | JSONL events | lines with an event | lines without one (by type) | tool calls | tool results | results | generator's counts | verdict |"
echo "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---|---|"
printf '%s\n' "${checks[@]}"
