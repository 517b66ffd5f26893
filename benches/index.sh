#!/usr/bin/env bash
# The index (issue 46), timed: one report over a library of real
# transcripts (benches/real-library.sh: FILES copies of Claude Code's) read
# without the index (--no-cache), with an empty one (cold: read and
# indexed), with a full one (warm), and right after a line was appended to
# a big transcript of the library; beside ccusage 20 (the native binary)
# over the same files. Prints a Markdown table (medians of RUNS rounds, one
# run of each command per round) and the index's size against the
# library's.
#
#   benches/index.sh
#
# Environment:
#   STREAMVIEW_LIBRARY  the library (default /tmp/streamview-index-library,
#                       made by benches/real-library.sh when missing)
#   FILES               its files when made (default 1250)
#   BIG                 MiB of the transcript a line is appended to (default 100)
#   RUNS                rounds (default 11)
#   STREAMVIEW          the binary (default target/release/streamview)
#   CCUSAGE             ccusage's binary (default: as benches/library.sh installs it)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
lib=${STREAMVIEW_LIBRARY:-/tmp/streamview-index-library}
files=${FILES:-1250}
big=${BIG:-100}
runs=${RUNS:-11}
sv=${STREAMVIEW:-$root/target/release/streamview}
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
export STREAMVIEW_CACHE_DIR=$cache/c STREAMVIEW_CONFIG= TZ=UTC

say() { printf '%s\n' "$*" >&2; }

[[ -x $sv ]] || (cd "$root" && cargo build --release --quiet --bin streamview)
if [[ ! -d $lib ]]; then
    say "making $files files in $lib…"
    "$root/benches/real-library.sh" "$lib" "$files"
    # One big transcript: the tools session's lines again and again, each
    # entry, message and call a new one (their ids made unique: an entry
    # whose uuid repeats is a resume's copy, counted once), to BIG MiB.
    src=$root/tests/fixtures/claude-transcript/v2.1.330_transcript_tools_basic.jsonl
    out=$lib/claude/projects/-home-dev-big/ffffffff-0000-4000-8000-000000000000.jsonl
    mkdir -p "$(dirname "$out")"
    i=0
    while (($(stat -c %s "$out" 2>/dev/null || echo 0) < big << 20)); do
        sed "s/\"msg_/\"msg_b${i}_/g; s/\"req_/\"req_b${i}_/g; s/\"toolu_/\"toolu_b${i}_/g; s/\"\(uuid\|parentUuid\)\":\"/&b${i}-/g" "$src" >>"$out"
        i=$((i + 1))
    done
fi
# A history: the copies last written days ago, as most of a real one is
# (the index keeps a decoder's state only for files changed within a day);
# the big transcript is the session at work.
find "$lib/claude/projects" -type f ! -name 'ffffffff-*' -exec touch -d 2026-11-22T05:00:00Z {} +
projects=$lib/claude/projects
bytes=$(du -sb "$projects" | cut -f1)
bigfile=$(find "$projects" -name 'ffffffff-*.jsonl' | head -1)
say "library: $(find "$projects" -type f | wc -l) files, $((bytes >> 20)) MiB; big transcript: $(($(stat -c %s "$bigfile") >> 20)) MiB"
find "$projects" -type f -exec cat {} + >/dev/null

once() {
    local t0 t1
    t0=$(date +%s%N)
    eval "$1" >/dev/null 2>&1 || true
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000))
}

# The last line of the big transcript, appended again before a run (the
# same message again: a copy, counted once).
line=$(tail -n 1 "$bigfile")
report=(--format summary-json --by day "$projects")
ccusage_dir=${CCUSAGE_DIR:-/tmp/ccusage-20}
ccusage=${CCUSAGE:-$ccusage_dir/node_modules/@ccusage/ccusage-linux-x64/bin/ccusage}
if [[ ! -x $ccusage && -z ${CCUSAGE:-} ]] && command -v npm >/dev/null 2>&1; then
    npm install --silent --prefix "$ccusage_dir" ccusage@20.0.24 @ccusage/ccusage-linux-x64@20.0.24 >&2 || true
    chmod +x "$ccusage" 2>/dev/null || true
