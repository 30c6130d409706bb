// Text runs in visual order: clusters -> font, script, direction -> runs -> bidi levels ->
// reordered.
#include "render/textrun.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/utf8.h"
#include "model/i18n.h"
#include "platform/fontfind.h"

typedef struct {
    size_t start, end;
    UInfo u;
    int font;
    int dir; // 1 right to left, 0 left to right, -1 not resolved yet (neutral)
    int level; // bidi embedding level
    int iso; // 0: the line itself; k > 0: inside the k-th isolate (U+2066..U+2069)
    bool mark; // an isolate's opening or closing mark (invisible, in no run)
} Cluster;

// The direction of the first letter of sequence iso (-1: none).
static int first_strong(const Cluster *cl, int n, int iso)
{
    for (int k = 0; k < n; k++)
        if (cl[k].iso == iso && !cl[k].mark && cl[k].u.cls == UCLASS_STRONG) return cl[k].dir;
    return -1;
}

// Neutrals of sequence iso between two letters of one direction take it; else the sequence's
// direction.
static void resolve(Cluster *cl, int n, int iso, int base_dir)
{
    int prev = -1;
    for (int k = 0; k < n; k++) {
        if (cl[k].iso != iso) continue;
        if (cl[k].u.cls == UCLASS_STRONG && !cl[k].mark) {
            prev = cl[k].dir;
            continue;
        }
        if (cl[k].u.cls == UCLASS_NUMBER) continue;
        int next = -1;
        for (int q = k + 1; q < n && next < 0; q++)
            if (cl[q].iso == iso && !cl[q].mark && cl[q].u.cls == UCLASS_STRONG) next = cl[q].dir;
        int a = prev < 0 ? base_dir : prev, b = next < 0 ? base_dir : next;
        cl[k].dir = a == b ? a : base_dir;
    }
    // Levels (UAX #9 I1, I2) from the sequence's base level; digits read left to right.
    int base = iso == 0 ? base_dir : -1;
    prev = base_dir;
    for (int k = 0; k < n; k++) {
        if (cl[k].iso != iso) continue;
        if (base < 0)
            base = cl[k].level; // an isolate's base level was set on its clusters beforehand
        if (cl[k].u.cls == UCLASS_STRONG && !cl[k].mark) prev = cl[k].dir;
        if (cl[k].u.cls == UCLASS_NUMBER && !cl[k].mark) {
            cl[k].dir = 0;
            cl[k].level = (prev == 1 || base % 2 == 1) ? (base % 2 ? base + 1 : base + 2) : base;
        } else if (cl[k].dir == 1) {
            cl[k].level = base % 2 ? base : base + 1;
        } else {
            cl[k].level = base % 2 ? base + 1 : base;
        }
    }
}

// The clusters of t (len bytes) into cl, each with its font, class, direction (letters only) and
// isolate; kind[k] gets the k-th isolate's kind (0 LRI, 1 RLI, 2 FSI). Returns the number of
// clusters, *isolates the number of isolates.
static int clusters_read(const char *t, size_t len, TextFontOf font_of, void *user, Cluster *cl,
                         int kind[64], int *isolates)
{
    int n = 0, depth = 0;
    *isolates = 0;
    for (size_t i = 0; i < len;) {
        size_t e = utf8_cluster_end(t, len, i), k = i;
        uint32_t cp = utf8_decode(t, len, &k);
        UInfo u = utf8_info(cp);
        // An emoji presentation selector (U+FE0F) in the cluster asks for the emoji font as well.
        for (size_t q = k; q < e;) {
            uint32_t m = utf8_decode(t, len, &q);
            if (m == 0xFE0F || m == 0x200D || (m >= 0x1F3FB && m <= 0x1F3FF)) u.emoji = true;
        }
        bool mark = u.cls == UCLASS_ISOLATE || u.cls == UCLASS_POP;
        int iso = *isolates > 0 && depth > 0 ? *isolates : 0;
        if (u.cls == UCLASS_ISOLATE) {
            if (depth == 0 && *isolates < 63) {
                (*isolates)++;
                kind[*isolates] = (int)(cp - 0x2066);
                iso = 0;
            }
            depth++;
        } else if (u.cls == UCLASS_POP && depth > 0) {
            depth--;
            if (depth == 0) iso = 0;
        }
        cl[n] = (Cluster){i,
                          e,
                          u,
                          mark ? -1 : font_of(user, cp, u.emoji),
                          u.cls == UCLASS_STRONG ? (u.rtl ? 1 : 0) : -1,
                          0,
                          iso,
                          mark};
        n++;
        i = e;
    }
    return n;
}

