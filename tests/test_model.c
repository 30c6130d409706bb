// Tests the model layer without SDL: how numbers are written (exact integers bare, 4 decimals
// otherwise, U+2212 minus), matrix names and axis labels in the board's notation, the stage table
// (names, short names, formulas, equations), cell values from the trace, and the stable softmax
// explanation, which never shows ∞ even when a naive exp would overflow (embeddings of 40).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lesson_trace.h"
#include "model/explain.h"
#include "model/matrices.h"
#include "model/stages.h"

// The three stages only a checkpoint's layer has (--model in the window: the norm, the residual
// add, the next token): no lesson has them.
#define LESSON_STAGES (STAGE_COUNT - 3)

#define MINUS "\xe2\x88\x92"
#define INF "\xe2\x88\x9e"

static void test_format(void)
{
    static const struct {
        double v;
        const char *want;
    } CASES[] = {
        {1.0, "1"},
        {0.0, "0"},
        {-0.0, "0"},
        {-2.0, MINUS "2"},
        {12.0, "12"},
        {0.61111, "0.6111"},
        {0.5, "0.5000"},
        {-1.2, MINUS "1.2000"},
        {2.82842712, "2.8284"},
        {-0.00006, MINUS "0.0001"},
        {-INFINITY, MINUS INF},
    };
    char buf[64];
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        model_format_value(CASES[i].v, buf, sizeof buf);
        CHECK(!strcmp(buf, CASES[i].want), "model_format_value(%g) = '%s', want '%s'", CASES[i].v,
              buf, CASES[i].want);
    }
    // Never an ASCII '-', never a "-0.0000" (a minus on a zero reads as a sign error).
    for (double v = -3.0; v <= 3.0; v += 0.03125) {
        model_format_value(v, buf, sizeof buf);
        CHECK(!strchr(buf, '-'), "%g written with an ASCII '-': %s", v, buf);
        CHECK(strcmp(buf, MINUS "0.0000") && strcmp(buf, MINUS "0"), "%g written as minus zero: %s",
              v, buf);
        if (v == floor(v)) CHECK(!strchr(buf, '.'), "the integer %g has no decimals: %s", v, buf);
        else
            CHECK(strchr(buf, '.') && strlen(strchr(buf, '.')) == 5, "%g has 4 decimals: %s", v,
                  buf);
    }
    model_format_value(-1e-6, buf, sizeof buf);
    CHECK(!strcmp(buf, "0.0000"), "-1e-6 rounds to 0.0000 without a sign, got %s", buf);
    model_format_value(NAN, buf, sizeof buf);
    CHECK(!strstr(buf, "nan") && !strstr(buf, INF), "NaN is not written as nan or infinity: %s",
          buf);
}

