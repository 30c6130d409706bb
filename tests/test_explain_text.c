// Tests the words of the cell arithmetic (issue 25): a negative number after an operator is in
// parentheses
// ("a − (−0.4458)", never "a − −0.4458"); the softmax's cell names its row's entropy, the "bits"
// beside it; a right-to-left lesson's "S′₀[row, column]" keeps row, then column, also where a
// renderer knows no bidi isolates (the isolates removed before the text is laid out in visual
// order); the footer of the softmax says what the bits are; the cost panel writes W^O in the
// board's notation (a raised O), not "W^O".
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lesson_trace.h"
#include "model/explain.h"
#include "model/matrices.h"
#include "model/stages.h"
#include "render/scene.h"
#include "render/textrun.h"
#include "model/view.h"

#define MINUS "\xe2\x88\x92"

// Each result cell of every stage and head of the lesson, its lines checked for an operator, a
// space, then a minus sign.
static void check_signs(const char *rel)
{
    Lesson L;
    Trace T;
    if (!load(rel, &L, &T)) return;
    static const char *const BAD[] = {" " MINUS " " MINUS, " + " MINUS, " \xc3\x97 " MINUS,
                                      " / " MINUS};
    Stage stages[STAGE_COUNT];
    int ns = model_stages(&L.params, stages), lines_seen = 0, bad = 0, bits = 0;
    for (int s = 0; s < ns; s++) {
        const StageInfo *si = stage_info(stages[s]);
        for (int r = 0; r < 3 && si->results[r] != MAT_NONE; r++) {
            MatId m = si->results[r];
            int rows, cols;
            model_mat_shape(&L.params, m, &rows, &cols);
            int heads = mat_info(m)->per_head ? L.params.heads : 1;
            for (int h = 0; h < heads; h++)
                for (int i = 0; i < rows && i < 12; i++)
                    for (int j = 0; j < cols && j < 12; j++) {
                        char lines[CELL_TEXT_LINES + 1][256];
                        int n = model_explain(&L, &T, (CellRef){m, h, i, j}, lines,
                                              CELL_TEXT_LINES + 1, false);
                        for (int k = 0; k < n; k++) {
                            lines_seen++;
                            if (m == MAT_WEIGHTS && strstr(lines[k], "bits")) bits++;
                            for (size_t b = 0; b < sizeof BAD / sizeof BAD[0]; b++)
                                if (strstr(lines[k], BAD[b])) {
                                    if (bad++ < 5)
                                        CHECK(false, "%s: a bare negative after an operator: %s",
                                              rel, lines[k]);
                                }
                        }
                    }
        }
    }
    CHECK(lines_seen > 50, "%s: explanation lines read (%d)", rel, lines_seen);
    CHECK(bad == 0, "%s: %d lines with a bare negative after an operator", rel, bad);
    CHECK(bits > 0, "%s: the softmax's cells name their row's entropy in bits", rel);
    char foot[768];
    stage_info(STAGE_SOFTMAX)->explain(&L.params, foot, sizeof foot);
    CHECK(strstr(foot, "Bits") && strstr(foot, "entropy"),
          "%s: the softmax's footer says what the bits are: %s", rel, foot);
    trace_free(&T);
    lesson_free(&L);
}

static int one_font(void *user, uint32_t cp, bool emoji)
{
    (void)user;
    (void)cp;
    (void)emoji;
    return 0;
}

// t laid out in visual order by a renderer that knows no isolates (U+2066..U+2069 dropped first):
// the runs' texts concatenated, left to right.
static void visual_without_isolates(const char *t, char *out, size_t cap)
{
    char plain[512];
    size_t n = 0;
    for (const char *p = t; *p && n + 1 < sizeof plain;) {
        if ((unsigned char)p[0] == 0xE2 && (unsigned char)p[1] == 0x81
            && (unsigned char)p[2] >= 0xA6 && (unsigned char)p[2] <= 0xA9) {
            p += 3;
            continue;
        }
        plain[n++] = *p++;
    }
    plain[n] = '\0';
    TextRun runs[64];
    int k = textrun_split(plain, one_font, NULL, runs, 64, NULL);
    out[0] = '\0';
    for (int i = 0; i < k; i++) {
        size_t len = strlen(out);
        snprintf(out + len, cap - len, "[%.*s]", (int)runs[i].len, plain + runs[i].start);
    }
}

// The Arabic lesson's scaled score S′₀[القطة, على]: in visual order the row's run comes before the
// column's, and the comma between them.
static void check_rtl_order(void)
{
    Lesson L;
    Trace T;
    if (!load("lessons/jalasat-al-qitta.json", &L, &T)) return;
    char row[96], col[96], lines[CELL_TEXT_LINES + 1][256], vis[1024];
    model_axis_label(&L, AXIS_QUERY, 1, row, sizeof row);
    model_axis_label(&L, AXIS_KEY, 2, col, sizeof col);
    int n =
        model_explain(&L, &T, (CellRef){MAT_SCALED, 0, 1, 2}, lines, CELL_TEXT_LINES + 1, false);
    CHECK(n > 0, "the scaled score explains itself");
    if (n > 0) {
        visual_without_isolates(lines[0], vis, sizeof vis);
        char rrun[128], crun[128];
        snprintf(rrun, sizeof rrun, "[%s]", row);
        snprintf(crun, sizeof crun, "[%s]", col);
        const char *a = strstr(vis, rrun), *b = strstr(vis, crun);
        CHECK(a && b && a < b,
              "without isolates the row's label comes first, then the column's: %s", vis);
    }
    trace_free(&T);
    lesson_free(&L);
}

#include "fake_font.h"

static void check_cost_notation(void)
{
    Lesson L;
    Trace T;
    if (!load("lessons/the-cat-sat.json", &L, &T)) return;
    ViewDims dims = view_dims_from_params(&L.params);
    ViewState st;
    view_init(&st, &dims);
    st.panel = PANEL_COST;
    TextMetrics tm = TM;
    Scene s;
    scene_init(&s);
    CHECK(scene_build(&s, &st, &L, &T, 1280, 720, &tm, NULL), "the cost panel builds");
    int caret = 0, raised_o = 0;
    for (size_t i = 0; i < s.count; i++) {
        if (s.cmds[i].kind != CMD_TEXT) continue;
        const char *t = scene_text(&s, &s.cmds[i]);
        if (strstr(t, "W^") || strstr(t, "W_Q")) caret++;
        if (!strcmp(t, "O") && i > 0 && s.cmds[i].size < s.cmds[i - 1].size) raised_o++;
    }
    CHECK(caret == 0 && raised_o >= 1,
          "the cost panel writes W with a raised O (%d texts with W^ or W_Q, %d raised O)", caret,
          raised_o);
    scene_free(&s);
    trace_free(&T);
    lesson_free(&L);
}

int main(void)
{
    (void)parse; // lesson_trace.h's in-memory lessons: not needed here
    check_signs("lessons/the-cat-sat.json");
    check_signs("lessons/causal-decoder.json");
    check_signs("lessons/the-dog-bit-the-man.json");
    check_signs("lessons/jalasat-al-qitta.json");
    check_rtl_order();
    check_cost_notation();
    return check_report("test_explain_text");
}
