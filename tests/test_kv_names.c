// Issue 36, the names of grouped K/V heads: on llama-rope-gqa (4 query heads sharing 2 K/V heads)
// every head h shows the keys and values of its K/V head g = h / 2, and every caption names them
// so: W_g^K, W_g^V, K_g, V_g, K_g^R — the matrix names, the worked sums of model_explain, the
// header's formulas, a question's answer, the window's scene of each head and the SVG of each
// head's exported board. Head 2 once showed W₁^K's numbers under the caption W₂^K. A lesson without
// grouped heads keeps each head's own index.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lesson_trace.h"
#include "model/explain.h"
#include "model/questions.h"
#include "model/view.h"
#include "render/export.h"
#include "render/export_png.h"
#include "render/scene.h"
#include "render/svg.h"

#define FONTS MHA_SOURCE_DIR "/assets/fonts"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation" // texts are cut to their buffers on purpose
#endif

// "K" + the subscript of i ("K₁"), and more after it.
static void sub(char *buf, size_t cap, const char *before, int i, const char *after)
{
    snprintf(buf, cap, "%s", before);
    model_subscript(buf, cap, i);
    snprintf(buf + strlen(buf), cap - strlen(buf), "%s", after);
}

// The K/V head of query head h, worked out here (not by model_mat_head, which is under test).
static int kv_of(const Lesson *L, int h) { return h / (L->params.heads / L->params.kv_heads); }

// The names: the K/V head's index on W^K, W^V, K, V and the rotated keys; the query head's on the
// rest.
static void check_names(const Lesson *L)
{
    const AttnParams *p = &L->params;
    static const MatId kv[] = {MAT_WK, MAT_WV,     MAT_K,      MAT_V,       MAT_KROT,
                               MAT_KT, MAT_KROT_T, MAT_KSHIFT, MAT_KSHIFT_T};
    static const MatId own[] = {MAT_WQ,     MAT_Q,      MAT_QROT,    MAT_SCORES,
                                MAT_SCALED, MAT_MASKED, MAT_WEIGHTS, MAT_Z};
    for (int h = 0; h < p->heads; h++) {
        int g = kv_of(L, h);
        CHECK(model_mat_head(p, MAT_WK, h) == g && model_mat_head(p, MAT_WQ, h) == h,
              "head %d: K/V head %d", h, g);
        char got[64], want[64];
        for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++) {
            model_mat_name(p, kv[i], h, got, sizeof got);
            model_mat_name(NULL, kv[i], g, want, sizeof want);
            CHECK(!strcmp(got, want), "head %d: %s is named %s, want %s (its K/V head's)", h,
                  mat_info(kv[i])->key, got, want);
        }
        for (size_t i = 0; i < sizeof own / sizeof own[0]; i++) {
            model_mat_name(p, own[i], h, got, sizeof got);
            model_mat_name(NULL, own[i], h, want, sizeof want);
            CHECK(!strcmp(got, want), "head %d: %s is named %s, want %s (the head's own)", h,
                  mat_info(own[i])->key, got, want);
        }
    }
    char name[64];
    model_mat_name(p, MAT_WK, 2, name, sizeof name);
    CHECK(!strcmp(name, "W\xe2\x82\x81^K"), "head 2's key weights are W\xe2\x82\x81^K, got %s",
          name);
    model_mat_name(p, MAT_KROT, 3, name, sizeof name);
    CHECK(!strcmp(name, "K\xe2\x82\x81^R"), "head 3's rotated keys are K\xe2\x82\x81^R, got %s",
          name);
}

// Whether text, which shows head h (K/V head g), names a K/V matrix after h where h is not g:
// "W₂^K", "K₂", "V₂".
static const char *wrong_name(const char *text, int h, int g)
{
    static char bad[64];
    if (h == g) return NULL;
    static const char *const stems[][2] = {{"W", "^K"}, {"W", "^V"}, {"K", ""}, {"V", ""}};
    for (size_t i = 0; i < sizeof stems / sizeof stems[0]; i++) {
        sub(bad, sizeof bad, stems[i][0], h, stems[i][1]);
        if (strstr(text, bad)) return bad;
    }
    return NULL;
}

