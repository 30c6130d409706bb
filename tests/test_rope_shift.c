// RoPE's point on the board (issue 22, model/rope_shift.c and the trace's shifted rows): every
// position shifted by k leaves every score the same within 1e-12, for both pair conventions and
// several bases, on the shipped Llama lesson; the shifted rows do turn; the key's stops, the
// board's sentence, the stage rows and the memory bound that counts them.
#include "check.h"
#include "lesson_trace.h"

#include <math.h>

#include "core/attn.h"
#include "model/explain.h"
#include "model/rope_shift.h"
#include "model/stages.h"
#include "model/view.h"

static void test_shift_keeps_scores(void)
{
    static const RopeKind kinds[] = {ROPE_HALVES, ROPE_INTERLEAVED};
    static const double bases[] = {10000.0, 500000.0, 100.0, 2.5};
    static const int shifts[] = {1, 3, 100, 1000};
    double worst[4] = {0, 0, 0, 0};
    Lesson L;
    Trace T0;
    if (!load("lessons/llama-rope-gqa.json", &L, &T0)) return;
    trace_free(&T0);
    int checked = 0;
    for (int ki = 0; ki < 2; ki++)
        for (int bi = 0; bi < 4; bi++) {
            L.params.rope = kinds[ki];
            L.params.rope_base = bases[bi];
            L.params.rope_shift = 0;
            TraceError err;
            Trace base;
            if (!trace_run(&base, &L.params, &err)) {
                CHECK(false, "trace: %s", err.message);
                continue;
            }
            CHECK(base.head[0].scores_shift.data == NULL && base.head[0].Q_shift.data == NULL,
                  "no shift: nothing kept");
            for (int si = 0; si < 4; si++) {
                L.params.rope_shift = shifts[si];
                Trace t;
                if (!trace_run(&t, &L.params, &err)) {
                    CHECK(false, "shifted trace: %s", err.message);
                    continue;
                }
                for (int h = 0; h < t.heads; h++) {
                    const HeadTrace *ht = &t.head[h];
                    // Within 1e-12 up to k = 100; at k = 1000 the angles are 1000 times larger, and
                    // so is the rounding of their cosines: within 1e-12 of the largest score then.
                    double d = mat_max_abs_diff(&ht->scores_shift, &ht->scores), big = 1.0;
                    for (int i = 0; i < ht->scores.rows * ht->scores.cols; i++)
                        big = fmax(big, fabs(ht->scores.data[i]));
                    double tol = shifts[si] <= 100 ? 1e-12 : 1e-12 * big;
                    CHECK(d < tol, "kind %d base %g k %d head %d: shifted scores differ by %g", ki,
                          bases[bi], shifts[si], h, d);
                    if (d > worst[si]) worst[si] = d;
                    // The rows themselves do turn further (the point is that the scores do not).
                    CHECK(mat_max_abs_diff(&ht->Q_shift, &ht->Q_rot) > 1e-3
                              && mat_max_abs_diff(&ht->K_shift, &ht->K_rot) > 1e-3,
                          "kind %d base %g k %d head %d: the shifted rows turned", ki, bases[bi],
                          shifts[si], h);
                    // Everything else is the trace of k = 0, bit for bit.
                    CHECK(mat_max_abs_diff(&ht->scores, &base.head[h].scores) == 0.0
                              && mat_max_abs_diff(&ht->Z, &base.head[h].Z) == 0.0,
                          "the shift changes nothing else");
                    // Row p of Q_shift is Q turned at position p + k.
                    Matrix one;
                    if (mat_init(&one, ht->Q.rows, ht->Q.cols)) {
                        attn_rope_from(&one, &ht->Q, kinds[ki], bases[bi], +1, shifts[si]);
                        CHECK(mat_max_abs_diff(&one, &ht->Q_shift) == 0.0,
                              "Q_shift = attn_rope_from(Q, p + k)");
                        mat_free(&one);
                    }
                    checked++;
                }
                CHECK(model_rope_shift_difference(&t, 0)
                          == mat_max_abs_diff(&t.head[0].scores_shift, &t.head[0].scores),
                      "the difference the board shows is the trace's");
                trace_free(&t);
            }
            trace_free(&base);
        }
    CHECK(checked == 2 * 4 * 4 * 4, "every convention, base, shift and head checked (%d)", checked);
    printf("largest difference of the shifted scores: k = 1: %.2g, k = 3: %.2g, k = 100: %.2g, k = "
           "1000: %.2g\n",
           worst[0], worst[1], worst[2], worst[3]);
    lesson_free(&L);
}

