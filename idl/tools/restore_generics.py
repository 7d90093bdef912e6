#!/usr/bin/env python3
"""Rebuild idl/hive_metastore.thrift from the flattened Hive 4 IDL seed.

Provenance tool, kept so that the committed IDL can be re-derived and audited. It is not
part of the build.

The seed (shared/seeds/002_*.txt) is Hive 4's hive_metastore.thrift with every newline
removed and every generic type parameter stripped (`list<FieldSchema>` became `list`,
`map<string, list<X>>` became `map>`: the stripping removed each `<...>` up to the first
`>`). Its `//` comments therefore run into the code that followed them on the next line.

What this script does:
  1. Lexes the seed, ending each `//`/`#` comment where code plausibly resumes, judged by
     the syntactic context (struct body: `N:` or `}`; enum body: `NAME = N,`; service body:
     `type name(`; top level: a definition keyword followed by its syntax).
  2. Parses the definitions into a small model (consts, enums, structs, unions,
     exceptions, the service).
  3. Restores every container type from the thrift_spec tuples of the generated Python
     client that pyiceberg vendors (module `hive_metastore`), falling back to the older
     seed (shared/seeds/000_*.txt, generics intact) and then to a short table of facts
     checked by hand (FACTS below). Every restored type must strip back to exactly the
     remnant in the seed; anything unresolved or inconsistent is reported and the script
     exits non-zero.
  4. Re-adds the methods that Hive 4 dropped from the IDL but clients still call (every
     method of seed 000 or of the pyiceberg client that seed 002 lacks), each with a
     comment saying why.
  5. Prints the IDL in a readable multi-line layout.

Run with an interpreter that can import pyiceberg's `hive_metastore` package:
    /tmp/venv-idl/bin/python idl/tools/restore_generics.py \
        /work/shared/seeds/002_*.txt /work/shared/seeds/000_*.txt > idl/hive_metastore.thrift
"""

from __future__ import annotations

import inspect
import json
import re
import sys
from dataclasses import dataclass, field

# --------------------------------------------------------------------------------------
# Facts that neither pyiceberg's thrift_spec nor seed 000 can give: containers whose
# element is an enum (the Python spec only says I32), and containers in definitions
# newer than pyiceberg's copy. Each was checked against Hive's hive_metastore.thrift.
# Key: ("struct", Name, field id) or ("arg", method, id) or ("ret", method).
# --------------------------------------------------------------------------------------
FACTS: dict[tuple, str] = {
    # definitions newer than pyiceberg's copy of the IDL
    ("struct", "PropertySetRequest", 2): "map<string, string>",
    ("struct", "PropertyGetRequest", 4): "list<string>",
    ("struct", "PropertyGetResponse", 1): "map<string, map<string, string>>",
    ("struct", "AddPartitionsResult", 3): "list<FieldSchema>",
    ("struct", "AddPartitionsRequest", 9): "list<FieldSchema>",
    ("struct", "DropPartitionRequest", 5): "list<string>",
    ("struct", "AbortCompactionRequest", 1): "list<i64>",
    ("struct", "AbortCompactResponse", 1): "map<i64, AbortCompactionResponseElement>",
    ("struct", "NotificationEventRequest", 6): "list<string>",
    ("struct", "NotificationEventsCountRequest", 6): "list<string>",
    ("struct", "FireEventRequest", 7): "map<string, string>",
    ("struct", "AlterPartitionsRequest", 9): "list<FieldSchema>",
    ("struct", "AppendPartitionsRequest", 5): "list<string>",
    ("struct", "GetPartitionsPsWithAuthRequest", 13): "list<string>",
    # GetFunctionsResponse: names when returnNames is set, else Function objects (as in
    # GetAllFunctionsResponse); not found in any stored copy, inferred from the request.
    ("struct", "GetFunctionsResponse", 1): "list<string>",
    ("struct", "GetFunctionsResponse", 2): "list<Function>",
    ("ret", "fetch_partition_names_req"): "list<string>",
    ("ret", "get_partitions_by_filter_req"): "list<Partition>",
    # Java: add_write_ids_to_min_history(long txnId, Map<String, Long> validWriteIds)
    ("arg", "add_write_ids_to_min_history", 2): "map<string, i64>",
    # containers of enums (pyiceberg's spec says only I32)
    ("struct", "ClientCapabilities", 1): "list<ClientCapability>",
    ("struct", "GetOpenTxnsRequest", 1): "list<TxnType>",
}

# Comments whose text the generic stripping mangled (it removed `<...>` in prose too).
COMMENT_FIXES = {
    "// set changed to list since 3.0": "// set<i64> changed to list<i64> since 3.0",
    "// Full table names of format .": "// Full table names of format <db_name>.<table_name>",
    "// Full table name of format .": "// Full table name of format <db_name>.<table_name>",
    "// type of the field. primitive types defined above, specify list, map for lists & maps":
        "// type of the field. primitive types defined above, specify list<TYPE_NAME>, "
        "map<TYPE_NAME, TYPE_NAME> for lists & maps",
}
# "// defaults to <warehouse loc>/<db loc>/tablename" lost its placeholders and now
# lexes as two comments; the second, `//tablename`, is rejoined below.
DEFAULTS_TO = ("// defaults to", "//tablename",
               "// defaults to <warehouse loc>/<db loc>/tablename")

