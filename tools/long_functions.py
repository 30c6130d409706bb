#!/usr/bin/env python3
"""Lists the functions of src/ longer than a limit (default 80 lines, from the line of their name to their
closing brace), longest first, and the files longer than 900 lines (not those under a generated/ folder,
which tools/gen_*.py write): the house's two size rules (docs/style.md).
usage: tools/long_functions.py [--limit N] [SRC_DIR]   (exit 0; it reports, it does not judge)"""
import os
import re
import sys

def functions(path):
    """(name, first line, line count) of each function definition: a line at column 0 that opens a body
    ('{' at the end of it or alone on the next line), to the '}' at column 0 that closes it."""
    lines = open(path, encoding='utf-8', errors='replace').read().split('\n')
    code = [re.sub(r'\s*//.*$', '', l).rstrip() for l in lines] # without the line comments
    out, i = [], 0
    while i < len(lines):
        line = code[i]
        head = re.match(r'^[A-Za-z_][\w \*]*?\b([A-Za-z_]\w*)\s*\(', line)
        if head and not line.startswith(('typedef', 'struct', 'enum', 'union', 'return', 'else', 'if')) \
                and not line.endswith(';'):
            # the signature may go on over more lines; the body opens with '{'
            j = i
            while j < len(lines) and '{' not in code[j] and not code[j].endswith(';'):
                j += 1
            if j < len(lines) and '{' in code[j] and code[j].endswith('}'): # a body on one line
                out.append((head.group(1), i + 1, j - i + 1))
                i = j + 1
                continue
            if j < len(lines) and '{' in code[j] and not code[j].endswith(';'):
                k = j
                while k < len(lines) and lines[k] != '}':
                    k += 1
                out.append((head.group(1), i + 1, k - i + 1))
                i = k + 1
                continue
        i += 1
    return out

def main():
    args = sys.argv[1:]
    limit = 80
    if args[:1] == ['--limit']:
        limit = int(args[1])
        args = args[2:]
    src = args[0] if args else 'src'
    found, sizes = [], []
    for root, _, files in os.walk(src):
        for f in sorted(files):
            if not f.endswith(('.c', '.h', '.inc')):
                continue
            p = os.path.join(root, f)
            n = sum(1 for _ in open(p, encoding='utf-8', errors='replace'))
            if 'generated' not in root.split(os.sep): # made by a tools/gen_*.py: not written by hand
                sizes.append((n, p))
            found += [(c, p, name, at) for name, at, c in functions(p) if c > limit]
    found.sort(reverse=True)
    print(f'{len(found)} functions over {limit} lines:')
    for c, p, name, at in found:
        print(f'{c:5d}  {p}:{at}  {name}')
    big = sorted((s for s in sizes if s[0] > 900), reverse=True)
    print(f'{len(big)} files over 900 lines:')
    for n, p in big:
        print(f'{n:5d}  {p}')

main()
