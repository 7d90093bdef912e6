#!/usr/bin/env bash
# The checks that are not tests: rustfmt, clippy on every target (benches included, so none
# rots), the fuzz targets compiling (they are outside the workspace), rustdoc, and the declared
# rust-version against what the dependencies declare.
# Only one toolchain is installed where this runs, so the rust-version is checked, not built
# with: clippy's `incompatible_msrv` lint refuses std APIs newer than it, and no dependency may
# declare a newer one.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

cargo fmt --all --check
cargo clippy --workspace --all-targets --quiet -- -D warnings
cargo check --manifest-path fuzz/Cargo.toml --quiet
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet
cargo metadata --format-version 1 --filter-platform "$(rustc -vV | sed -n 's/^host: //p')" \
  | python3 scripts/check-rust-version.py
