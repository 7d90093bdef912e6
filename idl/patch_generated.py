#!/usr/bin/env python3
"""Mechanical fixes to the Rust code that `thrift -gen rs` (0.17) writes. Called by gen.sh.

    python3 idl/patch_generated.py src/generated/hive_metastore.rs

Each patch states the generator bug it works around and how many places it must change;
the script fails if the count differs, so a new compiler or IDL cannot slip past silently.

1. Unions: the generated reader counts an unknown field as "the" member of a union but
   never sets a value for it, then calls `ret.expect(...)`. A union that arrives with only
   an unknown field id (a newer client, or garbage) therefore panics the server. Replaced
   by a protocol error.

2. Implicit (negative) field ids: for arguments declared without an id the generator
   writes match arms `neg1 => {`, which are catch-all bindings, not the literal -1. Every
   field of that argument struct then lands in the first such arm and is read with the
   wrong type. Only drop_dataconnector has such arguments (as Hive 4.0 declared it).
   Replaced by the literal ids.

3. Absent fields read as zero values: for fields of default requiredness the generated
   reader starts from `Some("")`, `Some(0)`, `Some(false)`, `Some(Vec::new())`... so a
   field the client never sent arrives as if it had sent an empty value. Java (and Hive)
   read it as null, and the difference matters: an absent owner defaults to the caller, an
   absent location to the warehouse. The reader now starts from `None` for these implicit
   zero values; explicit IDL defaults (`= "hive"`, `= -1`) are kept.

4. Absent call arguments: the generated argument readers treat every argument as required
   and fail the call when one is missing. Java clients send a null argument by leaving it
   out (`drop_table_with_environment_context(db, t, true, null)`, Python clients likewise
   with `None`), and Hive's server takes it as null. Absent arguments now read as their
   type's default value (empty context, empty list, empty string); arguments whose type has
   no default (enums, request structs with required fields) stay required.

5. Private argument readers: the generated argument structs of the service's calls, and their
   readers and writers, are private to the generated module. The server's fast paths read a
   call's arguments with the same reader as the generated processor (one reader per call), and
   tests write calls with the same writer; the structs, their fields and both functions are
   made public.

6. Null arguments Hive answers apart from empty ones: for the arguments listed in
   NULLABLE_ARGUMENTS, the argument struct holds an `Option`, `None` when the client left
   the argument out, through the reader, the writer (which then leaves it out), the handler
   trait and the client. Hive refuses `get_table_objects_by_name` with a null name list
   ("<db> cannot find null tables") but answers an empty one; `list_privileges` with a null
   principal lists everyone's grants. An enum argument listed there loses patch 4's
   requirement too.
"""

from __future__ import annotations

import re
import sys

UNION_OLD = '      Ok(ret.expect("return value should have been constructed"))\n'
UNION_NEW = (
    "      ret.ok_or_else(|| {\n"
    "        thrift::Error::Protocol(\n"
    "          ProtocolError::new(\n"
    "            ProtocolErrorKind::InvalidData,\n"
    '            "received a union whose only field is unknown"\n'
    "          )\n"
    "        )\n"
    "      })\n"
)
UNIONS = 3  # ColumnStatisticsData, RequestPartsSpec, FireEventRequestData

ZERO_START = re.compile(
    r"^(\s+let mut f_\d+: Option<.+>) = Some\("
    r"(?:\"\"\.to_owned\(\)|0|false|Vec::new\(\)|BTreeMap::new\(\)|BTreeSet::new\(\)"
    r"|OrderedFloat::from\(0\.0\))\);$",
    re.M,
)
ZERO_START_COUNT = 232  # fields of default requiredness without an explicit default

ARGS_IMPL = re.compile(r"^impl (?:ThriftHiveMetastore|FacebookService)\w+Args \{\n.*?^\}\n", re.M | re.S)
ARGS_STRUCT = re.compile(r"^struct ((?:ThriftHiveMetastore|FacebookService)\w+Args) \{\n(.*?)^\}\n", re.M | re.S)
DEFAULT_IMPL = re.compile(r"^impl Default for (\w+) \{$", re.M)
PLAIN_TYPES = {"String", "bool", "i8", "i16", "i32", "i64", "OrderedFloat<f64>"}
COLLECTION_PREFIXES = ("Vec<", "BTreeMap<", "BTreeSet<")
REQUIRED_CHECK = re.compile(r'^\s+verify_required_field_exists\("\w+\.(\w+)", &f_\d+\)\?;\n', re.M)
REQUIRED_TAKE = re.compile(
    r'^(\s+)(\w+): (f_\d+)\.expect\("auto-generated code should have checked for presence of required fields"\),$',
    re.M,
)
OPTIONAL_ARGS_COUNT = 353  # arguments that now default when absent


