#!/usr/bin/env python3
"""Quickstart for the bareme sandbox (`bareme serve`), standard library only.

Fetches three tasks, submits a placeholder answer to each (each scores -0.5,
malformed), prints the scores, and checks them: exit 0 when every placeholder
scored -0.5 and the run shows the same scores, 1 otherwise.

    target/debug/bareme serve &            # listens on 127.0.0.1:8080
    python3 examples/sandbox/quickstart.py [--url http://127.0.0.1:8080]
"""

import argparse
import json
import sys
import urllib.request


def call(url, path, body=None):
    data = None if body is None else json.dumps(body).encode("utf-8")
    req = urllib.request.Request(
        url + path, data=data, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.load(r)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--url", default="http://127.0.0.1:8080")
    url = p.parse_args().url.rstrip("/")

    run = call(url, "/tasks?n=3&tier=all")
    print(f"run {run['run_id']}: {len(run['tasks'])} tasks")
    for t in run["tasks"]:
        print(f"  {t['id']} ({t['tier']}, level {t['level']}): {t['prompt'][:60]}...")

    answers = [{"id": t["id"], "reply": "placeholder"} for t in run["tasks"]]
    result = call(url, "/submit", {"run_id": run["run_id"], "answers": answers})
    for s in result["scores"]:
        print(f"  {s['id']}: {s['score']} ({s.get('malformed', 'well-formed')})")
    print(f"mean {result['mean']}")

    shown = call(url, f"/runs/{run['run_id']}")
    ok = (
        len(result["scores"]) == 3
        and all(s["score"] == -0.5 and "malformed" in s for s in result["scores"])
        and shown["scores"] == result["scores"]
    )
    if not ok:
        print("error: the placeholders did not all score -0.5", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
