// --compare's sentences about the single head, each said as the numbers have it: a sentence is
// chosen by comparing the two computations (with RoPE the single head's scores are not the sum of
// the heads'), never assumed.
#include "app/cli.h"

#include <math.h>

// Largest |single head's score - the sum of the heads' scores| over the cells (before scaling and
// the mask), and the largest |score| (for what rounding is).
double cli_compare_score_gap(const Trace *t, const Comparison *c, double *big)
{
    const Matrix *one = &c->trace.head[0].scores;
    double gap = 0.0;
    *big = 1.0;
    for (int i = 0; i < one->rows; i++)
        for (int j = 0; j < one->cols; j++) {
            double sum = 0.0;
            for (int h = 0; h < t->heads; h++) {
                double v = mat_get(&t->head[h].scores, i, j);
                sum += v;
                *big = fmax(*big, fabs(v));
            }
            gap = fmax(gap, fabs(mat_get(one, i, j) - sum));
        }
    return gap;
}

// What the single head is and how it relates to the heads: each sentence as the numbers have it
// (RoPE, grouped K/V heads, the window, switched-off heads and the cost say what differs).
void cli_print_compare_claims(FILE *out, const AttnParams *p, const Trace *t, const Comparison *c)
{
    int h = p->heads, dk1 = c->single.d_k, kv = p->kv_heads > 0 ? p->kv_heads : h;
    fprintf(out, "One head of d_k = %d against %d heads of d_k = %d.\n", dk1, h, p->d_k);
    if (kv == h)
        fprintf(out,
                "The single head's W_Q, W_K and W_V (%d\xc3\x97%d) are the %d heads' joined side "
                "by side; W_O is the same.\n",
                p->d_model, dk1, h);
    else
        fprintf(out,
                "The single head's W_Q (%d\xc3\x97%d) is the %d heads' joined side by side; its "
                "W_K and W_V repeat each of "
                "the %d K/V heads' for the %d query heads that share it; W_O is the same.\n",
                p->d_model, dk1, h, kv, h / kv);
    if (p->rope != ROPE_NONE)
        fprintf(out,
                "With RoPE each head's %d columns of the single head turn as that head's do, not "
                "as one head of "
                "d_k = %d would turn them.\n",
                p->d_k, dk1);
    if (p->mask == MASK_CAUSAL)
        fprintf(out,
                p->window > 0 ? "Both use the causal mask with the window of %d.\n"
                              : "Both use the causal mask.\n",
                p->window);
    double big, gap = cli_compare_score_gap(t, c, &big);
    if (gap <= 1e-9 * big)
        fprintf(
            out,
            "Its scores are the sum of the heads' scores (largest difference %.1e: rounding).\n",
            gap);
    else fprintf(out, "Its scores differ from the sum of the heads' scores by up to %.4g.\n", gap);
    if (p->ablated)
        fprintf(out, "The heads switched off are zeros in the heads' concatenation only: the "
                     "single head keeps all of its "
                     "columns.\n");
    const CostFigures *one = &c->cost_one, *multi = &c->cost_multi;
    if (one->projection_weights == multi->projection_weights
        && one->score_multiplications == multi->score_multiplications)
        fprintf(out, "The split changes the patterns, not the cost.\n\n");
    else
        fprintf(out,
                "The split changes the patterns, and %d K/V head%s instead of %d make%s the heads "
                "cheaper: %lld "
                "projection weights against the single head's %lld.\n\n",
                kv, kv == 1 ? "" : "s", h, kv == 1 ? "s" : "", (long long)multi->projection_weights,
                (long long)one->projection_weights);
}
