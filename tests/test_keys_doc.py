#!/usr/bin/env python3
"""The one table of keys (src/model/keys.def) against what is made from it and what tells of it:
docs/keys.md's "At a glance" table is the help overlay's lines as the table gives them (--write makes it
again); every key of the table is in the help and in the teacher's table (docs/keys.md's key column), every
single-letter key either names is one the window takes, a key the help shows with Shift reads Shift (its
row's modifiers), no key code is taken twice, and SDL's key codes appear nowhere but in the table and
src/app/gui_input.c (which expands them).

usage: test_keys_doc.py SOURCE_DIR [--write]
"""
import os
import re
import sys

LITERAL = r'"(?:[^"\\\n]|\\.)*"'
BEGIN = "<!-- keys: begin; made from src/model/keys.def by tests/test_keys_doc.py --write -->"
END = "<!-- keys: end -->"


def c_string(literals):
    """The bytes of adjacent C string literals, as text (escapes: \\xNN, \\", \\\\, \\n)."""
    out = b""
    for lit in re.findall(LITERAL, literals):
        body, i = lit[1:-1], 0
        while i < len(body):
            if body[i] == "\\" and body[i + 1] == "x":
                digits = re.match(r"[0-9a-fA-F]+", body[i + 2:]).group(0)
                out += bytes([int(digits, 16)])
                i += 2 + len(digits)
            elif body[i] == "\\":
                out += {"n": b"\n", '"': b'"', "\\": b"\\", "t": b"\t"}[body[i + 1]]
                i += 2
            else:
                out += body[i].encode("utf-8")
                i += 1
    return out.decode("utf-8")


def desktop(text):
    """The lines of the table a desktop build reads (not the page's: __EMSCRIPTEN__)."""
    keep, lines = [True], []
    for line in text.split("\n"):
        s = line.strip()
        if s.startswith("#ifdef __EMSCRIPTEN__"):
            keep.append(False)
        elif s.startswith("#ifndef __EMSCRIPTEN__"):
            keep.append(True)
        elif s.startswith("#else"):
            keep[-1] = not keep[-1]
        elif s.startswith("#endif"):
            keep.pop()
        elif all(keep) and not s.startswith("//"):
            lines.append(line)
    return "\n".join(lines)


def read_table(src):
    text = desktop(open(os.path.join(src, "src/model/keys.def"), encoding="utf-8").read())
    msg = r"N_\(((?:\s*" + LITERAL + r")+)\)"
    helps = [(c_string(k), c_string(t)) for k, t in re.findall(r"KEY_HELP\(" + msg + r",\s*" + msg + r"\)", text)]
    keys = re.findall(r"^KEY\((\w+),\s*([^,]+),\s*([^,]+),\s*(\w+)\)", text, re.M)
    also = re.findall(r"^KEY_ALSO\((\w+),\s*(\w+)\)", text, re.M)
    return helps, keys, also


def glance(helps):
    rows = ["| keys | what they do |", "|---|---|"]
    for k, t in helps:
        rows.append("| %s | %s |" % (re.sub(r"\s+", " ", k), re.sub(r"\s+", " ", t).replace("|", "\\|")))
    return "\n".join([BEGIN] + rows + [END])


