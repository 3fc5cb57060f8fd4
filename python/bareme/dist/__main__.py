"""``python -m bareme.dist``: ``bareme generate``, ``eval --batch`` and
``score`` run on Ray or on Spark, writing the bytes the single-process
command writes.

    python -m bareme.dist generate --engine spark GENERATOR -n N --seed S --out FILE
    python -m bareme.dist evaluate --engine ray RULEBOOK --cases FILE --out FILE
    python -m bareme.dist score --engine ray RUBRIC --tasks FILE --replies FILE --out FILE

Under ``spark-submit`` the session it makes is used; under ``ray job
submit`` (``$RAY_ADDRESS``) the cluster is joined. A summary goes to
standard error: rows, seconds, and the engine's start-up time.
"""

from __future__ import annotations

import argparse
import sys
import time

from . import _engine, _task_id, evaluate, generate, read_lines, rows, score, write_lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bareme.dist", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)

    def common(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--engine", choices=["ray", "spark"], required=True)
        sp.add_argument("--out", required=True, help="the JSON Lines file written")
        sp.add_argument("--shards", type=int, default=None, help="index ranges (default: one per core of the engine)")
        sp.add_argument("--master", default=None, help="Spark master (default: spark-submit's, else local[2,4])")
        sp.add_argument("--address", default=None, help="Ray cluster address (default: $RAY_ADDRESS, else a local Ray)")
        sp.add_argument("--cpus", type=int, default=None, help="CPUs of a local Ray (default: every core)")

    g = sub.add_parser("generate", help="tasks of a generator, as `bareme generate`")
    g.add_argument("generator")
    g.add_argument("-n", type=int, required=True)
    g.add_argument("--seed", type=int, required=True)
    g.add_argument("--level", type=int, default=None)
    common(g)
    e = sub.add_parser("evaluate", help="a JSON Lines batch of cases, as `bareme eval --batch`")
    e.add_argument("rulebook")
    e.add_argument("--cases", required=True)
    common(e)
    s = sub.add_parser("score", help="replies to a task file, as `bareme score`")
    s.add_argument("rubric")
    s.add_argument("--tasks", required=True)
    s.add_argument("--replies", required=True)
    common(s)
    args = p.parse_args(argv)

    began = time.monotonic()
    if args.engine == "ray":
        from . import _ray

        _ray.start(args.address, args.cpus)
        engine = "ray"
    else:
        from . import _spark

        engine = _spark.start(args.master)
    _engine(engine)
    ready = time.monotonic()

    if args.command == "generate":
        data = generate(engine, args.generator, args.n, args.seed, shards=args.shards, level=args.level, fields=False)
        expected = args.n
    elif args.command == "evaluate":
        cases = read_lines(args.cases)
        data = evaluate(engine, args.rulebook, rows(engine, "case", cases, blocks=args.shards))
        expected = len(cases)
    else:
        task_lines = read_lines(args.tasks)
        tasks = rows(engine, "line", task_lines, blocks=args.shards, extra={"id": [_task_id(t) for t in task_lines]})
        replies = [r for r in read_lines(args.replies) if r.strip()]
        data = score(engine, args.rubric, tasks, rows(engine, "reply", replies, blocks=args.shards))
        expected = len(replies)
    written = write_lines(data, args.out, expected)
    done = time.monotonic()
    print(
        f"{args.command} on {args.engine}: {written} lines in {done - ready:.1f}s "
        f"(engine start {ready - began:.1f}s)",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