// One cell's worked sum holds each of want[] (NULL-ended) and no K/V name of head h.
static void check_explain(const Lesson *L, const Trace *T, CellRef c, int g,
                          const char *const *want)
{
    char lines[CELL_TEXT_LINES][256], all[4 * 256] = "";
    int n = model_explain(L, T, c, lines, CELL_TEXT_LINES, false);
    CHECK(n > 0, "head %d: %s[%d, %d] is explained", c.head, mat_info(c.mat)->key, c.row, c.col);
    for (int i = 0; i < n; i++)
        snprintf(all + strlen(all), sizeof all - strlen(all), "%s\n", lines[i]);
    for (int i = 0; want[i]; i++)
        CHECK(strstr(all, want[i]) != NULL, "head %d: the sum of %s[%d, %d] says '%s': %s", c.head,
              mat_info(c.mat)->key, c.row, c.col, want[i], all);
    const char *bad = wrong_name(all, c.head, g);
    CHECK(!bad, "head %d: the sum of %s[%d, %d] names %s, which is K/V head %d's: %s", c.head,
          mat_info(c.mat)->key, c.row, c.col, bad ? bad : "", g, all);
}

// What each head's cells say (the tokens are <s> the cat sat on the mat: row 1 is "the₁", row 3
// "sat").
typedef struct {
    Stage stage;
    MatId mat;
    int row, col;
    const char *want[3]; // with %G: the K/V head's subscript, %H: the head's
} Probe;
static const Probe PROBES[] = {
    {STAGE_PROJECT,
     MAT_K,
     1,
     0,
     {"K%G[the\xe2\x82\x81, 0] = X[the\xe2\x82\x81] \xc2\xb7 W%G^K[:, 0]", "W%G^K", NULL}},
    {STAGE_PROJECT,
     MAT_V,
     1,
     0,
     {"V%G[the\xe2\x82\x81, 0] = X[the\xe2\x82\x81] \xc2\xb7 W%G^V[:, 0]", "W%G^V", NULL}},
    {STAGE_PROJECT, MAT_WK, 1, 0, {"W%G^K[1, 0] = ", NULL}},
    {STAGE_ROTATE, MAT_KROT, 1, 0, {"K%G^R[the\xe2\x82\x81, 0] = ", NULL}},
    {STAGE_SCORES,
     MAT_SCORES,
     3,
     1,
     {"S%H[sat, the\xe2\x82\x81] = Q%H^R[sat] \xc2\xb7 K%G^R[the\xe2\x82\x81]", NULL}},
    {STAGE_WEIGHTED_SUM, MAT_Z, 3, 0, {"A%H[sat, k] \xc2\xb7 V%G[k, 0]", NULL}},
};
#define PROBE_COUNT (int)(sizeof PROBES / sizeof PROBES[0])

// pattern with %G and %H replaced by the subscripts of g and h.
static void expand(char *out, size_t cap, const char *pattern, int h, int g)
{
    out[0] = '\0';
    for (const char *s = pattern; *s && strlen(out) + 8 < cap; s++) {
        if (s[0] == '%' && (s[1] == 'G' || s[1] == 'H')) {
            model_subscript(out, cap, s[1] == 'G' ? g : h);
            s++;
        } else {
            size_t k = strlen(out);
            out[k] = *s;
            out[k + 1] = '\0';
        }
    }
}

// A list of drawn texts in order (the scene's, or the SVG's <text> elements): the text, its size
// and its y.
typedef struct {
    char text[256];
    int size;
    double y;
} Piece;

// The pieces joined back into the board's notation: a piece smaller than the one before and above
// it is raised
// ("^K"), the piece after a raised one on the same line continues it, any other starts a new line.
// So the scene's "W₁", "K" (raised), "[:, 0]" reads "W₁^K[:, 0]".
static void flatten(const Piece *pc, int n, char *out, size_t cap)
{
    out[0] = '\0';
    bool raised = false;
    double base_y = 0;
    int base_size = 0;
    for (int i = 0; i < n; i++) {
        const char *join = "\n";
        bool up = i > 0 && pc[i].size < pc[i - 1].size && pc[i].y < pc[i - 1].y;
        if (up) join = "^";
        else if (raised && pc[i].size == base_size && pc[i].y > base_y - 2 && pc[i].y < base_y + 2)
            join = "";
        if (!up) base_y = pc[i].y, base_size = pc[i].size;
        raised = up || (raised && !*join);
        if (up) raised = true;
        snprintf(out + strlen(out), cap - strlen(out), "%s%s", join, pc[i].text);
    }
}

static int scene_pieces(const Scene *s, Piece *pc, int max)
{
    int n = 0;
    for (size_t i = 0; i < s->count && n < max; i++) {
        if (s->cmds[i].kind != CMD_TEXT) continue;
        snprintf(pc[n].text, sizeof pc[n].text, "%s", scene_text(s, &s->cmds[i]));
        pc[n].size = s->cmds[i].size;
        pc[n++].y = s->cmds[i].y;
    }
    return n;
}

