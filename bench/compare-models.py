#!/usr/bin/env python3
"""Compares tessel's batch-1 latency on whole models with ONNX Runtime and PyTorch eager.

usage: .venv/bin/python3 bench/compare-models.py DIR [--models a,b] [--threads 1,2]
           [--warmup W] [--runs R] [--rounds N] [--tessel PATH] [--target T]
           [--markdown FILE] [--records DB] [--no-pytorch]

DIR holds the cases written by scripts/export-models.py (DIR/<model>/model.onnx and
test_data_set_0/input_<i>.pb, one per model input). For each model and thread count, the three
are timed one after the other in the same run on the same input: tessel through `tessel
compile` (once per model, into DIR/<model>.so) and `tessel bench` on that library (a
subprocess, whose last line `<model> threads=<N>: median <ms> ms, p90 <ms> ms` is parsed), ONNX
Runtime's CPU provider (all graph optimisations, sequential, intra-op threads N), and the
PyTorch module rebuilt from scripts/tessel_models.py (no_grad, torch.set_num_threads(N)). ORT
and PyTorch take warm-up runs, then the median of timed runs as tessel bench counts its own:
at least --runs and at least 2 s of them, at most 1000 (a 4 ms model gets about 500 runs on
every side, not 10 against tessel's 500). A side that is unavailable (no onnxruntime, no torch, no tessel binary or no `bench`
command yet) shows as n/a. Each model and thread count is timed in --rounds rounds (default 3),
every side once per round; the table gives the medians and the medians of the per-round ratios.
--no-pytorch leaves PyTorch out (n/a in its columns), a third less time for a run.
With --records, each model is also compiled with those tuning records for each thread count
(DIR/<model>-tuned-t<N>.so) and timed the same way, next to the untuned library. Each row also
gives the untuned library's distinct kernels and layout changes per inference (from `tessel
compile`: all, and in parentheses those that run as kernels of their own rather than inside
their neighbours' kernels) and the time share of its three slowest kernels (from `tessel
bench`'s per-kernel profile at one thread). Prints a markdown table whose footer gives the load average: on a
shared machine, multi-threaded times suffer most.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

import numpy
import onnx
import onnx.numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))

TESSEL_LINE = re.compile(r"threads=(\d+): median ([0-9.]+) ms, p90 ([0-9.]+) ms")
COMPILE_LINE = re.compile(
    r"(\d+) kernel launches, (\d+) kernels, (\d+) layout changes \((\d+) alone\)")
PROFILE_ROW = re.compile(r"^\s*([0-9.]+)%\s+[0-9.]+\s+\d+\s+\S+ \(.*\)$")


def thread_env(threads):
    """The environment that pins a subprocess's BLAS/OpenMP pools to `threads`."""
    env = dict(os.environ)
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[name] = str(threads)
    return env


def median_ms(run, warmup, runs, min_seconds=2.0, max_runs=1000):
    """The median of at least `runs` timed runs and at least `min_seconds` of them (at most
    `max_runs`) after `warmup` runs: the counts `tessel bench` takes."""
    for _ in range(warmup):
        run()
    times = []
    while len(times) < max_runs and (len(times) < runs or sum(times) < min_seconds * 1e3):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def load_inputs(case_dir):
    """The case's inputs (test_data_set_0/input_<i>.pb), in order."""
    data_dir = os.path.join(case_dir, "test_data_set_0")
    inputs = []
    while os.path.exists(os.path.join(data_dir, f"input_{len(inputs)}.pb")):
        tensor = onnx.load_tensor(os.path.join(data_dir, f"input_{len(inputs)}.pb"))
        inputs.append(onnx.numpy_helper.to_array(tensor))
    return inputs


def compile_tessel(tessel, case_dir, target, records=None, threads=None):
    """The model compiled by `tessel compile` into case_dir/../<model>.so (reused by every
    thread count), or with tuning records for one thread count into <model>-tuned-t<N>.so;
    (None, why) when it cannot be. The library's distinct kernels and layout changes per
    inference, from compile's summary, are in `compile_tessel.stats` (None when unknown)."""
    compile_tessel.stats = (None, None)
    if not os.access(tessel, os.X_OK):
        return None, f"no tessel binary at {tessel}"
    suffix = f"-tuned-t{threads}.so" if records else ".so"
    library = os.path.normpath(case_dir) + suffix
    command = [tessel, "compile", os.path.join(case_dir, "model.onnx"), "-o", library]
    if target:
        command += ["--target", target]
    if records:
        command += ["--records", records, "--threads", str(threads)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=1800)
    if result.returncode != 0:
        why = (result.stderr.strip() or result.stdout.strip()).splitlines()
        return None, f"tessel compile failed ({result.returncode}): {why[-1] if why else ''}"
    summary = COMPILE_LINE.search(result.stdout)
    if summary:
        compile_tessel.stats = (int(summary.group(2)),
                                f"{summary.group(3)} ({summary.group(4)} alone)")
    return library, None


