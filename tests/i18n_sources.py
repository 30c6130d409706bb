#!/usr/bin/env python3
# Every message in the sources is in every language table: the strings wrapped in TR("...") or N_("..."),
# and those of the tables drawn through TR(row.field) (stage names, matrix descriptions, the help's keys,
# the cost panel's heads, the font hints). A message without two lower-case letters in a row is a symbol
# and is not looked up (see has_word in src/model/i18n.c). usage: i18n_sources.py SOURCE_DIR
import os, re, glob, sys
os.chdir(sys.argv[1])
MACROS = {"TIMES": r'"\xc3\x97"', "SQRT": r'"\xe2\x88\x9a"', "DOT": r'"\xc2\xb7"'}
LIT = r'"(?:[^"\\\n]|\\.)*"'
def cstr(seq):
    for k, v in MACROS.items(): seq = re.sub(r"\b%s\b" % k, lambda _m, v=v: v, seq)
    parts = re.findall(LIT, seq)
    raw = "".join(p[1:-1] for p in parts)
    # decode C escapes to bytes
    out = bytearray(); i = 0
    while i < len(raw):
        ch = raw[i]
        if ch == '\\':
            n = raw[i+1]
            if n == 'x':
                m = re.match(r'[0-9a-fA-F]{1,2}', raw[i+2:]); out.append(int(m.group(0), 16)); i += 2 + len(m.group(0)); continue
            out += {'n': b'\n', 't': b'\t', '"': b'"', '\\': b'\\', "'": b"'"}[n]; i += 2; continue
        out += ch.encode(); i += 1
    return out.decode()
def has_word(s): return re.search(r'[a-z]{2}', s) is not None
ids = []
def add(s):
    if has_word(s) and s not in ids: ids.append(s)
SEQ = r'((?:' + LIT + r'|\b(?:TIMES|SQRT|DOT)\b)(?:\s*(?:' + LIT + r'|\b(?:TIMES|SQRT|DOT)\b))*)'
for f in sorted(glob.glob('src/*/*.[ch]')):
    src = open(f).read()
    for m in re.finditer(r'\b(?:TR|N_)\(\s*' + SEQ + r'\s*\)', src): add(cstr(m.group(1)))
# tables drawn through TR(field)
src = open('src/model/stages.c').read()
for m in re.finditer(r'\{STAGE_[A-Z_]+, ("[^"]*"), ("(?:[^"\\]|\\.)*"(?:\s*SQRT\s*"(?:[^"\\]|\\.)*")*), ("(?:[^"\\]|\\.)*"(?:\s*SQRT\s*"(?:[^"\\]|\\.)*")*)', src):
    add(cstr(m.group(2))); add(cstr(m.group(3)))
src = open('src/model/matrices.c').read()
for m in re.finditer(r'\[MAT_[A-Z_]+\] = \{MAT_[A-Z_]+, ' + LIT + ', ' + LIT + r', (' + LIT + ')', src): add(cstr(m.group(1)))
src = ''.join(open(f).read() for f in sorted(glob.glob('src/render/scene*.c'))) # the help and cost tables
for m in re.finditer(r'^\s*\{' + SEQ + r', ' + SEQ + r'\},', src, re.M): add(cstr(m.group(1))); add(cstr(m.group(2)))
m = re.search(r'static const char \*const head\[5\] = \{([^}]*)\}', src)
for l in re.findall(LIT, m.group(1)): add(cstr(l))
src = open('src/platform/fontfind.c').read()
sect = src[src.index('#if defined(MHA_HAVE_FONTCONFIG)\n    {'):]
sect = sect[:sect.index('#else')]
for l in re.findall(r'"([^"]*)"\}', sect): add(l)

def table(code):
    text = open('src/model/lang_%s.c' % code, encoding='utf-8').read()
    pairs = re.findall(r'\{(' + LIT + r'),\s*(' + LIT + r')\}', text)
    return {cstr(a): cstr(b) for a, b in pairs}

bad = 0
for code in ['es', 'fr', 'zh']:
    t = table(code)
    for s in ids:
        if s not in t:
            print('%s: no translation of %r' % (code, s)); bad += 1
    for k in t:
        if k not in ids:
            print('%s: %r is in the table but no longer in the sources' % (code, k)); bad += 1
print('%d messages, %d problems' % (len(ids), bad))
sys.exit(1 if bad else 0)
