// The table of stages: what each stage shows (its equations, heatmap and result), how it is written
// and explained, and the order in which its result is revealed.
#include "model/stages.h"
#include "hf/layer_stream.h"
#include "model/circuit_layer.h"
#include "model/explain.h"
#include "model/i18n.h"
#include "core/exactmath.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

#define TIMES "\xc3\x97"
#define SQRT "\xe2\x88\x9a"
#define DOT "\xc2\xb7"

// ---------------------------------------------------------------------------------------------------
// Building equations

static void term_mat(Equation *e, MatId m, int head, bool result)
{
    if (e->count >= TERM_MAX) return;
    Term *t = &e->t[e->count++];
    memset(t, 0, sizeof *t);
    t->mat = m;
    t->head = head;
    t->result = result;
}

static void term_op(Equation *e, const char *op)
{
    if (e->count >= TERM_MAX) return;
    Term *t = &e->t[e->count++];
    memset(t, 0, sizeof *t);
    t->mat = MAT_NONE;
    snprintf(t->op, sizeof t->op, "%s", op);
}

// R as the equation's result, then its caption: every equation's end. Returns 1 (the equation's
// row).
static int term_result(Equation *e, MatId r, int head, const char *caption)
{
    term_mat(e, r, head, true);
    snprintf(e->caption, sizeof e->caption, "%s", caption);
    return 1;
}

// "A op B = R"
static void binary(Equation *e, MatId a, const char *op, MatId b, MatId r, int head,
                   const char *caption)
{
    memset(e, 0, sizeof *e);
    term_mat(e, a, head, false);
    term_op(e, op);
    term_mat(e, b, head, false);
    term_op(e, "=");
    term_result(e, r, head, caption);
}

// A stage of one equation "A op B = R": how many rows it wrote (0 when there is no room).
static int binary_only(Equation *out, int max, MatId a, const char *op, MatId b, MatId r, int head,
                       const char *caption)
{
    if (max < 1) return 0;
    binary(out, a, op, b, r, head, caption);
    return 1;
}

static int eq_input(const AttnParams *p, int head, Equation *out, int max)
{
    if (max < 1) return 0;
    bool pos =
        p->positions != POS_NONE; // then the tokens' own embeddings E come first; X = E + P next
    memset(out, 0, sizeof *out);
    term_result(out, pos ? MAT_E : MAT_X, head,
                pos ? TR("the token embeddings E") : TR("the embeddings X"));
    if (!p->cross) return 1;
    if (max < 2) return 1;
    memset(&out[1], 0, sizeof out[1]);
    return 1
           + term_result(&out[1], pos ? MAT_ES : MAT_S, head,
                         pos ? TR("the source token embeddings") : TR("the source embeddings Y"));
}

// E + P = X (and E^Y + P^Y = Y for the source).
static int eq_positions(const AttnParams *p, int head, Equation *out, int max)
{
    int n = 0;
    if (n < max) binary(&out[n++], MAT_E, "+", MAT_P, MAT_X, head, TR("the embeddings X = E + P"));
    if (p->cross && n < max)
        binary(&out[n++], MAT_ES, "+", MAT_PS, MAT_S, head, TR("the source Y = E^Y + P^Y"));
    return n;
}

static int eq_project(const AttnParams *p, int head, Equation *out, int max)
{
    static const MatId w[3] = {MAT_WQ, MAT_WK, MAT_WV}, r[3] = {MAT_Q, MAT_K, MAT_V};
    static const char *const what[3] = {N_("the queries Q"), N_("the keys K"), N_("the values V")};
    int n = 0;
    for (int i = 0; i < 3 && n < max; i++, n++)
        binary(&out[n], (i == 0 || !p->cross) ? MAT_X : MAT_S, DOT, w[i], r[i], head, TR(what[i]));
    return n;
}

// RoPE(Q) = Q^R and RoPE(K) = K^R: every row turned pair by pair by its position's angles. With
// every position shifted by k (AttnParams.rope_shift, key S) the rows turn at p + k instead ("RoPE
// p+3"); their scores stand beside the scores at the next stage, and the footer says how far the
// two differ.
static int eq_rotate(const AttnParams *p, int head, Equation *out, int max)
{
    bool shift = p->rope_shift > 0;
    static const MatId from[2] = {MAT_Q, MAT_K}, to[2] = {MAT_QROT, MAT_KROT},
                       moved[2] = {MAT_QSHIFT, MAT_KSHIFT};
    static const char *const what[2] = {N_("the rotated queries"), N_("the rotated keys")};
    static const char *const what_moved[2] = {N_("the queries turned at p + k"),
                                              N_("the keys turned at p + k")};
    char op[24];
    if (shift) snprintf(op, sizeof op, "RoPE p+%d", p->rope_shift);
    else snprintf(op, sizeof op, "RoPE");
    int n = 0;
    for (int i = 0; i < 2 && n < max; i++, n++) {
        memset(&out[n], 0, sizeof out[n]);
        term_op(&out[n], op);
        term_mat(&out[n], from[i], head, false);
        term_op(&out[n], "=");
        term_mat(&out[n], shift ? moved[i] : to[i], head, true);
        snprintf(out[n].caption, sizeof out[n].caption, "%s", TR(shift ? what_moved[i] : what[i]));
    }
    return n;
}

