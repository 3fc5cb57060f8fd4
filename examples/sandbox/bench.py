#!/usr/bin/env python3
"""Loopback load of a running `bareme serve` (standard library only), for
BENCHMARKS.md: requests per second and p99 latency of GET /tasks and of
first submissions (POST /submit, each to its own run: graded and stored),
then the SQLite file's size per thousand runs.

    bareme serve --addr 127.0.0.1:0 --db /tmp/bench.sqlite --rate-limit 1000000000 &
    python3 examples/sandbox/bench.py --url http://127.0.0.1:PORT --db /tmp/bench.sqlite

Bounded: --runs requests of each kind (1000 by default) on --threads
keep-alive connections. The server must start on an empty store.
"""

import argparse
import http.client
import json
import os
import sqlite3
import threading
import time
import urllib.parse


def worker(url, jobs, out, lock):
    u = urllib.parse.urlparse(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    mine = []
    while True:
        with lock:
            if not jobs:
                break
            method, path, body = jobs.pop()
        t = time.perf_counter()
        conn.request(method, path, body=body, headers={"Content-Type": "application/json"})
        r = conn.getresponse()
        data = r.read()
        mine.append((time.perf_counter() - t, r.status, data))
    with lock:
        out.extend(mine)


def load(url, jobs, threads):
    out, lock = [], threading.Lock()
    start = time.perf_counter()
    ts = [threading.Thread(target=worker, args=(url, jobs, out, lock)) for _ in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    wall = time.perf_counter() - start
    lat = sorted(x[0] for x in out)
    bad = sum(1 for x in out if x[1] != 200)
    p = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))] * 1000
    return out, f"{len(out) / wall:.0f} req/s, p50 {p(0.50):.1f} ms, p99 {p(0.99):.1f} ms, {bad} not 200"


def main():
    a = argparse.ArgumentParser()
    a.add_argument("--url", required=True)
    a.add_argument("--db", required=True)
    a.add_argument("--runs", type=int, default=1000)
    a.add_argument("--threads", type=int, default=4)
    args = a.parse_args()

    runs, line = load(args.url, [("GET", "/tasks?n=3", None)] * args.runs, args.threads)
    print(f"GET /tasks?n=3: {line}")
    subs = []
    for _, _, data in runs:
        run = json.loads(data)
        answers = [{"id": t["id"], "reply": '{"decision": "retrieve", "field": "net_pay", "value": "1.00", "clauses": ["R1"]}'}
                   for t in run["tasks"]]
        subs.append(("POST", "/submit", json.dumps({"run_id": run["run_id"], "answers": answers})))
    _, line = load(args.url, subs, args.threads)
    print(f"POST /submit (first submission, 3 answers): {line}")

    db = sqlite3.connect(args.db)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    n = db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    db.close()
    size = os.path.getsize(args.db)
    print(f"SQLite: {n} runs (3 tasks, submitted) in {size / 1024:.0f} KiB: {size / n * 1000 / 1024 / 1024:.2f} MiB per 1000 runs")


if __name__ == "__main__":
    main()
