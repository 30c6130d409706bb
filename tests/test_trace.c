// Tests the attention trace: the seed's "The cat sat" against NumPy's reference at every stage,
// and hand-made cases for biases, the causal mask, cross-attention and overflow.
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/rng.h"
#include "core/trace.h"
#include "lesson/lesson.h"
#include "read_all.h"

// Largest |reference - m| over a JSON array of rows; a huge value when the shapes differ.
static double diff_json(const cJSON *ref, const Matrix *m)
{
    if (!cJSON_IsArray(ref) || cJSON_GetArraySize(ref) != m->rows) return INFINITY;
    double worst = 0.0;
    int r = 0;
    for (const cJSON *row = ref->child; row; row = row->next, r++) {
        if (cJSON_GetArraySize(row) != m->cols) return INFINITY;
        int c = 0;
        for (const cJSON *v = row->child; v; v = v->next, c++) {
            double d = fabs(v->valuedouble - mat_get(m, r, c));
            if (!(d <= worst)) worst = d;
        }
    }
    return worst;
}

static void test_reference(void)
{
    char *text = read_all(MHA_TEST_DATA "/data/the-cat-sat.trace.json", NULL);
    cJSON *ref = text ? cJSON_Parse(text) : NULL;
    CHECK(ref != NULL, "reference trace readable");
    if (!ref) return;
    Lesson l;
    LessonError err;
    bool ok = lesson_load(&l, MHA_SOURCE_DIR "/lessons/the-cat-sat.json", &err);
    CHECK(ok, "cat lesson loads: %s", err.message);
    if (!ok) return;
    Trace t;
    TraceError terr;
    ok = trace_run(&t, &l.params, &terr);
    CHECK(ok, "trace runs: %s", terr.message);
    if (!ok) return;
    static const char *const keys[] = {"W_Q", "W_K",    "W_V",    "Q",       "K",
                                       "V",   "scores", "scaled", "weights", "Z"};
    double worst = 0.0;
    const cJSON *heads = cJSON_GetObjectItem(ref, "head");
    CHECK(cJSON_GetArraySize(heads) == 2, "two heads in the reference");
    for (int h = 0; h < 2; h++) {
        const cJSON *rh = cJSON_GetArrayItem(heads, h);
        const HeadTrace *ht = &t.head[h];
        const Matrix *mine[] = {
            &l.params.W_Q[h], &l.params.W_K[h], &l.params.W_V[h], &ht->Q,       &ht->K,
            &ht->V,           &ht->scores,      &ht->scaled,      &ht->weights, &ht->Z};
        for (int k = 0; k < 10; k++) {
            double d = diff_json(cJSON_GetObjectItem(rh, keys[k]), mine[k]);
            CHECK(d <= 1e-12, "head %d %s differs from NumPy by %g", h, keys[k], d);
            if (d > worst) worst = d;
        }
    }
    const char *top[] = {"embeddings", "concat", "W_O", "output"};
    const Matrix *mine[] = {&l.params.X, &t.concat, &l.params.W_O, &t.output};
    for (int k = 0; k < 4; k++) {
        double d = diff_json(cJSON_GetObjectItem(ref, top[k]), mine[k]);
        CHECK(d <= 1e-12, "%s differs from NumPy by %g", top[k], d);
        if (d > worst) worst = d;
    }
    printf("cat lesson vs NumPy: largest difference over every stage %.3g\n", worst);
    // The numbers the seed prints, rounded as it rounds them.
    CHECK(fabs(mat_get(&t.head[0].weights, 0, 0) - 0.6111) < 5e-5, "head 0 The->The");
    CHECK(fabs(mat_get(&t.head[1].weights, 2, 1) - 0.5844) < 5e-5, "head 1 sat->cat");
    CHECK(fabs(mat_get(&t.output, 0, 3) - 1.2935) < 5e-5, "output[0][3]");
    trace_free(&t);
    lesson_free(&l);
    cJSON_Delete(ref);
    free(text);
}