static void test_names(void)
{
    static const struct {
        MatId m;
        int head;
        const char *want;
    } CASES[] = {
        {MAT_WQ, 0, "W\xe2\x82\x80^Q"},
        {MAT_WV, 1, "W\xe2\x82\x81^V"},
        {MAT_KT, 1, "K\xe2\x82\x81^T"},
        {MAT_Q, 0, "Q\xe2\x82\x80"},
        {MAT_SCALED, 0, "S\xe2\x80\xb2\xe2\x82\x80"},
        {MAT_MASKED, 0, "S\xe2\x80\xb2\xe2\x82\x80 + M"},
        {MAT_WEIGHTS, 0, "A\xe2\x82\x80"},
        {MAT_WEIGHTS, 11, "A\xe2\x82\x81\xe2\x82\x81"},
        {MAT_CONCAT, 0, "Concat"},
        {MAT_WO, 0, "W^O"},
        {MAT_X, 3, "X"},
    };
    char buf[64];
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        model_mat_name(NULL, CASES[i].m, CASES[i].head, buf, sizeof buf);
        CHECK(!strcmp(buf, CASES[i].want), "model_mat_name(%d, %d) = '%s', want '%s'", CASES[i].m,
              CASES[i].head, buf, CASES[i].want);
    }
    model_mat_name(NULL, MAT_NONE, 0, buf, sizeof buf);
    CHECK(buf[0] == '\0', "no name for MAT_NONE");
    // Cross-attention's source sequence has a letter no other matrix uses (the scores are S₀ and
    // S′₀).
    model_mat_name(NULL, MAT_S, 0, buf, sizeof buf);
    CHECK(!strcmp(buf, "Y"), "the source embeddings are Y, got '%s'", buf);
    for (int m = MAT_NONE + 1; m < MAT_COUNT; m++)
        if (m != MAT_S)
            CHECK(mat_info((MatId)m)->symbol[0] != 'Y', "matrix %s shares the source's letter",
                  mat_info((MatId)m)->key);
    for (int m = MAT_NONE + 1; m < MAT_COUNT; m++)
        if (m != MAT_X)
            CHECK(mat_info((MatId)m)->symbol[0] != 'X', "matrix %s shares the embeddings' letter",
                  mat_info((MatId)m)->key);

    // Axis labels: tokens, with the position as a subscript for a token that occurs twice.
    Lesson L;
    Trace T;
    if (!load("lessons/the-cat-sat-on-the-mat.json", &L, &T)) return;
    model_axis_label(&L, AXIS_QUERY, 0, buf, sizeof buf);
    CHECK(!strcmp(buf, "the\xe2\x82\x80"), "the first 'the' is the₀, got %s", buf);
    model_axis_label(&L, AXIS_QUERY, 4, buf, sizeof buf);
    CHECK(!strcmp(buf, "the\xe2\x82\x84"), "the second 'the' is the₄, got %s", buf);
    model_axis_label(&L, AXIS_KEY, 1, buf, sizeof buf);
    CHECK(!strcmp(buf, "cat"), "a token that occurs once has no subscript, got %s", buf);
    model_axis_label(&L, AXIS_DIM, 3, buf, sizeof buf);
    CHECK(!strcmp(buf, "3"), "a dimension is its index, got %s", buf);
    trace_free(&T);
    lesson_free(&L);
}

// The stage table: every stage named, with a short name for the progress strip, a formula and
// equations; the projections are three equations (shown one at a time when they do not fit).
static void test_stages(void)
{
    Lesson L;
    Trace T;
    if (!load("lessons/causal-decoder.json", &L, &T)) return;
    Stage st[STAGE_COUNT];
    int n = model_stages(&L.params, st);
    // Every row of the table but the two this lesson lacks (positions, RoPE), in the table's order.
    CHECK(n == LESSON_STAGES - 2,
          "a causal lesson has every stage but positions and rotate: %d of %d", n, LESSON_STAGES);
    for (int i = 0; i < n; i++) {
        CHECK(st[i] != STAGE_POSITIONS && st[i] != STAGE_ROTATE && (i == 0 || st[i] > st[i - 1]),
              "stage %d (%s) is the lesson's, in the table's order", i, stage_key(st[i]));
        const StageInfo *si = stage_info(st[i]);
        CHECK(si && si->name && si->name[0] && si->short_name && si->short_name[0] && si->key,
              "stage %d named", st[i]);
        if (!si) continue;
        char f[512];
        si->formula(&L.params, 1, f, sizeof f);
        CHECK(f[0] != '\0', "%s has a formula", si->key);
        Equation eq[EQ_MAX];
        int ne = si->equations(&L.params, 1, eq, EQ_MAX);
        CHECK(ne >= 1, "%s has an equation", si->key);
        int results = 0;
        for (int e = 0; e < ne; e++)
            for (int k = 0; k < eq[e].count; k++) results += eq[e].t[k].result;
        CHECK(results == ne, "%s: each equation has one result (%d for %d)", si->key, results, ne);
        Stage back;
        CHECK(model_stage_from_key(si->key, &back) && back == st[i], "%s found by its key",
              si->key);
    }
    CHECK(!strcmp(stage_info(STAGE_SCORES)->name, "Scores QK^T"),
          "the scores stage is 'Scores QK^T' (raised T), got %s", stage_info(STAGE_SCORES)->name);
    Equation eq[EQ_MAX];
    int ne = stage_info(STAGE_PROJECT)->equations(&L.params, 0, eq, EQ_MAX);
    CHECK(ne == 3, "projections: Q, K and V, three equations (%d)", ne);
    for (int e = 0; e < ne; e++)
        CHECK(eq[e].caption[0] != '\0', "projection %d has a caption for its sub-step", e);
    char f[512];
    stage_info(STAGE_SCORES)->formula(&L.params, 1, f, sizeof f);
    CHECK(!strcmp(f, "S\xe2\x82\x81 = Q\xe2\x82\x81 K\xe2\x82\x81^T"),
          "scores formula for head 1: %s", f);
    n = model_stages(
        &(AttnParams){.n = 2, .m = 2, .d_model = 2, .heads = 1, .d_k = 2, .mask = MASK_NONE}, st);
    CHECK(n == LESSON_STAGES - 3, "no mask stage without the causal mask (%d of %d)", n,
          LESSON_STAGES);
    for (int i = 0; i < n; i++) CHECK(st[i] != STAGE_MASK, "no mask stage at %d", i);
    // Cell values are the trace's own numbers.
    CHECK(model_cell_value(&L.params, &T, (CellRef){MAT_WEIGHTS, 1, 2, 1})
              == mat_get(&T.head[1].weights, 2, 1),
          "A_1[2, 1] is the trace's");
    CHECK(isinf(model_cell_value(&L.params, &T, (CellRef){MAT_MASKED, 0, 0, 3})),
          "masked scores above the diagonal: -inf");
    CHECK(isnan(model_cell_value(&L.params, &T, (CellRef){MAT_WEIGHTS, 0, 5, 0})),
          "out of range: NaN");
    CHECK(model_range(&L.params, &T, RANGE_PROB) == 1.0, "weights range 0..1");
    trace_free(&T);
    lesson_free(&L);
}

