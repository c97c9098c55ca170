#!/usr/bin/env python3
"""`make lint`: fails when a tracked file refers to anything outside the repository (a work item included).

A clone of this repository, with nothing beside it, must build, test and document itself. This finds, in every
file git tracks:
- paths that climb out of the repository (`../` into a sibling folder) in Markdown links, `include_str!`,
  `include_bytes!` and `#[path]` attributes (resolved from the file's folder, or from the crate's folder for
  `concat!(env!("CARGO_MANIFEST_DIR"), …)`), and anywhere in text as a climb into the shared folder beside
  the checkout (the pattern is `SHARED` below);
- absolute paths to machine folders (`/work/`, `/home/`, `/root/`);
- relative Markdown links whose target does not exist in the repository;
- work-item numbers (the word for a work item followed by a number, in either case, singular or plural,
  with `#`, a hyphen or a list of numbers): nothing in the
  repository resolves them, so a comment or a doc says the reason instead. A citation of another project's
  thread names its repository (`owner/name #123`) or links it, which this does not flag.

Usage: scripts/check-standalone.py [--self-test]
"""

import os
import re
import subprocess
import sys
import tempfile

MACHINE_PATHS = re.compile(r"(?<![\w.~-])/(?:work|home|root)/")
# The self-test's path outside the repository, spelled in two pieces so this file does not itself refer
# to the folder it forbids.
OUTSIDE = "../" + "shared/design/api.md"
# The word for a work item, assembled so that this file names none (the self-test builds its cases from it).
ITEM = "iss" + "ue"
SHARED = re.compile(r"\.\./shar" r"ed\b|(?<![\w-])shared/(?:design|fixtures|hooks)/")
MD_LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
INCLUDE = re.compile(r"(?:include_str|include_bytes)!\(\s*\"([^\"]+)\"\s*\)")
MANIFEST_INCLUDE = re.compile(
    r"concat!\(\s*env!\(\s*\"CARGO_MANIFEST_DIR\"\s*\)\s*,\s*\"([^\"]+)\"", re.S
)
WORK_ITEM = re.compile(r"\bissues?[ -]#?\d+", re.I)
PATH_ATTR = re.compile(r"#\[path\s*=\s*\"([^\"]+)\"\]")
SKIPPED = ("Cargo.lock",)
BINARY_SUFFIXES = (".png", ".jpg", ".jpeg", ".pdf", ".gif", ".ico", ".mp4", ".woff", ".woff2")


def tracked(root):
    out = subprocess.run(["git", "-C", root, "ls-files", "-z"], check=True, capture_output=True).stdout
    return [p for p in out.decode().split("\0") if p]


def crate_dir(root, path):
    folder = os.path.dirname(os.path.join(root, path))
    while folder.startswith(root):
        if os.path.exists(os.path.join(folder, "Cargo.toml")):
            return folder
        folder = os.path.dirname(folder)
    return root


def inside(root, target):
    real = os.path.normpath(target)
    return real == root or real.startswith(root + os.sep)


def check(root):
    root = os.path.realpath(root)
    problems = []
    for path in tracked(root):
        if path.endswith(SKIPPED) or path.lower().endswith(BINARY_SUFFIXES) or path.startswith("scripts/check-standalone"):
            continue
        full = os.path.join(root, path)
        try:
            with open(full, encoding="utf-8") as f:
                text = f.read()
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue
        folder = os.path.dirname(full)
        for number, line in enumerate(text.splitlines(), 1):
            where = f"{path}:{number}"
            if SHARED.search(line):
                problems.append(f"{where}: refers to the shared folder beside the repository: {line.strip()}")
            if MACHINE_PATHS.search(line):
                problems.append(f"{where}: an absolute path of one machine: {line.strip()}")
            if WORK_ITEM.search(line):
                problems.append(f"{where}: a work-item number; say the reason instead: {line.strip()}")
            if path.endswith(".md"):
                for target in MD_LINK.findall(line):
                    if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                        continue
                    file_part = target.split("#", 1)[0]
                    if not file_part:
                        continue
                    resolved = os.path.join(folder, file_part)
                    if not inside(root, resolved):
                        problems.append(f"{where}: link leaves the repository: {target}")
                    elif not os.path.exists(resolved):
                        problems.append(f"{where}: link to a missing file: {target}")
            if path.endswith(".rs"):
                for target in INCLUDE.findall(line) + PATH_ATTR.findall(line):
                    if not inside(root, os.path.join(folder, target)):
                        problems.append(f"{where}: includes a file outside the repository: {target}")
        if path.endswith(".rs"):
            for target in MANIFEST_INCLUDE.findall(text):
                if not inside(root, os.path.join(crate_dir(root, path), target.lstrip("/"))):
                    problems.append(f"{path}: includes a file outside the repository: {target}")
    return problems


