#!/usr/bin/env python3
"""Generates idl/src/generated/handler.rs from the Rust code that `thrift -gen rs` wrote.

    python3 idl/gen_handler.py src/generated/hive_metastore.rs src/generated/fb303.rs > handler.rs

Reads the generated handler traits (`ThriftHiveMetastoreSyncHandler` and its supertrait
`FacebookServiceSyncHandler`), the processors' dispatch tables (wire names) and the IDL
(oneway), and writes:

  * `Handler`: one method per service method, same argument names and types as the
    generated trait minus the `handle_` prefix, each defaulting to UNKNOWN_METHOD, plus
    `observe` called after every call;
  * `unknown_method`, the UNKNOWN_METHOD application error;
  * `Adapter<H>`, implementing both generated handler traits for any `Handler` (for oneway
    methods it reports errors to `observe` only: the generated processor would otherwise
    write an exception reply that the client never reads);
  * `METHODS`, every method by wire name with its `Handler` method, oneway flag and the
    exceptions it declares;
  * `forward_method!`, which writes a `Handler` method that passes its arguments to a named
    function, and `wire_name!`, a method's wire name: a server's table of methods uses them
    to name each method once.

Called by gen.sh; fails loudly if the generated code does not have the expected shape.
"""

from __future__ import annotations

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


class GenError(Exception):
    pass


def trait_methods(src: str, trait: str) -> list[tuple[str, str, str]]:
    """(name without handle_, argument list after &self, return type) of a generated trait."""
    m = re.search(r"^pub trait " + trait + r"\b[^{]*\{\n(.*?)^\}", src, re.S | re.M)
    if not m:
        raise GenError(f"trait {trait} not found")
    out = []
    for line in m.group(1).splitlines():
        line = line.strip()
        if not line or line.startswith("///"):
            continue
        fm = re.fullmatch(r"fn handle_(\w+)\(&self(?:, (.*))?\) -> thrift::Result<(.*)>;", line)
        if not fm:
            raise GenError(f"unexpected line in {trait}: {line!r}")
        out.append((fm.group(1), fm.group(2) or "", fm.group(3)))
    return out


def wire_names(src: str, processor: str) -> dict[str, str]:
    """process_<name> -> wire name, from the processor's dispatch `match`."""
    m = re.search(r"impl <H: \w+> TProcessor for " + processor + r"<H> \{(.*?)\n\}\n", src, re.S)
    if not m:
        raise GenError(f"processor {processor} not found")
    arms = re.findall(r'"([^"]+)" => \{\s*self\.process_(\w+)\(', m.group(1))
    return {fn: wire for wire, fn in arms}


def type_names(src: str) -> set[str]:
    return set(re.findall(r"^pub (?:struct|enum) (\w+)", src, re.M))


def oneway_methods() -> set[str]:
    names = set()
    for idl in ("hive_metastore.thrift", "fb303.thrift"):
        with open(os.path.join(HERE, idl), encoding="utf-8") as f:
            text = re.sub(r"//[^\n]*|/\*.*?\*/", "", f.read(), flags=re.S)
        names |= set(re.findall(r"\boneway\s+void\s+(\w+)\s*\(", text))
    return names


def declared_exceptions() -> dict[str, list[tuple[str, int]]]:
    """Method name -> the exceptions its `throws` declares, as (type, field id) in IDL order."""
    out = {}
    for idl in ("hive_metastore.thrift", "fb303.thrift"):
        with open(os.path.join(HERE, idl), encoding="utf-8") as f:
            text = re.sub(r"//[^\n]*|/\*.*?\*/|#[^\n]*", "", f.read(), flags=re.S)
        for service in re.finditer(r"\bservice\s+\w+(?:\s+extends\s+[\w.]+)?\s*\{(.*?)\n\}", text, re.S):
            body = service.group(1)
            # name ( arguments ) [throws ( exceptions )]: arguments hold no parentheses.
            for m in re.finditer(r"\b(\w+)\s*\(([^()]*)\)\s*(?:throws\s*\(([^()]*)\))?", body):
                name, throws = m.group(1), m.group(3) or ""
                out[name] = [(t, int(i)) for i, t in re.findall(r"(-?\d+)\s*:\s*([\w.]+)\s+\w+", throws)]
    return out