HEADER_NOTE = """/*
 * hivestore: this is Hive 4's hive_metastore.thrift (see idl/README.md), restored to
 * readable form by idl/tools/restore_generics.py. Differences from Hive 4's IDL: fb303 is
 * included from this directory, and methods that Hive 4 dropped but clients still call
 * are back, each marked with a `// hivestore:` comment.
 */"""

# Comments that follow a field in the flattened seed but introduce the next field (or the
# closing brace) rather than annotate the previous one: layout only, checked by hand.
LEADING_COMMENTS = (
    "// Whether the results has any", "// Information related to write",
    "// Information to update the last repl id", "// An optional key/value to store",
    "// Either txnIds or replPolicy", "// The list is assumed to be sorted",
    "// If false, reuse previously", "// Checksum of files", "// Used by acid operation",
    "// partition value which was inserted", "// used to fire insert events",
    "// Identify if it is a refresh", "// dbname, tablename, and partition vals",
    "// ignored if event request data", "// SQL-92 compliant regex pattern",
    "// TODO: also add cascade here",
)


def is_leading(comment: str) -> bool:
    return comment.startswith(LEADING_COMMENTS)


BASE_TYPES = {"bool", "byte", "i8", "i16", "i32", "i64", "double", "string", "binary",
              "void", "slist"}
CONTAINERS = {"list", "set", "map"}
# what the stripping left after a container keyword: ">" and ", type>" pieces
REMNANT = r"((?:\s*(?:>|,\s*\w+\s*>))*)"
DEF_KEYWORDS = {"struct", "union", "exception", "enum", "service"}


class RestoreError(Exception):
    pass


# ======================================================================================
# Lexer
# ======================================================================================
@dataclass
class Tok:
    kind: str  # ident, num, str, punct, comment
    text: str
    pos: int


IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
NUM_RE = re.compile(r"[+-]?\d+(\.\d+)?([eE][+-]?\d+)?")
WS = " \t\r\n"


def collect_type_names(src: str) -> set[str]:
    names = set(re.findall(r"\b(?:struct|union|exception|enum|typedef\s+\S+)\s+([A-Za-z_]\w*)", src))
    return names


class Lexer:
    """Lexes the flattened IDL, tracking just enough context to end `//` comments."""

    def __init__(self, src: str):
        self.s = src
        self.type_names = collect_type_names(src)
        self.toks: list[Tok] = []
        self.stack: list[str] = ["top"]

    # -- where does code resume after a line comment starting at p (in context ctx)?
    def _resumes_at(self, j: int, ctx: str) -> bool:
        s = self.s
        rest = s[j:j + 400]
        if ctx == "struct":
            return bool(re.match(r"-?\d+\s*:\s*(required\s+|optional\s+)?[A-Za-z_]", rest)) or rest.startswith("}")
        if ctx == "enum":
            return bool(re.match(r"[A-Z][A-Z0-9_]*\s*(=\s*-?\d+\s*)?([,;]|(?=\}|//))", rest)) or rest.startswith("}")
        if ctx == "parens":
            return bool(re.match(r"\d+\s*:", rest)) or rest.startswith(")")
        if ctx == "service":
            if rest.startswith("}"):
                return True
            m = re.match(r"(oneway\s+)?([A-Za-z_][\w.]*)" + REMNANT + r"\s+([A-Za-z_]\w*)\s*\(", rest)
            if not m:
                return False
            t = m.group(2)
            remnant = m.group(3).strip()
            if t in CONTAINERS:
                return True
            return remnant == "" and (t in BASE_TYPES or t in self.type_names)
        if ctx == "top":
            if re.match(r"(struct|union|exception|enum)\s+[A-Za-z_]\w*\s*\{", rest):
                return True
            if re.match(r"service\s+[A-Za-z_]\w*\s*(extends\s+[\w.]+\s*)?\{", rest):
                return True
            if re.match(r"const\s+[A-Za-z_][\w.]*" + REMNANT + r"\s+[A-Z_][A-Z0-9_]*\s*=", rest):
                return True
            if re.match(r"typedef\s+\S+\s+[A-Za-z_]\w*", rest):
                return True
            if re.match(r'include\s+"', rest):
                return True
            if re.match(r"namespace\s+(java|php|cpp|py|rb|rs|go|js|\*)\s+[\w.]+", rest):
                return True
            return False
        return False

    def _comment_end(self, p: int) -> int:
        """p is just past the comment marker; returns the end (exclusive) of the comment."""
        s = self.s
        ctx = self.stack[-1]
        j = p
        n = len(s)
        while j < n:
            # next word start
            while j < n and s[j] not in WS:
                j += 1
            while j < n and s[j] in WS:
                j += 1
            if j >= n:
                return n
            if s.startswith("//", j) or s.startswith("/*", j) or s[j] == "#":
                return j
            if self._resumes_at(j, ctx):
                return j
        return n

    def _push_for_brace(self):
        # look back: [struct|union|exception|enum|service] Name [extends X] {
        texts = [t.text for t in self.toks[:-1] if t.kind not in ("comment", "bcomment")][-4:]
        kind = "value"
        for k in range(len(texts)):
            if texts[k] in DEF_KEYWORDS and (k == len(texts) - 2 or (k == len(texts) - 4 and texts[k + 2] == "extends")):
                kind = texts[k]
        if kind in ("struct", "union", "exception"):
            kind = "struct"
        self.stack.append(kind)

    def lex(self) -> list[Tok]:
        s = self.s
        i, n = 0, len(s)
        while i < n:
            c = s[i]
            if c in WS:
                i += 1
                continue
            if s.startswith("/*", i):
                e = s.find("*/", i + 2)
                if e < 0:
                    raise RestoreError(f"unterminated block comment at {i}")
                self.toks.append(Tok("bcomment", s[i:e + 2], i))
                i = e + 2
                continue
            if s.startswith("//", i) or c == "#":
                start = i
                i += 2 if c == "/" else 1
                e = self._comment_end(i)
                self.toks.append(Tok("comment", s[start:e].rstrip(), start))
                i = e
                continue
            if c == '"' or c == "'":
                e = i + 1
                while s[e] != c:
                    e += 2 if s[e] == "\\" else 1
                self.toks.append(Tok("str", s[i:e + 1], i))
                i = e + 1
                continue
            m = NUM_RE.match(s, i)
            if m and (c.isdigit() or (c in "+-" and i + 1 < n and s[i + 1].isdigit())):
                self.toks.append(Tok("num", m.group(0), i))
                i = m.end()
                continue
            m = IDENT_RE.match(s, i)
            if m:
                self.toks.append(Tok("ident", m.group(0), i))
                i = m.end()
                continue
            if c in "{}()<>,;:=[]":
                self.toks.append(Tok("punct", c, i))
                if c == "{":
                    self._push_for_brace()
                elif c == "(":
                    self.stack.append("parens")
                elif c in "})":
                    if len(self.stack) <= 1:
                        raise RestoreError(f"unbalanced {c!r} at {i}")
                    self.stack.pop()
                i += 1
                continue
            raise RestoreError(f"unexpected character {c!r} at {i}: {s[i:i + 60]!r}")
        if self.stack != ["top"]:
            raise RestoreError(f"unbalanced braces at end: {self.stack}")
        return self.toks