// Fills every parameter with seeded normals so the hand-made cases are not special.
static void fill_random(AttnParams *p, uint64_t seed)
{
    Rng r;
    rng_seed(&r, seed);
    rng_normal_fill(&r, 0, 1, p->X.data, (size_t)p->n * (size_t)p->d_model);
    rng_normal_fill(&r, 0, 1, p->S.data, (size_t)p->m * (size_t)p->d_model);
    size_t w = (size_t)p->d_model * (size_t)p->d_k;
    for (int h = 0; h < p->heads; h++) {
        rng_normal_fill(&r, 0, 1, p->W_Q[h].data, w);
        rng_normal_fill(&r, 0, 1, p->W_K[h].data, w);
        rng_normal_fill(&r, 0, 1, p->W_V[h].data, w);
        rng_normal_fill(&r, 0, 0.1, p->b_Q[h].data, (size_t)p->d_k);
        rng_normal_fill(&r, 0, 0.1, p->b_K[h].data, (size_t)p->d_k);
        rng_normal_fill(&r, 0, 0.1, p->b_V[h].data, (size_t)p->d_k);
    }
    rng_normal_fill(&r, 0, 1, p->W_O.data, (size_t)p->W_O.rows * (size_t)p->d_model);
    rng_normal_fill(&r, 0, 0.1, p->b_O.data, (size_t)p->d_model);
}

// Each entry recomputed from the formulas with the simplest possible loops.
static void test_formulas_with_bias_and_cross(void)
{
    AttnParams p;
    params_init(&p, 3, 5, 6, 3, 2); // cross-attention: 3 queries, 5 keys
    p.cross = true;
    fill_random(&p, 7);
    Trace t;
    TraceError err;
    CHECK(trace_run(&t, &p, &err), "trace runs: %s", err.message);
    double worst = 0.0;
    for (int h = 0; h < p.heads; h++) {
        const HeadTrace *ht = &t.head[h];
        CHECK(ht->scores.rows == 3 && ht->scores.cols == 5, "scores (n, m) = (3, 5)");
        CHECK(ht->K.rows == 5 && ht->V.rows == 5 && ht->Z.rows == 3, "K, V have m rows; Z has n");
        for (int r = 0; r < 5; r++)
            for (int j = 0; j < 2; j++) {
                double k = mat_get(&p.b_K[h], 0, j);
                for (int a = 0; a < 6; a++) k += mat_get(&p.S, r, a) * mat_get(&p.W_K[h], a, j);
                worst = fmax(worst, fabs(k - mat_get(&ht->K, r, j)));
            }
        for (int r = 0; r < 3; r++) {
            double sum = 0.0, row_max = -INFINITY;
            for (int c = 0; c < 5; c++) row_max = fmax(row_max, mat_get(&ht->scaled, r, c));
            for (int c = 0; c < 5; c++) {
                double s = 0.0;
                for (int j = 0; j < 2; j++) s += mat_get(&ht->Q, r, j) * mat_get(&ht->K, c, j);
                worst = fmax(worst, fabs(s - mat_get(&ht->scores, r, c)));
                worst = fmax(worst, fabs(s / sqrt(2.0) - mat_get(&ht->scaled, r, c)));
                sum += exp(mat_get(&ht->scaled, r, c) - row_max);
            }
            for (int c = 0; c < 5; c++)
                worst = fmax(worst, fabs(exp(mat_get(&ht->scaled, r, c) - row_max) / sum
                                         - mat_get(&ht->weights, r, c)));
        }
    }
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 6; c++) {
            double o = mat_get(&p.b_O, 0, c);
            for (int k = 0; k < 6; k++) o += mat_get(&t.concat, r, k) * mat_get(&p.W_O, k, c);
            worst = fmax(worst, fabs(o - mat_get(&t.output, r, c)));
        }
    // concat puts head h's Z in columns 2h, 2h+1
    CHECK(mat_get(&t.concat, 1, 4) == mat_get(&t.head[2].Z, 1, 0),
          "concat column 4 is head 2's first column");
    CHECK(worst < 1e-12, "formulas recomputed by hand agree: %g", worst);
    trace_free(&t);
    params_free(&p);
}

