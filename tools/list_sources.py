#!/usr/bin/env python3
"""Writes docs/architecture.md's last section, "Every source file": each .c (and .inc, .def, and a header
without a .c) of src/, folder by folder in layer order, with the first sentence of the comment it opens
with. tests/test_docs.py checks that the page names every source file.
usage: tools/list_sources.py [ROOT]   (rewrites ROOT/docs/architecture.md from that heading on)"""
import os
import re
import sys

FOLDERS = ["core", "platform", "lesson", "hf", "model", "render", "app"]
HEADING = "## Every source file"


def first_sentence(path):
    text = []
    for line in open(path, encoding="utf-8", errors="replace").read().split("\n"):
        if line.startswith("//"):
            text.append(line[2:].strip())
        elif text or line.strip():
            break
    s = " ".join(text)
    m = re.match(r"(.+?[.:;])(\s|$)", s)
    return (m.group(1) if m else s).replace("|", "\\|")


def section(src):
    out = [HEADING, "",
           "Each file of `src/`, by folder in layer order, with the first sentence it opens with (a header goes",
           "with its `.c`). Made by `python3 tools/list_sources.py`; `test_docs` checks that this page names every",
           "source file.", ""]
    for folder in FOLDERS:
        out += ["**src/%s/**" % folder, ""]
        files = []
        for dirpath, _, names in os.walk(os.path.join(src, folder)):
            for n in names:
                p = os.path.join(dirpath, n)
                if n.endswith((".c", ".inc", ".def")) or (n.endswith(".h") and not os.path.exists(p[:-2] + ".c")):
                    files.append(os.path.relpath(p, src).replace(os.sep, "/"))
        out += ["- `%s`: %s" % (f, first_sentence(os.path.join(src, f))) for f in sorted(files)]
        out.append("")
    return "\n".join(out)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    page = os.path.join(root, "docs", "architecture.md")
    text = open(page, encoding="utf-8").read()
    head = text.split("\n" + HEADING + "\n")[0].rstrip("\n")
    open(page, "w", encoding="utf-8").write(head + "\n\n" + section(os.path.join(root, "src")))


if __name__ == "__main__":
    main()