// With the positions shifted (key S) the shifted scores stand beside the scores: the same numbers.
static int eq_scores(const AttnParams *p, int head, Equation *out, int max)
{
    bool rope = p->rope != ROPE_NONE;
    int n = binary_only(out, max, rope ? MAT_QROT : MAT_Q, DOT, rope ? MAT_KROT_T : MAT_KT,
                        MAT_SCORES, head, TR("the scores"));
    if (rope && p->rope_shift > 0 && n < max) {
        binary(&out[n], MAT_QSHIFT, DOT, MAT_KSHIFT_T, MAT_SCORES_SHIFT, head,
               TR("shifted by k: the same"));
        out[n++].t[4].result = false;
    }
    return n;
}

static int eq_scale(const AttnParams *p, int head, Equation *out, int max)
{
    if (max < 1) return 0;
    char op[24];
    if (p->scale > 0) {
        char num[32];
        model_format_value(p->scale, num, sizeof num);
        snprintf(op, sizeof op, TIMES " %s =", num);
    } else snprintf(op, sizeof op, "\xc3\xb7 " SQRT "%d =", p->d_k);
    memset(out, 0, sizeof *out);
    term_mat(out, MAT_SCORES, head, false);
    term_op(out, op);
    return term_result(out, MAT_SCALED, head, TR("the scaled scores"));
}

static int eq_mask(const AttnParams *p, int head, Equation *out, int max)
{
    (void)p;
    return binary_only(out, max, MAT_SCALED, "+", MAT_MASK, MAT_MASKED, head,
                       TR("the masked scores"));
}

static int eq_softmax(const AttnParams *p, int head, Equation *out, int max)
{
    if (max < 1) return 0;
    memset(out, 0, sizeof *out);
    term_op(out, "softmax");
    term_mat(out, p->mask == MASK_CAUSAL ? MAT_MASKED : MAT_SCALED, head, false);
    term_op(out, "=");
    return term_result(out, MAT_WEIGHTS, head, TR("the attention weights"));
}

static int eq_weighted(const AttnParams *p, int head, Equation *out, int max)
{
    (void)p;
    return binary_only(out, max, MAT_WEIGHTS, DOT, MAT_V, MAT_Z, head, TR("the head's output Z"));
}

// Every head's part, side by side: [Z₀ | Z₁ | …] = Concat.
static int eq_concat(const AttnParams *p, int head, Equation *out, int max)
{
    (void)head;
    if (max < 1) return 0;
    memset(out, 0, sizeof *out);
    int shown =
        p->heads <= 4 ? p->heads : 0; // with more, Concat alone: its column groups name the heads
    for (int i = 0; i < shown; i++) {
        if (i) term_op(out, "|");
        term_mat(out, MAT_Z, i, false);
    }
    if (shown) term_op(out, "=");
    return term_result(out, MAT_CONCAT, 0, TR("the heads joined"));
}

static int eq_output(const AttnParams *p, int head, Equation *out, int max)
{
    (void)head;
    if (max < 1) return 0;
    binary(out, MAT_CONCAT, DOT, MAT_WO, MAT_OUTPUT, 0, TR("the output"));
    if (max < 2 || !model_mat_present(p, MAT_OUTPUT_DIFF)) return 1;
    // Heads switched off: the output with every head, without them, and what they add, cell by
    // cell.
    binary(&out[1], MAT_OUTPUT_ALL, "\xe2\x88\x92", MAT_OUTPUT, MAT_OUTPUT_DIFF, 0,
           TR("what the heads switched off add"));
    out[1].t[4].result = false; // framed like a result, but the reveal fills Output only
    return 2;
}

// ---------------------------------------------------------------------------------------------------
// Formulas ('^' raises the character after it, or a group in parentheses) and explanations

static void head_sub(char *h, size_t cap, int head)
{
    h[0] = '\0';
    model_subscript(h, cap, head);
}
// The subscript of the keys and values head `head` reads: its K/V head's with grouped K/V heads
// ("₁" on head 2 of llama-rope-gqa), else its own (model_mat_head).
static void kv_sub(char *g, size_t cap, const AttnParams *p, int head)
{
    head_sub(g, cap, model_mat_head(p, MAT_K, head));
}

