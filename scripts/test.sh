#!/usr/bin/env bash
# The one command that runs every test of hivestore:
#   1. a Python venv at .venv with tests/python/requirements.txt and pyspark (for the Hive 2.3
#      jars the Java client test and the reference HMS use); reinstalled only when the pins change
#   2. cargo build --release --workspace --all-targets   (the hivestore binary the Python tests
#      start; tests and criterion benches compiled too)
#   3. cargo test --workspace --release
#   4. pytest tests/python                 (real HMS clients over loopback)
# Fails on the first failing phase. Idempotent; fast when already set up.
# Env: PYTHON (default python3) for the venv; CARGO_TARGET_DIR is honoured; HIVESTORE_BIN and
# HMS_URI are passed through to pytest (see tests/README.md).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

PYSPARK_PIN="pyspark==4.3.0"
VENV="$ROOT/.venv"
REQUIREMENTS="$ROOT/tests/python/requirements.txt"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"

timings=()
current=""
phase() {  # phase NAME COMMAND...: run and time one phase
  local start
  current="$1"
  shift
  echo "==> $current"
  start=$(date +%s)
  "$@"
  timings+=("$(printf '%-12s %5ss' "$current" "$(($(date +%s) - start))")")
  current=""
}
report() {  # on exit, pass or fail: the time of each finished phase, and which one failed
  local code=$?
  echo "==> timings"
  if [ "${#timings[@]}" -gt 0 ]; then printf '  %s\n' "${timings[@]}"; fi
  if [ -n "$current" ]; then echo "  FAILED in phase $current (exit $code)"; fi
}
trap report EXIT

setup_venv() {
  local stamp="$VENV/.hivestore-requirements" wanted
  wanted="$( (cat "$REQUIREMENTS"; echo "$PYSPARK_PIN") | sha256sum | cut -d' ' -f1)"
  if [ -x "$VENV/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$wanted" ]; then
    echo "venv up to date ($VENV)"
    return
  fi
  [ -x "$VENV/bin/python" ] || "${PYTHON:-python3}" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check \
    -r "$REQUIREMENTS" "$PYSPARK_PIN"
  echo "$wanted" > "$stamp"
}

run_pytest() {
  HIVESTORE_BIN="${HIVESTORE_BIN:-$TARGET_DIR/release/hivestore}" \
    "$VENV/bin/python" -m pytest tests/python -q -rs --tb=short -p no:cacheprovider
}

phase venv setup_venv
phase cargo-build cargo build --release --workspace --all-targets  # benches too, so none rots
phase cargo-test cargo test --workspace --release
phase pytest run_pytest
