#!/usr/bin/env bash
# The Python module's CI: a fresh virtual environment, the module installed
# as the README says (`pip install ./python`, then pytest and the `envs`
# extra), and its tests, comparing it with the `bareme` command
# ($BAREME_BIN, built by `cargo build` first). With BAREME_DIST=1 (as
# `.ci/run` sets it), then `bareme.dist` (issue 29): the `ray` and `spark`
# extras into the same environment, their tests, and 20,000 tasks drawn on
# each engine compared with `bareme generate`.
set -euo pipefail
cd "$(dirname "$0")/.."
export BAREME_BIN="${BAREME_BIN:-$PWD/target/debug/bareme}"
[ -x "$BAREME_BIN" ] || cargo build --locked
venv="$(mktemp -d)/v"
trap 'rm -rf "$(dirname "$venv")"' EXIT
python3 -m venv "$venv" 2>/dev/null || {
  apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
  python3 -m venv "$venv"
}
"$venv/bin/pip" install -q --upgrade pip
"$venv/bin/pip" install -q ./python
"$venv/bin/pip" install -q pytest "./python[envs]"
# From another folder, so that `import bareme` is the installed package.
cd python/tests
"$venv/bin/python" -m pytest -q -p no:cacheprovider .

if [ "${BAREME_DIST:-}" = 1 ]; then
  cd ../..
  dist_start=$(date +%s)
  # Ray Data and Spark (the pyspark wheel: no download outside PyPI; Java
  # is the machine's): about 1.2 GB, removed with the environment.
  "$venv/bin/pip" install -q --no-cache-dir "./python[ray,spark]"
  echo "dist: extras installed in $(( $(date +%s) - dist_start ))s"
  (cd python/tests && "$venv/bin/python" -m pytest -q -p no:cacheprovider \
    -W ignore::DeprecationWarning --durations=8 test_dist_ray.py test_dist_spark.py)
  # The issue's check: the same 20,000 tasks on each engine and in one process.
  out="$(dirname "$venv")"
  "$BAREME_BIN" generate rulebooks/luma-payroll/generator-4.toml -n 20000 --seed 5 \
    --out "$out/cli.jsonl" 2>/dev/null
  for engine in spark ray; do
    "$venv/bin/python" -m bareme.dist generate --engine "$engine" \
      rulebooks/luma-payroll/generator-4.toml -n 20000 --seed 5 --out "$out/$engine.jsonl" \
      2> "$out/$engine.log" || { cat "$out/$engine.log" >&2; exit 1; }
    grep "^generate on" "$out/$engine.log"
    cmp "$out/$engine.jsonl" "$out/cli.jsonl"
    echo "dist: $engine wrote the bytes of bareme generate -n 20000 --seed 5"
    rm -f "$out/$engine.jsonl"
  done
  echo "dist: $(( $(date +%s) - dist_start ))s"
fi
