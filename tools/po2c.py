#!/usr/bin/env python3
# The translations' tool (docs/translations.md): gettext catalogues in, C tables or a template out.
#   po2c.py c   PO_DIR OUT.c         po/LINGUAS + po/CODE.po -> the tables src/model/i18n.c searches (the build
#                                    runs it: python3 only, no gettext needed to build)
#   po2c.py pot SRC_DIR OUT.pot      the template, from the sources, by xgettext (the keywords of i18n.h)
# As msgfmt does, a fuzzy entry and an entry with an empty msgstr are left out (the English shows), and a
# translation whose printf conversions differ from its message's stops the build.
import os
import re
import subprocess
import sys
import tempfile

MAX_FORMS = 6  # I18N_MAX_FORMS in src/model/i18n.h
KEYWORDS = ["TR", "N_", "TRC:1c,2", "TRN:1,2"]  # the macros of src/model/i18n.h
POT_NOTE = """\
# The messages of mha-tracer's window and exports, in English: the template of po/CODE.po.
# Made by tools/po2c.py pot from the sources (xgettext); do not edit it by hand (tests/i18n_catalogs.py
# checks that it is up to date). Translators: keep the printf conversions (%d, %s, %.*s ...) of a message,
# in the same order; a message without a word ("QK^T", "A") is the same in every language and is not here.
"""


class PoError(Exception):
    pass


ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}