static void test_causal(void)
{
    AttnParams p;
    params_init(&p, 5, 5, 4, 2, 2);
    p.mask = MASK_CAUSAL;
    fill_random(&p, 3);
    memcpy(p.S.data, p.X.data, sizeof(double) * 20);
    Trace t;
    TraceError err;
    CHECK(trace_run(&t, &p, &err), "causal trace runs");
    for (int h = 0; h < 2; h++) {
        const Matrix *w = &t.head[h].weights;
        for (int r = 0; r < 5; r++) {
            double sum = 0.0;
            for (int c = 0; c < 5; c++) {
                sum += mat_get(w, r, c);
                if (c > r) {
                    CHECK(mat_get(w, r, c) == 0.0, "masked weight [%d][%d] exactly 0", r, c);
                    CHECK(mat_get(&t.head[h].scaled, r, c) == -INFINITY, "masked score is -inf");
                } else CHECK(mat_get(w, r, c) > 0.0, "visible weight [%d][%d] positive", r, c);
            }
            CHECK(fabs(sum - 1.0) < 1e-15, "row %d sums to 1 (%.17g)", r, sum);
        }
        CHECK(mat_get(w, 0, 0) == 1.0, "the first token can only attend to itself");
        // Z's first row is exactly V's first row
        CHECK(fabs(mat_get(&t.head[h].Z, 0, 1) - mat_get(&t.head[h].V, 0, 1)) < 1e-15,
              "Z[0] = V[0]");
    }
    trace_free(&t);
    params_free(&p);
}

static void test_overflow_named(void)
{
    AttnParams p;
    params_init(&p, 2, 2, 2, 1, 2);
    for (int i = 0; i < 4; i++) p.X.data[i] = p.S.data[i] = 1e200;
    for (int i = 0; i < 4; i++)
        p.W_Q[0].data[i] = p.W_K[0].data[i] = p.W_V[0].data[i] = p.W_O.data[i] = 1.0;
    Trace t;
    TraceError err;
    CHECK(!trace_run(&t, &p, &err), "1e200 embeddings overflow");
    CHECK(err.stage == STAGE_SCORES && strstr(err.message, "scores") != NULL, "names the stage: %s",
          err.message);
    CHECK(t.head == NULL, "a failed trace is left empty");

    // Large but finite scaled scores: softmax still exact (max subtraction), no NaN.
    for (int i = 0; i < 4; i++) p.X.data[i] = p.S.data[i] = 1e100;
    p.W_K[0].data[0] = -1.0;
    for (int i = 0; i < 4; i++) p.W_Q[0].data[i] = 1e-90;
    CHECK(trace_run(&t, &p, &err), "large finite scores are fine: %s", err.message);
    if (t.head) {
        CHECK(mat_all_finite(&t.head[0].weights, false), "weights finite");
        trace_free(&t);
    }
    params_free(&p);
}

static void test_stage_names(void)
{
    CHECK(strcmp(stage_key(STAGE_SOFTMAX), "softmax") == 0, "softmax key");
    CHECK(strcmp(stage_key(STAGE_SCALE), "scaled") == 0, "scale key");
    CHECK(strcmp(stage_key(STAGE_COUNT), "?") == 0 && strcmp(stage_key((Stage)-1), "?") == 0,
          "out of range: ?");
    for (int s = 0; s < STAGE_COUNT; s++) {
        const char *k = stage_key((Stage)s);
        bool plain = k[0] != '\0';
        for (const char *c = k; *c; c++) plain = plain && ((*c >= 'a' && *c <= 'z') || *c == '-');
        CHECK(plain, "stage %d's key '%s' is lower-case ASCII", s, k);
        for (int o = 0; o < s; o++)
            CHECK(strcmp(k, stage_key((Stage)o)) != 0, "stage %d's key '%s' is its own", s, k);
    }
}

// The table of weights: its rows are the matrices params_init made, in the trainable order, with
// their shapes.
static void test_param_table(void)
{
    AttnParams p;
    CHECK(params_init(&p, 3, 4, 5, 2, 3), "init");
    const Matrix *expect[] = {&p.W_Q[0], &p.W_K[0], &p.W_V[0], &p.b_Q[0], &p.b_K[0],
                              &p.b_V[0], &p.W_Q[1], &p.W_K[1], &p.W_V[1], &p.b_Q[1],
                              &p.b_K[1], &p.b_V[1], &p.W_O,    &p.b_O};
    Matrix *got[PARAM_COUNT * 2];
    int count = params_trainable(got, &p);
    CHECK(count == 14, "6 per head and 2 for the layer: %d", count);
    for (int i = 0; i < count && i < 14; i++)
        CHECK(got[i] == expect[i], "trainable %d in order", i);
    for (int i = 0; i < PARAM_COUNT; i++) {
        const Matrix *m = params_at(&p, i, PARAMS[i].per_head ? 1 : 0);
        CHECK(m->rows == params_dim(&p, PARAMS[i].rows)
                  && m->cols == params_dim(&p, PARAMS[i].cols),
              "%s is %dx%d", PARAMS[i].name, m->rows, m->cols);
        CHECK(PARAMS[i].bias == (m->rows == 1), "%s: a bias is one row", PARAMS[i].name);
    }
    CHECK(p.W_O.rows == 6 && p.W_O.cols == 5 && p.b_O.cols == 5, "W_O (h*d_k, d_model)");
    AttnParams q;
    p.W_K[1].data[4] = 2.5;
    p.b_O.data[2] = -1.0;
    CHECK(params_init(&q, 3, 4, 5, 2, 3), "init the copy");
    params_copy_weights(&q, &p);
    CHECK(q.W_K[1].data[4] == 2.5 && q.b_O.data[2] == -1.0, "params_copy_weights copies every row");
    params_free(&q);
    params_free(&p);
}

