// Text runs in visual order: clusters -> font, script, direction -> runs -> bidi levels -> reordered.
#include "textrun.h"

#include <stdlib.h>
#include <string.h>
#include "../core/utf8.h"

typedef struct {
    size_t start, end;
    UInfo u;
    int font;
    int dir;            // 1 right to left, 0 left to right, -1 not resolved yet (neutral)
    int level;          // bidi embedding level
} Cluster;

int textrun_split(const char *t, TextFontOf font_of, void *user, TextRun *runs, int max, bool *rtl_paragraph)
{
    size_t len = strlen(t);
    if (rtl_paragraph) *rtl_paragraph = false;
    if (len == 0) return 0;
    Cluster *cl = malloc(len * sizeof *cl);
    if (!cl) return -1;
    int n = 0;
    for (size_t i = 0; i < len;) {
        size_t e = utf8_cluster_end(t, len, i), k = i;
        uint32_t cp = utf8_decode(t, len, &k);
        UInfo u = utf8_info(cp);
        // An emoji presentation selector (U+FE0F) in the cluster asks for the emoji font as well.
        for (size_t q = k; q < e;) {
            uint32_t m = utf8_decode(t, len, &q);
            if (m == 0xFE0F || m == 0x200D || (m >= 0x1F3FB && m <= 0x1F3FF)) u.emoji = true;
        }
        cl[n] = (Cluster){i, e, u, font_of(user, cp, u.emoji), u.cls == UCLASS_STRONG ? (u.rtl ? 1 : 0) : -1, 0};
        n++;
        i = e;
    }
    int para = 0;
    for (int k = 0; k < n; k++)
        if (cl[k].u.cls == UCLASS_STRONG) {
            para = cl[k].dir;
            break;
        }
    if (rtl_paragraph) *rtl_paragraph = para == 1;
    // Neutrals (and, for that question, digits) between two letters of one direction take it; else the paragraph's.
    int prev = -1;
    for (int k = 0; k < n; k++) {
        if (cl[k].u.cls == UCLASS_STRONG) {
            prev = cl[k].dir;
            continue;
        }
        if (cl[k].u.cls == UCLASS_NUMBER) continue;
        int next = -1;
        for (int q = k + 1; q < n; q++)
            if (cl[q].u.cls == UCLASS_STRONG) {
                next = cl[q].dir;
                break;
            }
        if (prev < 0) prev = para;
        if (next < 0) next = para;
        cl[k].dir = prev == next ? prev : para;
    }
    // Digits read left to right: inside right-to-left letters they sit one level up.
    prev = para;
    for (int k = 0; k < n; k++) {
        if (cl[k].u.cls == UCLASS_STRONG) prev = cl[k].dir;
        if (cl[k].u.cls == UCLASS_NUMBER) {
            cl[k].dir = 0;
            cl[k].level = (prev == 1 || para == 1) ? 2 : 0;
        } else {
            cl[k].level = para == 0 ? cl[k].dir : (cl[k].dir == 1 ? 1 : 2);
        }
    }
    // A neutral takes the script of the letters before it (else after it), so a run is not cut at a space.
    for (int k = 0; k < n; k++) {
        if (cl[k].u.cls == UCLASS_STRONG || strcmp(cl[k].u.script, "Zyyy") != 0) continue;
        int src = -1;
        for (int q = k - 1; q >= 0 && src < 0; q--)
            if (cl[q].u.cls == UCLASS_STRONG) src = q;
        for (int q = k + 1; q < n && src < 0; q++)
            if (cl[q].u.cls == UCLASS_STRONG) src = q;
        if (src >= 0 && cl[src].dir == cl[k].dir) memcpy(cl[k].u.script, cl[src].u.script, 5);
    }
    // Runs: one font, script, direction and level.
    int r = 0;
    int *levels = malloc((size_t)n * sizeof *levels);
    if (!levels) {
        free(cl);
        return -1;
    }
    for (int k = 0; k < n; k++) {
        bool rtl = cl[k].dir == 1;
        if (r > 0 && runs[r - 1].font == cl[k].font && runs[r - 1].rtl == rtl && levels[r - 1] == cl[k].level &&
            strcmp(runs[r - 1].script, cl[k].u.script) == 0) {
            runs[r - 1].len = cl[k].end - runs[r - 1].start;
            continue;
        }
        if (r == max) {
            free(levels);
            free(cl);
            return -1;
        }
        runs[r] = (TextRun){cl[k].start, cl[k].end - cl[k].start, cl[k].font, "", rtl};
        memcpy(runs[r].script, cl[k].u.script, 5);
        levels[r] = cl[k].level;
        r++;
    }
    // Reordering (UAX #9, L2): from the highest level down to 1, reverse every stretch at that level or above.
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
    free(levels);
    free(cl);
    return r;
}