// The two tables' columns: each stage row carries the core's key and both its names (the board's,
// in its notation, and the exported page's plain title); each matrix kept somewhere reads its cells
// from there, and every matrix explains a cell; --json keys are unique.
static void test_table_columns(void)
{
    CHECK(!strcmp(stage_info(STAGE_SCORES)->title, "Scores Q"
                                                   "K\xe1\xb5\x80"),
          "the scores' title is 'Scores QKᵀ': %s", stage_info(STAGE_SCORES)->title);
    CHECK(!strcmp(stage_info(STAGE_OUTPUT)->title, "Output projection W\xe1\xb4\xbc"),
          "the output's title");
    for (int s = 0; s < STAGE_COUNT; s++) {
        const StageInfo *si = stage_info((Stage)s);
        CHECK(si && si->stage == (Stage)s && !strcmp(si->key, stage_key((Stage)s)) && si->title
                  && si->title[0],
              "stage %d: its row, the core's key and a title", s);
    }
    Stage found;
    // One set of names everywhere: the stages' keys and the heatmaps' names for their stages.
    CHECK(model_stage_from_key("weights", &found) && found == STAGE_SOFTMAX,
          "'weights' names the softmax");
    CHECK(model_stage_from_key("masked", &found) && found == STAGE_MASK, "'masked' names the mask");
    CHECK(!model_stage_from_key("sofmax", &found) && !model_stage_from_key(NULL, &found),
          "no stage 'sofmax', none for NULL");
    {
        char names[320];
        Stage some[] = {STAGE_SCORES, STAGE_SOFTMAX, STAGE_OUTPUT, STAGE_INPUT};
        model_stage_names(some, 4, true, names, sizeof names);
        CHECK(!strcmp(names, "scores, softmax, output; or weights = softmax"),
              "the names accepted: %s", names);
    }
    Lesson L;
    Trace T;
    if (!load("lessons/the-cat-sat-on-the-mat-positions.json", &L, &T)) return;
    for (int m = MAT_NONE + 1; m < MAT_COUNT; m++) {
        const MatInfo *mi = mat_info((MatId)m);
        CHECK(mi->explain != NULL, "%s explains its cells", mi->key);
        CHECK(mi->value && (mi->at.kind != MAT_AT_NONE || mi->value != mat_info(MAT_Q)->value),
              "%s is kept somewhere or computed", mi->key);
        for (int o = MAT_NONE + 1; o < m; o++)
            if (mi->json && mat_info((MatId)o)->json)
                CHECK(strcmp(mi->json, mat_info((MatId)o)->json) != 0, "%s: its own --json key",
                      mi->key);
        const Matrix *x = model_mat_stored(&L.params, &T, (MatId)m, 1);
        if (!x || mi->value != mat_info(MAT_Q)->value) continue; // Q's: read where it is kept
        int rows, cols;
        model_mat_shape(&L.params, (MatId)m, &rows, &cols);
        CHECK(x->rows == rows && x->cols == cols, "%s: the kept matrix has the table's shape",
              mi->key);
        CellRef c = {(MatId)m, 1, rows - 1, cols - 1};
        CHECK(model_cell_value(&L.params, &T, c) == mat_get(x, rows - 1, cols - 1),
              "%s: a cell is the kept number", mi->key);
        char lines[4][256];
        CHECK(model_explain(&L, &T, c, lines, 4, true) >= 2, "%s: its last cell explained",
              mi->key);
    }
    CHECK(model_mat_stored(&L.params, &T, MAT_Q, 1) == &T.head[1].Q
              && model_mat_stored(&L.params, &T, MAT_WQ, 1) == &L.params.W_Q[1]
              && model_mat_stored(&L.params, &T, MAT_OUTPUT, 0) == &T.output
              && !model_mat_stored(&L.params, &T, MAT_OUTPUT_ALL, 0),
          "Q_1, W_Q_1 and the output where the trace and the lesson keep them; no output with all "
          "heads without ablation");
    CHECK(model_mat_own(&L.params, MAT_X) && !model_mat_own(&L.params, MAT_S),
          "self-attention: Y is X, not its own");
    trace_free(&T);
    lesson_free(&L);
}