def main():
    src = sys.argv[1]
    helps, keys, also = read_table(src)
    fails, checks = [], 0
    doc_path = os.path.join(src, "docs/keys.md")
    doc = open(doc_path, encoding="utf-8").read()
    made = glance(helps)
    at = re.search(re.escape(BEGIN) + r".*?" + re.escape(END), doc, re.S)
    if "--write" in sys.argv[2:]:
        if not at:
            sys.exit("FAIL: docs/keys.md has no %s ... %s to write into" % (BEGIN, END))
        doc = doc[:at.start()] + made + doc[at.end():]
        open(doc_path, "w", encoding="utf-8").write(doc)
        at = re.search(re.escape(BEGIN) + r".*?" + re.escape(END), doc, re.S)
    checks += 1
    if not at:
        fails.append("docs/keys.md has no table made from the keys (%s ... %s)" % (BEGIN, END))
    elif at.group(0) != made:
        fails.append("docs/keys.md's \"At a glance\" is not what src/model/keys.def gives: run  python3 "
                     "tests/test_keys_doc.py . --write")

    names = {k[0] for k in keys}
    # How each view key is written in the help and the docs (any one of these).
    label = {"RIGHT": ["→"], "LEFT": ["←"], "SPACE": ["Space"], "BACKSPACE": ["Backspace"],
             "PAGEDOWN": ["PageDown"], "PAGEUP": ["PageUp"], "DOWN": ["↓"], "UP": ["↑"], "HOME": ["Home"],
             "END": ["End"], "PERIOD": ["."], "COMMA": [","], "TAB": ["Tab"], "F11": ["F11"], "PLUS": ["+"],
             "MINUS": ["−", "-"], "0": ["0"], "F1": ["F1"], "ESCAPE": ["Esc"], "ENTER": ["Enter"],
             "LEFTBRACKET": ["["], "RIGHTBRACKET": ["]"], "DIGIT": ["1", "9"]}
    teacher = doc[at.end():] if at else doc
    doc_keys = [row.split("|")[1] for row in teacher.splitlines() if row.startswith("| ") and row.count("|") >= 3]
    doc_all = [row for row in teacher.splitlines() if row.startswith("| ")]

    def tokens(s):
        return set(re.findall(r"[A-Za-z]\w*|[^\sA-Za-z/`]", s.replace("Shift+", " ").replace("Ctrl+", " ")))

    for name, mods, _action, _code in keys:
        labels = label.get(name, [name])
        named = [(k, t) for k, t in helps if any(l in tokens(k) for l in labels)]
        checks += 3
        if not any(any(l in tokens(col) for l in labels) for col in doc_keys) and \
                not (name == "ENTER" and any("Enter" in r for r in doc_all)):
            fails.append("the key %s is not in docs/keys.md's key column" % name)
        if not named:
            fails.append("the key %s is not on the help page (a KEY_HELP row of keys.def)" % name)
        # A key whose action reads Shift says so in the help; "Shift+<key>" only of a key that reads it.
        if "VIEW_MOD_SHIFT" in mods and not any("Shift" in k + t for k, t in named):
            fails.append("the key %s reads Shift (its row's modifiers) but its help lines never say so" % name)
        if "VIEW_MOD_SHIFT" not in mods and any(re.search(r"Shift\+" + re.escape(l) + r"(?![A-Za-z])", k)
                                              for k, _ in helps for l in labels):
            fails.append("the help names Shift+%s, but the key's row does not read Shift" % labels[0])
    for col in doc_keys[1:] + [k for k, _ in helps]:
        for t in tokens(col):
            if re.fullmatch(r"[A-Z]", t):
                checks += 1
                if t not in names:
                    fails.append("%r names the key %s, which the window does not take" % (col.strip(), t))
    codes = [k[3] for k in keys if k[3] != "SDLK_UNKNOWN"] + [a[1] for a in also]
    checks += 2
    twice = sorted({c for c in codes if codes.count(c) > 1})
    if twice:
        fails.append("key codes taken twice in keys.def: %s" % twice)
    if any(a[0] not in names for a in also):
        fails.append("KEY_ALSO rows of keys that have no KEY row: %s" % [a[0] for a in also if a[0] not in names])
    # SDL's key codes nowhere else: the table names them, gui_input.c expands them (and 1 .. 9 by range).
    elsewhere = []
    for root, _, files in os.walk(os.path.join(src, "src")):
        for f in files:
            p = os.path.relpath(os.path.join(root, f), src)
            if not f.endswith((".c", ".h", ".inc", ".def")) or p in ("src/model/keys.def", "src/app/gui_input.c"):
                continue
            if "SDLK_" in open(os.path.join(src, p), encoding="utf-8").read():
                elsewhere.append(p)
    code = open(os.path.join(src, "src/app/gui_input.c"), encoding="utf-8").read()
    own = set(re.findall(r"SDLK_\w+", code)) - {"SDLK_1", "SDLK_9", "SDLK_KP_1", "SDLK_KP_9", "SDLK_UNKNOWN"}
    checks += 2
    if elsewhere:
        fails.append("SDL key codes outside src/model/keys.def and src/app/gui_input.c: %s" % elsewhere)
    if own:
        fails.append("SDL key codes written in gui_input.c instead of the table: %s" % sorted(own))
    for f in fails:
        print("FAIL: " + f)
    print("test_keys_doc: %d keys (%d key codes), %d help lines, %d checks, %d failed"
          % (len(keys), len(codes), len(helps), checks, len(fails)))
    sys.exit(1 if fails or not keys or not helps else 0)


main()