static void f_input(const AttnParams *p, int head, char *buf, size_t cap)
{
    (void)head;
    if (p->cross)
        snprintf(buf, cap,
                 TR("X (%d" TIMES "%d): the target, for the queries;  Y (%d" TIMES
                    "%d): the source, for the keys and values"),
                 p->n, p->d_model, p->m, p->d_model);
    else if (p->positions != POS_NONE)
        snprintf(buf, cap,
                 TRN("E = the embeddings of the %d token  (%d" TIMES "%d), before positions",
                     "E = the embeddings of the %d tokens  (%d" TIMES "%d), before positions",
                     p->n),
                 p->n, p->n, p->d_model);
    else
        snprintf(buf, cap,
                 TRN("X = the embeddings of the %d token  (%d" TIMES "%d: one row per token)",
                     "X = the embeddings of the %d tokens  (%d" TIMES "%d: one row per token)",
                     p->n),
                 p->n, p->n, p->d_model);
}
static void f_positions(const AttnParams *p, int head, char *buf, size_t cap)
{
    (void)head;
    if (p->cross) snprintf(buf, cap, "X = E + P,   Y = E^Y + P^Y");
    else if (p->positions == POS_SINUSOIDAL)
        snprintf(buf, cap, "%s", TR("X = E + P,   P = sin | cos of pos / 10000^(2i/d)"));
    else snprintf(buf, cap, "%s", TR("X = E + P   (the lesson's positions)"));
}
static void f_project(const AttnParams *p, int head, char *buf, size_t cap)
{
    char h[16];
    head_sub(h, sizeof h, head);
    const char *kv = p->cross ? "Y" : "X";
    if (p->kv_heads == p->heads) {
        snprintf(buf, cap, "Q%s = X W%s^Q,   K%s = %s W%s^K,   V%s = %s W%s^V", h, h, h, kv, h, h,
                 kv, h);
        return;
    }
    // Grouped-query: the keys and values are the K/V head's, shared by the query heads of its
    // group.
    int g = params_kv_head(p, head), per = p->heads / p->kv_heads;
    char gs[16];
    kv_sub(gs, sizeof gs, p, head);
    snprintf(buf, cap,
             TR("Q%s = X W%s^Q,  K%s = %s W%s^K,  V%s = %s W%s^V   (K/V head %d: heads "
                "%d\xe2\x80\x93%d)"),
             h, h, gs, kv, gs, gs, kv, gs, g, g * per, g * per + per - 1);
}
static void f_rotate(const AttnParams *p, int head, char *buf, size_t cap)
{
    char h[16], g[16];
    head_sub(h, sizeof h, head);
    kv_sub(g, sizeof g, p, head);
    char base[32];
    model_format_value(p->rope_base, base, sizeof base);
    const char *pairs = p->rope == ROPE_INTERLEAVED ? "(2j, 2j+1)" : "(j, j+d_k/2)";
    if (p->rope_shift > 0) // every position shifted (key S)
        snprintf(buf, cap,
                 TR("Q%s^(R+k), K%s^(R+k): row p turned by (p + %d)\xc2\xb7\xce\xb8_j in pair j,   "
                    "\xce\xb8_j = 1 / %s^(2j/%d),   pairs %s"),
                 h, g, p->rope_shift, base, p->d_k, pairs);
    else
        snprintf(buf, cap,
                 TR("Q%s^R, K%s^R: row p turned by p\xc2\xb7\xce\xb8_j in pair j,   \xce\xb8_j = 1 "
                    "/ %s^(2j/%d),   pairs %s"),
                 h, g, base, p->d_k, pairs);
}
// "R = A B" with the head's subscript on the first two letters and on B its K/V head's (B is K or
// V): "S₁ = Q₁ K₁^T", and with grouped K/V heads "S₂ = Q₂ K₁^T" on head 2 of 4 sharing 2.
static void three_of_head(const AttnParams *p, char *buf, size_t cap, int head, char r, char a,
                          char b, const char *after)
{
    char h[16], g[16];
    head_sub(h, sizeof h, head);
    kv_sub(g, sizeof g, p, head);
    snprintf(buf, cap, "%c%s = %c%s %c%s%s", r, h, a, h, b, g, after);
}
static void f_scores(const AttnParams *p, int head, char *buf, size_t cap)
{
    char h[16], g[16];
    head_sub(h, sizeof h, head);
    kv_sub(g, sizeof g, p, head);
    if (p->rope != ROPE_NONE && p->rope_shift > 0) // and every position shifted by k (key S)
        snprintf(buf, cap, "S%s = Q%s^R K%s^R^T,   S%s^(k) = Q%s^(R+k) K%s^(R+k)^T", h, h, g, h, h,
                 g);
    else if (p->rope != ROPE_NONE)
        snprintf(buf, cap, "S%s = Q%s^R K%s^R^T", h, h, g); // the rotated rows
    else three_of_head(p, buf, cap, head, 'S', 'Q', 'K', "^T");
}
static void f_scale(const AttnParams *p, int head, char *buf, size_t cap)
{
    char h[16];
    head_sub(h, sizeof h, head);
    if (p->scale > 0) {
        char num[32], def[32];
        model_format_value(p->scale, num, sizeof num);
        model_format_value(1.0 / sqrt((double)p->d_k), def, sizeof def);
        snprintf(
            buf, cap,
            TR("S\xe2\x80\xb2%s = S%s " TIMES " %s   (instead of 1/" SQRT "d_k = %s;  d_k = %d)"),
            h, h, num, def, p->d_k);
        return;
    }
    snprintf(buf, cap, "S\xe2\x80\xb2%s = S%s / " SQRT "d_k,   d_k = %d,   " SQRT "%d = %.4f", h, h,
             p->d_k, p->d_k, sqrt((double)p->d_k));
}
static void f_mask(const AttnParams *p, int head, char *buf, size_t cap)
{
    char h[16];
    head_sub(h, sizeof h, head);
    if (p->window > 0)
        snprintf(buf, cap,
                 TR("S\xe2\x80\xb2%s + M,   M = 0 for i \xe2\x88\x92 %d < j \xe2\x89\xa4 i (the "
                    "window), \xe2\x88\x92\xe2\x88\x9e elsewhere"),
                 h, p->window);
    else
        snprintf(buf, cap,
                 TR("S\xe2\x80\xb2%s + M,   M = \xe2\x88\x92\xe2\x88\x9e above the diagonal"), h);
}
static void f_softmax(const AttnParams *p, int head, char *buf, size_t cap)
{
    char h[16];
    head_sub(h, sizeof h, head);
    snprintf(buf, cap, TR("A%s = softmax(S\xe2\x80\xb2%s%s)   row by row"), h, h,
             p->mask == MASK_CAUSAL ? " + M" : "");
}
static void f_weighted(const AttnParams *p, int head, char *buf, size_t cap)
{
    three_of_head(p, buf, cap, head, 'Z', 'A', 'V', "");
}
static void f_concat(const AttnParams *p, int head, char *buf, size_t cap)
{
    (void)head;
    char last[16] = "";
    model_subscript(last, sizeof last, p->heads - 1);
    if (p->heads == 1)
        snprintf(buf, cap,
                 TR("Concat = Z\xe2\x82\x80   (one head: nothing to join;  %d" TIMES "%d)"), p->n,
                 p->d_k);
    else if (p->heads == 2)
        snprintf(buf, cap, "Concat = [Z\xe2\x82\x80 | Z\xe2\x82\x81]   (%d" TIMES "%d)", p->n,
                 2 * p->d_k);
    else
        snprintf(buf, cap,
                 "Concat = [Z\xe2\x82\x80 | Z\xe2\x82\x81 | \xe2\x80\xa6 | Z%s]   (%d" TIMES "%d)",
                 last, p->n, p->heads * p->d_k);
}
static void f_output(const AttnParams *p, int head, char *buf, size_t cap)
{
    (void)head;
    bool bias = false;
    for (int j = 0; j < p->b_O.cols; j++) bias = bias || mat_get(&p->b_O, 0, j) != 0.0;
    snprintf(buf, cap, "Output = Concat W^O%s", bias ? " + b^O" : "");
}

