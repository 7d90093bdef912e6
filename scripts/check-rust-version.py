#!/usr/bin/env python3
"""Reads `cargo metadata` on stdin; fails when a workspace crate does not declare the
workspace's rust-version, or when a dependency in the build declares a newer one."""

import json
import sys


def version(text: str) -> tuple[int, ...]:
    parts = [int(part) for part in text.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


def main() -> int:
    metadata = json.load(sys.stdin)
    members = set(metadata["workspace_members"])
    used = {node["id"] for node in metadata["resolve"]["nodes"]}
    packages = [p for p in metadata["packages"] if p["id"] in used or p["id"] in members]
    declared = {p["rust_version"] for p in packages if p["id"] in members}
    if len(declared) != 1 or None in declared:
        print(f"every workspace crate must declare the one rust-version; found {declared}")
        return 1
    ours = declared.pop()
    newer = [
        f"{p['name']} {p['version']} needs {p['rust_version']}"
        for p in packages
        if p["id"] not in members and p.get("rust_version")
        and version(p["rust_version"]) > version(ours)
    ]
    if newer:
        print(f"rust-version {ours} is older than dependencies need:\n  " + "\n  ".join(newer))
        return 1
    print(f"rust-version {ours}: every crate declares it; no dependency needs a newer one")
    return 0


if __name__ == "__main__":
    sys.exit(main())
