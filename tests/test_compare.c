// Tests the single-head comparison: the single head's Q is the heads' Q side by side, its scores
// are the sum of the heads' scores (before scaling), its cost is the same, and its output is not;
// and every sentence
// --compare prints about them, against the numbers (RoPE, grouped K/V heads, the window,
// switched-off heads).
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <string.h>

#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "app/cli.h"
#include "core/compare.h"
#include "core/rng.h"
#include "lesson/lesson.h"

// Largest |single - [parts side by side]| over (rows, h·d_k).
static double diff_joined(const Matrix *single, const Matrix *const *parts, int heads)
{
    double worst = 0.0;
    for (int i = 0; i < heads; i++) {
        const Matrix *p = parts[i];
        for (int r = 0; r < p->rows; r++)
            for (int c = 0; c < p->cols; c++) {
                double d = fabs(mat_get(single, r, i * p->cols + c) - mat_get(p, r, c));
                if (!(d <= worst)) worst = d;
            }
    }
    return worst;
}

// Checks every claim of compare.h for params p; name labels the failures.
static void check_comparison(const char *name, const AttnParams *p)
{
    Trace multi;
    TraceError terr;
    bool ok = trace_run(&multi, p, &terr);
    CHECK(ok, "%s: multi-head trace: %s", name, terr.message);
    if (!ok) return;
    Comparison c;
    ok = compare_run(&c, p, &terr);
    CHECK(ok, "%s: single-head trace: %s", name, terr.message);
    if (!ok) {
        trace_free(&multi);
        return;
    }
    const AttnParams *s = &c.single;
    int h = p->heads;
    CHECK(s->heads == 1 && s->d_k == h * p->d_k, "%s: single head d_k %d", name, s->d_k);
    CHECK(s->W_Q[0].rows == p->d_model && s->W_Q[0].cols == h * p->d_k, "%s: W_Q shape", name);
    CHECK(mat_max_abs_diff(&s->W_O, &p->W_O) == 0.0, "%s: same W_O", name);
    CHECK(s->mask == p->mask && s->cross == p->cross, "%s: same mask and kind", name);

    const Matrix *parts[LESSON_MAX_HEADS] = {0};
    if (h > LESSON_MAX_HEADS) h = LESSON_MAX_HEADS;
    for (int i = 0; i < h; i++) parts[i] = &p->W_Q[i];
    CHECK(diff_joined(&s->W_Q[0], parts, h) == 0.0, "%s: W_Q is the heads' W_Q side by side", name);
    for (int i = 0; i < h; i++) parts[i] = &p->b_V[i];
    CHECK(diff_joined(&s->b_V[0], parts, h) == 0.0, "%s: b_V is the heads' b_V side by side", name);

    const HeadTrace *one = &c.trace.head[0];
    const char *keys[] = {"Q", "K", "V"};
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < h; i++)
            parts[i] = k == 0 ? &multi.head[i].Q : k == 1 ? &multi.head[i].K : &multi.head[i].V;
        const Matrix *mine = k == 0 ? &one->Q : k == 1 ? &one->K : &one->V;
        double d = diff_joined(mine, parts, h);
        CHECK(d <= 1e-12, "%s: single %s differs from the heads' %s side by side by %g", name,
              keys[k], keys[k], d);
    }

    // scores (n, m) = Q K^T = sum over heads of Q_i K_i^T.
    double worst = 0.0;
    for (int r = 0; r < p->n; r++)
        for (int col = 0; col < p->m; col++) {
            double sum = 0.0;
            for (int i = 0; i < h; i++) sum += mat_get(&multi.head[i].scores, r, col);
            double d = fabs(sum - mat_get(&one->scores, r, col));
            if (!(d <= worst)) worst = d;
        }
    CHECK(worst <= 1e-12, "%s: single scores differ from the sum of the heads' scores by %g", name,
          worst);
    printf("%s: largest |single scores - sum of head scores| = %g\n", name, worst);

    // The same cost, other patterns.
    CHECK(c.cost_one.projection_weights == c.cost_multi.projection_weights, "%s: same weights",
          name);
    CHECK(c.cost_one.score_multiplications == c.cost_multi.score_multiplications,
          "%s: same multiplications", name);
    CHECK(c.cost_one.attention_matrices == 1 && c.cost_multi.attention_matrices == h,
          "%s: matrix counts", name);
    double out_diff = mat_max_abs_diff(&c.trace.output, &multi.output);
    CHECK(out_diff > 1e-6,
          "%s: single-head output should differ from the multi-head output (diff %g)", name,
          out_diff);
    printf("%s: largest |single output - multi-head output| = %g\n", name, out_diff);
    // The single head is still a full attention: its rows sum to 1.
    for (int r = 0; r < p->n; r++) {
        double sum = 0.0;
        for (int col = 0; col < p->m; col++) sum += mat_get(&one->weights, r, col);
        CHECK(fabs(sum - 1.0) <= 1e-12, "%s: single-head row %d sums to %g", name, r, sum);
    }
    compare_free(&c);
    trace_free(&multi);
}

