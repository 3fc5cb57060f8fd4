#!/usr/bin/env bash
# The Python module's CI: a fresh virtual environment, the module installed
# as the README says (`pip install ./python`, then pytest and the `envs`
# extra), and its tests, comparing it with the `bareme` command
# ($BAREME_BIN, built by `cargo build` first).
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