// The softmax explanation: "max = …;  exp(a − max) / (…)" then "= e / sum = value (unrounded; the
// row sums to 1; its entropy in bits)", from the trace's stable softmax. With embeddings of 40 the
// scaled scores are in the thousands: a naive exp gives ∞ / ∞; the explanation never shows ∞ (nor
// nan/inf) for any weight of any head.
static void test_softmax_explained(void)
{
    static const char JSON[] =
        "{\"title\": \"Embeddings of 40\", \"tokens\": [\"The\", \"cat\", \"sat\"],"
        " \"embeddings\": [[40, 0, 40, 0], [0, 40, 0, 40], [40, 40, 40, 40]],"
        " \"heads\": 2, \"weights\": {\"random\": {\"seed\": 42, \"qkv_std\": 1.0, \"out_std\": "
        "0.5}}}";
    Lesson L;
    Trace T;
    if (!parse(JSON, &L, &T)) return;
    double top = 0.0;
    for (int h = 0; h < L.params.heads; h++)
        for (int i = 0; i < L.params.n; i++)
            for (int j = 0; j < L.params.m; j++) {
                double v = fabs(model_cell_value(&L.params, &T, (CellRef){MAT_SCALED, h, i, j}));
                if (v > top) top = v;
            }
    CHECK(top > 710.0 && isinf(exp(top)), "the lesson overflows a naive exp: largest |S'| = %.1f",
          top);
    char lines[4][256];
    int bad = 0;
    for (int h = 0; h < L.params.heads; h++)
        for (int i = 0; i < L.params.n; i++)
            for (int j = 0; j < L.params.m; j++) {
                CellRef c = {MAT_WEIGHTS, h, i, j};
                int n = model_explain(&L, &T, c, lines, 4, false);
                CHECK(n == 3, "A%d[%d, %d] explained in 3 lines (%d)", h, i, j, n);
                for (int k = 0; k < n; k++)
                    if (strstr(lines[k], INF) || strstr(lines[k], "inf") || strstr(lines[k], "nan")
                        || strstr(lines[k], "?")) {
                        if (bad++ < 3)
                            fprintf(stderr, "  A%d[%d, %d] line %d: %s\n", h, i, j, k, lines[k]);
                    }
                char v[32];
                model_format_value(model_cell_value(&L.params, &T, c), v, sizeof v);
                CHECK(n == 3 && !strncmp(lines[1], "max = ", 6) && strstr(lines[1], "exp(")
                          && strstr(lines[1], " " MINUS " ") && !strncmp(lines[2], "= ", 2)
                          && strstr(lines[2], v)
                          && (strstr(lines[2], "(unrounded;")
                              || strstr(lines[2], "from unrounded values")),
                      "A%d[%d, %d] = %s: the stable form: '%s' / '%s'", h, i, j, v,
                      n > 1 ? lines[1] : "", n > 2 ? lines[2] : "");
            }
    CHECK(bad == 0, "%d explanation lines of the 40s lesson show infinity", bad);
    trace_free(&T);
    lesson_free(&L);

    // The cat: A_0[The, The] = 0.6111, and the row's largest scaled score is subtracted.
    LessonError err;
    if (!lesson_load_builtin(&L, &err)) {
        CHECK(false, "built-in lesson");
        return;
    }
    TraceError terr;
    if (!trace_run(&T, &L.params, &terr)) {
        CHECK(false, "built-in traces");
        lesson_free(&L);
        return;
    }
    int n = model_explain(&L, &T, (CellRef){MAT_WEIGHTS, 0, 0, 0}, lines, 4, false);
    double top0 = -INFINITY;
    for (int k = 0; k < L.params.m; k++)
        if (mat_get(&T.head[0].scaled, 0, k) > top0) top0 = mat_get(&T.head[0].scaled, 0, k);
    char mx[48], want[64];
    model_format_value(top0, mx, sizeof mx);
    snprintf(want, sizeof want, "max = %s;", mx);
    CHECK(n == 3 && !strncmp(lines[1], want, strlen(want)), "the row's max %s first: %s", mx,
          n > 1 ? lines[1] : "");
    CHECK(n == 3 && strstr(lines[2], "= 0.6111"), "A_0[The, The] = 0.6111: %s",
          n > 2 ? lines[2] : "");
    trace_free(&T);
    lesson_free(&L);
}