static void test_cat_lesson(void)
{
    Lesson l;
    LessonError err;
    bool ok = lesson_load(&l, MHA_SOURCE_DIR "/lessons/the-cat-sat.json", &err);
    CHECK(ok, "cat lesson loads: %s", err.message);
    if (!ok) return;
    check_comparison("the-cat-sat", &l.params);
    lesson_free(&l);
}

static void fill(Rng *rng, Matrix *m, double std)
{
    rng_normal_fill(rng, 0.0, std, m->data, (size_t)m->rows * (size_t)m->cols);
}

// A random lesson with 3 heads, biases everywhere and (when cross) a 4-token source.
static void test_random(bool cross, MaskKind mask)
{
    int n = 5, m = cross ? 4 : 5, d_model = 6, heads = 3, d_k = 2;
    AttnParams p;
    bool ok = params_init(&p, n, m, d_model, heads, d_k);
    CHECK(ok, "params_init");
    if (!ok) return;
    Rng rng;
    rng_seed(&rng, cross ? 7 : 3);
    p.cross = cross;
    p.mask = mask;
    fill(&rng, &p.X, 1.0);
    if (cross) fill(&rng, &p.S, 1.0);
    else memcpy(p.S.data, p.X.data, (size_t)n * (size_t)d_model * sizeof(double));
    for (int i = 0; i < heads; i++) {
        fill(&rng, &p.W_Q[i], 1.0);
        fill(&rng, &p.W_K[i], 1.0);
        fill(&rng, &p.W_V[i], 1.0);
        fill(&rng, &p.b_Q[i], 0.5);
        fill(&rng, &p.b_K[i], 0.5);
        fill(&rng, &p.b_V[i], 0.5);
    }
    fill(&rng, &p.W_O, 0.5);
    fill(&rng, &p.b_O, 0.5);
    check_comparison(cross                 ? "random 3 heads, cross"
                     : mask == MASK_CAUSAL ? "random 3 heads, causal"
                                           : "random 3 heads",
                     &p);
    params_free(&p);
}

// A lesson whose d_k is given (h·d_k != d_model): the single head still holds h·d_k columns.
static void test_explicit_d_k(void)
{
    static const char text[] =
        "{\"title\": \"d_k given\", \"sentence\": \"one two three four\", \"d_model\": 4,"
        " \"embeddings\": {\"random\": {\"seed\": 5}}, \"heads\": 3, \"d_k\": 3,"
        " \"weights\": {\"random\": {\"seed\": 9, \"qkv_std\": 0.5, \"out_std\": 0.5}}}";
    Lesson l;
    LessonError err;
    bool ok = lesson_parse(&l, text, sizeof text - 1, "<test>", &err);
    CHECK(ok, "d_k lesson parses: %s", err.message);
    if (!ok) return;
    check_comparison("explicit d_k 3 x 3", &l.params);
    lesson_free(&l);
}