static void x_input(const AttnParams *p, char *buf, size_t cap)
{
    if (p->positions != POS_NONE && !p->cross) {
        snprintf(buf, cap,
                 TR("Each token enters as a row of d_model = %d numbers, its embedding E. The next "
                    "stage adds "
                    "each position's vector P: X = E + P is what every head reads."),
                 p->d_model);
        return;
    }
    if (p->cross) { // two counts: the source's tokens are a message of their own, in the target's
                    // sentence
        char source[128];
        snprintf(source, sizeof source,
                 TRN("the %d source token Y", "the %d source tokens Y", p->m), p->m);
        snprintf(buf, cap,
                 // TRANSLATORS: %s is "the %d source token(s) Y", a message of its own.
                 TRN("Cross-attention: the queries come from the %d target token X, the keys and "
                     "values from "
                     "%s. Each token is a row of d_model = %d numbers, its embedding.",
                     "Cross-attention: the queries come from the %d target tokens X, the keys and "
                     "values from "
                     "%s. Each token is a row of d_model = %d numbers, its embedding.",
                     p->n),
                 p->n, source, p->d_model);
    } else
        snprintf(buf, cap,
                 TR("Each token enters as a row of d_model = %d numbers, its embedding. Every head "
                    "reads "
                    "the same X."),
                 p->d_model);
}
static void x_positions(const AttnParams *p, char *buf, size_t cap)
{
    snprintf(buf, cap,
             TR("Attention itself cannot tell the order of the tokens: shuffle them and the rows "
                "only move. "
                "Adding a position vector P to each token's embedding E makes X = E + P differ "
                "with the place%s."),
             p->positions == POS_SINUSOIDAL ? TR(" (sines and cosines of slower and slower waves)")
                                            : "");
}
static void x_project(const AttnParams *p, char *buf, size_t cap)
{
    if (p->kv_heads < p->heads) { // grouped-query (multi-query with one K/V head)
        int per = p->heads / p->kv_heads;
        snprintf(buf, cap,
                 TRN("Grouped-query attention: each query head has its own W^Q, but the %d query "
                     "heads share "
                     "%d K/V head: every %d consecutive heads read the same W^K and W^V, so their "
                     "K and V are "
                     "the same numbers, and a model keeps fewer keys and values.",
                     "Grouped-query attention: each query head has its own W^Q, but the %d query "
                     "heads share "
                     "%d K/V heads: every %d consecutive heads read the same W^K and W^V, so their "
                     "K and V are "
                     "the same numbers, and a model keeps fewer keys and values.",
                     p->kv_heads),
                 p->heads, p->kv_heads, per);
        return;
    }
    snprintf(buf, cap,
             TRN("Each head has its own W^Q, W^K and W^V (%d " TIMES
                 " %d). They turn %s into that head's "
                 "queries Q, keys K and values V: d_k = %d number per token instead of %d.",
                 "Each head has its own W^Q, W^K and W^V (%d " TIMES
                 " %d). They turn %s into that head's "
                 "queries Q, keys K and values V: d_k = %d numbers per token instead of %d.",
                 p->d_k),
             p->d_model, p->d_k,
             p->cross ? TR("X into Q, and Y into K and V,") : TR("every row of X"), p->d_k,
             p->d_model);
}
static void x_rotate(const AttnParams *p, char *buf, size_t cap)
{
    snprintf(
        buf, cap,
        TR("RoPE turns each pair of a query's and a key's numbers by an angle that grows with the "
           "position: %d pairs, the first fast, the last slow. A score then depends on the two "
           "positions only "
           "through their distance: shift every position by the same amount and no score changes. "
           "V is not turned."),
        p->d_k / 2);
}
static void x_scores(const AttnParams *p, char *buf, size_t cap)
{
    snprintf(buf, cap,
             TR("A score is the dot product of a query row of Q and a key row of K: the larger it "
                "is, the "
                "better that query matches that key. Each head makes its own %d " TIMES
                " %d table."),
             p->n, p->m);
}
static void x_scale(const AttnParams *p, char *buf, size_t cap)
{
    if (p->scale > 0) {
        snprintf(buf, cap,
                 TR("The scores are multiplied by %.4g instead of divided by " SQRT
                    "%d: the larger "
                    "the scale, the further apart the scores, and the closer each softmax row "
                    "comes to one-hot."),
                 p->scale, p->d_k);
        return;
    }
    snprintf(buf, cap,
             TR("Dividing by " SQRT "d_k = " SQRT
                "%d keeps the scores in the same range whatever the head size, "
                "so the softmax that follows does not saturate. Same colour scale as the scores: "
                "the colours fade."),
             p->d_k);
}
static void x_mask(const AttnParams *p, char *buf, size_t cap)
{
    if (p->window == 1) {
        snprintf(buf, cap, "%s",
                 TR("A sliding window of 1: each token sees itself only. Every other score becomes "
                    "\xe2\x88\x92\xe2\x88\x9e, a weight of exactly 0."));
        return;
    }
    if (p->window > 1) {
        snprintf(buf, cap,
                 TRN("A sliding window: each token sees itself and the %d token before it, never a "
                     "later one. "
                     "Every score outside that band becomes \xe2\x88\x92\xe2\x88\x9e, a weight of "
                     "exactly 0.",
                     "A sliding window: each token sees itself and the %d tokens before it, never "
                     "a later one. "
                     "Every score outside that band becomes \xe2\x88\x92\xe2\x88\x9e, a weight of "
                     "exactly 0.",
                     p->window - 1),
                 p->window - 1);
        return;
    }
    snprintf(buf, cap, "%s",
             TR("In a decoder a token may not look at the tokens after it: the mask sets every "
                "score above "
                "the diagonal to \xe2\x88\x92\xe2\x88\x9e, which softmax turns into a weight of "
                "exactly 0."));
}
static void x_softmax(const AttnParams *p, char *buf, size_t cap)
{
    char most[32];
    model_format_value(p->m > 0 ? log2((double)p->m) : 0.0, most, sizeof most);
    snprintf(buf, cap,
             TR("Softmax turns each row into weights that are positive and sum to 1: how much each "
                "query "
                "attends to each key%s. Bits: the row's entropy, 0 when one key takes all, %s when "
                "all %d are alike."),
             p->mask == MASK_CAUSAL ? TR(" (masked keys get 0)") : "", most, p->m);
}
static void x_weighted(const AttnParams *p, char *buf, size_t cap)
{
    snprintf(buf, cap,
             TR("Each row of Z = A V is a mix of the value rows, weighted by that query's "
                "attention. Every "
                "head gives its own Z of %d " TIMES " %d."),
             p->n, p->d_k);
}
static void x_concat(const AttnParams *p, char *buf, size_t cap)
{
    if (p->heads == 1)
        snprintf(buf, cap,
                 TRN("With one head there is nothing to join: Concat is Z\xe2\x82\x80, %d number "
                     "per token.",
                     "With one head there is nothing to join: Concat is Z\xe2\x82\x80, %d numbers "
                     "per token.",
                     p->d_k),
                 p->d_k);
    else
        snprintf(buf, cap,
                 TR("The %d heads' outputs are joined side by side: %d blocks of d_k = %d numbers "
                    "make one row "
                    "of %d per token."),
                 p->heads, p->heads, p->d_k, p->heads * p->d_k);
}
static void x_output(const AttnParams *p, char *buf, size_t cap)
{
    snprintf(buf, cap,
             TR("W^O (%d " TIMES
                " %d) mixes the heads and returns a d_model-sized vector per token, so the "
                "residual Add & Norm and the next layer receive vectors of the size they expect."),
             p->heads * p->d_k, p->d_model);
}

