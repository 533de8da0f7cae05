#!/usr/bin/env python3
"""A model's latency against the minutes spent tuning it.

usage: .venv/bin/python3 bench/tuning-curve.py DIR/<model> --records DB [--threads T]
           [--slices N] [--slice-minutes M] [--search auto|template] [--rounds R]
           [--tessel PATH] [--markdown FILE]

DIR/<model> is a case written by scripts/export-models.py (model.onnx and its inputs). The
model is compiled untuned once; then N times, `tessel tune --time-budget Mm` resumes tuning
into DB (the records already there count), the model is compiled with the records, and the
untuned and the tuned libraries are timed by `tessel bench` alternately, R rounds each (the
medians, and the median of the per-round speed-ups: the machine drifts between slices).
Prints a markdown table: cumulative tuning wall time, latency, speed-up over untuned.
"""
import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_compare_models():
    """bench/compare-models.py as a module (its compile and bench helpers)."""
    spec = importlib.util.spec_from_file_location(
        "compare_models", os.path.join(ROOT, "bench", "compare-models.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("case")
    parser.add_argument("--records", required=True)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--slices", type=int, default=4)
    parser.add_argument("--slice-minutes", type=float, default=2.0)
    parser.add_argument("--search", default="auto", choices=["auto", "template"])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tessel", default=os.path.join(ROOT, "build", "bin", "tessel"))
    parser.add_argument("--markdown")
    args = parser.parse_args()
    cm = load_compare_models()
    case = os.path.normpath(args.case)
    untuned, why = cm.compile_tessel(args.tessel, case)
    if not untuned:
        sys.exit(why)

    def timed(library):
        ms, why = cm.time_tessel(args.tessel, library, args.threads)
        if ms is None:
            sys.exit(why)
        return ms

    rows = []
    tuning_seconds = 0.0
    for piece in range(args.slices + 1):
        if piece > 0:
            start = time.monotonic()
            subprocess.run([args.tessel, "tune", os.path.join(case, "model.onnx"), "--records",
                            args.records, "--time-budget", f"{args.slice_minutes}m",
                            "--threads", str(args.threads), "--search", args.search,
                            "--trials", "100000"],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            tuning_seconds += time.monotonic() - start
            tuned, why = cm.compile_tessel(args.tessel, case, args.records, args.threads)
            if not tuned:
                sys.exit(why)
        else:
            tuned = untuned
        base, best, speedups = [], [], []
        for _ in range(args.rounds):
            base.append(timed(untuned))
            best.append(timed(tuned))
            speedups.append(base[-1] / best[-1])
        rows.append((tuning_seconds / 60, statistics.median(best), statistics.median(base),
                     statistics.median(speedups)))
        print(f"after {rows[-1][0]:.1f} min: {rows[-1][1]:.2f} ms (untuned {rows[-1][2]:.2f} ms,"
              f" speed-up {rows[-1][3]:.3f})", file=sys.stderr)

    model = os.path.basename(case)
    lines = [f"| {model}, {args.threads} thread(s): minutes tuned | tuned ms | untuned ms "
             "| speed-up |", "|---|---|---|---|"]
    for minutes, tuned_ms, base_ms, speedup in rows:
        lines.append(f"| {minutes:.1f} | {tuned_ms:.2f} | {base_ms:.2f} | {speedup:.3f} |")
    table = "\n".join(lines)
    print(table)
    if args.markdown:
        with open(args.markdown, "w") as out:
            out.write(table + "\n")


if __name__ == "__main__":
    main()