fi

names=("warm" "--no-cache" "after a line appended to the big transcript" "cold (empty index)")
cmds=(
    "$(printf '%q ' "$sv" "${report[@]}")"
    "$(printf '%q ' "$sv" --no-cache "${report[@]}")"
    "printf '%s\n' $(printf '%q' "$line") >> $(printf '%q' "$bigfile"); $(printf '%q ' "$sv" "${report[@]}")"
    "rm -rf $cache/c; $(printf '%q ' "$sv" "${report[@]}")"
)
if [[ -x $ccusage ]] && "$ccusage" --version >/dev/null 2>&1; then
    names+=("$("$ccusage" --version) daily --offline --json")
    cmds+=("CLAUDE_CONFIG_DIR=$(printf '%q' "$lib/claude") $(printf '%q' "$ccusage") daily --offline --json")
else
    say "skipped: ccusage 20 cannot run here"
fi

# Each round: the warm run first, on an index older than the time a
# change must be (index::RACY_NS); the run after an append (which reads the
# big transcript on from where the index left it); an untimed run once
# that append is old enough, so the big transcript is indexed again; the
# cold run; ccusage.
"$sv" "${report[@]}" >/dev/null
declare -A times
for ((r = 0; r < runs; r++)); do
    for i in "${!cmds[@]}"; do
        case ${names[$i]} in
            warm) sleep 2.1 ;;
            cold*) sleep 2.1; "$sv" "${report[@]}" >/dev/null ;;
        esac
        times[$i]+="$(once "${cmds[$i]}") "
    done
done
warm=""
echo "| ${#cmds[@]} commands, $((bytes >> 20)) MiB, RUNS=$runs | median ms | × warm |"
echo "|---|---:|---:|"
for i in "${!cmds[@]}"; do
    t=$(tr ' ' '\n' <<<"${times[$i]}" | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    [[ ${names[$i]} == warm ]] && warm=$t
    ms[$i]=$t
done
for i in "${!cmds[@]}"; do
    printf '| %s | %.1f | %.2f |\n' "${names[$i]}" "$(echo "${ms[$i]} / 1000" | bc -l)" "$(echo "${ms[$i]} / $warm" | bc -l)"
done
# Sizes and memory, with a settled index.
"$sv" "${report[@]}" >/dev/null
sleep 2.1
idx=$(du -sb "$cache/c" | cut -f1)
say "index: $idx bytes, $(echo "scale=2; 100 * $idx / $bytes" | bc)% of the library"
# Its events and table uncompressed: every zstd frame after the header
# (magic, version, binary, the reads' length and text).
for f in "$cache"/c/*.idx; do
    ctx=$(od -An -tu4 -j29 -N4 "$f" | tr -d ' ')
    # (zstd stops at the trailer, which is not a frame: its status is not ours)
    raw=$({ tail -c +$((34 + ctx)) "$f" | zstd -dcq 2>/dev/null || true; } | wc -c)
    say "  $(basename "$f"): $raw bytes uncompressed, $(echo "scale=2; 100 * $raw / $bytes" | bc)% of the library"
done
if [[ -x /usr/bin/time ]]; then
    say "peak RSS, warm: $(/usr/bin/time -f %M "$sv" "${report[@]}" 2>&1 >/dev/null | tail -1) KiB; --no-cache: $(/usr/bin/time -f %M "$sv" --no-cache "${report[@]}" 2>&1 >/dev/null | tail -1) KiB"
fi
# The answers are the same.
if cmp -s <("$sv" "${report[@]}") <("$sv" --no-cache "${report[@]}"); then
    say "warm and --no-cache: the same report"
else
    say "warm and --no-cache DIFFER"
    exit 1
fi