// ---------------------------------------------------------------------------------------------------
// A checkpoint's layer (AttnParams.stream: --model in the window): the norm before the attention,
// the residual add after it, the next token.

static bool has_stream(const AttnParams *p) { return model_mat_present(p, MAT_STREAM); }
static bool has_norm(const AttnParams *p) { return model_mat_present(p, MAT_GAIN); }
static bool has_next(const AttnParams *p) { return model_mat_present(p, MAT_NEXT); }

// RMSNorm h ⊙ g = X, or LayerNorm h ⊙ g + b = X.
static int eq_norm_in(const AttnParams *p, int head, Equation *out, int max)
{
    if (max < 1) return 0;
    memset(out, 0, sizeof *out);
    bool layer = p->stream->norm == NORM_LAYER;
    term_op(out, layer ? "LayerNorm" : "RMSNorm");
    term_mat(out, MAT_STREAM, head, false);
    term_op(out, "\xe2\x8a\x99");
    term_mat(out, MAT_GAIN, head, false);
    if (layer) {
        term_op(out, "+");
        term_mat(out, MAT_SHIFT, head, false);
    }
    term_op(out, "=");
    return term_result(out, MAT_X, head, TR("the attention's input X"));
}

static int eq_residual(const AttnParams *p, int head, Equation *out, int max)
{
    (void)p;
    (void)head;
    return binary_only(out, max, MAT_STREAM, "+", MAT_OUTPUT, MAT_RESIDUAL, 0,
                       TR("the stream after the attention"));
}