# ======================================================================================
# Model and parser
# ======================================================================================
@dataclass
class Type:
    name: str            # base type, defined type, or container keyword
    remnant: str = ""    # what the seed shows after a container keyword (">", ", string>")
    full: str | None = None  # restored full type text

    def text(self) -> str:
        if self.name in CONTAINERS:
            if self.full is None:
                return f"{self.name}<UNRESOLVED{self.remnant}>"  # reported as a problem
            return self.full
        return self.name


@dataclass
class Field:
    fid: int
    req: str          # "required", "optional" or ""
    type: Type
    name: str
    default: str | None
    comments: list[str] = field(default_factory=list)      # before the field
    trailing: list[str] = field(default_factory=list)      # after the field


@dataclass
class Function:
    oneway: bool
    ret: Type
    name: str
    args: list[Field]
    throws: list[Field]
    comments: list[str] = field(default_factory=list)
    readded: str | None = None


@dataclass
class EnumValue:
    name: str
    value: str | None
    comments: list[str] = field(default_factory=list)
    trailing: list[str] = field(default_factory=list)


@dataclass
class Definition:
    kind: str            # const, enum, struct, union, exception, service, include, namespace, typedef
    name: str
    comments: list[str] = field(default_factory=list)
    fields: list = field(default_factory=list)   # Field / EnumValue / Function
    extends: str | None = None
    type: Type | None = None
    value: str | None = None
    extra: str | None = None    # namespace target / include path
    closing: list[str] = field(default_factory=list)  # comments just before the closing brace


