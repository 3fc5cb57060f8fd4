#!/bin/sh
# The audit pages as a person sees them: headless Chromium renders the
# Luma and paie-fr pages (`bareme eval --trace html`), dumps the DOM it
# built and takes a screenshot and a PDF print of each; check.py then
# finds every step of the JSON trace and every answer field in the DOM's
# text, and no link or load leaving the page.
#
#   tests/page/check.sh [BAREME] [OUT_DIR]
#
# BAREME defaults to target/debug/bareme; the screenshots are kept only
# when OUT_DIR is given (docs/img/audit-*.png were taken so:
# `tests/page/check.sh target/debug/bareme docs/img` refreshes them).
# Needs `chromium` (Debian's package) and python3; no network.
set -eu
cd "$(dirname "$0")/../.."
BAREME=${1:-target/debug/bareme}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
OUT=${2:-$WORK/shots}
mkdir -p "$OUT"
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
    echo "check.sh: chromium is not installed (apt-get install -y chromium)" >&2
    exit 2
fi
# The flags of a headless run in a container: no sandbox (root), no GPU,
# no first-run work, nothing fetched.
run_chromium() {
    "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --no-first-run --disable-extensions --disable-sync \
        --disable-background-networking --disable-component-update \
        --user-data-dir="$WORK/profile" "$@" 2>>"$WORK/chromium.log"
}
status=0
page() {
    name=$1 rulebook=$2 case=$3 height=$4
    "$BAREME" eval "$rulebook" "$case" --trace html --out "$WORK/$name.html"
    "$BAREME" eval "$rulebook" "$case" --trace json > "$WORK/$name.json"
    run_chromium --dump-dom "file://$WORK/$name.html" > "$WORK/$name.dom.html"
    python3 tests/page/check.py "$WORK/$name.dom.html" "$WORK/$name.json" || status=1
    run_chromium --screenshot="$OUT/audit-$name.png" --window-size=1100,"$height" \
        "file://$WORK/$name.html" > /dev/null
    run_chromium --print-to-pdf="$WORK/$name.pdf" --no-pdf-header-footer \
        "file://$WORK/$name.html" > /dev/null
    for f in "$OUT/audit-$name.png" "$WORK/$name.pdf"; do
        if [ ! -s "$f" ]; then
            echo "check.sh: chromium wrote no $f" >&2
            status=1
        fi
    done
}
page luma rulebooks/luma-payroll/v3 examples/luma-payroll/payslip.json 1500
page paie-fr rulebooks/paie-fr/v2026 examples/paie-fr/level4-entry.json 1700
if [ "$status" -ne 0 ]; then
    echo "check.sh: chromium's log:" >&2
    tail -5 "$WORK/chromium.log" >&2 || true
fi
[ -n "${2:-}" ] && echo "screenshots in $OUT"
exit $status