static void test_board(void)
{
    Lesson L;
    Trace T;
    if (!load("lessons/llama-rope-gqa.json", &L, &T)) return;
    char buf[512];
    CHECK(!model_rope_shift_note(&L.params, &T, STAGE_ROTATE, 0, buf, sizeof buf) && buf[0] == '\0',
          "no shift: no note");
    CHECK(!model_mat_present(&L.params, MAT_SCORES_SHIFT), "no shift: no shifted scores");
    trace_free(&T);
    L.params.rope_shift = 3;
    TraceError err;
    CHECK(trace_run(&T, &L.params, &err), "trace");
    CHECK(model_mat_present(&L.params, MAT_QSHIFT) && model_mat_present(&L.params, MAT_KSHIFT_T),
          "shifted rows present");
    CHECK(model_cell_value(&L.params, &T, (CellRef){MAT_KSHIFT_T, 2, 1, 5})
              == mat_get(&T.head[2].K_shift, 5, 1),
          "K^(R+k)T is K_shift transposed");
    CHECK(model_rope_shift_note(&L.params, &T, STAGE_ROTATE, 0, buf, sizeof buf),
          "a note at the rotate stage");
    CHECK(strstr(buf, "k = 3") && strstr(buf, "Largest difference from k = 0: ")
              && strstr(buf, "(rounding)"),
          "the note says k and the difference: %s", buf);
    CHECK(model_rope_shift_note(&L.params, &T, STAGE_SCORES, 1, buf, sizeof buf),
          "and at the scores");
    CHECK(!model_rope_shift_note(&L.params, &T, STAGE_SOFTMAX, 0, buf, sizeof buf),
          "not at the softmax");
    // The rotate stage turns the rows at p + k; the scores stage adds the shifted scores beside the
    // scores.
    Equation eq[EQ_MAX];
    int n = stage_info(STAGE_ROTATE)->equations(&L.params, 0, eq, EQ_MAX);
    CHECK(n == 2 && eq[0].t[3].mat == MAT_QSHIFT && eq[1].t[3].mat == MAT_KSHIFT
              && strcmp(eq[0].t[0].op, "RoPE p+3") == 0,
          "rotate: RoPE p+3 Q = Q^(R+k), K likewise (%d)", n);
    n = stage_info(STAGE_SCORES)->equations(&L.params, 0, eq, EQ_MAX);
    CHECK(n == 2 && eq[0].t[4].mat == MAT_SCORES && eq[1].t[4].mat == MAT_SCORES_SHIFT
              && eq[1].t[0].mat == MAT_QSHIFT,
          "scores: S, then S^(k) = Q^(R+k) K^(R+k)T (%d)", n);
    // The hover arithmetic of a shifted score gives the score of k = 0 beside it.
    char lines[4][256];
    int k = model_explain(&L, &T, (CellRef){MAT_SCORES_SHIFT, 0, 3, 1}, lines, 4, false);
    CHECK(k == 3 && strstr(lines[2], "at k = 0")
              && strstr(lines[2], "p \xe2\x88\x92 p\xe2\x80\xb2 = 2"),
          "explain S^(k): %s", k > 2 ? lines[2] : "");
    k = model_explain(&L, &T, (CellRef){MAT_QSHIFT, 0, 5, 1}, lines, 4, false);
    CHECK(k >= 2 && strstr(lines[1], "(5 + k = 8)"), "explain Q^(R+k): position 5 + 3: %s",
          k > 1 ? lines[1] : "");
    trace_free(&T);
    lesson_free(&L);
}

