#!/usr/bin/env bash
# Build a fuzz corpus from every fixture (and the crafted cases in seeds/): each file prefixed with the two
# config bytes of fuzz_targets/decode_line.rs (auto-detection and each
# --from, quiet/normal/verbose, a small --max-line-bytes), cut to MAX bytes.
#
#   fuzz/seed.sh                      # corpus/decode_line, whole files up to 64 KiB
#   fuzz/seed.sh 4096 corpus/small    # first 4 KiB of each: many more runs per second
set -euo pipefail
cd "$(dirname "$0")"
max=${1:-65536}
out=${2:-corpus/decode_line}
mkdir -p "$out"
i=0
for f in ../tests/fixtures/*/*.jsonl ../tests/fixtures/*/*.json ../examples/*.jsonl seeds/*.jsonl; do
  for flags in '\x20' '\x10' '\x00' '\x21' '\x23' '\x24' '\x25' '\x26' '\x27' '\x28' '\x29' '\x22' '\x60'; do
    i=$((i + 1))
    { printf "$flags\x2a"; head -c $((max - 2)) "$f"; } > "$out/seed-$i"
  done
done
echo "$i seeds in $out"
