"""A fuzzing campaign: many programs per feature set, failures counted by class.

Unlike the tests, a campaign does not stop at the first failure: it checks
``--programs`` programs, counts ok / refusal / mismatch / invalid verdicts,
and keeps the shortest program of each failure class (for a findings report;
``python -m tests.program_gen.minimize REPORT.json CLASS`` shrinks one), and
the five slowest programs with their times (to tell a slow trace from a hang:
re-run one alone).

Usage:
    python -m tests.program_gen.campaign --mode tensor --features items \\
        --programs 2000 --out /tmp/items.json

``--mode tensor`` stages programs as graphs, ``--mode jax`` under ``jax.jit``.
"""

from __future__ import annotations

import argparse
import collections
import json
import time
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.program_gen import FEATURES, INPUTS, programs
from tests.program_gen.check import Verdict, check_program

INPUT_PAIRS = st.lists(st.tuples(INPUTS, INPUTS), min_size=1, max_size=3)


_SLOWEST = 5
"""How many of the slowest programs a report keeps (with their times)."""


def run(
    features: frozenset[str], tensor: bool, count: int, backend: str = "graph"
) -> dict[str, Any]:
    """Checks ``count`` programs (tensor mode: staged by ``backend``); returns
    counts, rate and failure classes."""
    counts: collections.Counter[str] = collections.Counter()
    classes: dict[str, dict[str, Any]] = {}
    slowest: list[tuple[float, str, Any]] = []  # (seconds, body, inputs)

    @settings(
        max_examples=count,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(
        source=programs(features=features, tensor=tensor, backend=backend),
        inputs=INPUT_PAIRS,
    )
    def one(source: str, inputs: list[tuple[int, int]]) -> None:
        began = time.perf_counter()
        verdict: Verdict = check_program(source, inputs, tensor, backend)
        took = time.perf_counter() - began
        slowest.append((took, source.split("\ndef program", 1)[1], inputs))
        slowest.sort(key=lambda entry: -entry[0])
        del slowest[_SLOWEST:]
        counts[verdict.kind] += 1
        if verdict.kind == "ok":
            return
        key = f"{verdict.kind} [{verdict.where}] {verdict.kind_of_failure}"
        entry = classes.setdefault(key, {"count": 0, "example": None})
        entry["count"] += 1
        body = source.split("\ndef program", 1)[1]
        if entry["example"] is None or len(body) < len(entry["example"]["body"]):
            entry["example"] = {
                "body": body,
                "inputs": inputs,
                "message": verdict.message[-3000:],
            }

    start = time.perf_counter()
    one()
    seconds = time.perf_counter() - start
    total = sum(counts.values())
    return {
        "features": sorted(features),
        "mode": backend if tensor else "python",
        "programs": total,
        "seconds": round(seconds, 1),
        "programs_per_second": round(total / seconds, 1),
        "counts": dict(counts),
        "classes": dict(sorted(classes.items(), key=lambda kv: -kv[1]["count"])),
        "slowest": [
            {"seconds": round(t, 2), "body": body, "inputs": inputs}
            for t, body, inputs in slowest
        ],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("python", "tensor", "jax"), default="python")
    parser.add_argument("--features", default="", help="comma-separated; 'all'")
    parser.add_argument("--programs", type=int, default=1000)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    if args.features == "all":
        features = FEATURES
    else:
        features = frozenset(f for f in args.features.split(",") if f)
    tensor = args.mode != "python"
    backend = "jax" if args.mode == "jax" else "graph"
    report = run(features, tensor, args.programs, backend)
    with open(args.out, "w") as f:
        json.dump(report, f, indent=1)
    print(args.out, report["programs"], report["counts"], report["programs_per_second"])


if __name__ == "__main__":
    main()