// Fills every weight of w (shape s) with numbers of its own: k picks which.
static void fill_weights(LayerWeights *w, LayerShape s, double k)
{
    Matrix *all[PARAM_COUNT * 4];
    int count = layer_weights_trainable(all, w, s);
    for (int i = 0; i < count; i++)
        for (int j = 0; j < all[i]->rows * all[i]->cols; j++)
            all[i]->data[j] = sin(k * (i + 1) + 0.37 * j) / 2;
}

static bool same_bits(const Matrix *a, const Matrix *b)
{
    return a->rows == b->rows && a->cols == b->cols
           && !memcmp(a->data, b->data, sizeof(double) * (size_t)a->rows * (size_t)a->cols);
}

// A stack of two layers' weights (grouped K/V heads): each allocated, copied, swapped and freed on
// its own; a trace through a layer's weights and a request is the trace of params holding them.
static void test_layer_weights(void)
{
    LayerShape s = {.d_model = 6, .heads = 4, .kv_heads = 2, .d_k = 3};
    LayerWeights stack[2], copy;
    CHECK(layer_weights_init(&stack[0], s) && layer_weights_init(&stack[1], s), "two layers");
    CHECK(stack[0].W_K[0].data == stack[0].W_K[1].data
              && stack[0].W_K[1].data != stack[0].W_K[2].data,
          "the heads of a K/V group share their W_K");
    CHECK(layer_weights_count(s, 0) == 4 && layer_weights_count(s, 1) == 2
              && layer_weights_count(s, 6) == 1,
          "W_Q per head, W_K per K/V head, W_O one");
    CHECK(stack[0].W_O.rows == 12 && stack[0].W_O.cols == 6, "W_O (heads * d_k, d_model)");
    fill_weights(&stack[0], s, 1.0);
    fill_weights(&stack[1], s, 2.0);
    CHECK(layer_weights_copy(&copy, &stack[1], s), "copy");
    CHECK(same_bits(&copy.W_V[3], &stack[1].W_V[3]) && copy.W_V[3].data != stack[1].W_V[3].data
              && copy.W_V[2].data == copy.W_V[3].data,
          "a copy has numbers and groups of its own");
    double *was0 = stack[0].b_O.data, *was1 = stack[1].b_O.data;
    layer_weights_swap(&stack[0], &stack[1], s);
    CHECK(stack[0].b_O.data == was1 && stack[1].b_O.data == was0, "swapped storage");
    layer_weights_swap(&stack[0], &stack[1], s);

    AttnParams p, q;
    CHECK(params_init_grouped(&p, 3, 3, 6, 4, 2, 3), "params");
    for (int i = 0; i < 18; i++) p.X.data[i] = p.S.data[i] = cos(0.5 * i);
    fill_weights(&p.w, s, 3.0);
    p.req.ablated = 1; // p's own request, not the one given below
    AttnRequest req = {.ablated = 2};
    CHECK(params_copy(&q, &p), "params copy");
    layer_weights_copy_values(&q.w, &stack[1], s);
    q.req = req;
    Trace a, b;
    TraceError err;
    bool ok = trace_run_layer(&a, &p, &stack[1], &req, &err);
    CHECK(ok, "trace through layer 1: %s", err.message);
    CHECK(trace_run(&b, &q, &err), "trace of params holding it: %s", err.message);
    if (ok) {
        CHECK(same_bits(&a.output, &b.output) && same_bits(&a.full_output, &b.full_output)
                  && same_bits(&a.head[3].Z, &b.head[3].Z),
              "the same bits: the weights and the request given are the ones read");
        trace_free(&a);
    }
    trace_free(&b);
    params_free(&q);
    params_free(&p);
    layer_weights_free(&copy, s);
    for (int l = 0; l < 2; l++) layer_weights_free(&stack[l], s);
}