// The <text> elements of an SVG, unescaped (&lt; &gt; &amp; &quot;).
static int svg_pieces(const char *svg, Piece *pc, int max)
{
    int n = 0;
    for (const char *t = strstr(svg, "<text "); t && n < max; t = strstr(t + 1, "<text ")) {
        const char *y = strstr(t, " y=\""), *fs = strstr(t, "font-size=\""), *gt = strchr(t, '>');
        const char *end = gt ? strstr(gt, "</text>") : NULL;
        if (!y || !fs || !gt || !end || y > gt || fs > gt) continue;
        pc[n].y = atof(y + 4);
        pc[n].size = atoi(fs + 11);
        size_t k = 0;
        for (const char *c = gt + 1; c < end && k + 1 < sizeof pc[n].text; c++) {
            static const struct {
                const char *ent;
                char ch;
            } ENT[] = {{"&lt;", '<'}, {"&gt;", '>'}, {"&amp;", '&'}, {"&quot;", '"'}};
            bool done = false;
            for (size_t e = 0; e < 4 && !done; e++)
                if (!strncmp(c, ENT[e].ent, strlen(ENT[e].ent))) {
                    pc[n].text[k++] = ENT[e].ch;
                    c += strlen(ENT[e].ent) - 1;
                    done = true;
                }
            if (!done) pc[n].text[k++] = *c;
        }
        pc[n++].text[k] = '\0';
    }
    return n;
}

static int stage_index_of(const ViewState *st, Stage s)
{
    for (int i = 0; i < st->stage_count; i++)
        if (st->stages[i] == s) return i;
    return -1;
}

#define MAX_PIECES 4096
static Piece PIECES[MAX_PIECES];
static char FLAT[1 << 18];

// Every part of probe k's stage on head h with its cell pinned, in the window (w x h) or as the
// exported board's SVG: the parts together say each of the probe's texts, and none names a K/V
// matrix after head h (unless h is its own K/V head).
static void check_screens(const Lesson *L, const Trace *T, const TextMetrics *tm, const Probe *pr,
                          int head, bool svg, int w, int h)
{
    int g = kv_of(L, head);
    ViewDims dims = view_dims_from_params(&L->params);
    ViewState st;
    view_init(&st, &dims);
    st.stage_index = stage_index_of(&st, pr->stage);
    st.head = head;
    st.pinned = (CellRef){pr->mat, head, pr->row, pr->col};
    st.width = w;
    st.height = h;
    bool found[3] = {false, false, false};
    int parts = 1;
    char what[160];
    snprintf(what, sizeof what, "%s head %d, %s[%d, %d] pinned, %s", stage_info(pr->stage)->key,
             head, mat_info(pr->mat)->key, pr->row, pr->col,
             svg ? "exported board (SVG)" : "window");
    Scene s;
    scene_init(&s);
    for (int part = 0; part < parts && part < 16; part++) {
        st.substep = part;
        st.substep_count = parts;
        bool ok = svg ? export_build_board(&s, &st, L, T, 1.0, EXPORT_BG_WHITE, tm)
                      : scene_build(&s, &st, L, T, w, h, tm, NULL);
        CHECK(ok, "%s: part %d is built", what, part + 1);
        if (part == 0) parts = s.substeps > 0 ? s.substeps : 1;
        int n;
        if (svg) {
            size_t size = 0;
            char *doc = svg_encode(&s, "test", &size);
            CHECK(doc != NULL, "%s: part %d encodes as SVG", what, part + 1);
            n = doc ? svg_pieces(doc, PIECES, MAX_PIECES) : 0;
            free(doc);
        } else n = scene_pieces(&s, PIECES, MAX_PIECES);
        flatten(PIECES, n, FLAT, sizeof FLAT);
        for (int i = 0; i < 3 && pr->want[i]; i++) {
            char want[256];
            expand(want, sizeof want, pr->want[i], head, g);
            found[i] = found[i] || strstr(FLAT, want) != NULL;
        }
        const char *bad = wrong_name(FLAT, head, g);
        CHECK(!bad, "%s, part %d of %d: '%s' is drawn, but its numbers are K/V head %d's", what,
              part + 1, parts, bad ? bad : "", g);
    }
    for (int i = 0; i < 3 && pr->want[i]; i++) {
        char want[256];
        expand(want, sizeof want, pr->want[i], head, g);
        CHECK(found[i], "%s: no part says '%s'", what, want);
    }
    scene_free(&s);
}