def self_test():
    """Each kind of reference out of a throwaway repository is found; a clean one passes."""
    bad = {
        "README.md": f"See [the contract]({OUTSIDE}) and [gone](docs/nowhere.md).\n",
        "docs/x.md": "[up and out](../../elsewhere.md)\n",
        "src/lib.rs": 'const A: &str = include_str!("../../outside.json");\n'
        'const B: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../beside.json"));\n',
        "Cargo.toml": "[package]\nname = \"x\"\n",
        "scripts/run.sh": "cd /" + "work/main && make\n",
        # Assembled here so that this file itself holds no such reference.
        "src/a.rs": f"// Batched ({ITEM} 18).\n",
        "migrations/up.sql": f"-- {ITEM.title()} 19: broadcasts.\n",
        "docs/y.md": f"The P3 figures, {ITEM}s 3 and 8.\n",
        "scripts/b.py": f"# see {ITEM}-12 and {ITEM.title()} #5\n",
    }
    good = {
        "README.md": "See [the contract](docs/api.md), [a section](docs/api.md#errors) and https://example.com.\n",
        "docs/api.md": "# API\n[back](../README.md)\n",
        "src/lib.rs": 'const A: &str = include_str!("../docs/api.md");\n',
        "Cargo.toml": "[package]\nname = \"x\"\n",
        "docs/cloud.md": "chatwoot/chatwoot #14529 and https://github.com/o/r/issues/7 report it; "
        f"Meta answers `(#100) Invalid parameter`; two {ITEM}s, 3 ways; t{ITEM} 4.\n",
    }

    def repo(files):
        folder = tempfile.mkdtemp(prefix="standalone-")
        for name, body in files.items():
            os.makedirs(os.path.dirname(os.path.join(folder, name)) or folder, exist_ok=True)
            with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
                f.write(body)
        subprocess.run(["git", "init", "-q", folder], check=True)
        subprocess.run(["git", "-C", folder, "add", "-A"], check=True)
        return folder

    found = check(repo(bad))
    expected = [
        "README.md:1: refers to the shared folder",
        f"README.md:1: link leaves the repository: {OUTSIDE}",
        "README.md:1: link to a missing file: docs/nowhere.md",
        "docs/x.md:1: link leaves the repository",
        "src/lib.rs:1: includes a file outside the repository: ../../outside.json",
        "src/lib.rs: includes a file outside the repository: /../beside.json",
        "scripts/run.sh:1: an absolute path of one machine",
        "src/a.rs:1: a work-item number",
        "migrations/up.sql:1: a work-item number",
        "docs/y.md:1: a work-item number",
        "scripts/b.py:1: a work-item number",
    ]
    missing = [e for e in expected if not any(p.startswith(e) for p in found)]
    clean = check(repo(good))
    if missing or clean:
        print("check-standalone self-test FAILED", file=sys.stderr)
        for e in missing:
            print(f"  not found: {e}", file=sys.stderr)
        for p in clean:
            print(f"  false alarm: {p}", file=sys.stderr)
        return 1
    print(f"check-standalone self-test: {len(expected)} kinds found, the clean repository passes")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    root = subprocess.run(["git", "rev-parse", "--show-toplevel"], check=True, capture_output=True, text=True).stdout.strip()
    problems = check(root)
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(f"{len(problems)} problem(s): a clone must stand alone and say its reasons, not work-item numbers", file=sys.stderr)
        return 1
    print("every tracked file refers only to the repository")
    return 0


if __name__ == "__main__":
    sys.exit(main())