static int eq_next(const AttnParams *p, int head, Equation *out, int max)
{
    (void)p;
    (void)head;
    if (max < 1) return 0;
    memset(out, 0, sizeof *out);
    return term_result(out, MAT_NEXT, 0, TR("the next token"));
}

static void f_norm_in(const AttnParams *p, int head, char *buf, size_t cap)
{
    (void)head;
    if (p->stream->norm == NORM_LAYER)
        snprintf(buf, cap,
                 "X = (h \xe2\x88\x92 \xce\xbc) / " SQRT
                 "(\xcf\x83^2 + \xce\xb5) \xe2\x8a\x99 g + b");
    else snprintf(buf, cap, "X = h / " SQRT "(mean(h^2) + \xce\xb5) \xe2\x8a\x99 g");
}

static void f_residual(const AttnParams *p, int head, char *buf, size_t cap)
{
    (void)head;
    if (circuit_layer_formula(p, STAGE_RESIDUAL, buf, cap)) return;
    snprintf(buf, cap, "h\xe2\x80\xb2 = h + Output");
}

static void f_next(const AttnParams *p, int head, char *buf, size_t cap)
{
    (void)head;
    if (circuit_layer_formula(p, STAGE_NEXT, buf, cap)) return;
    snprintf(buf, cap, "p = softmax(norm(h_last) W^U)");
}

static void x_norm_in(const AttnParams *p, char *buf, size_t cap)
{
    if (p->stream->norm == NORM_LAYER)
        snprintf(
            buf, cap,
            TR("Before the attention the residual stream h is normalized, row by row: minus its "
               "mean, "
               "divided by " SQRT
               "(variance + %g) over its %d numbers, times the learned weight g, plus the bias b "
               "(LayerNorm). That is X, what the projections read."),
            p->stream->eps, p->d_model);
    else
        snprintf(buf, cap,
                 TR("Before the attention the residual stream h is normalized, row by row: divided "
                    "by " SQRT "(mean square + %g) over its %d numbers, then times the learned "
                    "weight g (RMSNorm). That is X, "
                    "what the projections read."),
                 p->stream->eps, p->d_model);
}

static void x_residual(const AttnParams *p, char *buf, size_t cap)
{
    if (circuit_layer_explain(p, STAGE_RESIDUAL, buf, cap)) return;
    snprintf(buf, cap,
             TR("The attention's output is added to the stream it read (the residual connection): h"
                "\xe2\x80\xb2"
                " = h + Output, %d " TIMES " %d. The MLP and the next layers go on from there."),
             p->n, p->d_model);
}

static void x_next(const AttnParams *p, char *buf, size_t cap)
{
    if (circuit_layer_explain(p, STAGE_NEXT, buf, cap)) return;
    snprintf(buf, cap,
             TR("After every layer, the final norm and the unembedding turn each position's stream "
                "into a "
                "probability for every token of the vocabulary: the %d most probable next tokens "
                "at each position, most "
                "probable first (point at a cell: which token)."),
             p->stream->top);
}

bool model_stage_checkpoint_only(Stage s)
{
    return s == STAGE_NORM_IN || s == STAGE_RESIDUAL || s == STAGE_NEXT;
}

static bool is_causal(const AttnParams *p) { return p->mask == MASK_CAUSAL; }
static bool has_rope(const AttnParams *p) { return p->rope != ROPE_NONE; }
static bool has_positions(const AttnParams *p) { return p->positions != POS_NONE; }