// The paragraph's direction (its first letter's; 1 right to left) and every cluster's direction
// and level: the line's, then each isolate's from its base level. Returns the paragraph's
// direction.
static int levels_resolve(Cluster *cl, int n, const int kind[64], int isolates)
{
    int para = first_strong(cl, n, 0);
    if (para < 0) para = 0;
    resolve(cl, n, 0, para);
    for (int k = 1; k <= isolates; k++) {
        int dir = kind[k] == 0 ? 0 : kind[k] == 1 ? 1 : first_strong(cl, n, k);
        if (dir < 0) dir = para;
        int outer = para; // the isolate sits on the line's base level: the next odd (RLI) or even
                          // (LRI) above it
        int base =
            dir == 1 ? (outer % 2 ? outer + 2 : outer + 1) : (outer % 2 ? outer + 1 : outer + 2);
        for (int q = 0; q < n; q++)
            if (cl[q].iso == k) cl[q].level = base;
        resolve(cl, n, k, dir);
    }
    return para;
}

// A neutral takes the script of the letters before it (else after it), so a run is not cut at a
// space.
static void neutral_scripts(Cluster *cl, int n)
{
    for (int k = 0; k < n; k++) {
        if (cl[k].u.cls == UCLASS_STRONG || strcmp(cl[k].u.script, "Zyyy") != 0) continue;
        int src = -1;
        for (int q = k - 1; q >= 0 && src < 0; q--)
            if (cl[q].u.cls == UCLASS_STRONG && cl[q].iso == cl[k].iso) src = q;
        for (int q = k + 1; q < n && src < 0; q++)
            if (cl[q].u.cls == UCLASS_STRONG && cl[q].iso == cl[k].iso) src = q;
        if (src >= 0 && cl[src].dir == cl[k].dir) memcpy(cl[k].u.script, cl[src].u.script, 5);
    }
}

// Runs of one font, script, direction and level, in logical order, with their levels; returns
// their number, -1 when more than max.
static int runs_build(const Cluster *cl, int n, TextRun *runs, int *levels, int max)
{
    int r = 0;
    for (int k = 0; k < n; k++) {
        bool rtl = cl[k].dir == 1;
        // An isolate's mark is invisible: an empty run at its level keeps two isolates apart when
        // reordering.
        if (!cl[k].mark && r > 0 && runs[r - 1].len > 0 && runs[r - 1].font == cl[k].font
            && runs[r - 1].rtl == rtl && levels[r - 1] == cl[k].level
            && strcmp(runs[r - 1].script, cl[k].u.script) == 0) {
            runs[r - 1].len = cl[k].end - runs[r - 1].start;
            continue;
        }
        if (r == max) return -1;
        runs[r] =
            (TextRun){cl[k].start, cl[k].mark ? 0 : cl[k].end - cl[k].start, cl[k].font, "", rtl};
        memcpy(runs[r].script, cl[k].u.script, 5);
        levels[r] = cl[k].level;
        r++;
    }
    return r;
}

// Reordering (UAX #9, L2): from the highest level down to 1, reverse every stretch of the r runs at
// that level or above.
static void runs_reorder(TextRun *runs, int *levels, int r)
{
    int top = 0;
    for (int k = 0; k < r; k++)
        if (levels[k] > top) top = levels[k];
    for (int lv = top; lv >= 1; lv--) {
        for (int k = 0; k < r;) {
            if (levels[k] < lv) {
                k++;
                continue;
            }
            int e = k;
            while (e < r && levels[e] >= lv) e++;
            for (int a = k, b = e - 1; a < b; a++, b--) {
                TextRun tr = runs[a];
                runs[a] = runs[b];
                runs[b] = tr;
                int tl = levels[a];
                levels[a] = levels[b];
                levels[b] = tl;
            }
            k = e;
        }
    }
}

int textrun_split(const char *t, TextFontOf font_of, void *user, TextRun *runs, int max,
                  bool *rtl_paragraph)
{
    size_t len = strlen(t);
    if (rtl_paragraph) *rtl_paragraph = false;
    if (len == 0) return 0;
    Cluster *cl = malloc(len * sizeof *cl);
    if (!cl) return -1;
    int isolates = 0;
    int kind[64] = {0}; // per isolate: 0 LRI, 1 RLI, 2 FSI
    int n = clusters_read(t, len, font_of, user, cl, kind, &isolates);
    int para = levels_resolve(cl, n, kind, isolates);
    if (rtl_paragraph) *rtl_paragraph = para == 1;
    neutral_scripts(cl, n);
    int *levels = malloc((size_t)n * sizeof *levels);
    if (!levels) {
        free(cl);
        return -1;
    }
    int r = runs_build(cl, n, runs, levels, max);
    if (r >= 0) {
        runs_reorder(runs, levels, r);
        int kept = 0; // without the isolates' empty runs
        for (int k = 0; k < r; k++)
            if (runs[k].len > 0) runs[kept++] = runs[k];
        r = kept;
    }
    free(levels);
    free(cl);
    return r;
}

// A code point drawn as nothing: utf8_invisible's, the variation selectors, the soft hyphen, the
// combining grapheme joiner, the Arabic letter mark and the tags.
static bool no_glyph(uint32_t cp)
{
    return utf8_invisible(cp) || (cp >= 0xFE00 && cp <= 0xFE0F) || (cp >= 0xE0100 && cp <= 0xE01EF)
           || (cp >= 0xE0000 && cp <= 0xE007F) || cp == 0x00AD || cp == 0x034F || cp == 0x061C
           || cp == 0x180E;
}