def time_tessel(tessel, library, threads):
    """Median ms from `tessel bench` on the compiled library (it does its own warm-up and
    repeats), or (None, why) when it cannot be had."""
    command = [tessel, "bench", library, "--threads", str(threads), "--no-profile"]
    try:
        result = subprocess.run(command, capture_output=True, text=True, env=thread_env(threads),
                                timeout=1800)
    except subprocess.TimeoutExpired:
        return None, "tessel bench timed out"
    lines = result.stdout.strip().splitlines()
    match = TESSEL_LINE.search(lines[-1]) if lines else None
    if result.returncode != 0 or not match:
        why = (result.stderr.strip() or result.stdout.strip()).splitlines()
        return None, f"tessel bench failed ({result.returncode}): {why[0] if why else ''}"
    return float(match.group(2)), None


def top3_share(tessel, library):
    """The time share (%) of the three slowest kernels in `tessel bench`'s per-kernel
    profile at one thread; None when there is no profile."""
    command = [tessel, "bench", library, "--threads", "1", "--runs", "5"]
    try:
        result = subprocess.run(command, capture_output=True, text=True, env=thread_env(1),
                                timeout=1800)
    except subprocess.TimeoutExpired:
        return None
    rows = [m for m in (PROFILE_ROW.match(line) for line in result.stdout.splitlines()) if m]
    if result.returncode != 0 or not rows:
        return None
    return sum(sorted((float(m.group(1)) for m in rows), reverse=True)[:3])


def time_ort(case_dir, examples, threads, warmup, runs):
    try:
        import onnxruntime
    except ImportError:
        return None, "onnxruntime not importable (run scripts/install-deps.sh, use .venv)"
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = onnxruntime.InferenceSession(os.path.join(case_dir, "model.onnx"), options,
                                           providers=["CPUExecutionProvider"])
    feed = {i.name: x for i, x in zip(session.get_inputs(), examples)}
    return median_ms(lambda: session.run(None, feed), warmup, runs), None


def time_torch(name, case_dir, examples, threads, warmup, runs):
    try:
        import torch
        import tessel_models
    except ImportError as error:
        return None, f"torch not importable: {error}"
    if name not in tessel_models.MODELS:
        return None, f"no PyTorch builder for '{name}'"
    torch.set_num_threads(threads)
    model, _ = tessel_models.build(name)
    xs = [torch.from_numpy(x.copy()) for x in examples]
    with torch.no_grad():
        # The rebuilt module must be the exported one: check it against the stored output.
        expected = onnx.numpy_helper.to_array(
            onnx.load_tensor(os.path.join(case_dir, "test_data_set_0", "output_0.pb")))
        if not numpy.allclose(model(*xs).numpy(), expected, rtol=1e-3, atol=1e-4):
            return None, f"rebuilt PyTorch '{name}' does not match the exported output"
        return median_ms(lambda: model(*xs), warmup, runs), None


def fmt(value, digits=2):
    return "n/a" if value is None else f"{value:.{digits}f}"


def median_ratio(per_round, a, b):
    """The median over rounds of side a's time over side b's."""
    return median_or_none([None if r[a] is None or r[b] is None else r[a] / r[b]
                           for r in per_round])