class Parser:
    def __init__(self, toks: list[Tok]):
        self.t = toks
        self.i = 0

    def peek(self, k=0) -> Tok | None:
        j = self.i + k
        return self.t[j] if j < len(self.t) else None

    def next(self) -> Tok:
        tok = self.t[self.i]
        self.i += 1
        return tok

    def expect(self, text: str) -> Tok:
        tok = self.next()
        if tok.text != text:
            raise RestoreError(f"expected {text!r} at {tok.pos}, got {tok.text!r}")
        return tok

    def comments(self) -> list[str]:
        out = []
        while self.peek() is not None and self.peek().kind in ("comment", "bcomment"):
            out.append(self.next().text)
        return out

    def sep(self):
        if self.peek() is not None and self.peek().text in (",", ";"):
            self.next()

    def parse_type(self) -> Type:
        tok = self.next()
        if tok.kind != "ident":
            raise RestoreError(f"expected a type at {tok.pos}, got {tok.text!r}")
        if tok.text not in CONTAINERS:
            return Type(tok.text)
        rem = []
        while True:
            p = self.peek()
            if p.text == ">":
                rem.append(">")
                self.next()
            elif p.text == "," and self.peek(1).kind == "ident" and self.peek(2) is not None and self.peek(2).text in (">", ","):
                # ", string>" remnant of map<list<...>, string>
                rem.append(",")
                self.next()
                rem.append(self.next().text)
            else:
                break
        return Type(tok.text, "".join(rem))

    def parse_value(self) -> str:
        tok = self.next()
        if tok.text in ("[", "{"):
            close = "]" if tok.text == "[" else "}"
            parts = [tok.text]
            depth = 1
            while depth:
                t = self.next()
                parts.append(t.text)
                if t.text == tok.text:
                    depth += 1
                elif t.text == close:
                    depth -= 1
            return " ".join(parts)
        return tok.text

    def parse_field_list(self, close: str) -> tuple[list[Field], list[str]]:
        fields: list[Field] = []
        while True:
            cm = self.comments()
            if self.peek().text == close and not (fields and cm and not fields[-1].trailing
                                                  and close == "}" and not is_leading(cm[0])):
                self.next()
                return fields, cm
            if fields and cm and not fields[-1].trailing and close == "}" and not is_leading(cm[0]):
                # first comment after a field stays on that field's line
                fields[-1].trailing.append(cm.pop(0))
                while cm and self._continues(cm[0]):
                    fields[-1].trailing.append(cm.pop(0))
                if self.peek().text == close:
                    self.next()
                    return fields, cm
            fid = self.next()
            if fid.kind != "num":
                raise RestoreError(f"expected field id at {fid.pos}, got {fid.text!r}")
            self.expect(":")
            req = ""
            if self.peek().text in ("required", "optional"):
                req = self.next().text
            ty = self.parse_type()
            name = self.next()
            if name.kind != "ident":
                raise RestoreError(f"expected field name at {name.pos}, got {name.text!r}")
            default = None
            if self.peek().text == "=":
                self.next()
                default = self.parse_value()
            self.sep()
            fields.append(Field(int(fid.text), req, ty, name.text, default, comments=cm))

    @staticmethod
    def _continues(comment: str) -> bool:
        # a comment continuing the previous line's sentence starts in lower case
        body = comment.lstrip("/# ").strip()
        return bool(body) and body[0].islower()

    def parse(self) -> list[Definition]:
        defs: list[Definition] = []
        while self.peek() is not None:
            cm = self.comments()
            if self.peek() is None:
                defs.append(Definition("trailer", "", comments=cm))
                break
            kw = self.next()
            if kw.text == "include":
                defs.append(Definition("include", "", cm, extra=self.next().text))
            elif kw.text == "namespace":
                lang = self.next().text
                defs.append(Definition("namespace", lang, cm, extra=self.next().text))
            elif kw.text == "const":
                ty = self.parse_type()
                name = self.next().text
                self.expect("=")
                val = self.parse_value()
                self.sep()
                defs.append(Definition("const", name, cm, type=ty, value=val))
            elif kw.text == "typedef":
                ty = self.parse_type()
                name = self.next().text
                self.sep()
                defs.append(Definition("typedef", name, cm, type=ty))
            elif kw.text in ("struct", "union", "exception"):
                name = self.next().text
                self.expect("{")
                fields, closing = self.parse_field_list("}")
                defs.append(Definition(kw.text, name, cm, fields=fields, closing=closing))
            elif kw.text == "enum":
                name = self.next().text
                self.expect("{")
                vals: list[EnumValue] = []
                closing = []
                while True:
                    c2 = self.comments()
                    if vals and c2 and not vals[-1].trailing:
                        vals[-1].trailing.append(c2.pop(0))
                    if self.peek().text == "}":
                        self.next()
                        closing = c2
                        break
                    vname = self.next().text
                    val = None
                    if self.peek().text == "=":
                        self.next()
                        val = self.next().text
                    self.sep()
                    vals.append(EnumValue(vname, val, c2))
                defs.append(Definition("enum", name, cm, fields=vals, closing=closing))
            elif kw.text == "service":
                name = self.next().text
                ext = None
                if self.peek().text == "extends":
                    self.next()
                    ext = self.next().text
                self.expect("{")
                funcs: list[Function] = []
                while True:
                    c2 = self.comments()
                    if self.peek().text == "}":
                        self.next()
                        closing = c2
                        break
                    oneway = False
                    if self.peek().text == "oneway":
                        self.next()
                        oneway = True
                    ret = self.parse_type()
                    fname = self.next().text
                    self.expect("(")
                    args, _ = self.parse_field_list(")")
                    throws = []
                    if self.peek().text == "throws":
                        self.next()
                        self.expect("(")
                        throws, _ = self.parse_field_list(")")
                    self.sep()
                    funcs.append(Function(oneway, ret, fname, args, throws, c2))
                defs.append(Definition("service", name, cm, fields=funcs, extends=ext, closing=closing))
            else:
                raise RestoreError(f"unexpected {kw.text!r} at top level (pos {kw.pos})")
        return defs


# ======================================================================================
# Type sources
# ======================================================================================
def strip_generics(t: str) -> str:
    """What the seed's flattening did to a type: drop each `<...>` up to the first `>`."""
    return re.sub(r"<[^>]+>", "", t).replace(" ", "")


