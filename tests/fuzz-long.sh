#!/usr/bin/env bash
# The fuzz harness's long mode, sharded by index range over all cores
# (docs/reliability.md, "Fuzzing"):
#
#   tests/fuzz-long.sh TARGET COUNT [SEED]
#
# splits inputs 0..COUNT of TARGET (rulebook_toml, expression_text,
# case_json, reply_text, batch_lines, generator_toml, rubric_toml; for
# batch_lines an input is a chunk of 200 lines) into one range per core
# (JOBS=N to choose), runs each range as a process of the release test
# binary (BAREME_FUZZ_FIRST + BAREME_FUZZ_COUNT), waits, and prints per shard
# and in total: seed, range, inputs, failures, time. SEED defaults to one
# drawn from the date and time. Each shard writes its failures and its
# in-flight input under target/fuzz-long/<target>-<seed>/shard-<k>/, its
# output to shard-<k>.log beside them. Exit status: 0 if no shard failed.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -lt 2 ]; then
  sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
target="$1"
count="$2"
seed="${3:-$(date -u +%Y%m%d%H%M%S)}"
jobs="${JOBS:-$(nproc)}"
case "$count" in '' | *[!0-9]*) echo "COUNT must be a number, not $count" >&2; exit 2 ;; esac
per_input=1
[ "$target" = batch_lines ] && per_input=200

echo "fuzz-long: target $target, seed $seed, inputs 0..$count over $jobs shards"
bin="$(cargo test --release --locked --test it --no-run 2>&1 | tee /dev/stderr |
  sed -n 's/.*Executable tests\/it\/main.rs (\(.*\)).*/\1/p' | tail -1)"
if [ -z "$bin" ] || [ ! -x "$bin" ]; then
  echo "fuzz-long: cannot find the release test binary" >&2
  exit 1
fi

out="target/fuzz-long/$target-$seed"
rm -rf "$out"
mkdir -p "$out"
per=$(((count + jobs - 1) / jobs))
pids=()
firsts=()
ns=()
start_all=$(date +%s.%N)
for ((k = 0; k < jobs; k++)); do
  first=$((k * per))
  [ "$first" -ge "$count" ] && break
  n=$((count - first < per ? count - first : per))
  mkdir -p "$out/shard-$k"
  (
    t0=$(date +%s.%N)
    status=0
    BAREME_FUZZ_SEED="$seed" BAREME_FUZZ_FIRST="$first" BAREME_FUZZ_COUNT=$((n * per_input)) \
      BAREME_FUZZ_DIR="$out/shard-$k" "$bin" --exact "fuzz::$target" --nocapture \
      >"$out/shard-$k.log" 2>&1 || status=$?
    t1=$(date +%s.%N)
    echo "$status $(awk "BEGIN { print $t1 - $t0 }")" >"$out/shard-$k.status"
  ) &
  pids+=("$!")
  firsts+=("$first")
  ns+=("$n")
done
for pid in "${pids[@]}"; do
  wait "$pid" || true
done
wall=$(awk "BEGIN { print $(date +%s.%N) - $start_all }")

total_inputs=0
total_failed=0
bad=0
printf '%-6s %-10s %-22s %10s %9s %9s  %s\n' shard seed range inputs failures seconds status
for ((k = 0; k < ${#pids[@]}; k++)); do
  read -r status secs <"$out/shard-$k.status"
  first="${firsts[$k]}"
  last=$((first + ns[k]))
  # The harness's summary line: "fuzz T: seed S, N inputs[ (L lines)], F failed ...".
  summary="$(grep -m1 "^fuzz $target: seed " "$out/shard-$k.log" || true)"
  inputs="$(sed -n 's/^fuzz [a-z_]*: seed [^,]*, \([0-9]*\) inputs.*/\1/p' <<<"$summary")"
  failed="$(sed -n 's/.* \([0-9]*\) failed.*/\1/p' <<<"$summary")"
  note=ok
  if [ -z "$inputs" ]; then
    # No summary: the process died (an abort, or the watchdog's hard limit).
    inputs="?"
    failed="?"
    note="died (exit $status): see $out/shard-$k.log and $out/shard-$k/$target-inflight.txt"
    bad=1
  else
    total_inputs=$((total_inputs + inputs))
    total_failed=$((total_failed + failed))
    if [ "$status" -ne 0 ] || [ "$failed" -ne 0 ]; then
      note="FAILED (exit $status): see $out/shard-$k.log"
      bad=1
    fi
  fi
  printf '%-6s %-10s %-22s %10s %9s %9.1f  %s\n' "$k" "$seed" "$first..$last" "$inputs" "$failed" "$secs" "$note"
  grep -E "^  (slow|[0-9]+ ×)|^    (first|reproduce):" "$out/shard-$k.log" | sed 's/^/       /' || true
done
printf '%-6s %-10s %-22s %10s %9s %9.1f  %s\n' total "$seed" "0..$count" "$total_inputs" "$total_failed" "$wall" \
  "$([ "$bad" -eq 0 ] && echo ok || echo FAILED)"
exit "$bad"