def qualify(text: str, module: str, types: set[str]) -> str:
    """Qualifies the generated module's own type names and the std/thrift ones."""
    def repl(m):
        word = m.group(0)
        if word in types:
            return f"crate::{module}::{word}"
        if word in ("BTreeMap", "BTreeSet"):
            return f"std::collections::{word}"
        if word == "OrderedFloat":
            return "thrift::OrderedFloat"
        return word

    return re.sub(r"\b[A-Z]\w*\b", repl, text)


def arg_names(args: str) -> list[str]:
    if not args:
        return []
    # types may contain commas (BTreeMap<K, V>): split on ", name:" boundaries
    return re.findall(r"(?:^|, )(\w+): ", args)


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        hms = f.read()
    with open(argv[2], encoding="utf-8") as f:
        fb = f.read()

    services = [
        ("hive_metastore", hms, "ThriftHiveMetastoreSyncHandler", "ThriftHiveMetastoreSyncProcessor"),
        ("fb303", fb, "FacebookServiceSyncHandler", "FacebookServiceSyncProcessor"),
    ]
    oneway = oneway_methods()
    methods = []  # (module, trait, rust name, args, ret, wire)
    for module, src, trait, processor in services:
        wires = wire_names(src, processor)
        types = type_names(src)
        for name, args, ret in trait_methods(src, trait):
            if name not in wires:
                raise GenError(f"{trait}::handle_{name} has no dispatch arm in {processor}")
            methods.append((module, trait, name, qualify(args, module, types),
                            qualify(ret, module, types), wires[name]))

    wires_seen = [m[5] for m in methods]
    dups = {w for w in wires_seen if wires_seen.count(w) > 1}
    if dups:
        raise GenError(f"duplicate wire names: {sorted(dups)}")
    unknown_oneway = oneway - set(wires_seen)
    if unknown_oneway:
        raise GenError(f"oneway methods in the IDL without a generated handler: {sorted(unknown_oneway)}")

    o = []
    w = o.append
    w("// Generated by idl/gen_handler.py from the code that `thrift -gen rs` wrote (see idl/gen.sh).")
    w("// DO NOT EDIT: run idl/gen.sh instead.")
    w("")
    w("//! The service as one trait with a default for every method, so that a server implements")
    w("//! only what it supports; everything else answers UNKNOWN_METHOD.")
    w("")
    w("/// Every method of the service with a default that answers UNKNOWN_METHOD.")
    w("pub trait Handler: Send + Sync {")
    for module, trait, name, args, ret, wire in methods:
        sep = ", " if args else ""
        w(f"    /// `{wire}` (wire name).")
        w(f"    fn {name}(&self{sep}{args}) -> thrift::Result<{ret}> {{")
        w(f"        Err(unknown_method(\"{wire}\"))")
        w("    }")
    w("    /// Called after every call with its wire name and whether it failed (declared exception")
    w("    /// or application error).")
    w("    fn observe(&self, _method: &'static str, _failed: bool) {}")
    w("    /// Called before `observe` when a call failed, with its error (a declared exception or an")
    w("    /// application error), before the processor writes it as the reply.")
    w("    fn failed(&self, _method: &'static str, _error: &thrift::Error) {}")
    w("}")
    w("")
    w("/// Builds the UNKNOWN_METHOD application error for a wire method name, with Thrift's own text.")
    w("pub fn unknown_method(name: &str) -> thrift::Error {")
    w("    thrift::Error::Application(thrift::ApplicationError::new(")
    w("        thrift::ApplicationErrorKind::UnknownMethod,")
    w("        format!(\"Invalid method name: '{name}'\"),")
    w("    ))")
    w("}")
    w("")
    w("/// Adapts a `Handler` to the generated processor's handler traits. Shared, so that a server")
    w("/// can also answer some calls itself with the same handler.")
    w("pub struct Adapter<H>(pub std::sync::Arc<H>);")
    for module, src, trait, _ in services:
        w("")
        w(f"impl<H: Handler> crate::{module}::{trait} for Adapter<H> {{")
        for m_module, m_trait, name, args, ret, wire in methods:
            if m_trait != trait:
                continue
            sep = ", " if args else ""
            call = ", ".join(arg_names(args))
            w(f"    fn handle_{name}(&self{sep}{args}) -> thrift::Result<{ret}> {{")
            w(f"        let result = self.0.{name}({call});")
            w("        if let Err(error) = &result {")
            w(f"            self.0.failed(\"{wire}\", error);")
            w("        }")
            w(f"        self.0.observe(\"{wire}\", result.is_err());")
            if wire in oneway:
                # The generated processor answers a handler error with an exception message,
                # even for a oneway call: the client never reads it and would take it as the
                # reply to its next call.
                w("        // oneway: the client reads no reply, so an error must not produce one")
                w("        drop(result);")
                w("        Ok(())")
            else:
                w("        result")
            w("    }")
        w("}")
    w("")
    w("/// A method of the service as named on the wire.")
    w("#[derive(Clone, Copy, Debug, PartialEq, Eq)]")
    w("pub struct Method {")
    w("    /// The name in the Thrift message header.")
    w("    pub name: &'static str,")
    w("    /// The name of its `Handler` method.")
    w("    pub handler: &'static str,")
    w("    /// Whether the client expects no reply.")
    w("    pub oneway: bool,")
    w("    /// The exceptions it declares: type name and field id in its result.")
    w("    pub throws: &'static [(&'static str, i16)],")
    w("}")
    w("")
    w("/// Every method of ThriftHiveMetastore and FacebookService, by wire name.")
    w("pub const METHODS: &[Method] = &[")
    throws = declared_exceptions()
    for module, trait, name, args, ret, wire in methods:
        ow = "true" if wire in oneway else "false"
        if wire not in throws:
            raise GenError(f"{wire} not found in the IDL's services")
        declared = ", ".join(f"(\"{t}\", {i})" for t, i in throws[wire])
        w(f"    Method {{ name: \"{wire}\", handler: \"{name}\", oneway: {ow}, throws: &[{declared}] }},")
    w("];")
    w("")
    w("/// Implements the `Handler` method named first by passing `self` and every argument, in")
    w("/// order, to the function named second, which must take exactly those: a server's table of")
    w("/// methods says once which function answers each method.")
    w("#[macro_export]")
    w("macro_rules! forward_method {")
    for module, trait, name, args, ret, wire in methods:
        sep = ", " if args else ""
        call = "".join(f", {a}" for a in arg_names(args))
        margs = args.replace("crate::", "$crate::")
        mret = ret.replace("crate::", "$crate::")
        w(f"    ({name}, $f:path) => {{")
        w(f"        fn {name}(&self{sep}{margs}) -> ::thrift::Result<{mret}> {{")
        w(f"            $f(self{call})")
        w("        }")
        w("    };")
    w("}")
    w("")
    w("/// The wire name of the `Handler` method named, as a string literal.")
    w("#[macro_export]")
    w("macro_rules! wire_name {")
    for module, trait, name, args, ret, wire in methods:
        w(f"    ({name}) => {{")
        w(f"        \"{wire}\"")
        w("    };")
    w("}")
    sys.stdout.write("\n".join(o) + "\n")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except GenError as e:
        print(f"gen_handler.py: {e}", file=sys.stderr)
        sys.exit(1)