class PySpec:
    """Types from the generated Python client that pyiceberg vendors."""

    def __init__(self):
        import hive_metastore.ThriftHiveMetastore as svc  # noqa: PLC0415
        import hive_metastore.ttypes as tt  # noqa: PLC0415
        from thrift.Thrift import TType  # noqa: PLC0415

        self.svc, self.tt, self.T = svc, tt, TType
        self.enum_names = {n for n, c in vars(tt).items()
                           if inspect.isclass(c) and hasattr(c, "_VALUES_TO_NAMES")}

    def type_text(self, ttype, targs) -> tuple[str, bool]:
        """Returns (text, ambiguous). I32 may be an enum: ambiguous."""
        T = self.T
        simple = {T.BOOL: "bool", T.BYTE: "i8", T.I16: "i16", T.I64: "i64", T.DOUBLE: "double"}
        if ttype in simple:
            return simple[ttype], False
        if ttype == T.I32:
            return "i32", True
        if ttype == T.STRING:
            return ("binary" if targs == "BINARY" else "string"), False
        if ttype == T.STRUCT:
            return targs[0].__name__, False
        if ttype in (T.LIST, T.SET):
            et, ea, _ = targs
            inner, amb = self.type_text(et, ea)
            kw = "list" if ttype == T.LIST else "set"
            return f"{kw}<{inner}>", amb
        if ttype == T.MAP:
            kt, ka, vt, va, _ = targs
            k, a1 = self.type_text(kt, ka)
            v, a2 = self.type_text(vt, va)
            return f"map<{k}, {v}>", a1 or a2
        raise RestoreError(f"unknown ttype {ttype}")

    def _spec_entry(self, cls, fid):
        spec = getattr(cls, "thrift_spec", None)
        if not spec:
            return None
        for e in spec:
            if e is not None and e[0] == fid:
                return e
        return None

    def struct_field(self, sname, fid, fname):
        cls = getattr(self.tt, sname, None)
        e = cls and self._spec_entry(cls, fid)
        if not e or e[2] != fname:
            return None
        return self.type_text(e[1], e[3])

    def arg(self, method, fid, fname):
        cls = getattr(self.svc, f"{method}_args", None)
        e = cls and self._spec_entry(cls, fid)
        if not e or e[2] != fname:
            return None
        return self.type_text(e[1], e[3])

    def ret(self, method):
        cls = getattr(self.svc, f"{method}_result", None)
        e = cls and self._spec_entry(cls, 0)
        if not e:
            return None
        return self.type_text(e[1], e[3])

    def method_names(self) -> list[str]:
        # only this service's own methods, not the inherited fb303 ones
        return [n for n, v in vars(self.svc.Iface).items() if inspect.isfunction(v)]


def resolve_ambiguous_i32(full: str, known_enum_text: str | None) -> str | None:
    """An I32 element could be an enum; use another source's text if it agrees otherwise."""
    if known_enum_text is None:
        return None
    # the other source must match except that some i32 positions name an enum
    pat = re.escape(full).replace("i32", r"[A-Za-z_]\w*")
    if re.fullmatch(pat, known_enum_text):
        return known_enum_text
    return None


# ======================================================================================
# Restoration
# ======================================================================================
def parse_file(path: str) -> list[Definition]:
    src = open(path, encoding="utf-8").read()
    # the older seed starts with its own path on a line of its own
    first, _, rest = src.partition("\n")
    if first.endswith(".thrift"):
        src = rest
    return Parser(Lexer(src).lex()).parse()


def fix_comments(defs: list[Definition]):
    def fix_list(cms: list[str]) -> list[str]:
        out = []
        for c in cms:
            c = COMMENT_FIXES.get(c, c)
            if c == DEFAULTS_TO[1] and out and out[-1] == DEFAULTS_TO[0]:
                out[-1] = DEFAULTS_TO[2]
                continue
            out.append(c)
        return out

    for d in defs:
        d.comments = fix_list(d.comments)
        for f in d.fields:
            f.comments = fix_list(f.comments)
            if hasattr(f, "trailing"):
                f.trailing = fix_list(f.trailing)


def restore(defs002, defs000, py: PySpec, problems: list[str], enum_names: set[str]):
    old_structs = {d.name: d for d in defs000 if d.kind in ("struct", "union", "exception")}
    old_funcs = {}
    for d in defs000:
        if d.kind == "service":
            old_funcs = {f.name: f for f in d.fields}

    def fill(ty: Type, key: tuple, pyres, oldtype: Type | None, where: str):
        if ty.name not in CONTAINERS:
            return
        cand = None
        src = None
        if key in FACTS:
            cand, src = FACTS[key], "facts"
        elif pyres is not None:
            text, amb = pyres
            if amb:
                other = oldtype.text() if oldtype is not None and oldtype.full else None
                res = resolve_ambiguous_i32(text, other)
                if res is not None:
                    cand, src = res, "seed000"
                elif not any(e in (other or "") for e in enum_names):
                    # neither source names an enum where the spec has i32: take i32, flagged
                    cand, src = text, "pyiceberg(i32?)"
                    problems.append(f"CHECK {where}: element i32 could be an enum -> {text}")
            else:
                cand, src = text, "pyiceberg"
        elif oldtype is not None and oldtype.full is not None:
            cand, src = oldtype.full, "seed000"
        if cand is None:
            problems.append(f"UNRESOLVED {where}: {ty.name}{ty.remnant}")
            return
        if strip_generics(cand) != (ty.name + ty.remnant).replace(" ", ""):
            problems.append(f"MISMATCH {where}: {cand} ({src}) vs seed {ty.name}{ty.remnant}")
            return
        ty.full = cand

    for d in defs002:
        if d.kind in ("struct", "union", "exception"):
            old = old_structs.get(d.name)
            for f in d.fields:
                of = None
                if old:
                    of = next((x for x in old.fields if x.fid == f.fid and x.name == f.name), None)
                fill(f.type, ("struct", d.name, f.fid), py.struct_field(d.name, f.fid, f.name),
                     of.type if of else None, f"{d.name}.{f.fid}:{f.name}")
        elif d.kind in ("const", "typedef"):
            fill(d.type, (d.kind, d.name), None, None, f"{d.kind} {d.name}")
        elif d.kind == "service":
            for fn in d.fields:
                old = old_funcs.get(fn.name)
                fill(fn.ret, ("ret", fn.name), py.ret(fn.name), old.ret if old else None, f"{fn.name} -> ret")
                for a in fn.args:
                    oa = None
                    if old:
                        oa = next((x for x in old.args if x.fid == a.fid and x.name == a.name), None)
                    fill(a.type, ("arg", fn.name, a.fid), py.arg(fn.name, a.fid, a.name),
                         oa.type if oa else None, f"{fn.name}({a.fid}:{a.name})")


