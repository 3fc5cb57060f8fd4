"""Measures `bareme.dist` on each engine against the `bareme` command with
`--jobs 2` (BENCHMARKS.md, "Ray and Spark"): tasks drawn, cases evaluated
and replies scored per second, and each engine's fixed start-up cost (the
session, then a job of ten tasks). Every output is compared with the
command's bytes.

    v/bin/python -P python/bench_dist.py --bareme target/release/bareme \\
        --generator rulebooks/luma-payroll/generator-4.toml --sizes 2000 20000 60000
"""

from __future__ import annotations

import argparse
import filecmp
import json
import subprocess
import tempfile
import time
from pathlib import Path

import bareme
import bareme.dist as dist


def timed(f) -> float:
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bareme", required=True)
    ap.add_argument("--generator", required=True)
    ap.add_argument("--sizes", type=int, nargs="+", default=[2000, 20000])
    ap.add_argument("--engines", nargs="+", default=["ray", "spark"])
    ap.add_argument("--seed", type=int, default=5)
    a = ap.parse_args()
    gen_path = Path(a.generator).resolve()
    work = Path(tempfile.mkdtemp(prefix="bench-dist-"))
    first = json.loads(bareme.Generator.load(gen_path).generate_json(1, a.seed)[0])
    rubric = gen_path.parent / f"rubric-{first['rubric']}.toml"
    set_id, version = first["rulebook"].split("@")
    rulebook = gen_path.parent / f"v{version}"
    rub = bareme.Rubric.load(rubric)
    cli = {}
    for n in a.sizes:
        d = work / str(n)
        d.mkdir()
        tasks, cases, replies = d / "tasks.jsonl", d / "cases.jsonl", d / "replies.jsonl"
        run = lambda *args, out: subprocess.run([a.bareme, *args, "--jobs", "2"], stdout=out, stderr=subprocess.DEVNULL, check=True)  # noqa: E731
        t_gen = timed(lambda: run("generate", str(gen_path), "-n", str(n), "--seed", str(a.seed), "--out", str(tasks), out=None))
        with open(tasks) as f, open(cases, "w") as c, open(replies, "w") as r:
            for line in f:
                t = json.loads(line)
                c.write(json.dumps(t["case"], ensure_ascii=False, separators=(",", ":")) + "\n")
                r.write(json.dumps({"id": t["id"], "reply": rub.reference_reply(line)}) + "\n")
        with open(d / "eval.jsonl", "w") as out:
            t_eval = timed(lambda: run("eval", str(rulebook), "--batch", str(cases), out=out))
        with open(d / "score.jsonl", "w") as out:
            t_score = timed(lambda: run("score", str(rubric), "--tasks", str(tasks), "--replies", str(replies), out=out))
        cli[n] = (t_gen, t_eval, t_score)
        print(f"cli --jobs 2  n={n}: generate {t_gen:.2f}s ({n / t_gen:,.0f}/s), eval {t_eval:.2f}s ({n / t_eval:,.0f}/s), score {t_score:.2f}s ({n / t_score:,.0f}/s)", flush=True)
    for engine in a.engines:
        t0 = time.perf_counter()
        if engine == "ray":
            from bareme.dist import _ray

            _ray.start(num_cpus=2)
            handle = "ray"
        else:
            from bareme.dist import _spark

            handle = _spark.start("local[2,4]")
        t_start = time.perf_counter() - t0
        out = work / "out.jsonl"
        t_tiny = timed(lambda: dist.write_lines(dist.generate(handle, gen_path, 10, a.seed, shards=2, fields=False), out, 10))
        print(f"{engine}: session {t_start:.1f}s, then a job of 10 tasks {t_tiny:.1f}s", flush=True)
        for n in a.sizes:
            d = work / str(n)
            t_gen = timed(lambda: dist.write_lines(dist.generate(handle, gen_path, n, a.seed, shards=2, fields=False), out, n))
            assert filecmp.cmp(out, d / "tasks.jsonl", shallow=False)
            task_lines = dist.read_lines(d / "tasks.jsonl")
            ids = [json.loads(t)["id"] for t in task_lines]

            def evaluate() -> None:
                rows = dist.rows(handle, "case", dist.read_lines(d / "cases.jsonl"))
                dist.write_lines(dist.evaluate(handle, rulebook, rows), out, n)

            t_eval = timed(evaluate)
            assert filecmp.cmp(out, d / "eval.jsonl", shallow=False)

            def score() -> None:
                tasks = dist.rows(handle, "line", task_lines, extra={"id": ids})
                replies = dist.rows(handle, "reply", dist.read_lines(d / "replies.jsonl"))
                dist.write_lines(dist.score(handle, rubric, tasks, replies), out, n)

            t_score = timed(score)
            assert filecmp.cmp(out, d / "score.jsonl", shallow=False)
            c = cli[n]
            print(
                f"{engine} n={n}: generate {t_gen:.2f}s ({n / t_gen:,.0f}/s, {t_gen / c[0]:.1f}× cli), "
                f"eval {t_eval:.2f}s ({n / t_eval:,.0f}/s, {t_eval / c[1]:.1f}×), "
                f"score {t_score:.2f}s ({n / t_score:,.0f}/s, {t_score / c[2]:.1f}×)",
                flush=True,
            )
        if engine == "ray":
            import ray

            ray.shutdown()
        else:
            handle.stop()
    subprocess.run(["rm", "-rf", str(work)], check=False)


if __name__ == "__main__":
    main()