def relax_arguments(src: str) -> tuple[str, int]:
    """Patch 4: absent arguments read as defaults, where their type has one."""
    with_default = set(DEFAULT_IMPL.findall(src)) | PLAIN_TYPES
    enum_fields = set()  # arguments whose type has no default: they stay required
    for name, body in ARGS_STRUCT.findall(src):
        for line in body.splitlines():
            field, _, field_type = line.strip().rstrip(",").partition(": ")
            if field_type not in with_default and not field_type.startswith(COLLECTION_PREFIXES):
                enum_fields.add((name, field))
    count = 0

    def relax(block: re.Match) -> str:
        nonlocal count
        text = block.group(0)
        struct = text.split()[1]
        kept = {(struct, f) for (s_, f) in enum_fields if s_ == struct}

        def drop_check(m: re.Match) -> str:
            return m.group(0) if (struct, m.group(1)) in kept else ""

        def take(m: re.Match) -> str:
            nonlocal count
            if (struct, m.group(2)) in kept:
                return m.group(0)
            count += 1
            return f"{m.group(1)}{m.group(2)}: {m.group(3)}.unwrap_or_default(),"

        text = REQUIRED_CHECK.sub(drop_check, text)
        return REQUIRED_TAKE.sub(take, text)

    return ARGS_IMPL.sub(relax, src), count


ARGS_COUNT = 292  # argument structs of ThriftHiveMetastore's calls
ARGS_FIELD = re.compile(r"^  (\w+): ", re.M)
ARGS_FUNCTION = re.compile(r"^  fn (read_from_in_protocol|write_to_out_protocol)\(", re.M)


def publish_arguments(src: str) -> tuple[str, int]:
    """Patch 5: the argument structs, their fields, readers and writers are public."""
    count = 0

    def publish_struct(block: re.Match) -> str:
        nonlocal count
        count += 1
        return "pub " + ARGS_FIELD.sub(r"  pub \1: ", block.group(0))

    def publish_impl(block: re.Match) -> str:
        return ARGS_FUNCTION.sub(r"  pub fn \1(", block.group(0))

    src = ARGS_STRUCT.sub(publish_struct, src)
    return ARGS_IMPL.sub(publish_impl, src), count


# (argument struct, field, call): arguments whose absence Hive's handler answers apart from
# an empty value, read as `Option` (patch 6). Hive refuses a null table-name list.
NULLABLE_ARGUMENTS: list[tuple[str, str, str]] = [
    ("ThriftHiveMetastoreGetTableObjectsByNameArgs", "tbl_names", "get_table_objects_by_name"),
    # Trino lists an object's grants to everyone with a null principal name and type.
    ("ThriftHiveMetastoreListPrivilegesArgs", "principal_name", "list_privileges"),
    ("ThriftHiveMetastoreListPrivilegesArgs", "principal_type", "list_privileges"),
]