def unquote(s, where):
    """The text of a PO string literal "..." (C escapes)."""
    if len(s) < 2 or s[0] != '"' or s[-1] != '"':
        raise PoError("%s: expected a quoted string, got %s" % (where, s))
    out, i, body = [], 0, s[1:-1]
    while i < len(body):
        c = body[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        n = body[i + 1] if i + 1 < len(body) else ""
        if n in ESCAPES:
            out.append(ESCAPES[n])
            i += 2
        elif n in "01234567" and n:
            m = re.match(r"[0-7]{1,3}", body[i + 1:])
            out.append(chr(int(m.group(0), 8)))
            i += 1 + len(m.group(0))
        else:
            raise PoError("%s: unknown escape \\%s" % (where, n))
    return "".join(out)


class Entry:
    def __init__(self, line):
        self.line = line  # where it starts
        self.notes = []  # "#." lines
        self.refs = []  # "#:" lines
        self.flags = set()
        self.ctx = None
        self.id = None
        self.plural = None
        self.strs = {}  # form index -> text (msgstr is form 0)
        self.obsolete = False

    def key(self):
        return self.id if self.ctx is None else self.ctx + "\x04" + self.id

    def translated(self, nplurals):
        """True when msgfmt would use it: not fuzzy, every form there and not empty."""
        if "fuzzy" in self.flags or self.obsolete:
            return False
        forms = range(nplurals) if self.plural is not None else [0]
        return all(self.strs.get(i) for i in forms)


def parse_po(path):
    """The entries of a PO file (the header, msgid "", first when there is one)."""
    entries, cur, field = [], None, None
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for no, raw in enumerate(lines, 1):
        where = "%s:%d" % (path, no)
        line = raw.strip()
        if not line:
            cur, field = None, None
            continue
        if line.startswith("#~"):
            if cur is None:
                cur = Entry(no)
                entries.append(cur)
            cur.obsolete = True
            continue
        if cur is None:
            cur = Entry(no)
            entries.append(cur)
        if line.startswith("#."):
            cur.notes.append(line[2:].strip())
        elif line.startswith("#:"):
            cur.refs.append(line[2:].strip())
        elif line.startswith("#,"):
            cur.flags |= {f.strip() for f in line[2:].split(",")}
        elif line.startswith("#"):
            pass  # a translator's comment, or "#|" (the previous message)
        elif line.startswith('"'):
            if field is None:
                raise PoError("%s: a string continues nothing" % where)
            text = unquote(line, where)
            if field == "msgctxt":
                cur.ctx += text
            elif field == "msgid":
                cur.id += text
            elif field == "msgid_plural":
                cur.plural += text
            else:
                cur.strs[field] += text
        else:
            m = re.match(r"(msgctxt|msgid_plural|msgid|msgstr)(?:\[(\d+)\])?\s+(.*)$", line)
            if not m:
                raise PoError("%s: cannot read %r" % (where, line))
            kw, idx, rest = m.group(1), m.group(2), unquote(m.group(3), where)
            if kw == "msgctxt":
                cur.ctx, field = rest, "msgctxt"
            elif kw == "msgid":
                cur.id, field = rest, "msgid"
            elif kw == "msgid_plural":
                cur.plural, field = rest, "msgid_plural"
            else:
                field = int(idx) if idx is not None else 0
                cur.strs[field] = rest
    for e in entries:
        if e.id is None and not e.obsolete:
            raise PoError("%s:%d: an entry without msgid" % (path, e.line))
    return entries


def header(entries, path):
    """The header's fields (the msgstr of msgid "")."""
    if not entries or entries[0].id != "" or entries[0].ctx is not None:
        raise PoError("%s: no header (msgid \"\") first" % path)
    fields = {}
    for line in entries[0].strs.get(0, "").split("\n"):
        if ":" in line:
            k, v = line.split(":", 1)
            fields[k.strip()] = v.strip()
    return fields


def plural_forms(text, where):
    """nplurals and the C expression of a Plural-Forms header ("nplurals=2; plural=(n != 1);")."""
    m = re.match(r"\s*nplurals\s*=\s*(\d+)\s*;\s*plural\s*=\s*([^;]+);?\s*$", text or "")
    if not m:
        raise PoError("%s: no Plural-Forms header of the form \"nplurals=N; plural=EXPR;\"" % where)
    n, expr = int(m.group(1)), m.group(2).strip()
    # gettext's expressions are C: n, numbers, comparisons, arithmetic, && || ! and ?: (nothing else gets in).
    if not re.fullmatch(r"[n0-9\s()?:<>=!&|%+*/-]+", expr):
        raise PoError("%s: plural=%s is not a gettext plural expression" % (where, expr))
    if not 1 <= n <= MAX_FORMS:
        raise PoError("%s: nplurals=%d (1 to %d)" % (where, n, MAX_FORMS))
    return n, expr


CONV = re.compile(r"%(?:%|[-+ #0]*(?:\*|\d+)?(?:\.(?:\*|\d+))?(?:hh|h|ll|l|z|j|t|L)?[diouxXeEfFgGaAcsp])")


def conversions(s):
    """The printf conversions of s, in order ("%%" is text)."""
    return [c for c in CONV.findall(s) if c != "%%"]


def has_word(s):
    """As has_word in src/model/i18n.c: two lower-case ASCII letters in a row."""
    return re.search(r"[a-z]{2}", s) is not None


def linguas(po_dir):
    """The languages of po/LINGUAS, in order (# starts a comment)."""
    codes = []
    with open(os.path.join(po_dir, "LINGUAS"), encoding="utf-8") as f:
        for line in f:
            codes += line.split("#", 1)[0].split()
    return codes


def catalogue(po_dir, code):
    """(name, nplurals, expression, {key: [forms]}) of po/CODE.po, the entries msgfmt would use."""
    path = os.path.join(po_dir, code + ".po")
    entries = parse_po(path)
    h = header(entries, path)
    nplurals, expr = plural_forms(h.get("Plural-Forms"), path)
    if h.get("Language") and h["Language"] != code:
        raise PoError("%s: Language: %s, but po/LINGUAS calls it %s" % (path, h["Language"], code))
    messages = {}
    for e in entries[1:]:
        if e.obsolete:
            continue
        if e.key() in messages:
            raise PoError("%s:%d: %r is there twice" % (path, e.line, e.id))
        if not e.translated(nplurals):
            continue
        forms = [e.strs[i] for i in (range(nplurals) if e.plural is not None else [0])]
        for i, s in enumerate(forms):
            if conversions(s) != conversions(e.id):
                raise PoError("%s:%d: msgstr%s has the conversions %s, the message %s" %
                              (path, e.line, "[%d]" % i if e.plural is not None else "", conversions(s),
                               conversions(e.id)))
        messages[e.key()] = forms
    return h.get("X-Language-Name") or code, nplurals, expr, messages


def c_string(s):
    """A C literal of s's UTF-8 bytes: printable ASCII as it is, the rest as octal escapes."""
    out = []
    for b in s.encode("utf-8"):
        c = chr(b)
        if c in '"\\?':
            out.append("\\" + c)
        elif 32 <= b < 127:
            out.append(c)
        else:
            out.append("\\%03o" % b)
    return '"' + "".join(out) + '"'


def write_c(po_dir, out):
    langs = [("en", "English", 2, "n != 1", {})]
    for code in linguas(po_dir):
        if not re.fullmatch(r"[a-z]{2,3}(?:_[A-Z]{2})?", code):
            raise PoError("%s/LINGUAS: %r is not a language code such as it or pt_BR" % (po_dir, code))
        langs.append((code,) + catalogue(po_dir, code))
    lines = ["// Written by tools/po2c.py from po/LINGUAS and po/*.po at build time: do not edit.",
             '#include "model/i18n.h"', ""]
    for code, name, nplurals, expr, messages in langs:
        lines.append("static unsigned long plural_%s(unsigned long n)\n{\n    (void)n;\n    return (unsigned long)(%s);\n}" % (code, expr))
        if not messages:
            continue
        lines.append("static const I18nMessage MESSAGES_%s[] = {" % code)
        for key in sorted(messages, key=lambda k: k.encode("utf-8")):
            lines.append("    {%s, {%s}}," % (c_string(key), ", ".join(c_string(s) for s in messages[key])))
        lines.append("};")
    lines.append("const LangTable I18N_TABLES[] = {")
    for code, name, nplurals, expr, messages in langs:
        table = ("MESSAGES_%s, sizeof MESSAGES_%s / sizeof MESSAGES_%s[0]" % (code, code, code)) if messages else "NULL, 0"
        lines.append("    {%s, %s, %d, plural_%s, %s}," % (c_string(code), c_string(name), nplurals, code, table))
    lines.append("};")
    lines.append("const int I18N_TABLE_COUNT = %d;" % len(langs))
    lines.append("const char I18N_CODES[] = %s;" % c_string(", ".join(l[0] for l in langs)))
    text = "\n".join(lines) + "\n"
    if not os.path.exists(out) or open(out, encoding="utf-8").read() != text:
        with open(out, "w", encoding="utf-8") as f:
            f.write(text)


LITERAL = r'"(?:[^"\\\n]|\\.)*"'


def utf8_escapes(literal):
    """A C literal with its runs of byte escapes ("\\xe2\\x88\\x9a") written as the UTF-8 text they are."""
    def run(m):
        data = bytes(int(h, 16) for h in re.findall(r"\\x([0-9a-fA-F]{2})", m.group(0)))
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return m.group(0)
    return re.sub(r"(?:\\x[0-9a-fA-F]{2})+", run, literal)


def source_for_xgettext(text):
    """A source file as xgettext can read its messages: the #define NAME "literal" of the file expanded, byte
    escapes as UTF-8 (xgettext reads neither macros nor escaped UTF-8); the lines stay where they were."""
    defs = dict(re.findall(r'^#define\s+([A-Z_][A-Z0-9_]*)\s+(' + LITERAL + r')\s*$', text, re.M))
    words = r"|\b(" + "|".join(map(re.escape, defs)) + r")\b" if defs else ""
    pat = re.compile("(" + LITERAL + ")" + words)
    return pat.sub(lambda m: utf8_escapes(m.group(1) or defs[m.group(2)]), text)


def make_pot(src_dir, xgettext="xgettext"):
    """The template's text: xgettext over src/*/*.c (.h, .inc, .def) with string macros expanded, symbols left out."""
    root = os.path.dirname(os.path.abspath(src_dir))
    files = sorted(os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(src_dir) for f in fs
                   if f.endswith((".c", ".h", ".inc", ".def")))
    with tempfile.TemporaryDirectory() as tmp:
        for rel in files:
            os.makedirs(os.path.join(tmp, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(root, rel), encoding="utf-8") as f:
                text = source_for_xgettext(f.read())
            with open(os.path.join(tmp, rel), "w", encoding="utf-8") as f:
                f.write(text)
        cmd = [xgettext, "--language=C", "--from-code=UTF-8", "--add-comments=TRANSLATORS:", "--no-location",
               "--sort-output", "--no-wrap", "--package-name=mha-tracer", "-o", "xgettext.pot"]
        # To a file: on standard output, without a header's charset, xgettext mangles UTF-8 (0.21).
        cmd += ["--keyword=" + k for k in KEYWORDS] + files
        subprocess.run(cmd, cwd=tmp, check=True, capture_output=True)
        with open(os.path.join(tmp, "xgettext.pot"), encoding="utf-8") as f:
            pot = f.read()
    blocks = [b for b in pot.strip().split("\n\n") if b][1:]  # xgettext's header (it dates itself) replaced
    kept = []
    for b in blocks:
        ids = re.findall(r'^msgid "(.*)"$', b, re.M)
        if ids and not has_word(unquote('"%s"' % ids[0], "xgettext")):
            continue  # a symbol: not looked up (has_word)
        kept.append(b)
    head = (POT_NOTE + 'msgid ""\nmsgstr ""\n"Project-Id-Version: mha-tracer\\n"\n"Language: \\n"\n'
            '"MIME-Version: 1.0\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Content-Transfer-Encoding: 8bit\\n"\n'
            '"Plural-Forms: nplurals=INTEGER; plural=EXPRESSION;\\n"\n"X-Language-Name: \\n"\n')
    return head + "\n" + "\n\n".join(kept) + "\n"


def main(argv):
    try:
        if len(argv) == 4 and argv[1] == "c":
            write_c(argv[2], argv[3])
        elif len(argv) == 4 and argv[1] == "pot":
            text = make_pot(argv[2], os.environ.get("XGETTEXT", "xgettext"))
            with open(argv[3], "w", encoding="utf-8") as f:
                f.write(text)
        else:
            sys.stderr.write("usage: po2c.py c PO_DIR OUT.c | po2c.py pot SRC_DIR OUT.pot\n")
            return 2
    except PoError as e:
        sys.stderr.write("po2c.py: error: %s\n" % e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