bool textrun_mark_label(const char *t, char *out, size_t cap)
{
    size_t len = strlen(t);
    if (len == 0 || cap < 64) return false;
    for (size_t i = 0; i < len;)
        if (!no_glyph(utf8_decode(t, len, &i))) return false;
    // U+27E8 and U+27E9 (the angle brackets) around at most four names, then an ellipsis.
    size_t n = (size_t)snprintf(out, cap, "\xe2\x9f\xa8");
    int named = 0;
    for (size_t i = 0; i < len; named++) {
        uint32_t cp = utf8_decode(t, len, &i);
        if (named == 4) {
            n += (size_t)snprintf(out + n, cap - n, " \xe2\x80\xa6");
            break;
        }
        n += (size_t)snprintf(out + n, cap - n, "%sU+%04X", named ? " " : "", (unsigned)cp);
    }
    snprintf(out + n, cap - n, "\xe2\x9f\xa9");
    return true;
}

void textrun_missing_sentence(uint32_t c, char *out, size_t cap)
{
    char ch[8] = "";
    ch[utf8_encode(c, ch)] = '\0';
    snprintf(out, cap, TR("no font on this computer shows %s (U+%04X) \xe2\x80\x94 install %s"), ch,
             (unsigned)c, TR(fontfind_install_hint(c)));
}

bool textrun_memo_init(TextFontMemo *m)
{
    m->count = 0;
    m->missing = 0;
    m->missing_msg[0] = '\0';
    m->slots = calloc(TEXT_FONT_SLOTS, sizeof *m->slots);
    return m->slots != NULL;
}

void textrun_memo_free(TextFontMemo *m)
{
    free(m->slots);
    m->slots = NULL;
}

static TextFontEntry *memo_slot(const TextFontMemo *m, uint32_t cp, int role, bool emoji)
{
    size_t mask = TEXT_FONT_SLOTS - 1,
           i = (cp * 2654435761u + (unsigned)role * 7u + (emoji ? 3u : 0u)) & mask;
    while (m->slots[i].cp
           && !(m->slots[i].cp == cp && m->slots[i].role == role && m->slots[i].emoji == emoji))
        i = (i + 1) & mask;
    return &m->slots[i];
}

const TextFontEntry *textrun_memo_find(const TextFontMemo *m, uint32_t cp, int role, bool emoji)
{
    return memo_slot(m, cp, role, emoji);
}

int textrun_memo_put(TextFontMemo *m, TextFontEntry e)
{
    UClass cls = utf8_info(e.cp).cls;
    if (e.font < 0 && !m->missing && e.cp > 0x20 && cls != UCLASS_MARK && cls != UCLASS_JOINER)
        m->missing = e.cp;
    if (m->count > TEXT_FONT_SLOTS / 2) { // full enough: ask again
        memset(m->slots, 0, TEXT_FONT_SLOTS * sizeof *m->slots);
        m->count = 0;
    }
    *memo_slot(m, e.cp, e.role, e.emoji) = e;
    m->count++;
    return e.font >= 0 ? e.font : e.role;
}

int textrun_font_for(const TextFontAsk *a, uint32_t cp, bool emoji)
{
    const TextFontOps *ops = a->ops;
    if ((cp < 0x80 && !emoji) || utf8_invisible(cp))
        return a->role; // HarfBuzz draws no glyph for these
    bool in_base = ops->shows(a->user, a->role, cp);
    if (in_base && !emoji) return a->role;
    const TextFontEntry *e = textrun_memo_find(a->memo, cp, a->role, emoji);
    if (e->cp) return e->font >= 0 ? e->font : a->role;
    int found = -1, count = *a->count < TEXT_FONT_FILES ? *a->count : TEXT_FONT_FILES;
    for (int pass = emoji ? 0 : 1; pass < 2 && found < 0; pass++)
        for (int i = a->first; i < count && found < 0; i++)
            if ((pass == 1 || ops->color(a->user, i)) && ops->shows(a->user, i, cp)) found = i;
    if (found < 0) {
        const char *skip[TEXT_FONT_FILES];
        for (int i = 0; i < count; i++) skip[i] = ops->path(a->user, i);
        char path[1024];
        int index = 0;
        FontWanted want = {cp, emoji, ops->covers, a->user, skip, count};
        if (fontfind_for(a->find, &want, path, sizeof path, &index))
            found = ops->add(a->user, path, index);
    }
    if (found < 0 && in_base) found = a->role; // a monochrome emoji from DejaVu rather than none
    return textrun_memo_put(a->memo, (TextFontEntry){cp, a->role, emoji, found});
}

int textrun_font_of(void *user, uint32_t cp, bool emoji)
{
    return textrun_font_for(user, cp, emoji);
}

const char *textrun_memo_missing(TextFontMemo *m)
{
    if (!m->missing) return "";
    if (!m->missing_msg[0])
        textrun_missing_sentence(m->missing, m->missing_msg, sizeof m->missing_msg);
    return m->missing_msg;
}
