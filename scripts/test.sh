#!/usr/bin/env bash
# The one command that runs every test of hivestore, or a part of them:
#   scripts/test.sh                 everything, in phases: venv, lint, cargo-build, cargo-test, pytest
#   scripts/test.sh lint            rustfmt, clippy, rustdoc and the rust-version check (scripts/lint.sh)
#   scripts/test.sh rust [ARGS]     cargo test --workspace --release [ARGS]
#   scripts/test.sh python [ARGS]   pytest tests/python [ARGS] (e.g. -k stats), after building the binary
#   scripts/test.sh FILE [ARGS]     one test file: tests/python/*.py, or a Rust integration test
#                                   (engine/tests/x.rs, tests/e2e/x.rs, frontends/thrift/tests/x.rs, ...)
# Phases: a Python venv at .venv with tests/python/requirements.txt and pyspark (for the Hive 2.3
# jars the Java client test and the reference HMS use), reinstalled only when the pins change;
# the `hivestore` binary in release mode (the Python tests start it); the Rust tests in release
# mode (benches are compiled by clippy in the lint phase, not in release); pytest with real HMS
# clients over loopback. Fails on the first failing phase and prints how long each phase took.
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
    "$VENV/bin/python" -m pytest "${@:-tests/python}" -q -rs --tb=short -p no:cacheprovider
}

build_binary() {
  cargo build --release -p hivestore-cli --bin hivestore
}

# The cargo package and test target of a Rust integration test file: the crate is the
# nearest folder above it with a Cargo.toml, the target the file's name (tests/e2e/x.rs: x).
rust_test_file() {
  local file="$1" dir
  [ -f "$file" ] || { echo "no such file: $file" >&2; exit 2; }
  dir="$(dirname "$file")"
  while [ "$dir" != "." ] && [ ! -f "$dir/Cargo.toml" ]; do dir="$(dirname "$dir")"; done
  [ -f "$dir/Cargo.toml" ] && [ "$dir" != "." ] || { echo "no crate holds $file" >&2; exit 2; }
  echo "$(sed -n 's/^name = "\(.*\)"$/\1/p' "$dir/Cargo.toml" | head -1)" "$(basename "$file" .rs)"
}

case "${1:-all}" in
  all)
    phase venv setup_venv
    phase lint bash scripts/lint.sh
    phase cargo-build build_binary
    phase cargo-test cargo test --workspace --release
    phase pytest run_pytest
    ;;
  lint)
    phase lint bash scripts/lint.sh
    ;;
  rust)
    shift
    phase cargo-test cargo test --workspace --release "$@"
    ;;
  python)
    shift
    phase venv setup_venv
    phase cargo-build build_binary
    phase pytest run_pytest tests/python "$@"
    ;;
  *.py)
    file="$1"
    shift
    phase venv setup_venv
    phase cargo-build build_binary
    phase pytest run_pytest "$file" "$@"
    ;;
  *.rs)
    read -r package target < <(rust_test_file "$1")
    shift
    phase cargo-test cargo test --release -p "$package" --test "$target" "$@"
    ;;
  *)
    echo "usage: scripts/test.sh [lint | rust [ARGS] | python [ARGS] | FILE [ARGS]]" >&2
    exit 2
    ;;
esac
