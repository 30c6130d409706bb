#!/usr/bin/env python3
"""Issue 37: the window's key table (src/app/gui_input.c KEYS, the only place SDL key codes appear) against the
teacher's key table (docs/keys.md) and the help page (src/render/scene_chrome.c HELP): every key the window
takes is explained in both, and every single-letter key either names is one the window takes.

usage: test_keys_doc.py SOURCE_DIR
"""
import os
import re
import sys

src = sys.argv[1]
code = open(os.path.join(src, "src/app/gui_input.c"), encoding="utf-8").read()
table = re.search(r"\} KEYS\[\] = \{(.*?)\n\};", code, re.S)
if not table:
    print("FAIL: no KEYS table in src/app/gui_input.c")
    sys.exit(1)
keys = set(re.findall(r"\{SDLK_\w+, VIEW_KEY_(\w+)\}", table.group(1)))
others = sorted(set(re.findall(r"SDLK_\w+", code.replace(table.group(1), ""))) - {"SDLK_1", "SDLK_9", "SDLK_KP_1",
                                                                                    "SDLK_KP_9"})
# SDL's key codes nowhere else in the sources.
elsewhere = []
for root, _, files in os.walk(os.path.join(src, "src")):
    for f in files:
        p = os.path.join(root, f)
        if f.endswith((".c", ".h")) and not p.endswith("gui_input.c") and "SDLK_" in open(p, encoding="utf-8").read():
            elsewhere.append(os.path.relpath(p, src))
# How each view key is written in the tables (any one of these).
LABEL = {"RIGHT": ["→"], "LEFT": ["←"], "SPACE": ["Space"], "BACKSPACE": ["Backspace"], "PAGEDOWN": ["PageDown"],
         "PAGEUP": ["PageUp"], "DOWN": ["↓"], "UP": ["↑"], "HOME": ["Home"], "END": ["End"], "PERIOD": ["."],
         "COMMA": [","], "TAB": ["Tab"], "F11": ["F11"], "PLUS": ["+"], "MINUS": ["−", "-"], "0": ["0"],
         "F1": ["F1"], "ESCAPE": ["Esc"], "ENTER": ["Enter"], "LEFTBRACKET": ["["], "RIGHTBRACKET": ["]"]}
doc = open(os.path.join(src, "docs/keys.md"), encoding="utf-8").read()
doc_keys = [row.split("|")[1] for row in doc.splitlines() if row.startswith("| ") and row.count("|") >= 3]
doc_all = doc_keys + [row for row in doc.splitlines() if row.startswith("| ")]
chrome = open(os.path.join(src, "src/render/scene_chrome.c"), encoding="utf-8").read()
help_block = re.search(r"HELP\[\]\[2\] = \{(.*?)\n\};", chrome, re.S)
help_keys = [bytes(k, "utf-8").decode("unicode_escape").encode("latin-1").decode("utf-8")
             for k in re.findall(r'\{N_\("((?:[^"\\]|\\.)*)"\)', help_block.group(1))] if help_block else []

fails, checks = [], 0


def tokens(s):
    return set(re.findall(r"[A-Za-z]\w*|[^\sA-Za-z/`]", s.replace("Shift+", " ").replace("Ctrl+", " ")))


for k in sorted(keys):
    labels = LABEL.get(k, [k])
    checks += 2
    if not any(any(l in tokens(col) for l in labels) for col in doc_keys) and \
            not (k == "ENTER" and any("Enter" in r for r in doc_all)):
        fails.append("the window's key %s is not in docs/keys.md's key column" % k)
    if not any(any(l in tokens(h) for l in labels) for h in help_keys):
        fails.append("the window's key %s is not on the help page (HELP)" % k)
for col in doc_keys[1:] + help_keys:
    for t in tokens(col):
        if re.fullmatch(r"[A-Z]", t):
            checks += 1
            if t not in keys:
                fails.append("%r names the key %s, which the window does not take" % (col.strip(), t))
checks += 2
if elsewhere:
    fails.append("SDL key codes outside src/app/gui_input.c: %s" % elsewhere)
if others:
    fails.append("SDL key codes outside the KEYS table in gui_input.c: %s" % others)
for f in fails:
    print("FAIL: " + f)
print("test_keys_doc: %d keys in the window's table, %d checks, %d failed" % (len(keys), checks, len(fails)))
sys.exit(1 if fails or not keys or not help_keys else 0)