// MAT_QROT, MAT_KROT, MAT_KROT_T (and the shifted MAT_QSHIFT, MAT_KSHIFT, MAT_KSHIFT_T, turned at p
// + k): the cell is one coordinate of a pair turned by its row's angle.
int explain_rotated(const CellText *ct, char lines[][256])
{
    const AttnParams *p = ct->p;
    MatId m = ct->c.mat;
    bool t = m == MAT_KROT_T || m == MAT_KSHIFT_T, q = m == MAT_QROT || m == MAT_QSHIFT;
    bool moved = m == MAT_QSHIFT || m == MAT_KSHIFT || m == MAT_KSHIFT_T; // turned at p + k (key S)
    int row = t ? ct->c.col : ct->c.row, col = t ? ct->c.row : ct->c.col, d_k = p->d_k,
        half = d_k / 2;
    int shift = moved ? p->rope_shift : 0, pos = row + shift;
    int j = p->rope == ROPE_INTERLEAVED ? col / 2 : col % half, a, b;
    attn_rope_pair(p->rope, d_k, j, &a, &b);
    const Matrix *x = q ? &ct->ht->Q : &ct->ht->K;
    double angle = (double)pos * attn_rope_theta(p->rope_base, &p->rope_scale, d_k, j),
           c = core_cos(angle), s = core_sin(angle);
    double xa = mat_get(x, row, a), xb = mat_get(x, row, b);
    char tok[96], base[32], an[32], cs[32], sn[32], va[32], vb[32];
    model_axis_label(ct->L, q ? AXIS_QUERY : AXIS_KEY, row, tok, sizeof tok);
    model_format_value(p->rope_base, base, sizeof base);
    model_format_value(angle, an, sizeof an);
    model_format_value(c, cs, sizeof cs);
    model_format_value(s, sn, sizeof sn);
    model_format_value(xa, va, sizeof va);
    model_format_value(xb, vb, sizeof vb);
    char L = q ? 'Q' : 'K';
    const char *R = moved ? "^(R+k)" : "^R";
    int n = 0;
    if (col == a)
        snprintf(lines[n++], 256,
                 "%c%s%s[%s, %d] = %c[%d] cos \xce\xb1 \xe2\x88\x92 %c[%d] sin \xce\xb1 = (%s)(%s) "
                 "\xe2\x88\x92 (%s)(%s) = %s",
                 L, q ? ct->hn : ct->kvn, R, tok, col, L, a, L, b, va, cs, vb, sn, ct->vs);
    else
        snprintf(
            lines[n++], 256,
            "%c%s%s[%s, %d] = %c[%d] sin \xce\xb1 + %c[%d] cos \xce\xb1 = (%s)(%s) + (%s)(%s) = %s",
            L, q ? ct->hn : ct->kvn, R, tok, col, L, a, L, b, va, sn, vb, cs, ct->vs);
    if (moved)
        snprintf(lines[n++], 256,
                 TR("pair %d = dimensions (%d, %d);   \xce\xb1 = position (%d + k = %d) \xc3\x97 "
                    "1/%s^(%d/%d) = %s rad (%.1f\xc2\xb0)"),
                 j, a, b, row, pos, base, 2 * j, d_k, an, fmod(angle * 57.29577951308232, 360.0));
    else
        snprintf(lines[n++], 256,
                 TR("pair %d = dimensions (%d, %d);   \xce\xb1 = position %d \xc3\x97 1/%s^(%d/%d) "
                    "= %s rad (%.1f\xc2\xb0)"),
                 j, a, b, pos, base, 2 * j, d_k, an, angle * 57.29577951308232);
    snprintf(
        lines[n++], 256, "%s",
        TR("the pair turns; its length stays: only the angle between a query and a key changes"));
    return n;
}

// ---------------------------------------------------------------------------------------------------
// The table

// One row per stage of STAGE_TABLE (core/stage_table.h, which gives the Stage value and its key):
// the model's part of the row names StageInfo's columns (.name, .title, .short_name, .heatmap,
// .results, .present, .equations, .formula, .explain: the functions above).
#define STAGE_ROW(stage_id, stage_key, row)                                                        \
    [stage_id] = {.stage = stage_id, .key = stage_key, STAGE_TABLE_COLS row},
#define STAGE_ROW_SHOWN(id, key, compute, row, mat) STAGE_ROW(id, key, row)
static const StageInfo STAGES[STAGE_COUNT] = {STAGE_TABLE(STAGE_ROW, STAGE_ROW_SHOWN)};
#undef STAGE_ROW_SHOWN
#undef STAGE_ROW

const StageInfo *stage_info(Stage s) { return (s >= 0 && s < STAGE_COUNT) ? &STAGES[s] : NULL; }

int model_stages(const AttnParams *p, Stage *out)
{
    int n = 0;
    for (int i = 0; i < STAGE_COUNT; i++)
        if (!STAGES[i].present || STAGES[i].present(p)) out[n++] = STAGES[i].stage;
    return n;
}