# Seed 000 keeps `<...>`: lex those into the type text. A small separate reader is simpler
# than teaching the main lexer about both forms.
def parse_seed000(path: str) -> list[Definition]:
    src = open(path, encoding="utf-8").read()
    first, _, rest = src.partition("\n")
    if first.endswith(".thrift"):
        src = rest
    # Newlines are intact here, so line comments are exact: drop them.
    code = re.sub(r"(//|#)[^\n]*", "", src)
    code = re.sub(r"/\*.*?\*/", "", code, flags=re.S)

    # Collapse each generic type into one identifier-like token (list<FieldSchema> becomes
    # list‹FieldSchema›) so that the same lexer and parser read it; unsquash restores it.
    def squash(m):
        return m.group(0).replace(" ", "").replace("<", "\u2039").replace(">", "\u203a").replace(",", "\u00b8")

    # innermost-first squashing of generic argument lists into the container token
    prev = None
    while prev != code:
        prev = code
        code = re.sub(r"\b(list|set|map)\s*<[^<>]*>", squash, code)
    lx = Lexer(code)
    # the squashed characters must lex as part of an identifier
    global IDENT_RE
    saved = IDENT_RE
    IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_.\u2039\u203a\u00b8]*")
    try:
        toks = lx.lex()
    finally:
        IDENT_RE = saved
    defs = Parser(toks).parse()

    def unsquash(s):
        return s.replace("\u2039", "<").replace("\u203a", ">").replace("\u00b8", ", ")

    def fix(ty: Type):
        if any(ch in ty.name for ch in "\u2039"):
            ty.full = unsquash(ty.name)
            ty.name = ty.full.split("<")[0]
        else:
            ty.full = ty.name if ty.name not in CONTAINERS else None

    for d in defs:
        if d.type is not None:
            fix(d.type)
        for f in d.fields:
            if isinstance(f, Field):
                fix(f.type)
            elif isinstance(f, Function):
                fix(f.ret)
                for a in f.args + f.throws:
                    fix(a.type)
    return defs


# ======================================================================================
# Re-added methods
# ======================================================================================
READD_REASON = {
    "get_table": "removed from Hive 4's IDL (replaced by get_table_req), but every "
                 "deployed client (Hive 2/3, Spark, Trino, Impala, PyIceberg) still calls it",
    "get_table_objects_by_name": "removed from Hive 4's IDL (replaced by "
                                 "get_table_objects_by_name_req); older clients still call it",
    "create_dataconnector": "removed from Hive 4's IDL (replaced by create_dataconnector_req); "
                            "Hive 4.0 clients still call it",
    "drop_dataconnector": "removed from Hive 4's IDL (replaced by drop_dataconnector_req); "
                          "Hive 4.0 clients still call it",
    "alter_dataconnector": "removed from Hive 4's IDL (replaced by alter_dataconnector_req); "
                           "Hive 4.0 clients still call it",
}
for _m in ("add_index", "alter_index", "drop_index_by_name", "get_index_by_name", "get_indexes",
           "get_index_names"):
    READD_REASON[_m] = ("Hive's index API from the Hive 0.x IDL, dropped in Hive 3 together with "
                        "indexes; kept so that every method an old client can send dispatches")
GENERIC_READD_REASON = "present in {srcs} but not in Hive 4's IDL; kept so that clients built from it still dispatch"


def implicit_id_spec(py: PySpec, args_cls, problems: list[str]) -> list[tuple]:
    """Python's thrift_spec is empty when an argument has an implicit (negative) id, as in
    Hive 4.0's `drop_dataconnector(1:string name, bool ifNotExists, bool checkReferences)`.
    The generated write() still shows every field: read ids, names and types from it."""
    src = inspect.getsource(args_cls.write)
    found = re.findall(r'writeFieldBegin\("(\w+)", TType\.(\w+), (-?\d+)\)', src)
    spec = []
    for fname, tname, fid in found:
        ttype = getattr(py.T, tname)
        if ttype not in (py.T.BOOL, py.T.BYTE, py.T.I16, py.T.I32, py.T.I64, py.T.DOUBLE, py.T.STRING):
            problems.append(f"UNRESOLVED implicit-id argument {args_cls.__name__}.{fname}")
        spec.append((int(fid), ttype, fname, "UTF8" if ttype == py.T.STRING else None, None))
    # declaration order: explicit ids ascending, then implicit ones -1, -2, ...
    return sorted(spec, key=lambda e: (e[0] < 0, abs(e[0])))


def py_function(py: PySpec, name: str, enum_names: set[str], old: Function | None,
                problems: list[str]) -> Function:
    """Builds a Function from the pyiceberg client's _args/_result specs."""
    args_cls = getattr(py.svc, f"{name}_args")
    res_cls = getattr(py.svc, f"{name}_result", None)
    oneway = res_cls is None

    def mk_type(e, old_t: Type | None, where):
        text, amb = py.type_text(e[1], e[3])
        if amb and old_t is not None and old_t.full and old_t.full != text:
            r = resolve_ambiguous_i32(text, old_t.full)
            if r:
                text = r
        elif amb and e[1] == py.T.I32 and old_t is None:
            problems.append(f"CHECK re-added {where}: i32 could be an enum")
        return Type(text.split("<")[0], full=text) if "<" in text else Type(text)

    args = []
    spec = [e for e in args_cls.thrift_spec or () if e is not None]
    if not spec:
        spec = implicit_id_spec(py, args_cls, problems)
    for e in spec:
        oa = next((a for a in old.args if a.fid == e[0]), None) if old else None
        args.append(Field(e[0], "", mk_type(e, oa.type if oa else None, f"{name}.{e[2]}"), e[2],
                          None if e[4] is None else json.dumps(e[4])))
    ret = Type("void")
    throws = []
    if res_cls is not None:
        for e in res_cls.thrift_spec or ():
            if e is None:
                continue
            if e[0] == 0:
                ret = mk_type(e, old.ret if old else None, f"{name} ret")
            else:
                throws.append(Field(e[0], "", Type(e[3][0].__name__), e[2], None))
    return Function(oneway, ret, name, args, throws)


