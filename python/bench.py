"""Measures `evaluate_batch` per case against `bareme eval --batch` per case
(the same cases, the same number of workers), and the per-call overhead of
`evaluate` on one small case (BENCHMARKS.md, "Python module").

    v/bin/python python/bench.py --bareme target/release/bareme \
        --cases CASES.jsonl --repeat 50

(BENCHMARKS.md's runs: CASES.jsonl the `case` of each of `bareme generate
rulebooks/luma-payroll/generator-4.toml -n 400 --seed 9`, one a line.)
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import tempfile
import time
from pathlib import Path

import bareme

SMALL = '{"task": "retrieval", "field": "contribution_rate", "payroll_month": "2026-03"}'


def best(f, runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def paired(cli, py, rounds: int) -> tuple[float, float, float]:
    """The ratio of `py` to `cli` wall time, each round timing one run of
    each back to back (alternating which goes first): on a machine whose
    speed drifts, a pair sees the same drift, where the best of each side
    may come from different moments. The median ratio, and the lowest and
    highest."""
    ratios = []
    for k in range(rounds):
        first, second = (cli, py) if k % 2 == 0 else (py, cli)
        t0 = time.perf_counter()
        first()
        t1 = time.perf_counter()
        second()
        t2 = time.perf_counter()
        a, b = t1 - t0, t2 - t1
        c, p = (a, b) if k % 2 == 0 else (b, a)
        ratios.append(p / c)
    ratios.sort()
    return ratios[len(ratios) // 2], ratios[0], ratios[-1]


def cpu_per_case(cli, py, n: int, runs: int) -> tuple[float, float, float]:
    """CPU time per case (µs), which a loaded machine does not inflate as it
    does wall time: the command's (its process, from getrusage), the Python
    call's on all threads, and the calling thread's (the GIL side)."""
    command, call, caller = [], [], []
    for _ in range(runs):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cli()
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        command.append(r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime)
        p, t = time.process_time(), time.thread_time()
        py()
        call.append(time.process_time() - p)
        caller.append(time.thread_time() - t)
    return min(command) / n * 1e6, min(call) / n * 1e6, min(caller) / n * 1e6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bareme", required=True)
    ap.add_argument("--rulebook", default=str(bareme.rulebook_path("luma-payroll/v3")))
    ap.add_argument("--cases", required=True)
    ap.add_argument("--repeat", type=int, default=50)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--pairs", type=int, default=11)
    a = ap.parse_args()
    lines = Path(a.cases).read_text().splitlines() * a.repeat
    rb = bareme.Rulebook.load(a.rulebook)
    with tempfile.TemporaryDirectory() as d:
        batch = Path(d) / "batch.jsonl"
        batch.write_text("".join(line + "\n" for line in lines))
        small = Path(d) / "small.jsonl"
        small.write_text((SMALL + "\n") * 20000)
        for jobs in (1, 2):
            cli = best(lambda: subprocess.run(
                [a.bareme, "eval", a.rulebook, "--batch", str(batch), "--jobs", str(jobs)],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True), a.runs)
            py = best(lambda: rb.evaluate_batch(lines, jobs=jobs), a.runs)
            py_json = best(lambda: rb.evaluate_batch_json(lines, jobs=jobs), a.runs)
            dicts = [json.loads(line) for line in lines]
            py_dict = best(lambda: rb.evaluate_batch(dicts, jobs=jobs), a.runs)
            n = len(lines)
            print(f"jobs {jobs}: {n} cases; eval --batch {cli / n * 1e6:.2f} µs/case, "
                  f"evaluate_batch {py / n * 1e6:.2f} µs/case ({py / cli:.2f}x), "
                  f"evaluate_batch_json {py_json / n * 1e6:.2f} µs/case ({py_json / cli:.2f}x), "
                  f"evaluate_batch of dicts {py_dict / n * 1e6:.2f} µs/case ({py_dict / cli:.2f}x)")
            c, p, t = cpu_per_case(
                lambda: subprocess.run(
                    [a.bareme, "eval", a.rulebook, "--batch", str(batch), "--jobs", str(jobs)],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True),
                lambda: rb.evaluate_batch(dicts, jobs=jobs), n, a.runs)
            print(f"jobs {jobs}: CPU µs/case: eval --batch {c:.2f}, evaluate_batch of dicts {p:.2f} "
                  f"({p / c:.2f}x), of which the calling thread {t:.2f}")
            med, lo, hi = paired(
                lambda: subprocess.run(
                    [a.bareme, "eval", a.rulebook, "--batch", str(batch), "--jobs", str(jobs)],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True),
                lambda: rb.evaluate_batch(dicts, jobs=jobs), a.pairs)
            print(f"jobs {jobs}: evaluate_batch of dicts / eval --batch, {a.pairs} runs in pairs: "
                  f"median {med:.2f}x (lowest {lo:.2f}x, highest {hi:.2f}x)")
        engine = best(lambda: subprocess.run(
            [a.bareme, "eval", a.rulebook, "--batch", str(small), "--jobs", "1"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True), a.runs) / 20000
        as_dict = json.loads(SMALL)
        calls = 20000
        one = best(lambda: [rb.evaluate(SMALL) for _ in range(calls)], a.runs) / calls
        one_json = best(lambda: [rb.evaluate_json(SMALL) for _ in range(calls)], a.runs) / calls
        one_dict = best(lambda: [rb.evaluate(as_dict) for _ in range(calls)], a.runs) / calls
        print(f"small case: eval --batch --jobs 1 {engine * 1e6:.2f} µs/case; "
              f"evaluate(str) {one * 1e6:.2f} µs/call (overhead {(one - engine) * 1e6:.2f}), "
              f"evaluate_json(str) {one_json * 1e6:.2f} µs/call (overhead {(one_json - engine) * 1e6:.2f}), "
              f"evaluate(dict) {one_dict * 1e6:.2f} µs/call (overhead {(one_dict - engine) * 1e6:.2f})")


if __name__ == "__main__":
    main()
