#!/usr/bin/env python3
# The catalogues against the sources: po/mha-tracer.pot is what xgettext makes of the sources today (TR, TRC,
# TRN, N_), every message of it is in every catalogue of po/LINGUAS translated and not fuzzy (with every plural
# form), no catalogue keeps a message the sources no longer have, msgfmt --check accepts each one, and
# tools/po2c.py leaves fuzzy and empty entries out as msgfmt does and refuses a translation with other
# conversions. Needs gettext (xgettext, msgfmt): exits 77 (skipped) without it.
# usage: i18n_catalogs.py SOURCE_DIR
import os
import re
import shutil
import subprocess
import sys
import tempfile

root = os.path.abspath(sys.argv[1])
sys.path.insert(0, os.path.join(root, "tools"))
import po2c  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from require_tool import require_tool  # noqa: E402

require_tool("xgettext", "gettext")
require_tool("msgfmt", "gettext")

problems = []


def problem(text):
    if len(problems) < 40:
        print(text)
    problems.append(text)


# 1. The template is up to date.
po_dir = os.path.join(root, "po")
fresh = po2c.make_pot(os.path.join(root, "src"))
with open(os.path.join(po_dir, "mha-tracer.pot"), encoding="utf-8") as f:
    kept = f.read()
if fresh != kept:
    problem("po/mha-tracer.pot is not what the sources give: run  python3 tools/po2c.py pot src po/mha-tracer.pot"
            "  then  msgmerge --update --no-wrap --no-location --sort-output po/CODE.po po/mha-tracer.pot  for each"
            " language (docs/translations.md)")
with tempfile.TemporaryDirectory() as tmp:
    pot_path = os.path.join(tmp, "fresh.pot")
    with open(pot_path, "w", encoding="utf-8") as f:
        f.write(fresh)
    template = po2c.parse_po(pot_path)[1:]
wanted = {e.key(): e for e in template}

# 2. Every message in every catalogue, translated, not fuzzy; nothing stale; msgfmt agrees.
codes = po2c.linguas(po_dir)
if not codes:
    problem("po/LINGUAS lists no language")
for code in codes:
    path = os.path.join(po_dir, code + ".po")
    entries = po2c.parse_po(path)
    nplurals, _ = po2c.plural_forms(po2c.header(entries, path).get("Plural-Forms"), path)
    have = {e.key(): e for e in entries[1:] if not e.obsolete}
    for key, e in wanted.items():
        got = have.get(key)
        if got is None:
            problem("%s: no entry for %r" % (path, e.id))
        elif "fuzzy" in got.flags:
            problem("%s:%d: %r is fuzzy" % (path, got.line, e.id))
        elif not got.translated(nplurals):
            problem("%s:%d: %r is not translated (every form)" % (path, got.line, e.id))
        elif (got.plural is None) != (e.plural is None) or (e.plural and got.plural != e.plural):
            problem("%s:%d: %r: the plural is not the template's" % (path, got.line, e.id))
    for key, got in have.items():
        if key not in wanted:
            problem("%s:%d: %r is no longer in the sources" % (path, got.line, got.id))
    run = subprocess.run(["msgfmt", "--check", "-o", os.devnull, path], capture_output=True, text=True)
    errors = [l for l in run.stderr.splitlines() if "warning: header field" not in l]
    if run.returncode != 0 or errors:
        problem("%s: msgfmt --check: %s" % (path, " / ".join(errors)))

# 3. The class is addressed one way: Spanish says "usted" (Señale, pulse, escriba), never tú (pulsa, escribe,
# pulsaste, tu) or vosotros (predecid); and the notation of a message (d_k, d_model, W^O) stays in its
# translation as it is.
TU = re.compile(r"\b(haz|pulsaste|dijiste|elegiste|diste|predices|puedes|tienes|quieres|tu|tus|te|predecid|pulsad|"
                r"escribid|señalad|mirad|responded|vosotros|vuestro|vuestra|os)\b|(^|[.:;] )(Pulsa|Escribe|Elige|Señala|"
                r"Mira|Usa|Abre|Predice|Responde|Haz)\b", re.I)
NOTATION = re.compile(r"[A-Za-z]+_[A-Za-z]+|[A-Z]\^[A-Z]")
for code in codes:
    path = os.path.join(po_dir, code + ".po")
    for e in po2c.parse_po(path)[1:]:
        if e.obsolete or not e.id:
            continue
        for text in e.strs.values():
            if not text:
                continue
            if code == "es" and TU.search(text):
                problem("%s:%d: %r says %r: address the class as usted" % (path, e.line, text, TU.search(text).group(0)))
            for n in NOTATION.findall(e.id):
                if n not in text:
                    problem("%s:%d: %r lost the notation %r of its message" % (path, e.line, text, n))

# 4. The generator as msgfmt: fuzzy and empty entries (a plural with one empty form too) are left out; another
# conversion in a translation stops it.
HEAD = 'msgid ""\nmsgstr ""\n"Language: xx\\n"\n"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n\n'
CASES = HEAD + '''msgid "kept"
msgstr "gardé"

#, fuzzy
msgid "fuzzy one"
msgstr "flou"

msgid "empty one"
msgstr ""

msgid "%d plural one"
msgid_plural "%d plural ones"
msgstr[0] "%d un"
msgstr[1] ""

msgctxt "a head"
msgid "kept in context"
msgstr "gardé aussi"
'''
with tempfile.TemporaryDirectory() as tmp:
    with open(os.path.join(tmp, "LINGUAS"), "w") as f:
        f.write("xx\n")
    with open(os.path.join(tmp, "xx.po"), "w", encoding="utf-8") as f:
        f.write(CASES)
    out = os.path.join(tmp, "catalog.c")
    po2c.write_c(tmp, out)
    with open(out, encoding="utf-8") as f:
        c = f.read()
    keys = re.findall(r'^    \{"((?:[^"\\]|\\.)*)", \{', c, re.M)
    if keys != ["a head\\004kept in context", "kept"]:
        problem("po2c.py kept %s of the test catalogue (the two translated entries, in strcmp order, expected)" % keys)
    with open(os.path.join(tmp, "xx.po"), "w", encoding="utf-8") as f:
        f.write(HEAD + 'msgid "%d values"\nmsgstr "%s valeurs"\n')
    try:
        po2c.write_c(tmp, out)
        problem("po2c.py accepted a translation with another conversion (%s for %d)")
    except po2c.PoError:
        pass

print("%d messages, %d catalogues (%s), %d problems" % (len(wanted), len(codes), " ".join(codes), len(problems)))
sys.exit(1 if problems else 0)