static void test_error_names_single_head(void)
{
    // Each head's scores stay finite, their sum does not: only the single head overflows.
    AttnParams p;
    bool ok = params_init(&p, 1, 1, 2, 2, 1);
    CHECK(ok, "params_init");
    if (!ok) return;
    p.X.data[0] = p.X.data[1] = p.S.data[0] = p.S.data[1] = 1.0;
    for (int i = 0; i < 2; i++) {
        // Q_i = K_i = 1.2e154: Q_i K_i^T = 1.44e308 (finite), the sum of two is inf.
        p.W_Q[i].data[i] = 1.2e154;
        p.W_K[i].data[i] = 1.2e154;
        p.W_V[i].data[i] = 1.0;
    }
    Trace multi;
    TraceError terr;
    ok = trace_run(&multi, &p, &terr);
    CHECK(ok, "each head alone is finite: %s", terr.message);
    if (ok) trace_free(&multi);
    Comparison c;
    ok = compare_run(&c, &p, &terr);
    CHECK(!ok, "the single head overflows");
    CHECK(strstr(terr.message, "single head") != NULL && strstr(terr.message, "scores") != NULL,
          "message: %s", terr.message);
    if (ok) compare_free(&c);
    params_free(&p);
}

// The sentence on the weights, with its sizes, against the single head's matrices: W_Q the heads'
// side by side; W_K and W_V the K/V heads' each repeated for its query heads (grouped), or the
// heads' side by side; W_O the same.
static void check_weights_sentence(const char *name, const char *text, const AttnParams *p,
                                   const Comparison *c)
{
    int h = p->heads, kv = p->kv_heads > 0 ? p->kv_heads : h;
    char want[512];
    if (kv == h)
        snprintf(want, sizeof want,
                 "The single head's W_Q, W_K and W_V (%d\xc3\x97%d) are the %d heads' joined side "
                 "by side; "
                 "W_O is the same.\n",
                 p->d_model, h * p->d_k, h);
    else
        snprintf(want, sizeof want,
                 "The single head's W_Q (%d\xc3\x97%d) is the %d heads' joined side by side; its "
                 "W_K and W_V "
                 "repeat each of the %d K/V heads' for the %d query heads that share it; W_O is "
                 "the same.\n",
                 p->d_model, h * p->d_k, h, kv, h / kv);
    CHECK(strstr(text, want) != NULL, "%s: %s", name, want);
    const AttnParams *s = &c->single;
    double worst = 0.0;
    for (int i = 0; i < h; i++) {
        int g = params_kv_head(p, i),
            first = g * (h / kv); // the group's matrices, held by its first head
        for (int r = 0; r < p->d_model; r++)
            for (int k = 0; k < p->d_k; k++) {
                worst = fmax(worst, fabs(mat_get(&s->W_Q[0], r, i * p->d_k + k)
                                         - mat_get(&p->W_Q[i], r, k)));
                worst = fmax(worst, fabs(mat_get(&s->W_K[0], r, i * p->d_k + k)
                                         - mat_get(&p->W_K[first], r, k)));
                worst = fmax(worst, fabs(mat_get(&s->W_V[0], r, i * p->d_k + k)
                                         - mat_get(&p->W_V[first], r, k)));
            }
    }
    CHECK(worst == 0.0 && mat_max_abs_diff(&s->W_O, &p->W_O) == 0.0,
          "%s: the single head's weights are the heads' (K/V heads' repeated): %g", name, worst);
}