def median_or_none(values):
    """The median of the values that are not None; None when none is."""
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dir", help="folder of exported models (scripts/export-models.py --out)")
    parser.add_argument("--models", help="comma-separated model names (default: all in DIR)")
    parser.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3,
                        help="rounds per model and thread count, each timing every side once")
    parser.add_argument("--tessel", default=os.path.join(ROOT, "build", "bin", "tessel"))
    parser.add_argument("--target", help="tessel's --target (default: the host), e.g. "
                        "x86-64-avx2 to time AVX2 code on an AVX-512 host")
    parser.add_argument("--markdown", help="also write the table to this file")
    parser.add_argument("--records", help="tuning records: also time each model compiled with "
                        "them (tessel compile --records, per thread count)")
    parser.add_argument("--no-pytorch", action="store_true",
                        help="time tessel and ONNX Runtime only (PyTorch's columns show n/a)")
    args = parser.parse_args()

    names = args.models.split(",") if args.models else sorted(
        n for n in os.listdir(args.dir) if os.path.exists(os.path.join(args.dir, n, "model.onnx")))
    for name in names:
        if not os.path.exists(os.path.join(args.dir, name, "model.onnx")):
            parser.error(f"no {name}/model.onnx in {args.dir} (run scripts/export-models.py)")
    thread_counts = [int(t) for t in args.threads.split(",")]
    try:
        import torch
        torch.set_num_interop_threads(1)
    except (ImportError, RuntimeError):
        pass

    load_before = os.getloadavg()[0]
    rows = []
    notes = set()
    for name in names:
        case_dir = os.path.join(args.dir, name)
        examples = load_inputs(case_dir)
        library, why = compile_tessel(args.tessel, case_dir, args.target)
        kernels, layout_changes = compile_tessel.stats
        top3 = top3_share(args.tessel, library) if library else None
        for threads in thread_counts:
            # Let the previous measurement's spinning threads (ORT, OpenMP) go to sleep.
            time.sleep(2)
            tuned_library, tuned_why = None, "no --records"
            if args.records:
                tuned_library, tuned_why = compile_tessel(args.tessel, case_dir, args.target, args.records,
                                                          threads)
            # Every round times each side once, so the VM's drift over minutes falls on all
            # of them alike; the table gives medians over the rounds, and each ratio is the
            # median of the per-round ratios.
            engines = [
                lambda: time_tessel(args.tessel, library, threads) if library else (None, why),
                lambda: (time_tessel(args.tessel, tuned_library, threads) if tuned_library
                         else (None, tuned_why)),
                lambda: time_ort(case_dir, examples, threads, args.warmup, args.runs),
                lambda: ((None, "--no-pytorch") if args.no_pytorch else
                         time_torch(name, case_dir, examples, threads, args.warmup, args.runs)),
            ]
            rounds = [[engine() for engine in engines] for _ in range(args.rounds)]
            for results in rounds:
                notes.update(why for _, why in results
                             if why and why not in ("no --records", "--no-pytorch"))
            per_round = [[ms for ms, _ in results] for results in rounds]
            tessel_ms, tuned_ms, ort_ms, torch_ms = (
                median_or_none([r[e] for r in per_round]) for e in range(len(engines)))
            row = (f"| {name} | {threads} | {fmt(tessel_ms)} | {fmt(ort_ms)} | {fmt(torch_ms)} "
                   f"| {fmt(median_ratio(per_round, 0, 2))} | {fmt(median_ratio(per_round, 0, 3))} "
                   f"| {fmt(kernels, 0)} | {layout_changes or 'n/a'} "
                   f"| {fmt(top3, 0)}{'' if top3 is None else ' %'} |")
            if args.records:
                row += (f" {fmt(tuned_ms)} | {fmt(median_ratio(per_round, 1, 2))} "
                        f"| {fmt(median_ratio(per_round, 0, 1))} |")
            rows.append(row)
            print(row, file=sys.stderr, flush=True)

    header = ("| model | threads | tessel ms | ORT ms | PyTorch ms | tessel/ORT | tessel/PyTorch "
              "| kernels | layout changes | 3 slowest kernels |")
    rule = "|---|---|---|---|---|---|---|---|---|---|"
    if args.records:
        header += " tuned ms | tuned/ORT | tuning speed-up |"
        rule += "---|---|---|"
    table = "\n".join([
        header,
        rule,
        *rows,
        "",
        f"{os.cpu_count()} CPUs; 1-minute load average {load_before:.1f} before, "
        f"{os.getloadavg()[0]:.1f} after; medians over {args.rounds} rounds, each timing every "
        f"side once (ratios: medians of the per-round ratios); every side: the median of at "
        f"least {args.runs} runs and 2 s of them (at most 1000) after {args.warmup} warm-up.",
    ]) + "\n"
    print(table, end="")
    for why in sorted(notes):
        print(f"note: {why}", file=sys.stderr)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(table)


if __name__ == "__main__":
    main()
