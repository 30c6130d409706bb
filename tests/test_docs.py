#!/usr/bin/env python3
# The README as a front door (issue 37): at most 300 lines, its quick start exactly two commands (CI and the
# tests run them as written), at least 3 pages of docs/ linked from it, and every relative link of README.md,
# CHANGELOG.md and docs/*.md naming a file that exists (and, into a Markdown file, a heading it has).
# usage: test_docs.py SOURCE_DIR
import glob
import os
import re
import subprocess
import sys

root = os.path.abspath(sys.argv[1])
problems = []
checks = 0


def check(cond, text):
    global checks
    checks += 1
    if not cond:
        print("FAIL: " + text)
        problems.append(text)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def outside_code(text):
    """The lines of a Markdown text outside its fenced code blocks, with their line numbers (from 1)."""
    fence = None
    for i, line in enumerate(text.split("\n"), 1):
        m = re.match(r"^\s*(```+|~~~+)", line)
        if m:
            if fence is None:
                fence = m.group(1)[:3]
            elif m.group(1).startswith(fence):
                fence = None
            continue
        if fence is None:
            yield i, line


def slug(heading):
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    found, seen = set(), {}
    for _, line in outside_code(read(path)):
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            s = slug(m.group(1))
            n = seen.get(s, 0)
            seen[s] = n + 1
            found.add(s if n == 0 else "%s-%d" % (s, n))
    return found


LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def links(path):
    for n, line in outside_code(read(path)):
        for m in LINK.finditer(re.sub(r"`[^`]*`", "``", line)):
            yield n, m.group(1)


# 1. Every relative link names a file that exists, and a heading of it when it names one.
pages = [os.path.join(root, "README.md"), os.path.join(root, "CHANGELOG.md")]
pages += sorted(glob.glob(os.path.join(root, "docs", "*.md")))
count = 0
for page in pages:
    rel = os.path.relpath(page, root)
    for n, target in links(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
            continue
        count += 1
        path, _, frag = target.partition("#")
        full = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
        where = "%s:%d: %s" % (rel, n, target)
        check(os.path.exists(full), where + ": no such file")
        if frag and os.path.isfile(full) and full.endswith(".md"):
            check(frag in anchors(full), where + ": no heading #%s in %s" % (frag, os.path.relpath(full, root)))
check(count >= 20, "only %d relative links found in %d pages: is the link pattern still right?" % (count, len(pages)))

# 2. The README is a front door: short, with the reference pages linked.
readme = read(os.path.join(root, "README.md"))
lines = readme.count("\n") + (0 if readme.endswith("\n") else 1)
check(lines <= 300, "README.md has %d lines, more than 300: move reference text into docs/" % lines)
linked = {t.split("#")[0] for _, t in links(os.path.join(root, "README.md")) if re.match(r"^docs/[^/]+\.md", t)}
check(len(linked) >= 3, "README.md links %d pages of docs/, fewer than 3" % len(linked))

# 3. The quick start: exactly two commands, in two code blocks (install, build and open; build and test).
m = re.search(r"^## Quick start[^\n]*\n(.*?)(?=^## )", readme, re.S | re.M)
check(m is not None, "README.md has no '## Quick start' section")
if m:
    blocks = re.findall(r"^```[a-z]*\n(.*?)^```", m.group(1), re.S | re.M)
    commands = [c for b in blocks for c in b.split("\n") if c.strip() and not c.lstrip().startswith("#")]
    check(len(blocks) == 2 and len(commands) == 2,
          "the quick start has %d code blocks and %d commands, not 2 and 2: %r" % (len(blocks), len(commands), commands))
    if len(commands) == 2:
        check(commands[0].startswith("sh tools/install-deps.sh && ") and commands[0].endswith("./build/mha-tracer"),
              "the quick start's first command does not install, build and open the window: " + commands[0])
        check("ctest --test-dir build" in commands[1], "the quick start's second command runs no ctest: " + commands[1])
    check("root shell" in m.group(1), "the quick start no longer says it works in a root shell")

# 4. docs/architecture.md names every source file of src/ (by its path from src/, or its name inside the
#    paragraph of its folder; a header by its .c): a file nobody can place in the layout is a room without a door.
arch = read(os.path.join(root, "docs", "architecture.md"))
unnamed = []
for dirpath, _, files in os.walk(os.path.join(root, "src")):
    for f in sorted(files):
        if not f.endswith((".c", ".h", ".inc", ".def")):
            continue
        rel = os.path.relpath(os.path.join(dirpath, f), os.path.join(root, "src")).replace(os.sep, "/")
        names = [f] + ([f[:-2] + ".c"] if f.endswith(".h") else []) # a header goes with its .c
        if rel in arch or (f.endswith(".h") and rel[:-2] + ".c" in arch):
            continue
        if not any(re.search(r"(?<![\w/.])" + re.escape(g) + r"(?![\w])", arch) for g in names):
            unnamed.append(rel)
check(not unnamed, "docs/architecture.md does not name %d source files: %s" % (len(unnamed), " ".join(unnamed)))
for lib in ("mha_core", "mha_platform", "mha_lesson", "mha_hf", "mha_model", "mha_render", "mha_cli"):
    check(lib in arch, "docs/architecture.md does not name the library " + lib)

# 5. docs/ci.md's count of the README's tests is the suite's own (ctest -N in the build folder given).
if len(sys.argv) > 2:
    out = subprocess.run(["ctest", "-N", "--test-dir", sys.argv[2]], capture_output=True, text=True).stdout
    total = re.search(r"Total Tests: (\d+)", out)
    ci = read(os.path.join(root, "docs", "ci.md"))
    # The sanitizer builds leave out what cannot run under them (valgrind, the Python audits' self-tests): their
    # count is the page's second figure.
    cache = os.path.join(sys.argv[2], "CMakeCache.txt")
    sanitized = os.path.exists(cache) and "MHA_SANITIZE:BOOL=ON" in read(cache)
    said = re.search(r"ctest `--parallel 2`: (\d+) tests" if not sanitized else r"(\d+) in the sanitizer build", ci)
    check(total is not None and said is not None and said.group(1) == total.group(1),
          "docs/ci.md says %s tests%s, ctest -N counts %s" % (said and said.group(1), " (sanitized)" if sanitized else "",
                                                            total and total.group(1)))

print("%d checks, %d relative links in %d pages, README %d lines, %d problems" % (checks, count, len(pages), lines,
                                                                                  len(problems)))
sys.exit(1 if problems or checks == 0 else 0)
