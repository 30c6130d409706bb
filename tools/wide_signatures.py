#!/usr/bin/env python3
"""Lists the functions of src/ that take many parameters: those with more than 6 and those with more than
8 (the house's aim: at most 5 functions over 8; a call that carries a plan takes a request struct). A
function is counted once, at its definition (a body at file level), static ones too; the generated/ folder
is left out. The first line gives both counts (tests/test_format.sh reads it: at most 5 over 8); then one
line a function, those over N (6 unless --over says) listed, widest first.
usage: tools/wide_signatures.py [--over N] [SRC_DIR]   (exit 0; it reports, it does not judge)"""
import os
import re
import sys


def strip(text):
    """text with its comments, string and character literals and preprocessor lines blanked (newlines
    kept), so braces and parentheses count only as code."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('//', i):
            j = text.find('\n', i)
            i = n if j < 0 else j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            out.append(c + ' ' * (min(j, n) - i - 1) + c)
            i = j + 1
        elif c == '#' and (i == 0 or text[i - 1] == '\n'):
            j = i
            while True: # a directive goes on over lines ending in a backslash
                k = text.find('\n', j)
                if k < 0 or text[k - 1] != '\\':
                    break
                j = k + 1
            k = n if k < 0 else k
            out.append(re.sub(r'[^\n]', ' ', text[i:k]))
            i = k
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def split_top(params):
    """The parameters of a list: split at the commas outside parentheses (a function pointer's own)."""
    parts, depth, cur = [], 0, ''
    for c in params:
        if c in '([':
            depth += 1
        elif c in ')]':
            depth -= 1
        if c == ',' and depth == 0:
            parts.append(cur)
            cur = ''
        else:
            cur += c
    parts.append(cur)
    parts = [p.strip() for p in parts]
    return [] if parts in ([''], ['void']) else parts


def definitions(path):
    """(name, line, parameter count) of each function defined at file level in path."""
    code = strip(open(path, encoding='utf-8', errors='replace').read())
    out, depth, i = [], 0, 0
    head = re.compile(r'([A-Za-z_]\w*)\s*\(')
    while i < len(code):
        c = code[i]
        if c == '{':
            depth += 1
        elif c == '}':
            depth -= 1
        elif depth == 0:
            m = head.match(code, i)
            if m and (i == 0 or not (code[i - 1].isalnum() or code[i - 1] == '_')):
                j, level = m.end(), 1 # past the '(': find its ')'
                while j < len(code) and level:
                    level += {'(': 1, ')': -1}.get(code[j], 0)
                    j += 1
                rest = code[j:j + 200].lstrip()
                keyword = m.group(1) in ('if', 'while', 'for', 'switch', 'return', 'sizeof')
                if rest.startswith('{') and not keyword:
                    out.append((m.group(1), code.count('\n', 0, i) + 1,
                                len(split_top(code[m.end():j - 1]))))
                    i = j
                    continue
                i = m.end() - 1 if m.group(1) else i
        i += 1
    return out


def main():
    args = sys.argv[1:]
    over = 6
    if args[:1] == ['--over'] and len(args) > 1:
        over = int(args[1])
        args = args[2:]
    src = args[0] if args else 'src'
    found = []
    for root, dirs, files in os.walk(src):
        dirs[:] = sorted(d for d in dirs if d != 'generated')
        for f in sorted(files):
            if f.endswith(('.c', '.h', '.inc')):
                p = os.path.join(root, f)
                found += [(count, p, at, name) for name, at, count in definitions(p) if count > 6]
    found.sort(key=lambda x: (-x[0], x[1], x[2]))
    wide = [f for f in found if f[0] > 8]
    print(f'{len(found)} functions with more than 6 parameters, {len(wide)} with more than 8:')
    for count, p, at, name in (f for f in found if f[0] > over):
        print(f'{count:3d}  {p}:{at}  {name}')


if __name__ == '__main__':
    main()
