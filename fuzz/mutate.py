#!/usr/bin/env python3
"""Mutation check of the binary: real streams, mutated, through every mode.

Takes the fixtures under tests/fixtures, applies random mutations (bit flips,
injected escape sequences, C1 and bidi characters, NUL, CR, broken UTF-8 and
JSON pieces, deletions, truncation), and runs the release binary over each in
several modes with stdout and stderr as pipes. Fails on a hang, a signal or an
undocumented exit status, or a raw control, C1 or bidi character in stdout or
stderr (`--format result` is left out: in a pipe it writes the answer exactly
as the agent wrote it, see the README).

Then the files and words options name (issue 30): the bundled price table
(`--prices`), a theme file (`--theme`) and a label (`--label`), mutated the
same way, each run over a log whose costs are estimated, with the same checks.

Usage: fuzz/mutate.py [RUNS] [SEED]   (from the repository root, after
`cargo build --release`)
"""
import glob
import os
import random
import re
import subprocess
import sys
import tempfile

BIN = "target/release/streamview"
MODES = ([], ["-v"], ["--format", "jsonl"], ["--summary"], ["--format", "summary"], ["-q"])
UNSAFE = re.compile(
    rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae\x8e\x8f]|\xe2\x81[\xa6-\xa9]|\xd8\x9c"
)
INJECT = [b"\x1b[31m", b"\x1b]52;c;aGk=\x07", b"\xc2\x9b", b"\xe2\x80\xae", b"\x00", b"\r",
          b"\xff\xfe", b"\\u001b", b"\\u202e", b"{", b"}", b'"', b"\n", b"[]", b"null", b"1e400"]


def mutate(data: bytearray, rng: random.Random) -> bytearray:
    for _ in range(rng.randint(1, 8)):
        op, p = rng.random(), rng.randrange(len(data) + 1)
        if op < 0.3 and data:
            data[p % len(data)] ^= 1 << rng.randrange(8)
        elif op < 0.6:
            data[p:p] = rng.choice(INJECT)
        elif op < 0.8:
            del data[p:p + rng.randint(1, 50)]
        else:
            data = data[:p]
    return data


def problem(args: list, data: bytes):
    """Run the binary; what is wrong with the run, or None."""
    try:
        r = subprocess.run([BIN, "--color", "never", *args], input=data,
                           capture_output=True, timeout=10)
    except subprocess.TimeoutExpired:
        return "hang"
    if r.returncode not in (0, 1, 2, 3):
        return f"exit status {r.returncode}"
    for name, out in (("stdout", r.stdout), ("stderr", r.stderr)):
        m = UNSAFE.search(out.replace(b"\n", b"").replace(b"\t", b""))
        if m:
            return f"raw {m.group()!r} on {name}"
    return None


# The files and words options name: (option, what is mutated).
SIDE = [
    ("--prices", open("src/session/prices.json", "rb").read()),
    ("--theme", b"base = light\ntool = #ff8700 bold\nlabel = 208 underline\nerror = bright-red\n"),
    ("--label", b"api"),
]
PRICED = "tests/fixtures/codex-rollout/mixed.rollout.jsonl"


def side(runs: int, rng: random.Random) -> int:
    """Mutated price tables, theme files and labels: the number of problems."""
    problems = 0
    log = open(PRICED, "rb").read()
    with tempfile.TemporaryDirectory() as d:
        for i in range(runs):
            opt, text = rng.choice(SIDE)
            data = bytes(mutate(bytearray(text), rng))
            if opt == "--label":
                # An argument holds no NUL.
                value = os.fsdecode(data.replace(b"\0", b"") or b"x")
            else:
                value = os.path.join(d, f"side-{i}")
                open(value, "wb").write(data)
            for mode in ([], ["--format", "summary"], ["--format", "markdown"]):
                why = problem([opt, value, *mode], log)
                if why:
                    problems += 1
                    path = f"/tmp/streamview-side-{i}.bin"
                    open(path, "wb").write(data)
                    print(f"{why}: {opt} {mode}, its value saved as {path}")
    return problems


def main() -> int:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 7)
    files = sorted(glob.glob("tests/fixtures/*/*.jsonl"))
    problems = 0
    for i in range(runs):
        data = bytes(mutate(bytearray(open(rng.choice(files), "rb").read()[:20000]), rng))
        for mode in MODES:
            why = problem(list(mode), data)
            if why:
                problems += 1
                path = f"/tmp/streamview-mutant-{i}.bin"
                open(path, "wb").write(data)
                print(f"{why}: mode {mode}, input saved as {path}")
    print(f"{runs} inputs × {len(MODES)} modes: {problems} problems")
    side_runs = max(runs // 4, 1)
    found = side(side_runs, rng)
    print(f"{side_runs} price tables, themes and labels × 3 modes: {found} problems")
    problems += found
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