// The header's formulas of the stages with K or V: their K/V head's index.
static void check_formulas(const Lesson *L)
{
    static const struct {
        Stage s;
        const char *want;
    } F[] = {{STAGE_PROJECT, "Q%H = X W%H^Q,  K%G = X W%G^K,  V%G = X W%G^V"},
             {STAGE_ROTATE, "Q%H^R, K%G^R:"},
             {STAGE_SCORES, "S%H = Q%H^R K%G^R^T"},
             {STAGE_WEIGHTED_SUM, "Z%H = A%H V%G"}};
    for (int h = 0; h < L->params.heads; h++)
        for (size_t i = 0; i < sizeof F / sizeof F[0]; i++) {
            char got[512], want[256];
            int g = kv_of(L, h);
            stage_info(F[i].s)->formula(&L->params, h, got, sizeof got);
            expand(want, sizeof want, F[i].want, h, g);
            CHECK(strstr(got, want) != NULL, "head %d: the %s formula says '%s', want '%s'", h,
                  stage_info(F[i].s)->key, got, want);
        }
}

// The question on the keys of head 1 (K/V head 0): its matrix is K₀, in its prompt and its answer's
// sum.
static void check_question(const Lesson *L, const Trace *T)
{
    int asked = 0;
    for (int i = 0; i < L->question_count; i++) {
        QuestionAnswer a;
        LessonError err;
        if (!question_answer(L, T, &L->questions[i], i, &a, &err) || a.mat != MAT_K) continue;
        asked++;
        char want[64];
        model_mat_name(NULL, MAT_K, kv_of(L, a.head), want, sizeof want);
        CHECK(!strcmp(a.name, want), "question %d on head %d's keys names them %s, want %s", i,
              a.head, a.name, want);
        const char *sum[] = {want, NULL};
        check_explain(L, T, a.cell, kv_of(L, a.head), sum);
    }
    CHECK(asked == 1, "llama-rope-gqa asks one question on the keys (%d)", asked);
}

int main(void)
{
    (void)parse; // (lesson_trace.h's other helper)
    Lesson L;
    Trace T;
    if (!load("lessons/llama-rope-gqa.json", &L, &T)) return check_report("test_kv_names");
    CHECK(L.params.heads == 4 && L.params.kv_heads == 2,
          "llama-rope-gqa: 4 heads sharing 2 K/V heads");
    check_names(&L);
    check_formulas(&L);
    check_question(&L, &T);
    for (int h = 0; h < L.params.heads; h++)
        for (int k = 0; k < PROBE_COUNT; k++) {
            const Probe *pr = &PROBES[k];
            const char *want[4] = {NULL, NULL, NULL, NULL};
            char buf[3][256];
            int g = kv_of(&L, h);
            for (int i = 0; i < 3 && pr->want[i]; i++) {
                expand(buf[i], sizeof buf[i], pr->want[i], h, g);
                want[i] = buf[i];
            }
            check_explain(&L, &T, (CellRef){pr->mat, h, pr->row, pr->col}, g, want);
        }
    ExportError err;
    Exporter *x = export_open(FONTS, &err);
    CHECK(x != NULL, "export_open: %s", x ? "" : err.message);
    if (x) {
        TextMetrics tm = export_metrics(x);
        for (int h = 0; h < L.params.heads; h++)
            for (int k = 0; k < PROBE_COUNT; k++) {
                check_screens(&L, &T, &tm, &PROBES[k], h, false, 1920, 1080);
                check_screens(&L, &T, &tm, &PROBES[k], h, true, 1280, 720);
            }
        export_close(x);
    }
    trace_free(&T);
    lesson_free(&L);
    // Without grouped heads every head keeps its own index: head 1 of the-cat-sat has W₁^K and K₁.
    if (load("lessons/the-cat-sat.json", &L, &T)) {
        char name[64];
        model_mat_name(&L.params, MAT_WK, 1, name, sizeof name);
        CHECK(!strcmp(name, "W\xe2\x82\x81^K"), "the-cat-sat head 1: W\xe2\x82\x81^K, got %s",
              name);
        const char *want[] = {"K\xe2\x82\x81[cat, 1] = X[cat] \xc2\xb7 W\xe2\x82\x81^K[:, 1]",
                              NULL};
        check_explain(&L, &T, (CellRef){MAT_K, 1, 1, 1}, 1, want);
        trace_free(&T);
        lesson_free(&L);
    }
    return check_report("test_kv_names");
}
