// Issue 22 in the core and the model: RoPE's point (a score depends on the two positions only
// through their distance), grouped K/V heads sharing one matrix (edits, gradients and Adam see it
// once), the window's mask, and the shipped lessons' new stage and matrices.
#include "check.h"
#include "lesson_trace.h"

#include <math.h>
#include <stdlib.h>

#include "core/attn.h"
#include "core/train.h"
#include "model/stages.h"

// The three stages only a checkpoint's layer has (--model in the window: the norm, the residual
// add, the next token): no lesson has them.
#define LESSON_STAGES (STAGE_COUNT - 3)

// Every row of q and k the same vector: after RoPE, scores[i][j] = f(i - j) for every base and
// pairing.
static void test_rope_relative(void)
{
    static const RopeKind kinds[] = {ROPE_HALVES, ROPE_INTERLEAVED};
    static const double bases[] = {10000.0, 100.0, 2.5};
    int n = 7, dk = 6;
    Matrix q, k, qr, kr, s;
    CHECK(mat_init(&q, n, dk) && mat_init(&k, n, dk) && mat_init(&qr, n, dk) && mat_init(&kr, n, dk)
              && mat_init(&s, n, n),
          "allocate");
    for (int r = 0; r < n; r++)
        for (int c = 0; c < dk; c++) {
            mat_set(&q, r, c, 0.3 * c - 0.7);
            mat_set(&k, r, c, 1.1 - 0.2 * c * c);
        }
    for (int ki = 0; ki < 2; ki++)
        for (int bi = 0; bi < 3; bi++) {
            attn_rope(&qr, &q, kinds[ki], bases[bi], +1);
            attn_rope(&kr, &k, kinds[ki], bases[bi], +1);
            attn_scores(&s, &qr, &kr);
            double worst = 0.0, spread = 0.0;
            for (int i = 1; i < n; i++)
                for (int j = 1; j < n; j++) {
                    worst = fmax(worst, fabs(mat_get(&s, i, j) - mat_get(&s, i - 1, j - 1)));
                    spread = fmax(spread, fabs(mat_get(&s, i, j) - mat_get(&s, 0, 0)));
                }
            CHECK(worst < 1e-12,
                  "RoPE kind %d base %g: a score changes when both positions shift by 1 (%g)", ki,
                  bases[bi], worst);
            CHECK(spread > 1e-3, "RoPE kind %d base %g: the scores do depend on the distance", ki,
                  bases[bi]);
            // The rotation back (sign -1) is the inverse: the backward pass relies on it.
            Matrix back;
            CHECK(mat_init(&back, n, dk), "allocate");
            attn_rope(&back, &qr, kinds[ki], bases[bi], -1);
            CHECK(mat_max_abs_diff(&back, &q) < 1e-14, "the rotation back undoes the rotation");
            mat_free(&back);
        }
    // Position 0 does not turn; a pair's length is kept.
    CHECK(mat_get(&qr, 0, 0) == mat_get(&q, 0, 0) && mat_get(&qr, 0, 5) == mat_get(&q, 0, 5),
          "position 0 unturned");
    mat_free(&q), mat_free(&k), mat_free(&qr), mat_free(&kr), mat_free(&s);
}

// kv_heads 2 of 6: heads 0-2 share K/V head 0's matrices, 3-5 head 1's; counted once wherever
// weights are listed.
static void test_grouped_params(void)
{
    AttnParams p;
    CHECK(params_init_grouped(&p, 3, 3, 4, 6, 2, 2), "allocate grouped params");
    CHECK(p.W_K[2].data == p.W_K[0].data && p.W_K[3].data != p.W_K[0].data
              && p.b_V[5].data == p.b_V[3].data,
          "the heads of a group share their K/V head's numbers");
    CHECK(p.W_Q[1].data != p.W_Q[0].data, "W_Q stays per head");
    CHECK(params_count(&p, 0) == 6 && params_count(&p, 1) == 2 && params_count(&p, 6) == 1,
          "params_count");
    CHECK(params_own(&p, 1, 1) == &p.W_K[3],
          "params_own: K/V head 1 is the second group's first head's");
    Matrix *list[PARAM_COUNT * 6];
    CHECK(params_trainable(list, &p) == 6 * 2 + 2 * 4 + 2,
          "trainable: W_Q, b_Q per head, W_K, W_V, b_K, b_V per K/V head");
    AttnParams q;
    CHECK(params_copy(&q, &p) && q.kv_heads == 2 && q.W_K[1].data == q.W_K[0].data
              && q.W_K[0].data != p.W_K[0].data,
          "a copy has groups of its own");
    // The window takes a training step's weights by exchanging the storage (params_swap_weights):
    // every entry of a group follows its owner, the numbers change sides, nothing is copied.
    mat_set(&p.W_K[0], 1, 1, 2.5);
    mat_set(&q.W_K[0], 1, 1, -7.0);
    mat_set(&q.W_O, 0, 3, 9.0);
    const double *p_wk = p.W_K[3].data, *q_wk = q.W_K[3].data;
    params_swap_weights(&p, &q);
    CHECK(p.W_K[3].data == q_wk && q.W_K[3].data == p_wk && p.W_K[5].data == q_wk
              && q.W_K[4].data == p_wk,
          "the second group's entries all moved with their owner");
    CHECK(mat_get(&p.W_K[2], 1, 1) == -7.0 && mat_get(&q.W_K[1], 1, 1) == 2.5
              && mat_get(&p.W_O, 0, 3) == 9.0,
          "the numbers changed sides, the shared entries with them");
    CHECK(p.W_K[1].data == p.W_K[0].data && q.W_K[2].data == q.W_K[0].data
              && p.W_K[0].data != q.W_K[0].data,
          "each keeps groups of its own");
    params_free(&q);
    params_free(&p);
}

