#!/usr/bin/env bash
# The reliability suite (docs/reliability.md) in one command: crashes that lose unflushed
# writes (simulated disk), kill -9 of a writing process, kill -9 cycles under writers and a
# tailing reader, a full disk (root: a small tmpfs), connection floods, and bad inputs.
#   scripts/reliability.sh          the short run (what scripts/test.sh runs too)
#   scripts/reliability.sh --long   200 kill -9 cycles, 3 crash-recovery seeds
# Needs the venv and release build scripts/test.sh makes. Every loop is bounded; loopback only.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
cycles=4
rounds=1
if [ "${1:-}" = "--long" ]; then
  cycles=200
  rounds=3
fi
cargo test --release -p hivestore-engine --test durability --test crash --test listing_race
for round in $(seq "$rounds"); do
  HIVESTORE_RELIABILITY_CYCLES="$cycles" HIVESTORE_BIN="${HIVESTORE_BIN:-$TARGET_DIR/release/hivestore}" \
    "$ROOT/.venv/bin/python" -m pytest -q -rs -s -p no:cacheprovider \
    tests/python/test_reliability.py tests/python/test_crash_recovery.py \
    tests/python/test_wire_robustness.py tests/python/test_input_limits.py \
    tests/python/test_failover.py
done