// With RoPE: "each head's d_k columns of the single head turn as that head's do": the single head's
// rotated Q and K are the heads' rotated Q and K side by side.
static void check_rope_sentence(const char *name, const char *text, const AttnParams *p,
                                const Trace *t, const Comparison *c)
{
    char want[256];
    snprintf(
        want, sizeof want,
        "With RoPE each head's %d columns of the single head turn as that head's do, not as one "
        "head of d_k = %d would turn them.\n",
        p->d_k, p->heads * p->d_k);
    CHECK((strstr(text, want) != NULL) == (p->rope != ROPE_NONE), "%s: %s", name, want);
    if (p->rope == ROPE_NONE) return;
    const HeadTrace *one = &c->trace.head[0];
    double worst = 0.0;
    for (int i = 0; i < p->heads; i++)
        for (int r = 0; r < p->n; r++)
            for (int k = 0; k < p->d_k; k++) {
                worst = fmax(worst, fabs(mat_get(&one->Q_rot, r, i * p->d_k + k)
                                         - mat_get(&t->head[i].Q_rot, r, k)));
                worst = fmax(worst, fabs(mat_get(&one->K_rot, r, i * p->d_k + k)
                                         - mat_get(&t->head[i].K_rot, r, k)));
            }
    CHECK(worst <= 1e-12,
          "%s: the single head's rotated Q, K differ from the heads' side by side by %g", name,
          worst);
}

// "Both use the causal mask (with the window of W)": the single head's masked cells (-inf) are
// every head's.
static void check_mask_sentence(const char *name, const char *text, const AttnParams *p,
                                const Trace *t, const Comparison *c)
{
    bool said = strstr(text, "Both use the causal mask") != NULL;
    CHECK(said == (p->mask == MASK_CAUSAL), "%s: the mask said %d", name, said);
    int differ = 0, masked = 0;
    for (int i = 0; i < p->heads; i++)
        for (int r = 0; r < p->n; r++)
            for (int col = 0; col < p->m; col++) {
                bool a = isinf(mat_get(&c->trace.head[0].scaled, r, col)),
                     b = isinf(mat_get(&t->head[i].scaled, r, col));
                differ += a != b;
                masked += a;
            }
    CHECK(differ == 0, "%s: %d cells masked in one and not the other", name, differ);
    CHECK((masked > 0) == (p->mask == MASK_CAUSAL), "%s: %d masked cells", name, masked);
    const char *heading = p->mask != MASK_CAUSAL ? "==== Attention weights ====\n"
                          : p->window > 0        ? NULL
                                                 : "==== Attention weights (causal mask) ====\n";
    char want[128];
    if (!heading) {
        snprintf(want, sizeof want, "==== Attention weights (causal mask, window %d) ====\n",
                 p->window);
        heading = want;
    }
    CHECK(strstr(text, heading) != NULL, "%s: %s", name, heading);
}

// "The split changes the patterns": some head's weights are not the single head's. With heads
// switched off, "zeros in the heads' concatenation only": their columns of the concat are 0, the
// single head's Z is not.
static void check_pattern_sentences(const char *name, const char *text, const AttnParams *p,
                                    const Trace *t, const Comparison *c)
{
    CHECK(strstr(text, "The split changes the patterns") != NULL, "%s: the patterns' sentence",
          name);
    double most = 0.0;
    for (int i = 0; i < p->heads; i++)
        most = fmax(most, mat_max_abs_diff(&c->trace.head[0].weights, &t->head[i].weights));
    CHECK(most > 1e-6, "%s: the patterns differ (by up to %g)", name, most);
    if (!p->ablated) return;
    double off = 0.0, kept = 0.0;
    for (int i = 0; i < p->heads; i++) {
        if (!params_ablated(p, i)) continue;
        for (int r = 0; r < p->n; r++)
            for (int k = 0; k < p->d_k; k++) {
                off = fmax(off, fabs(mat_get(&t->concat, r, i * p->d_k + k)));
                kept = fmax(kept, fabs(mat_get(&c->trace.head[0].Z, r, i * p->d_k + k)));
            }
    }
    CHECK(off == 0.0 && kept > 0.0,
          "%s: switched-off heads: concat %g, the single head's columns %g", name, off, kept);
}