// The window: the band i - W < j <= i.
static void test_window_mask(void)
{
    Matrix s;
    CHECK(mat_init(&s, 5, 5), "allocate");
    attn_mask_window(&s, 2);
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++)
            CHECK((isinf(mat_get(&s, i, j)) != 0) == (j > i || j <= i - 2), "window 2: cell %d, %d",
                  i, j);
    mat_free(&s);
}

// The shipped lessons: the rotate stage and its matrices, the shared K, the window's weights of 0,
// and a training step that moves a shared W_K once (its heads keep sharing it).
static void test_lessons(void)
{
    Lesson L;
    Trace T;
    if (load("lessons/llama-rope-gqa.json", &L, &T)) {
        Stage st[STAGE_COUNT];
        int n = model_stages(&L.params, st);
        CHECK(n == LESSON_STAGES - 1 && st[2] == STAGE_ROTATE && st[3] == STAGE_SCORES,
              "RoPE: every stage but positions, the rotate stage after the projections (%d of %d)",
              n, LESSON_STAGES);
        CHECK(model_mat_present(&L.params, MAT_QROT) && model_mat_present(&L.params, MAT_KROT_T),
              "rotated matrices");
        CHECK(mat_max_abs_diff(&T.head[0].K, &T.head[1].K) == 0.0
                  && mat_max_abs_diff(&T.head[0].K, &T.head[2].K) > 0,
              "heads 0 and 1 read K/V head 0, head 2 another");
        CHECK(model_cell_value(&L.params, &T, (CellRef){MAT_KROT_T, 3, 1, 4})
                  == mat_get(&T.head[3].K_rot, 4, 1),
              "K^RT is K_rot transposed");
        trace_free(&T);
        lesson_free(&L);
    }
    if (load("lessons/mistral-sliding-window.json", &L, &T)) {
        CHECK(mat_get(&T.head[0].weights, 7, 4) == 0.0 && mat_get(&T.head[0].weights, 7, 5) > 0.0,
              "window 3");
        CHECK(isinf(model_cell_value(&L.params, &T, (CellRef){MAT_MASK, 0, 6, 2}))
                  && model_cell_value(&L.params, &T, (CellRef){MAT_MASK, 0, 6, 4}) == 0.0,
              "the mask stage shows the band");
        Matrix vocab;
        int ids[16];
        CHECK(lesson_train_vocabulary(&L, &vocab, ids), "vocabulary");
        TrainSpec spec = {TASK_PREVIOUS_TOKEN, 8, 3, 3, 0.01};
        Trainer tr;
        TraceError err;
        if (train_init(&tr, &L.params, &spec, &vocab, &err)) {
            double before = mat_get(&tr.p.W_K[0], 0, 0);
            CHECK(train_step(&tr, &err), "a training step: %s", err.message);
            double after = mat_get(&tr.p.W_K[0], 0, 0);
            // Adam's first step moves every weight by lr * g / (|g| + eps): at most lr, once.
            CHECK(after != before && fabs(after - before) <= 0.01 * (1 + 1e-9),
                  "W_K moved once: %g", after - before);
            CHECK(tr.p.W_K[1].data == tr.p.W_K[0].data, "both heads still read the one K/V head");
            train_free(&tr);
        } else CHECK(false, "train_init: %s", err.message);
        mat_free(&vocab);
        trace_free(&T);
        lesson_free(&L);
    }
}

// The seeded draws: kv_heads = heads gives today's weights; with kv_heads 1 of 2 the stream is
// W_Q_0, W_K_0, W_V_0, W_Q_1, then W_O, so W_Q_1 holds what W_K_1 held with two K/V heads.
static void test_seeded_order(void)
{
#define SEEDED(kv)                                                                                 \
    "{\"title\": \"t\", \"tokens\": [\"a\", \"b\"], \"embeddings\": [[1, 0, 2], [0, 1, 1]], "      \
    "\"heads\": 2, "                                                                               \
    "\"d_k\": 2, " kv "\"weights\": {\"random\": {\"seed\": 9}}}"
    Lesson a, b, c;
    Trace ta, tb, tc;
    if (!parse(SEEDED(""), &a, &ta)) return;
    if (parse(SEEDED("\"kv_heads\": 2, "), &b, &tb)) {
        CHECK(mat_max_abs_diff(&a.params.W_V[1], &b.params.W_V[1]) == 0.0
                  && mat_max_abs_diff(&a.params.W_O, &b.params.W_O) == 0.0,
              "kv_heads = heads: the same draws as without it");
        CHECK(!a.params.kv_given && b.params.kv_given, "kv_given only when the lesson names it");
        trace_free(&tb);
        lesson_free(&b);
    }
    if (parse(SEEDED("\"kv_heads\": 1, "), &c, &tc)) {
        CHECK(mat_max_abs_diff(&c.params.W_K[0], &a.params.W_K[0]) == 0.0
                  && mat_max_abs_diff(&c.params.W_V[1], &a.params.W_V[0]) == 0.0,
              "K/V head 0 is drawn right after W_Q_0");
        CHECK(mat_max_abs_diff(&c.params.W_Q[1], &a.params.W_Q[1]) == 0.0, "W_Q_1 comes next");
        trace_free(&tc);
        lesson_free(&c);
    }
#undef SEEDED
    trace_free(&ta);
    lesson_free(&a);
}

int main(void)
{
    test_seeded_order();
    test_rope_relative();
    test_grouped_params();
    test_window_mask();
    test_lessons();
    return check_report("test_modern");
}
