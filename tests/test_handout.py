#!/usr/bin/env python3
# The PDF handout (--export DIR --what handout): the cat's and llama-rope-gqa's handouts read back with
# poppler's tools. pdfinfo: one page for the title, one per part of every stage (as many as
# --what board --parts all writes, its question slides included) and the rest of a matrix a part shows a
# window of, one per panel the lesson uses, and the answer key. pdftotext: every number of the cat's --trace is text on some page, and each question is asked
# on a page before the one that gives its answer ("Answer: ..." as --questions says it). pdffonts: every font
# embedded. The cat's handout is under 1 MB and the same bytes twice; notes style is A4; a file that is not
# ours is never replaced; its own words come in each language of po/LINGUAS (--lang); a tiny checkpoint's
# layer (--model, with numpy) gives a handout too.
# usage: test_handout.py MHA_TRACER SOURCE_DIR     Exit 77 (skipped) without poppler-utils, or when this build
# has no handout (-DMHA_HANDOUT=OFF).
import os
import re
import shutil
import subprocess
import sys
import tempfile

BIN, SRC = sys.argv[1], sys.argv[2]
checks = 0


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def ok(cond, msg):
    global checks
    checks += 1
    if not cond:
        fail(msg)


def run(*args, code=0):
    p = subprocess.run(args, capture_output=True, text=True)
    if code is not None and p.returncode != code:
        fail("%s exited %d, not %d: %s" % (" ".join(args), p.returncode, code, p.stderr.strip()))
    return p


sys.path.insert(0, os.path.join(SRC, "tests"))
from require_tool import missing_tool, require_tool  # noqa: E402

for tool in ("pdfinfo", "pdftotext", "pdffonts"):
    require_tool(tool, "poppler-utils")

