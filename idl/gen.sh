#!/usr/bin/env bash
# Regenerates the Rust code in idl/src/generated/ from the Thrift IDL in idl/.
#
#   idl/gen.sh
#
# Needs the Thrift compiler 0.17 (Debian: apt-get install -y thrift-compiler) and python3.
# A normal `cargo build` never runs this: the generated files are committed.
#
# Steps:
#   1. thrift -gen rs for fb303.thrift and hive_metastore.thrift. The generated
#      hive_metastore.rs refers to the included IDL as `crate::fb303`, which is why lib.rs
#      declares both modules at the crate root.
#   2. gen_handler.py (then rustfmt) derives handler.rs (the `Handler` trait with UNKNOWN_METHOD defaults,
#      the `Adapter` to the generated processor traits, and `METHODS`) from the generated
#      handler traits.
#
# The generated files are never edited by hand; patch_generated.py applies five documented
# mechanical fixes. The compiler warns about two arguments of drop_dataconnector without
# field ids: that is deliberate (Hive 4.0 declared them so, and its clients send ids -1 and
# -2), see README.md.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$here/src/generated"

if ! command -v thrift >/dev/null 2>&1; then
    echo "gen.sh: the Thrift compiler is missing (apt-get install -y thrift-compiler)" >&2
    exit 1
fi
version="$(thrift --version)"
case "$version" in
    "Thrift version 0.17."*) ;;
    *) echo "gen.sh: expected Thrift 0.17, found '$version'; the committed code was generated with 0.17" >&2
       exit 1 ;;
esac

mkdir -p "$out"
rm -f "$out"/fb303.rs "$out"/hive_metastore.rs "$out"/handler.rs
thrift -gen rs -I "$here" -out "$out" "$here/fb303.thrift"
thrift -gen rs -I "$here" -out "$out" "$here/hive_metastore.thrift"
# Generator behaviours that break real clients (a panic on a union with only an unknown
# field; wrong match arms for implicit field ids; absent fields and arguments read as zero
# values or refused) are fixed mechanically; patch_generated.py documents each.
python3 "$here/patch_generated.py" "$out/hive_metastore.rs"
python3 "$here/gen_handler.py" "$out/hive_metastore.rs" "$out/fb303.rs" > "$out/handler.rs"
# handler.rs is read by people and checked by `cargo fmt`; Thrift's own output opts out of
# rustfmt with `#![cfg_attr(rustfmt, rustfmt_skip)]`.
rustfmt --edition 2021 "$out/handler.rs"
echo "gen.sh: wrote $(cd "$out" && ls | tr '\n' ' ')"