def readd_methods(defs002, defs000, py: PySpec, problems: list[str], enum_names):
    svc = next(d for d in defs002 if d.kind == "service")
    have = {f.name for f in svc.fields}
    old_funcs = {}
    for d in defs000:
        if d.kind == "service":
            old_funcs = {f.name: f for f in d.fields}
    py_names = set(py.method_names())
    missing = sorted((set(old_funcs) | py_names) - have)
    order_hint = [f.name for f in svc.fields]
    added = []
    for name in missing:
        srcs = []
        if name in py_names:
            srcs.append("pyiceberg's Hive client")
        if name in old_funcs:
            srcs.append("the Hive 0.x IDL")
        if name in py_names:
            fn = py_function(py, name, enum_names, old_funcs.get(name), problems)
        else:
            fn = old_funcs[name]
            for a in fn.args:
                if a.type.name in CONTAINERS and a.type.full is None:
                    problems.append(f"UNRESOLVED re-added {name}({a.name})")
        fn.readded = READD_REASON.get(name) or GENERIC_READD_REASON.format(srcs=" and ".join(srcs))
        fn.comments = []
        added.append(fn)
    # Placement: right before its `_req` successor when Hive 4 has one; otherwise after
    # the method that precedes it in the source it comes from (seed 000's order, else the
    # pyiceberg client's), so related methods stay together.
    py_order = py.method_names()
    old_order = list(old_funcs)
    for fn in added:
        names = [f.name for f in svc.fields]
        if fn.name + "_req" in names:
            svc.fields.insert(names.index(fn.name + "_req"), fn)
            continue
        order = old_order if fn.name in old_funcs else py_order
        k = order.index(fn.name)
        prev = next((m for m in reversed(order[:k]) if m in names), None)
        svc.fields.insert(names.index(prev) + 1 if prev else len(names), fn)
    return [f.name for f in added]


def readd_structs(defs002, defs000, problems: list[str]) -> list[str]:
    """Adds the types that re-added methods need and Hive 4 no longer defines (seed 000)."""
    defined = {d.name for d in defs002 if d.kind in ("struct", "union", "exception", "enum", "typedef")}
    old = {d.name: d for d in defs000 if d.kind in ("struct", "union", "exception", "enum")}
    svc = next(d for d in defs002 if d.kind == "service")
    added = []

    def names_in(ty: Type) -> set[str]:
        return set(re.findall(r"[A-Za-z_]\w*", ty.text())) - BASE_TYPES - CONTAINERS

    changed = True
    while changed:
        changed = False
        wanted = set()
        for fn in svc.fields:
            if fn.readded:
                for t in [fn.ret] + [a.type for a in fn.args + fn.throws]:
                    wanted |= names_in(t)
        for d in defs002:
            if d.name in added:
                for f in d.fields:
                    wanted |= names_in(f.type)
        for name in sorted(wanted - defined):
            if name not in old:
                problems.append(f"UNRESOLVED type {name} used by a re-added method")
                continue
            d = old[name]
            d.comments = fill_words(f"hivestore: re-added from the Hive 0.x IDL for the re-added "
                                    f"methods that use it; Hive 4 no longer defines {name}.", "// ")
            # after the definition that precedes it in seed 000, if Hive 4 has it
            order = [x.name for x in defs000]
            k = order.index(name)
            names = [x.name for x in defs002]
            prev = next((m for m in reversed(order[:k]) if m in names and m), None)
            defs002.insert(names.index(prev) + 1 if prev else len(defs002), d)
            defined.add(name)
            added.append(name)
            changed = True
    return added


# ======================================================================================
# Printer
# ======================================================================================
def fmt_field(f: Field, in_args: bool) -> str:
    # a negative id is an implicit one (no key written in the IDL), as Hive 4.0 had it
    parts = [f"{f.fid}:"] if f.fid >= 0 else []
    if f.req:
        parts.append(f.req)
    parts.append(f.type.text())
    parts.append(f.name)
    s = " ".join(parts)
    if f.default is not None:
        s += f" = {f.default}"
    return s


def wrap_comment(c: str, indent: str) -> list[str]:
    if c.startswith("/*"):
        # the flattening kept each line's leading ` * `: split there again
        doc = c.startswith("/**")
        body = c[3:-2] if doc else c[2:-2]
        lines = [p.strip() for p in re.split(r"(?:^|\s)\*(?=\s|$)", body)]
        while lines and not lines[0]:
            lines.pop(0)
        while lines and not lines[-1]:
            lines.pop()
        out = [indent + ("/**" if doc else "/*")]
        out += [indent + " *" + (" " + p if p else "") for p in lines]
        out.append(indent + " */")
        return out
    return [indent + c]


WIDTH = 100