T = tempfile.mkdtemp()
try:
    probe = run(BIN, "--export", T + "/probe", "--what", "handout", SRC + "/lessons/the-cat-sat.json", code=None)
    if probe.returncode != 0 and "no PDF writer" in probe.stderr:
        missing_tool("a build with the handout (cairo; -DMHA_HANDOUT=ON): " + probe.stderr.strip())
    ok(probe.returncode == 0, "the cat's handout failed: " + probe.stderr)

    def pages(pdf):
        m = re.search(r"^Pages:\s+(\d+)", run("pdfinfo", pdf).stdout, re.M)
        return int(m.group(1))

    def page_texts(pdf):
        return run("pdftotext", "-layout", pdf, "-").stdout.split("\f")[:-1]

    def norm(s):
        return re.sub(r"\s+", " ", s).strip()

    def boards(lesson, out):
        # The stages' slides with every part, the question slides with them: the handout's board pages.
        run(BIN, "--export", out, "--what", "board", "--stage", "all", "--parts", "all", "--format", "svg",
            lesson)
        return len([f for f in os.listdir(out) if f.endswith(".svg")])

    def handout(lesson, out, *extra):
        p = run(BIN, "--export", out, "--what", "handout", *extra, lesson)
        path = p.stdout.strip()
        ok(os.path.isfile(path), "no file at the path printed: %r" % path)
        return path

    def fonts_embedded(pdf):
        rows = run("pdffonts", pdf).stdout.splitlines()[2:]
        ok(len(rows) > 0, "%s: no fonts at all (text drawn as pictures?)" % pdf)
        for r in rows:
            cols = r.split()
            ok(cols[-5] == "yes", "%s: a font is not embedded: %s" % (pdf, r))

    # --- the cat: pages, numbers, questions before answers, fonts, size, the same bytes twice
    cat = SRC + "/lessons/the-cat-sat.json"
    pdf = handout(cat, T + "/cat")
    ok(os.path.basename(pdf) == "the-cat-sat-handout-head0.pdf", "the file name says lesson and head: " + pdf)
    n_boards = boards(cat, T + "/cat-boards")
    # title + boards and question slides + the cost panel (2 heads) + the answer key
    ok(pages(pdf) == 1 + n_boards + 1 + 1, "the cat: %d pages, expected 1 + %d + 1 + 1" % (pages(pdf), n_boards))
    texts = page_texts(pdf)
    ok(len(texts) == pages(pdf), "pdftotext gave %d pages of %d" % (len(texts), pages(pdf)))
    whole = " ".join(texts)
    trace = run(BIN, "--trace", cat).stdout
    # The board of head 0: the input, head 0's stages and the heads' concat and output (head 1's numbers
    # are on its own handout); a whole number is shown as one ("1", not "1.0000").
    shown = re.sub(r"==== Head 1 ====.*?(?===== All heads)", "", trace, flags=re.S).split("==== Cost")[0]
    numbers = set(x for x in re.findall(r"\d+\.\d{4}", shown) if not x.endswith(".0000"))
    ok(len(numbers) > 40, "the trace has only %d numbers" % len(numbers))
    missing = sorted(x for x in numbers if x not in whole)
    ok(not missing, "numbers of the cat's board not found as text: %s" % missing[:10])
    qs = run(BIN, "--questions", cat).stdout
    asked = re.findall(r"^Question (\d+) of (\d+)", qs, re.M)
    answers = [norm(a) for a in re.findall(r"^  Answer: (.*)$", qs, re.M)]
    ok(len(asked) == 3 and len(answers) == 3, "the cat has 3 questions: %s" % asked)

    def first_page(needle):
        for i, t in enumerate(texts):
            if needle in norm(t):
                return i
        return -1

    for (k, n), answer in zip(asked, answers):
        q_page = first_page("Question %s of %s" % (k, n))
        a_page = first_page("Answer: " + answer)
        ok(q_page > 0, "question %s is on no page" % k)
        ok(a_page > q_page, "question %s (page %d) is not before its answer (page %d)" % (k, q_page + 1, a_page + 1))
        ok(first_page(answer) >= 0, "question %s's answer %r is in no page" % (k, answer))
    ok("Answer key" in texts[-1], "the last page is not the answer key")
    fonts_embedded(pdf)
    size = os.path.getsize(pdf)
    ok(size < 1_000_000, "the cat's handout is %d bytes (1 MB at most)" % size)
    with open(pdf, "rb") as f:
        first = f.read()
    pdf2 = handout(cat, T + "/cat")  # over our own file: replaced
    with open(pdf2, "rb") as f:
        ok(f.read() == first, "the same lesson gave different bytes")
    ok(b"/CreationDate" not in first, "the handout carries a creation date")
    print("the cat: %d pages, %d bytes, %d numbers found" % (pages(pdf), size, len(numbers)))

    # --- notes style: A4, fewer pages, the same numbers
    notes = handout(cat, T + "/cat", "--handout-style", "notes")
    ok(notes.endswith("the-cat-sat-handout-notes-head0.pdf"), "notes style's name: " + notes)
    info = run("pdfinfo", notes).stdout
    ok(re.search(r"Page size:\s+595\.2\d? x 841\.8\d? pts", info), "notes style is not A4: " + info)
    ok(pages(notes) < pages(pdf), "notes style (two boards a page) is not shorter")
    fonts_embedded(notes)

    # --- the handout's own words in each language of po/LINGUAS (--lang): the title page's and the answer
    # key's headings as the catalogue has them, no English one left, the same pages as in English
    def po_message(lang, msgid, ctx=None):
        with open("%s/po/%s.po" % (SRC, lang), encoding="utf-8") as f:
            for block in f.read().split("\n\n"):
                c = re.search(r'^msgctxt "(.*)"$', block, re.M)
                if re.search(r'^msgid "%s"$' % re.escape(msgid), block, re.M) and (c.group(1) if c else None) == ctx:
                    return re.search(r'^msgstr "(.*)"$', block, re.M).group(1)
        fail("po/%s.po has no %r" % (lang, msgid))

    with open(SRC + "/po/LINGUAS") as f:
        langs = [w for line in f if not line.startswith("#") for w in line.split()]
    ok(len(langs) >= 3, "po/LINGUAS lists %s" % langs)
    cat_pages = pages(pdf2)
    for lang in langs:
        out = handout(cat, T + "/lang-" + lang, "--lang", lang)
        lt = page_texts(out)
        ok(len(lt) == cat_pages, "--lang %s: %d pages, %d in English" % (lang, len(lt), cat_pages))
        tokens = po_message(lang, "Tokens: %s").replace("%s", "").strip()
        key = po_message(lang, "Answer key")
        ok(tokens in norm(lt[0]) and (tokens == "Tokens:" or "Tokens:" not in lt[0]), "--lang %s: the title page says %r" % (lang, lt[0][:200]))
        ok(norm(lt[-1]).startswith(key) and "Answer key" not in lt[-1],
           "--lang %s: the answer key's heading is not %r: %r" % (lang, key, lt[-1][:100]))
        print("--lang %s: %d pages, %r, %r" % (lang, len(lt), tokens, key))

    # --- never over a file that is not ours; a bad request writes nothing
    foreign = T + "/foreign"
    os.mkdir(foreign)
    with open(foreign + "/the-cat-sat-handout-head0.pdf", "w") as f:
        f.write("%PDF-1.4 a teacher's own file\n")
    p = run(BIN, "--export", foreign, "--what", "handout", cat, code=1)
    ok("not an mha-tracer export" in p.stderr, "a foreign file: " + p.stderr)
    with open(foreign + "/the-cat-sat-handout-head0.pdf") as f:
        ok("teacher" in f.read(), "the teacher's file was changed")
    p = run(BIN, "--export", T + "/bad", "--what", "board", "--handout-style", "notes", cat, code=2)
    ok("--what handout" in p.stderr, "--handout-style without --what handout: " + p.stderr)
    ok(not os.path.exists(T + "/bad") or not os.listdir(T + "/bad"), "a refused request wrote files")

    # --- llama-rope-gqa: RoPE, the KV cache (the last token's step and the cache's size), tiles, cost
    llama = SRC + "/lessons/llama-rope-gqa.json"
    pdf = handout(llama, T + "/llama", "--head", "1")
    ok(pdf.endswith("llama-rope-gqa-handout-head1.pdf"), "--head 1's name: " + pdf)
    run(BIN, "--export", T + "/llama-boards", "--what", "board", "--stage", "all", "--parts", "all", "--format",
        "svg", "--head", "1", llama)
    n_boards = len(os.listdir(T + "/llama-boards"))
    run(BIN, "--export", T + "/llama-decode", "--what", "decode", "--head", "1", "--format", "svg", llama)
    n_decode = len([f for f in os.listdir(T + "/llama-decode") if "-token7" in f])
    n_q = len(re.findall(r"^Question \d+ of", run(BIN, "--questions", llama).stdout, re.M))
    texts = page_texts(pdf)
    key_at = [i for i, t in enumerate(texts) if t.lstrip().startswith("Answer key")]
    ok(len(key_at) == 1, "llama-rope-gqa: the answer key starts on %d pages" % len(key_at))
    key_pages = len(texts) - key_at[0]
    ok(all("of %d" % n_q in t for t in texts[key_at[0]:]), "a page after the answer key's start is not of it")
    # A part whose matrix shows only a window (Concat's 16 columns where 9 fit, W^O's 16 rows where 7 fit) has
    # the rest on pages after it: a window that starts past the first row or column ("cols 7–15 of 16").
    rest = [i + 1 for i, t in enumerate(texts) if re.search(r"(cols|rows) [1-9]\d*–\d+ of \d+", t)]
    ok(len(rest) > 0, "llama-rope-gqa: no page gives the rest of a windowed matrix")
    # title + boards + the rest of windowed matrices + rotation + decode (last token) + cache size + tiles
    # (last) + cost + key
    want = 1 + n_boards + len(rest) + 1 + n_decode + 1 + 1 + 1 + key_pages
    ok(pages(pdf) == want, "llama-rope-gqa: %d pages, expected %d (%d boards, %d pages of windows' rest %s, "
       "%d decode parts)" % (pages(pdf), want, n_boards, len(rest), rest, n_decode))
    fonts_embedded(pdf)
    print("llama-rope-gqa: %d pages, %d bytes" % (pages(pdf), os.path.getsize(pdf)))

    # --- a checkpoint's layer (--model), where numpy can make a tiny one
    try:
        import numpy as np
        import test_hf_models as HF
    except ImportError:
        np = None
        print("a checkpoint's handout: skipped (no numpy)")
    if np is not None:
        HF.make_model(T + "/ck", "llama", np.random.default_rng(49),
                      tok=HF.make_byte_level(HF.LLAMA3, bos=True, merges_as_lists=True))
        p = run(BIN, "--model", T + "/ck/llama", "--export", T + "/model", "--what", "handout", "--head", "1")
        path = p.stdout.strip()
        ok(path.endswith("-handout-head1.pdf") and os.path.isfile(path), "--model's handout: " + path)
        ok(pages(path) > 10, "--model's handout has %d pages" % pages(path))
        fonts_embedded(path)
        print("a checkpoint's layer: %d pages" % pages(path))
finally:
    shutil.rmtree(T)
ok(checks > 0, "no checks ran")
print("ok: %d checks" % checks)
