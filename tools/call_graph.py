#!/usr/bin/env python3
"""The call graph between the .c files of src/: which file uses a function that another file defines, and
whether those uses keep the house's two rules (STYLE.md): no files that use each other (a pair, or a longer
ring), and no use from a lower layer of a higher one. Layer order, from the ground: core and platform (beside
each other), lesson, hf, model, render, app; a file's layer is its first folder under src/.

A use is a call of the name or its address taken (a table of callbacks): either way the file needs the other.
Each .c is read as text: comments, strings and character literals blanked, an included .inc read as part of
its .c; a function defined (non-static) in more than one file, such as the POSIX and Win32 platform files,
counts as defined in each of them; a file that defines a name itself, statically or not, uses its own.
core's uses of platform are listed apart: they are allowed (platform is beside core), and shown.
usage: tools/call_graph.py [--edges] [SRC_DIR]   exit 1 when a circle or an upward use is found, else 0"""
import os
import re
import sys

LAYERS = {'core': 0, 'platform': 0, 'lesson': 1, 'hf': 2, 'model': 3, 'render': 4, 'app': 5}
KEYWORDS = {'if', 'for', 'while', 'switch', 'return', 'sizeof', 'defined', '_Alignof', '_Static_assert',
            'alignof', 'do', 'else', 'case', 'goto', '__attribute__', '_Generic', 'offsetof'}


def blank(text):
    """The text with comments, strings and character literals turned to spaces, the lines kept."""
    pattern = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
    return pattern.sub(lambda m: re.sub(r'[^\n]', ' ', m.group(0)), text)


def read_unit(path):
    """A .c file's text, blanked, with the .inc files it includes read in at their #include."""
    raw = open(path, encoding='utf-8', errors='replace').read()
    here = os.path.dirname(path)

    def include(m):
        name = m.group(1)
        for base in (here, os.path.dirname(here)):
            p = os.path.join(base, name)
            if os.path.exists(p):
                return open(p, encoding='utf-8', errors='replace').read()
        return ''
    raw = re.sub(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+\.inc)"[^\n]*$', include, raw, flags=re.M)
    text = blank(raw)
    # preprocessor lines (macros' bodies included): not the file's own calls
    return re.sub(r'^[ \t]*#(?:[^\n]*\\\n)*[^\n]*', lambda m: re.sub(r'[^\n]', ' ', m.group(0)), text, flags=re.M)


def top_level(text):
    """The text outside every brace pair (declarations and the heads of definitions), and the bodies."""
    outside, inside, depth, start = [], [], 0, 0
    for i, ch in enumerate(text):
        if ch == '{':
            if depth == 0:
                outside.append(text[start:i] + '{')
                start = i + 1
            depth += 1
        elif ch == '}':
            depth -= 1
            if depth == 0:
                inside.append(text[start:i])
                outside.append('}')
                start = i + 1
    outside.append(text[start:])
    return ''.join(outside), inside


def definitions(text):
    """{name: is_static} of the functions a unit defines: a name and its parameters followed by '{'."""
    outside, _ = top_level(text)
    found = {}
    for m in re.finditer(r'([A-Za-z_]\w*)\s*\(([^;{}()]|\([^;{}()]*\))*\)\s*\{', outside):
        name = m.group(1)
        if name in KEYWORDS:
            continue
        # the statement before the name, back to the last ';', '}' or '{'
        head = outside[:m.start()]
        cut = max(head.rfind(';'), head.rfind('}'), head.rfind('{'))
        found[name] = bool(re.search(r'\bstatic\b', head[cut + 1:]))
    return found


def uses(text, names):
    """The names (of `names`) that a unit mentions as an identifier: a call, or a function's address taken."""
    # a struct's member (x.name, p->name) is not a use of a function of that name
    words = set(re.findall(r'\b[A-Za-z_]\w*\b', re.sub(r'(\.|->)\s*[A-Za-z_]\w*', ' ', text)))
    return words & names


def unit_name(src, path):
    return os.path.relpath(path, src).replace(os.sep, '/')


def layer(name):
    return LAYERS.get(name.split('/')[0])


def read_house(src):
    """units {file: text}, defs {file: {name: is_static}}"""
    units, defs = {}, {}
    for root, _, files in os.walk(src):
        for f in sorted(files):
            if f.endswith('.c'):
                p = os.path.join(root, f)
                n = unit_name(src, p)
                units[n] = read_unit(p)
                defs[n] = definitions(units[n])
    return units, defs


def edges_of(units, defs):
    """{(caller, callee): sorted names}: a unit's uses of a non-static function that another unit defines
    and it does not define itself."""
    public = {}
    for f, d in defs.items():
        for name, static in d.items():
            if not static:
                public.setdefault(name, []).append(f)
    edges = {}
    for f, text in units.items():
        own = set(defs[f])
        for name in sorted(uses(text, set(public)) - own):
            for g in public[name]:
                if g != f:
                    edges.setdefault((f, g), []).append(name)
    return edges


def strongly_connected(nodes, edges):
    """Tarjan's components of more than one file: each a ring of files that use each other."""
    out = {n: sorted(g for (f, g) in edges if f == n) for n in nodes}
    index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in out[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for n in sorted(nodes):
        if n not in index:
            visit(n)
    return sorted(comps)


def main():
    args = sys.argv[1:]
    show_edges = '--edges' in args
    args = [a for a in args if a != '--edges']
    src = args[0] if args else 'src'
    units, defs = read_house(src)
    edges = edges_of(units, defs)
    if show_edges:
        for (f, g), names in sorted(edges.items()):
            print(f'{f} -> {g}: {", ".join(names)}')
    circles = strongly_connected(units, edges)
    print(f'{len(circles)} circles:')
    for comp in circles:
        print(f'  {len(comp)} files: {", ".join(comp)}')
        for (f, g), names in sorted(edges.items()):
            if f in comp and g in comp:
                print(f'    {f} -> {g}: {", ".join(names)}')
    upward = [(f, g, n) for (f, g), n in sorted(edges.items())
              if layer(f) is not None and layer(g) is not None and layer(f) < layer(g)]
    print(f'{len(upward)} upward uses:')
    for f, g, names in upward:
        print(f'  {f} -> {g}: {", ".join(names)}')
    beside = [(f, g, n) for (f, g), n in sorted(edges.items())
              if f.startswith('core/') and g.startswith('platform/')]
    print(f'{len(beside)} uses of platform by core (allowed: beside it):')
    for f, g, names in beside:
        print(f'  {f} -> {g}: {", ".join(names)}')
    print(f'{len(units)} files, {len(edges)} file-to-file uses')
    return 1 if circles or upward else 0


if __name__ == '__main__':
    sys.exit(main())