def fill_items(head: str, items: list[str], tail: str, indent: str) -> list[str]:
    """`head item, item, ...tail`, wrapped at WIDTH with continuation lines at indent."""
    lines = [head]
    for k, it in enumerate(items):
        piece = it + ("," if k + 1 < len(items) else tail)
        cur = lines[-1]
        sep = "" if cur.endswith("(") or cur == indent else " "
        if len(cur) + len(sep) + len(piece) > WIDTH and cur.strip() not in ("", head.strip()):
            lines.append(indent + piece)
        else:
            lines[-1] = cur + sep + piece
    if not items:
        lines[-1] += tail
    return lines


def fill_words(text: str, prefix: str) -> list[str]:
    lines = [prefix]
    for word in text.split():
        if len(lines[-1]) + 1 + len(word) > WIDTH and lines[-1] != prefix:
            lines.append(prefix)
        lines[-1] += ("" if lines[-1] == prefix else " ") + word
    return lines


def emit(defs: list[Definition]) -> str:
    out: list[str] = []
    w = out.append
    prev_kind = None
    for d in defs:
        if d.kind == "trailer":
            w("")
            for c in d.comments:
                out.extend(wrap_comment(c, ""))
            continue
        # blank line between definitions, except between consecutive one-line items
        one_line = d.kind in ("const", "namespace", "include", "typedef")
        if out and not (one_line and prev_kind == d.kind and not d.comments):
            w("")
        for k, c in enumerate(d.comments):
            out.extend(wrap_comment(c, ""))
            # keep the file header's blocks apart: shebang, licence, `#` banner, note
            nxt = d.comments[k + 1] if k + 1 < len(d.comments) else None
            if d.kind == "include" and (c.startswith(("/*", "#!")) or (c == "#" and nxt and nxt.startswith("/*"))):
                w("")
        if d.kind == "include":
            w(f"include {d.extra}")
        elif d.kind == "namespace":
            w(f"namespace {d.name} {d.extra}")
        elif d.kind == "const":
            w(f"const {d.type.text()} {d.name} = {d.value}")
        elif d.kind == "typedef":
            w(f"typedef {d.type.text()} {d.name}")
        elif d.kind in ("struct", "union", "exception", "enum"):
            w(f"{d.kind} {d.name} {{")
            n = len(d.fields)
            rows = []  # (leading comments, code, trailing comments)
            for k, f in enumerate(d.fields):
                if isinstance(f, EnumValue):
                    code = "  " + f.name + (f" = {f.value}" if f.value is not None else "")
                else:
                    code = "  " + fmt_field(f, False)
                rows.append((f.comments, code + ("," if k < n - 1 else ""), f.trailing))
            col = max([len(c) for _, c, t in rows if t] + [0]) + 2
            col = min(col, 48)
            for leading, code, trailing in rows:
                for c in leading:
                    out.extend(wrap_comment(c, "  "))
                if trailing:
                    w(code.ljust(col - 1) + " " + trailing[0])
                    for c in trailing[1:]:
                        w(" " * max(col, len(code) + 1) + c)
                else:
                    w(code)
            for c in d.closing:
                out.extend(wrap_comment(c, "  "))
            w("}")
        elif d.kind == "service":
            ext = f" extends {d.extends}" if d.extends else ""
            w(f"service {d.name}{ext} {{")
            for k, fn in enumerate(d.fields):
                if fn.comments or fn.readded:
                    if k and out[-1] != "":
                        w("")
                    for c in fn.comments:
                        out.extend(wrap_comment(c, "  "))
                if fn.readded:
                    out.extend(fill_words(f"hivestore: re-added; {fn.readded}.", "  // "))
                head = f"  {'oneway ' if fn.oneway else ''}{fn.ret.text()} {fn.name}("
                args = [fmt_field(a, True) for a in fn.args]
                throws = [fmt_field(t, True) for t in fn.throws]
                lines = fill_items(head, args, ")", "      ")
                if throws:
                    tl = fill_items("throws (", throws, ")", "      ")
                    if len(lines) == 1 and len(tl) == 1 and len(lines[0]) + 1 + len(tl[0]) <= WIDTH:
                        lines = [lines[0] + " " + tl[0]]
                    else:
                        lines += fill_items("      throws (", throws, ")", "          ")
                out.extend(lines)
                if fn.readded and k + 1 < len(d.fields):
                    w("")
            for c in d.closing:
                out.extend(wrap_comment(c, "  "))
            w("}")
        prev_kind = d.kind
    return "\n".join(out) + "\n"


# ======================================================================================
def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    seed002, seed000 = argv[1], argv[2]
    problems: list[str] = []
    py = PySpec()
    defs000 = parse_seed000(seed000)
    defs002 = parse_file(seed002)
    enum_names = {d.name for d in defs002 if d.kind == "enum"} | py.enum_names
    restore(defs002, defs000, py, problems, enum_names)
    fix_comments(defs002)
    added = readd_methods(defs002, defs000, py, problems, enum_names)
    added_types = readd_structs(defs002, defs000, problems)

    # local layout: our include path and a note at the top
    for d in defs002:
        if d.kind == "include":
            d.extra = '"fb303.thrift"'
            d.comments.append(HEADER_NOTE)
    text = emit(defs002)
    sys.stdout.write(text)
    print(f"re-added methods: {', '.join(added)}", file=sys.stderr)
    print(f"re-added types: {', '.join(added_types)}", file=sys.stderr)
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if any(not p.startswith("CHECK") for p in problems) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