MatId model_stage_heatmap(const AttnParams *p, Stage s)
{
    (void)p; // every stage's heatmap is the same for every lesson today; p is there for stages that
             // differ
    const StageInfo *si = stage_info(s);
    return si ? si->heatmap : MAT_NONE;
}

// The heatmaps' names, accepted wherever a stage's key is: the stage that shows that heatmap.
static const struct {
    const char *name;
    Stage stage;
} STAGE_ALIASES[] = {{"weights", STAGE_SOFTMAX}, {"masked", STAGE_MASK}};
#define STAGE_ALIAS_COUNT (int)(sizeof STAGE_ALIASES / sizeof STAGE_ALIASES[0])

// What a stage's default slide shows: the matrix of its part (MAT_NONE: its first part) and the
// first row its worked cell may be in (the rotation turns nothing at position 0: its slide works
// out a cell at position 1).
static const struct {
    Stage stage;
    MatId mat;
    int first_row;
} SLIDE_MATS[] = {{STAGE_MASK, MAT_MASK, 0}, {STAGE_ROTATE, MAT_NONE, 1}};

int model_stage_slide_row(Stage s)
{
    for (size_t i = 0; i < sizeof SLIDE_MATS / sizeof SLIDE_MATS[0]; i++)
        if (SLIDE_MATS[i].stage == s) return SLIDE_MATS[i].first_row;
    return 0;
}

MatId model_stage_slide_mat(Stage s)
{
    for (size_t i = 0; i < sizeof SLIDE_MATS / sizeof SLIDE_MATS[0]; i++)
        if (SLIDE_MATS[i].stage == s) return SLIDE_MATS[i].mat;
    return MAT_NONE;
}

bool model_stage_from_key(const char *key, Stage *out)
{
    for (int i = 0; key && i < STAGE_COUNT; i++)
        if (strcmp(STAGES[i].key, key) == 0) {
            *out = STAGES[i].stage;
            return true;
        }
    for (int i = 0; key && i < STAGE_ALIAS_COUNT; i++)
        if (strcmp(STAGE_ALIASES[i].name, key) == 0) {
            *out = STAGE_ALIASES[i].stage;
            return true;
        }
    return false;
}

size_t model_stage_names(const Stage *stages, int count, bool with_results, char *buf, size_t cap)
{
    size_t used = 0;
    if (cap) buf[0] = '\0';
    int k = 0;
    for (int i = 0; i < count && used < cap; i++) {
        const StageInfo *si = stage_info(stages[i]);
        if (!si || (with_results && si->results[0] == MAT_NONE)) continue;
        used += (size_t)snprintf(buf + used, cap - used, "%s%s", k++ ? ", " : "", si->key);
    }
    int aliases = 0; // the heatmaps' names of the stages listed
    for (int i = 0; i < STAGE_ALIAS_COUNT && used < cap; i++)
        for (int j = 0; j < count && used < cap; j++)
            if (stages[j] == STAGE_ALIASES[i].stage)
                used += (size_t)snprintf(buf + used, cap - used, "%s%s = %s",
                                         aliases++ ? ", " : "; or ", STAGE_ALIASES[i].name,
                                         stage_info(STAGE_ALIASES[i].stage)->key);
    return used < cap ? used : cap - 1;
}

int model_reveal_total(const AttnParams *p, Stage s)
{
    const StageInfo *si = stage_info(s);
    int total = 0;
    for (int i = 0; si && i < 3 && si->results[i] != MAT_NONE; i++) {
        int r, c;
        model_mat_shape(p, si->results[i], &r, &c);
        total += r * c;
    }
    return total;
}

CellRef model_reveal_cell(const AttnParams *p, Stage s, int head, int k)
{
    const StageInfo *si = stage_info(s);
    CellRef none = {MAT_NONE, head, 0, 0};
    for (int i = 0; si && i < 3 && si->results[i] != MAT_NONE && k >= 0; i++) {
        int r, c;
        model_mat_shape(p, si->results[i], &r, &c);
        if (k < r * c) return (CellRef){si->results[i], head, k / c, k % c};
        k -= r * c;
    }
    return none;
}

int model_reveal_index(const AttnParams *p, Stage s, int head, CellRef c)
{
    const StageInfo *si = stage_info(s);
    int base = 0;
    for (int i = 0; si && i < 3 && si->results[i] != MAT_NONE; i++) {
        MatId m = si->results[i];
        int r, cols;
        model_mat_shape(p, m, &r, &cols);
        MatId alias = m == MAT_K      ? MAT_KT
                      : m == MAT_KROT ? MAT_KROT_T
                                      : m; // K is shown transposed at the scores
        if (c.mat == m || (c.mat == alias && alias != m)) {
            const MatInfo *mi = mat_info(m);
            if (mi->per_head && c.head != head) return -1;
            int row = c.mat == m ? c.row : c.col, col = c.mat == m ? c.col : c.row;
            if (row < 0 || col < 0 || row >= r || col >= cols) return -1;
            return base + row * cols + col;
        }
        base += r * cols;
    }
    return -1;
}