// Computed from what: the matrix table's input bands, as the board lights them for a focused cell.
static void test_inputs(void)
{
    AttnParams p;
    memset(&p, 0, sizeof p);
    p.n = p.m = 3;
    p.d_model = 4;
    p.heads = 2;
    p.d_k = 2;
    CellRef in[4];
    int n = model_mat_inputs(&p, (CellRef){MAT_Q, 1, 2, 0}, in, 4);
    CHECK(n == 2 && in[0].mat == MAT_X && in[0].row == 2 && in[0].col == -1 && in[1].mat == MAT_WQ
              && in[1].head == 1 && in[1].row == -1 && in[1].col == 0,
          "Q1[2][0] = X row 2 . W1^Q column 0");
    n = model_mat_inputs(&p, (CellRef){MAT_K, 0, 1, 1}, in, 4);
    CHECK(n == 2 && in[0].mat == MAT_X, "self-attention keys come from X");
    p.cross = true;
    n = model_mat_inputs(&p, (CellRef){MAT_V, 0, 1, 1}, in, 4);
    CHECK(n == 2 && in[0].mat == MAT_S && in[1].mat == MAT_WV,
          "cross-attention values come from the source");
    n = model_mat_inputs(&p, (CellRef){MAT_CONCAT, 0, 2, 3}, in, 4);
    CHECK(n == 1 && in[0].mat == MAT_Z && in[0].head == 1 && in[0].row == 2 && in[0].col == 1,
          "Concat column 3 is Z1 column 1 (head %d, col %d)", in[0].head, in[0].col);
    n = model_mat_inputs(&p, (CellRef){MAT_WEIGHTS, 0, 1, 2}, in, 4);
    CHECK(n == 1 && in[0].mat == MAT_SCALED && in[0].row == 1 && in[0].col == -1,
          "softmax reads the whole row");
    p.mask = MASK_CAUSAL;
    n = model_mat_inputs(&p, (CellRef){MAT_WEIGHTS, 0, 1, 2}, in, 4);
    CHECK(n == 1 && in[0].mat == MAT_MASKED, "a causal softmax reads the masked row");
    CHECK(model_mat_inputs(&p, (CellRef){MAT_WO, 0, 1, 2}, in, 4) == 0,
          "weights are given, not computed");
    CHECK(model_mat_inputs(&p, (CellRef){MAT_OUTPUT, 0, 1, 2}, in, 1) == 1, "at most max bands");
}

int main(void)
{
    test_inputs();
    test_format();
    test_names();
    test_stages();
    test_table_columns();
    test_softmax_explained();
    return check_report("test_model");
}