// Issue 14: positions, the scale, the entropy, ablation and the shuffle, on small hand-checked
// cases.
static void test_positions(void)
{
    Matrix P;
    CHECK(mat_init(&P, 3, 5), "alloc");
    positions_sinusoidal(&P);
    // Position 0: sin 0 = 0 and cos 0 = 1 alternate; the odd last column (4) takes the sine.
    CHECK(mat_get(&P, 0, 0) == 0.0 && mat_get(&P, 0, 1) == 1.0 && mat_get(&P, 0, 4) == 0.0,
          "position 0");
    CHECK(mat_get(&P, 1, 0) == sin(1.0) && mat_get(&P, 1, 1) == cos(1.0),
          "position 1, i = 0: sin 1, cos 1");
    double a = 2.0 / pow(10000.0, 2.0 / 5.0);
    CHECK(fabs(mat_get(&P, 2, 2) - sin(a)) < 1e-15 && fabs(mat_get(&P, 2, 3) - cos(a)) < 1e-15,
          "position 2, i = 1");
    double b = 2.0 / pow(10000.0, 4.0 / 5.0);
    CHECK(fabs(mat_get(&P, 2, 4) - sin(b)) < 1e-15, "odd last column: sin, got %g",
          mat_get(&P, 2, 4));
    mat_free(&P);

    AttnParams p;
    CHECK(params_init(&p, 3, 3, 2, 1, 2), "params");
    for (int i = 0; i < 3; i++)
        mat_set(&p.X, i, 0, 10.0 * (i + 1)), mat_set(&p.S, i, 0, 10.0 * (i + 1));
    CHECK(params_set_positions(&p, POS_SINUSOIDAL), "positions");
    CHECK(p.positions == POS_SINUSOIDAL && mat_get(&p.E, 2, 0) == 30.0, "E keeps the embeddings");
    CHECK(mat_get(&p.X, 2, 0) == 30.0 + sin(2.0) && mat_get(&p.X, 2, 1) == cos(2.0), "X = E + P");
    CHECK(mat_get(&p.S, 2, 0) == mat_get(&p.X, 2, 0), "self-attention: S is X");
    // The shuffle moves E with its tokens and leaves P in place.
    AttnParams q;
    int perm[3] = {2, 0, 1};
    CHECK(params_shuffle(&q, &p, perm), "shuffle");
    CHECK(mat_get(&q.E, 0, 0) == 30.0 && mat_get(&q.X, 0, 0) == 30.0 + 0.0,
          "token 2 at position 0: 30 + sin 0");
    CHECK(mat_get(&q.X, 1, 0) == 10.0 + sin(1.0) && mat_get(&q.P, 1, 0) == sin(1.0),
          "positions stay");
    CHECK(mat_get(&q.S, 1, 0) == mat_get(&q.X, 1, 0), "shuffled S is X");
    AttnParams c;
    CHECK(params_copy(&c, &q), "copy");
    CHECK(c.positions == POS_SINUSOIDAL && mat_max_abs_diff(&c.P, &q.P) == 0.0
              && mat_max_abs_diff(&c.E, &q.E) == 0.0,
          "params_copy copies the positions");
    params_free(&c);
    params_free(&q);
    params_free(&p);
}

