"""Compiling an ontology whose class hierarchy is a chain: time and peak memory by length.

A chain of n classes saturates to n(n-1)/2 (sub, super) pairs, one rule instance each.
Past a million pairs (``REASONLAKE_SATURATE_PAIRS``) the compiler keeps each class's
ancestors 1, 2, 4, ... steps away instead (about n·log2(n) instances; the rounds finish
the chain), and past ``REASONLAKE_MAX_SCHEMA_PAIRS`` (5 million) instances either way it
fails with the limit and the fix instead of running out of memory. Each size runs in a
process of its own, so its peak resident memory is its own.

    python bench/ontology.py                       # 1k, 3k, 10k and 100k classes
    python bench/ontology.py --sizes 1000 4000
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys

CHILD = """
import json, resource, sys, time
from reasonlake.compile.program import compile_program
from reasonlake.errors import ViewDeclarationError
n = int(sys.argv[1])
sub = "<http://www.w3.org/2000/01/rdf-schema#subClassOf>"
tbox = frozenset((f"<http://e/C{i}>", sub, f"<http://e/C{i + 1}>") for i in range(n))
started = time.perf_counter()
try:
    rules = len(compile_program(tbox, "rdfs").linear)
    outcome = "saturated" if rules == n * (n + 1) // 2 else "jumps"
except ViewDeclarationError as exc:
    rules, outcome = 0, f"refused ({exc.code})"
seconds = time.perf_counter() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"classes": n, "rules": rules, "outcome": outcome, "seconds": seconds, "peak": peak}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 3000, 10000, 100000])
    args = parser.parse_args()
    print(f"{'classes':>8} {'saturated pairs':>16} {'rule instances':>15} {'form':<14} {'seconds':>8} {'peak MB':>8}")
    for n in args.sizes:
        run = subprocess.run([sys.executable, "-c", CHILD, str(n)], capture_output=True, text=True, check=True)
        row = json.loads(run.stdout.strip().splitlines()[-1])
        print(f"{row['classes']:>8} {n * (n + 1) // 2:>16,} {row['rules']:>15,} {row['outcome']:<14} "
              f"{row['seconds']:>8.1f} {row['peak'] / 2**20:>8.0f}")


if __name__ == "__main__":
    main()
