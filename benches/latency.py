#!/usr/bin/env python3
"""Live latency of streamview through pipes.

Feeds a stream into `streamview` one line at a time (with a pause between
lines, like an agent that is thinking), and measures for each line the time
from the moment it is written to streamview's stdin until streamview's
rendering of it can be read from its stdout pipe. Both ends are pipes, so this
measures the flush policy, not a terminal.

Usage: benches/latency.py [--bin target/release/streamview] [--pause-ms 20]
                          [--format pretty|jsonl] [FILE]
FILE defaults to tests/fixtures/claude/tools_basic.jsonl. Only lines that
produce output are measured (a line streamview renders as nothing, such as a
bookkeeping event at default verbosity, cannot be timed).
"""

import argparse
import os
import select
import statistics
import subprocess
import sys
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file", nargs="?", default="tests/fixtures/claude/tools_basic.jsonl")
    ap.add_argument("--bin", default="target/release/streamview")
    ap.add_argument("--pause-ms", type=float, default=20.0)
    ap.add_argument("--format", default="jsonl", choices=["pretty", "jsonl"])
    ap.add_argument("--rounds", type=int, default=5, help="times to replay the file")
    args = ap.parse_args()

    with open(args.file, "rb") as f:
        lines = [l if l.endswith(b"\n") else l + b"\n" for l in f if l.strip()]

    samples = []
    silent = 0
    for _ in range(args.rounds):
        p = subprocess.Popen([args.bin, "--format", args.format, "--color", "never"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        out = p.stdout.fileno()
        for line in lines:
            time.sleep(args.pause_ms / 1000)
            t0 = time.perf_counter()
            p.stdin.write(line)
            p.stdin.flush()
            # Wait for the rendering of this line (or give up after 1 s: the
            # line renders as nothing).
            r, _, _ = select.select([out], [], [], 1.0)
            if not r:
                silent += 1
                continue
            samples.append((time.perf_counter() - t0) * 1000)
            # Drain whatever else this line produced.
            while select.select([out], [], [], 0.002)[0]:
                if not os.read(out, 1 << 16):
                    break
        p.stdin.close()
        p.wait()

    if not samples:
        sys.exit("no line produced output")
    samples.sort()
    p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))]
    print(f"{args.format}: {len(samples)} lines timed ({silent} silent), pause {args.pause_ms:g} ms")
    print(f"median {statistics.median(samples):.3f} ms · p99 {p99:.3f} ms · max {samples[-1]:.3f} ms")


if __name__ == "__main__":
    main()