// A one-head lesson: "nothing to split, and both sides are the same": the same weights and output,
// bit for bit.
static void test_one_head(void)
{
    static const char json[] = "{\"title\": \"one\", \"tokens\": [\"a\", \"b\", \"c\"], "
                               "\"d_model\": 4, \"heads\": 1, \"mask\": \"causal\", "
                               "\"window\": 2, \"rope\": true, \"embeddings\": {\"random\": "
                               "{\"seed\": 3}}, \"weights\": {\"random\": {\"seed\": 4}}}";
    Lesson l;
    LessonError err;
    Trace t;
    Comparison c;
    TraceError terr;
    if (!lesson_parse(&l, json, strlen(json), "one.json", &err)) {
        CHECK(false, "one head: %s", err.message);
        return;
    }
    if (trace_run(&t, &l.params, &terr) && compare_run(&c, &l.params, &terr)) {
        FILE *out = tmpfile();
        char text[16384] = "";
        if (out) {
            cli_print_compare(out, &l, &t, &c);
            rewind(out);
            text[fread(text, 1, sizeof text - 1, out)] = '\0';
            fclose(out);
        }
        CHECK(
            strstr(
                text,
                "The lesson has one head: there is nothing to split, and both sides are the same.")
                != NULL,
            "one head: the sentence");
        CHECK(mat_max_abs_diff(&c.trace.head[0].weights, &t.head[0].weights) == 0.0
                  && mat_max_abs_diff(&c.trace.output, &t.output) == 0.0,
              "one head: the same weights and output");
        compare_free(&c);
        trace_free(&t);
    } else CHECK(false, "one head traces: %s", terr.message);
    lesson_free(&l);
}

// Issue 39, item 4: every sentence --compare prints about the single head, against the numbers:
// RoPE (both pairings), grouped K/V heads, the window and switched-off heads included. The red
// team's RoPE lesson was told "its scores are the sum of the heads' scores" while they differed by
// up to 0.988.
static void check_sentences(const char *name, Lesson *l)
{
    Trace t;
    Comparison c;
    TraceError terr;
    const AttnParams *p = &l->params;
    if (!trace_run(&t, p, &terr) || !compare_run(&c, p, &terr)) {
        CHECK(false, "%s: traces: %s", name, terr.message);
        return;
    }
    // tmpfile, not open_memstream: this test also runs as a Windows build under Wine.
    FILE *out = tmpfile();
    if (!out) {
        CHECK(false, "%s: tmpfile", name);
        return;
    }
    cli_print_compare(out, l, &t, &c);
    long len = ftell(out);
    char *text = len >= 0 ? malloc((size_t)len + 1) : NULL;
    rewind(out);
    size_t got = text ? fread(text, 1, (size_t)len, out) : 0;
    fclose(out);
    if (!text) {
        CHECK(false, "%s: no memory for the text", name);
        return;
    }
    text[got] = '\0';
    int h = p->heads, kv = p->kv_heads > 0 ? p->kv_heads : h;
    char want[512];
    snprintf(want, sizeof want, "One head of d_k = %d against %d heads of d_k = %d.\n", h * p->d_k,
             h, p->d_k);
    CHECK(strstr(text, want) != NULL, "%s: %s", name, want);
    check_weights_sentence(name, text, p, &c);
    check_rope_sentence(name, text, p, &t, &c);
    check_mask_sentence(name, text, p, &t, &c);
    check_pattern_sentences(name, text, p, &t, &c);
    CHECK(c.single.d_k == h * p->d_k, "%s: the single head's d_k", name);
    double big, gap = cli_compare_score_gap(&t, &c, &big);
    // The single head is built so that the claim holds, RoPE and grouped heads included: rounding
    // only.
    CHECK(gap <= 1e-12 * big,
          "%s: the single head's scores differ from the sum of the heads' by %g", name, gap);
    snprintf(want, sizeof want,
             "Its scores are the sum of the heads' scores (largest difference %.1e: rounding).",
             gap);
    CHECK(strstr(text, want) != NULL, "%s: the scores' sentence with its number: %s", name, want);
    bool rope_said = strstr(text, "With RoPE each head's") != NULL;
    CHECK(rope_said == (p->rope != ROPE_NONE), "%s: RoPE said %d", name, rope_said);
    snprintf(want, sizeof want, "with the window of %d.", p->window);
    CHECK((strstr(text, want) != NULL) == (p->mask == MASK_CAUSAL && p->window > 0),
          "%s: the window", name);
    bool same_cost = c.cost_one.projection_weights == c.cost_multi.projection_weights
                     && c.cost_one.score_multiplications == c.cost_multi.score_multiplications;
    CHECK(same_cost == (kv == h), "%s: the cost is the same exactly without grouped K/V heads",
          name);
    CHECK((strstr(text, "not the cost.") != NULL) == same_cost,
          "%s: \"not the cost\" said where the cost differs", name);
    if (!same_cost) {
        snprintf(
            want, sizeof want,
            "and %d K/V head%s instead of %d make%s the heads cheaper: %lld projection weights "
            "against the single head's %lld.",
            kv, kv == 1 ? "" : "s", h, kv == 1 ? "s" : "",
            (long long)c.cost_multi.projection_weights, (long long)c.cost_one.projection_weights);
        CHECK(c.cost_multi.projection_weights < c.cost_one.projection_weights,
              "%s: the heads are cheaper", name);
        CHECK(strstr(text, want) != NULL, "%s: %s", name, want);
    }
    snprintf(want, sizeof want, "repeat each of the %d K/V heads'", kv);
    CHECK((strstr(text, want) != NULL) == (kv < h), "%s: the K/V heads' sentence", name);
    CHECK((strstr(text, "The heads switched off") != NULL) == (p->ablated != 0),
          "%s: the switched-off heads", name);
    // The cost rows are the cost table's, and the outputs' difference is the one printed.
    char line[256];
    snprintf(want, sizeof want, "%s\n", cost_format(line, sizeof line, &c.cost_one));
    CHECK(strstr(text, want) != NULL, "%s: the single head's cost row %s", name, want);
    snprintf(want, sizeof want, "%s\n", cost_format(line, sizeof line, &c.cost_multi));
    CHECK(strstr(text, want) != NULL, "%s: the heads' cost row %s", name, want);
    snprintf(want, sizeof want, "largest difference between the two outputs: %.4f\n",
             mat_max_abs_diff(&c.trace.output, &t.output));
    CHECK(strstr(text, want) != NULL, "%s: %s", name, want);
    free(text);
    compare_free(&c);
    trace_free(&t);
}