static void test_stops_and_bound(void)
{
    static const int up[] = {0, 1, 2, 3, 5, 10, 100, 1000, 0};
    for (int i = 0; i + 1 < (int)(sizeof up / sizeof up[0]); i++) {
        CHECK(model_rope_shift_step(up[i], +1) == up[i + 1], "%d -> %d", up[i],
              model_rope_shift_step(up[i], +1));
        CHECK(model_rope_shift_step(up[i + 1], -1) == up[i], "%d <- %d", up[i], up[i + 1]);
    }
    CHECK(model_rope_shift_step(7, +1) == 10 && model_rope_shift_step(7, -1) == 5, "between stops");
    // The memory bound counts, with RoPE, Q_rot and K_rot and the shift's Q, K and scores:
    // 2(n+m)d_k + n m per head.
    double plain = trace_values(7, 7, 8, 4, 4, false), rope = trace_values(7, 7, 8, 4, 4, true);
    CHECK(rope - plain == 4.0 * (2.0 * 14 * 4 + 49), "with RoPE %g more", rope - plain);
    CHECK(plain == 4.0 * (2 * 7 * 4 + 2 * 7 * 4 + 3 * 49) + 7 * 16 + 7 * 8,
          "without: as before (%g)", plain);
}

// Without RoPE a shift asked for does nothing: no rows kept, no note, no stage rows (the window's
// key ignores it).
static void test_without_rope(void)
{
    Lesson L;
    Trace T;
    if (!parse("{\"title\": \"t\", \"tokens\": [\"a\", \"b\"], \"embeddings\": [[1, 0], [0, 1]], "
               "\"heads\": 1, "
               "\"d_k\": 2, \"weights\": {\"random\": {\"seed\": 3}}}",
               &L, &T))
        return;
    trace_free(&T);
    L.params.rope_shift = 5;
    TraceError err;
    CHECK(trace_run(&T, &L.params, &err), "trace");
    char buf[256];
    CHECK(T.head[0].Q_shift.data == NULL && T.head[0].scores_shift.data == NULL,
          "nothing shifted without RoPE");
    CHECK(!model_rope_shift_note(&L.params, &T, STAGE_SCORES, 0, buf, sizeof buf),
          "no note without RoPE");
    CHECK(!model_mat_present(&L.params, MAT_QSHIFT), "no shifted rows without RoPE");
    trace_free(&T);
    lesson_free(&L);
}

// The key: S asks for the next stop (Shift+S the one before) and goes to the rotate stage; Ctrl+S
// still saves; a lesson without RoPE, an open panel or a question waiting leave it alone.
static void test_key(void)
{
    Lesson L;
    Trace T;
    if (!load("lessons/llama-rope-gqa.json", &L, &T)) return;
    ViewDims dims = view_dims_from_params(&L.params);
    ViewState st;
    view_init(&st, &dims);
    ViewEvent ev = {.kind = VIEW_EV_KEY, .key = VIEW_KEY_S, .head = -1};
    CHECK(view_handle(&st, &ev) && st.request == VIEW_REQ_ROPE_SHIFT && st.request_delta == 1.0,
          "S: the next shift");
    CHECK(view_stage(&st) == STAGE_ROTATE && st.substep == VIEW_SUBSTEP_RESULT,
          "S goes to the rotated rows");
    ev.mods = VIEW_MOD_SHIFT;
    CHECK(view_handle(&st, &ev) && st.request == VIEW_REQ_ROPE_SHIFT && st.request_delta == -1.0,
          "Shift+S: back");
    ev.mods = VIEW_MOD_CTRL;
    CHECK(view_handle(&st, &ev) && st.request == VIEW_REQ_SAVE, "Ctrl+S saves");
    ev.mods = 0;
    st.panel = PANEL_COST;
    view_handle(&st, &ev); // the cost panel closes on any other key, which then acts
    CHECK(st.panel == PANEL_NONE && st.request == VIEW_REQ_ROPE_SHIFT,
          "S closes the cost panel and shifts");
    st.panel = PANEL_DECODE;
    CHECK(!view_handle(&st, &ev) && st.request == VIEW_REQ_NONE, "not over the decode panel");
    dims.rope = false;
    view_init(&st, &dims);
    CHECK(!view_handle(&st, &ev) && st.request == VIEW_REQ_NONE, "no RoPE: S does nothing");
    trace_free(&T);
    lesson_free(&L);
}

int main(void)
{
    test_key();
    test_without_rope();
    test_shift_keeps_scores();
    test_board();
    test_stops_and_bound();
    return check_report("test_rope_shift");
}
