#!/usr/bin/env bash
# Build a fuzz corpus from every fixture (and the crafted cases in seeds/): each file prefixed with the two
# config bytes of fuzz_targets/decode_line.rs (auto-detection and each
# --from, quiet/normal/verbose, a small --max-line-bytes), cut to MAX bytes.
#
#   fuzz/seed.sh                      # corpus/decode_line, whole files up to 64 KiB
#   fuzz/seed.sh 4096 corpus/small    # first 4 KiB of each: many more runs per second
#   fuzz/seed.sh side                 # corpus/side_files: price tables, themes, labels
set -euo pipefail
cd "$(dirname "$0")"
if [ "${1:-}" = side ]; then
  # side_files.rs: byte 0 picks the kind (0 prices, 1 theme, 2 label) and
  # the colour depth (its high nibble).
  out=corpus/side_files
  mkdir -p "$out"
  # LiteLLM's table, its first 256 KiB (head closes the pipe early).
  { printf '\x00'; zstd -dc ../tests/fixtures/prices/*.json.zst || true; } | head -c 262144 > "$out/seed-litellm"
  { printf '\x00'; cat ../src/session/prices.json; } > "$out/seed-bundled"
  printf '\x01base = light\ntool = #ff8700 bold\nlabel = 208 underline\n# a comment\n' > "$out/seed-theme"
  printf '\x11\xef\xbb\xbfbase = default\nerror = bright-red bold italic\n' > "$out/seed-theme-bom"
  printf '\x02api' > "$out/seed-label"
  printf '\x22we\xe2\x80\xaeb\x1b[31m' > "$out/seed-label-hostile"
  echo "6 seeds in $out"
  exit 0
fi
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