def nullable_arguments(src: str) -> tuple[str, int]:
    """Patch 6: the arguments of NULLABLE_ARGUMENTS arrive as `Option`, `None` when absent,
    through the argument struct, its reader and writer, the handler trait and the client."""
    count = 0
    for struct, field, call in NULLABLE_ARGUMENTS:
        body = re.search(r"^struct " + struct + r" \{\n(.*?)^\}\n", src, re.M | re.S)
        typed = re.search(r"^  " + field + r": (.+),$", body.group(1), re.M) if body else None
        if typed is None:
            raise SystemExit(f"patch_generated.py: no field {field} in {struct}")
        plain = typed.group(1)
        optional = f"Option<{plain}>"
        start = src.index(f"struct {struct} {{\n")
        src = src[:start] + src[start:].replace(f"  {field}: {plain},\n", f"  {field}: {optional},\n", 1)
        impl_start = src.index(f"impl {struct} {{\n")
        impl_end = src.index("\n}\n", impl_start) + 3
        block = src[impl_start:impl_end]
        taken = re.search(r"      " + field + r": (f_\d+)\.unwrap_or_default\(\),\n", block)
        if taken is None:
            # An enum argument stays required (patch 4): its check and `expect` go.
            taken = re.search(r"      " + field + r": (f_\d+)\.expect\(\"auto-generated code should"
                              r" have checked for presence of required fields\"\),\n", block)
            check = f'    verify_required_field_exists("{struct}.{field}", &{taken.group(1)})?;\n' if taken else ""
            if taken is None or check not in block:
                raise SystemExit(f"patch_generated.py: {struct}'s reader does not default {field}")
            block = block.replace(check, "")
        block = block.replace(taken.group(0), f"      {field}: {taken.group(1)},\n")
        write = re.search(
            r"(    o_prot\.write_field_begin\(&TFieldIdentifier::new\(\"" + field
            + r"\".*?\n    o_prot\.write_field_end\(\)\?;\n)", block, re.S)
        if write is None:
            raise SystemExit(f"patch_generated.py: {struct}'s writer of {field} not found")
        # Bound by `ref`, the field is a reference already.
        inner = write.group(1).replace(f"&self.{field}", field).replace(f"self.{field}", field)
        inner = "".join("  " + line if line else line for line in inner.splitlines(True))
        block = block.replace(write.group(1), f"    if let Some(ref {field}) = self.{field} {{\n{inner}    }}\n")
        src = src[:impl_start] + block + src[impl_end:]
        for prefix in (f"fn handle_{call}(&self, ", f"fn {call}(&mut self, "):
            pattern = re.compile(re.escape(prefix) + r"([^)]*?)\b" + field + r": " + re.escape(plain) + r"([,)])")
            src, n = pattern.subn(lambda m: f"{prefix}{m.group(1)}{field}: {optional}{m.group(2)}", src)
            count += n
    return src, count


# Per argument: the handler trait's method, the client trait's and the client's impl.
NULLABLE_SIGNATURES = 3 * len(NULLABLE_ARGUMENTS)

NEG_ARM = re.compile(r"^(\s+)neg(\d+) => \{$", re.M)
NEG_ARMS = 2  # drop_dataconnector: ifNotExists (-1), checkReferences (-2)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    path = argv[1]
    with open(path, encoding="utf-8") as f:
        src = f.read()

    n = src.count(UNION_OLD)
    if n != UNIONS:
        print(f"patch_generated.py: expected {UNIONS} union readers, found {n}", file=sys.stderr)
        return 1
    src = src.replace(UNION_OLD, UNION_NEW)

    src, n = NEG_ARM.subn(lambda m: f"{m.group(1)}-{m.group(2)} => {{", src)
    if n != NEG_ARMS:
        print(f"patch_generated.py: expected {NEG_ARMS} implicit-id match arms, found {n}",
              file=sys.stderr)
        return 1

    src, n = ZERO_START.subn(lambda m: f"{m.group(1)} = None;", src)
    if n != ZERO_START_COUNT:
        print(f"patch_generated.py: expected {ZERO_START_COUNT} zero-valued reader starts, found {n}",
              file=sys.stderr)
        return 1

    src, n = relax_arguments(src)
    if n != OPTIONAL_ARGS_COUNT:
        print(f"patch_generated.py: expected {OPTIONAL_ARGS_COUNT} call arguments to relax, found {n}",
              file=sys.stderr)
        return 1

    src, n = nullable_arguments(src)
    if n != NULLABLE_SIGNATURES:
        print(f"patch_generated.py: expected {NULLABLE_SIGNATURES} signatures with nullable "
              f"arguments, found {n}", file=sys.stderr)
        return 1

    src, n = publish_arguments(src)
    if n != ARGS_COUNT:
        print(f"patch_generated.py: expected {ARGS_COUNT} argument structs, found {n}",
              file=sys.stderr)
        return 1

    header = "// Autogenerated by Thrift Compiler (0.17.0)\n"
    if not src.startswith(header):
        print("patch_generated.py: unexpected header", file=sys.stderr)
        return 1
    src = src.replace(header, header + "// Patched by idl/patch_generated.py (see there for why).\n", 1)

    with open(path, "w", encoding="utf-8") as f:
        f.write(src)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