static void test_scale_entropy_ablation(void)
{
    AttnParams p;
    CHECK(params_init(&p, 3, 3, 4, 2, 2), "params");
    fill_random(&p, 14);
    memcpy(p.S.data, p.X.data, sizeof(double) * 12); // self-attention: S is X
    Trace base, t;
    TraceError terr;
    CHECK(trace_run(&base, &p, &terr), "trace");
    CHECK(params_scale(&p) == 1.0 / sqrt(2.0), "default scale 1/sqrt(d_k)");
    p.scale = 0.25;
    CHECK(trace_run(&t, &p, &terr), "scaled trace");
    CHECK(mat_get(&t.head[1].scaled, 2, 1) == mat_get(&t.head[1].scores, 2, 1) * 0.25,
          "scaled = scores * scale");
    // Entropy: the weights' own -sum w log2 w; a larger scale makes the rows sharper (lower
    // entropy).
    double h = 0.0;
    for (int j = 0; j < 3; j++)
        h -= mat_get(&t.head[0].weights, 1, j) * log2(mat_get(&t.head[0].weights, 1, j));
    CHECK(fabs(mat_get(&t.head[0].entropy, 1, 0) - h) < 1e-15, "entropy of row 1");
    trace_free(&t);
    p.scale = 1e-300; // all scores 0: uniform rows, log2(3) bits
    CHECK(trace_run(&t, &p, &terr), "tiny scale");
    CHECK(fabs(mat_get(&t.head[0].entropy, 0, 0) - log2(3.0)) < 1e-12,
          "uniform row: log2 3 bits, got %.17g", mat_get(&t.head[0].entropy, 0, 0));
    trace_free(&t);
    p.scale = 1e300; // the rows go one-hot: 0 bits
    CHECK(trace_run(&t, &p, &terr), "huge scale");
    CHECK(mat_get(&t.head[1].entropy, 2, 0) == 0.0, "one-hot row: 0 bits, got %g",
          mat_get(&t.head[1].entropy, 2, 0));
    trace_free(&t);
    p.scale = 1e308; // scores beyond 1.8 overflow: a named error, not NaN weights
    CHECK(!trace_run(&t, &p, &terr) && terr.stage == STAGE_SCALE,
          "a huge scale overflows at the scaling: %s", terr.message);
    p.scale = 0;

    p.ablated = 1u << 1;
    CHECK(trace_run(&t, &p, &terr), "ablated trace");
    CHECK(mat_max_abs_diff(&t.head[1].Z, &base.head[1].Z) == 0.0,
          "the ablated head's own Z is still computed");
    bool zeros = true, kept = true;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 2; c++) {
            zeros = zeros && mat_get(&t.concat, r, 2 + c) == 0.0;
            kept = kept && mat_get(&t.concat, r, c) == mat_get(&base.concat, r, c);
        }
    CHECK(zeros && kept, "head 1's columns of the concat are zeros, head 0's kept");
    CHECK(mat_max_abs_diff(&t.full_output, &base.output) == 0.0,
          "full_output is the unablated output");
    // Output with head 1 off = Z_0 W_O[0:2] + b_O.
    double want = 0.0;
    for (int k = 0; k < 2; k++) want += mat_get(&base.head[0].Z, 1, k) * mat_get(&p.W_O, k, 3);
    want += mat_get(&p.b_O, 0, 3);
    CHECK(fabs(mat_get(&t.output, 1, 3) - want) < 1e-14, "ablated output = Z_0 W_O's first rows");
    CHECK(base.full_output.data == NULL, "no full_output without ablation");
    trace_free(&t);

    // The shuffle without positions only reorders the output rows.
    AttnParams q;
    int perm[3] = {1, 2, 0};
    p.ablated = 0;
    CHECK(params_shuffle(&q, &p, perm), "shuffle");
    CHECK(trace_run(&t, &q, &terr), "shuffled trace");
    double d = trace_shuffle_difference(&base, &t, perm);
    CHECK(d < 1e-14 && trace_shuffle_same(&base, d), "without positions the rows only move: %g", d);
    trace_free(&t);
    params_free(&q);
    // With positions they change.
    CHECK(params_set_positions(&p, POS_SINUSOIDAL), "positions");
    Trace pb;
    CHECK(trace_run(&pb, &p, &terr), "trace with positions");
    CHECK(params_shuffle(&q, &p, perm), "shuffle with positions");
    CHECK(trace_run(&t, &q, &terr), "shuffled trace with positions");
    d = trace_shuffle_difference(&pb, &t, perm);
    CHECK(d > 1e-6 && !trace_shuffle_same(&pb, d), "with positions the rows change: %g", d);
    trace_free(&t);
    trace_free(&pb);
    params_free(&q);
    trace_free(&base);
    params_free(&p);
}

int main(void)
{
    test_reference();
    test_formulas_with_bias_and_cross();
    test_causal();
    test_overflow_named();
    test_stage_names();
    test_param_table();
    test_layer_weights();
    test_positions();
    test_scale_entropy_ablation();
    return check_report("test_trace");
}