static void test_sentences(void)
{
    static const char *const files[] = {"llama-rope-gqa.json", "mistral-sliding-window.json",
                                        "two-heads-two-jobs.json", "the-cat-sat.json"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/lessons/%s", MHA_SOURCE_DIR, files[i]);
        Lesson l;
        LessonError err;
        CHECK(lesson_load(&l, path, &err), "%s: %s", files[i], err.message);
        check_sentences(files[i], &l);
        l.params.ablated = 1; // head 0 switched off
        check_sentences(files[i], &l);
        lesson_free(&l);
    }
    static const char interleaved[] =
        "{\"title\": \"t\", \"tokens\": [\"a\", \"b\", \"c\", \"d\", \"e\"], \"d_model\": 6, "
        "\"heads\": 4, "
        "\"kv_heads\": 2, \"d_k\": 4, \"mask\": \"causal\", \"window\": 2, \"rope\": {\"base\": "
        "50, \"pairs\": \"interleaved\"}, "
        "\"embeddings\": {\"random\": {\"seed\": 7, \"std\": 1.0}}, "
        "\"weights\": {\"random\": {\"seed\": 8, \"qkv_std\": 0.8, \"out_std\": 0.5}}}";
    Lesson l;
    LessonError err;
    CHECK(lesson_parse(&l, interleaved, strlen(interleaved), "interleaved.json", &err),
          "interleaved: %s", err.message);
    check_sentences("interleaved RoPE, kv_heads 2, window 2", &l);
    lesson_free(&l);
}

int main(void)
{
    test_sentences();
    test_one_head();
    test_cat_lesson();
    test_random(false, MASK_NONE);
    test_random(false, MASK_CAUSAL);
    test_random(true, MASK_NONE);
    test_explicit_d_k();
    test_error_names_single_head();
    return check_report("test_compare");
}
