#!/usr/bin/env python3
"""What a student sees, measured on a sample of both development courses: runs
`mend check --format json --timeout 5` on 4 submissions per IntroClass problem (with its
reference and tests) and 2 per C-Pack lab (its mend.toml), and counts warnings and errors
per file, failing-test diagnostics per file (one bug, one diagnostic), files with more than
one information diagnostic (a final state says one thing), the size of the numbers in shown
counterexample inputs, and solver vocabulary in any message or fix title.

    python3 scripts/student_view_sample.py [MEND_BIN] [DATA_DIR]
"""
import collections
import json
import pathlib
import re
import subprocess
import sys

MEND = sys.argv[1] if len(sys.argv) > 1 else "target/release/mend"
DATA = pathlib.Path(sys.argv[2] if len(sys.argv) > 2 else "../shared/data")
JARGON = ["mutation level", "cost", "edge by edge", "patch size", "b=", "bounded,", "unsat", "model", "Timeout", "Cancelled"]


def sample():
    for prob in sorted((DATA / "introclass").iterdir()):
        subs = sorted((prob / "submissions").glob("*.c"))
        for s in subs[:: max(1, len(subs) // 4)][:4]:
            yield s, ["--reference", str(prob / "reference.c"), "--tests", str(prob / "tests")]
    for prob in sorted((DATA / "cpack").iterdir()):
        subs = sorted((prob / "submissions").glob("*.c"))
        for s in subs[:: max(1, len(subs) // 2)][:2]:
            yield s, []


def main():
    stats = collections.Counter()
    shown, inputs, hits = [], [], []
    for path, extra in sample():
        run = subprocess.run([MEND, "check", str(path), "--format", "json", "--timeout", "5", *extra],
                             capture_output=True, text=True, timeout=300)
        report = json.loads(run.stdout.splitlines()[0])
        diags = report["diagnostics"]
        stats["files"] += 1
        stats["files with a failing test"] += any(not t["passed"] for t in report["tests"])
        failed = [d for d in diags if d["code"] == "test-failed"]
        stats["failing-test diagnostics"] += len(failed)
        stats["files with 2+ failing-test diagnostics"] += len(failed) > 1
        stats["files with 2+ information diagnostics"] += sum(d["severity"] == "information" for d in diags) > 1
        shown.append(sum(d["severity"] in ("error", "warning") for d in diags))
        for d in diags:
            m = re.search(r"input `([^`]*)`", d["message"])
            if d["code"] in ("reference-mismatch", "assertion") and m:
                inputs.append(max((len(t.lstrip("-")) for t in m.group(1).split()), default=0))
        for text in [d["message"] for d in diags] + [r["title"] for r in report["repairs"]]:
            hits += [(path.name, j, text[:100]) for j in JARGON if j in text]
    for k, v in stats.items():
        print(f"{k}: {v}")
    print(f"warnings and errors per file: mean {sum(shown) / len(shown):.2f}, max {max(shown)}")
    print(f"counterexample inputs shown: {len(inputs)}, most digits in one number: {max(inputs, default=0)}")
    print(f"solver vocabulary in messages and titles: {len(hits)}")
    for h in hits[:10]:
        print("  ", h)


if __name__ == "__main__":
    main()
