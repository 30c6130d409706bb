// The explanations of a checkpoint's layer's own cells (AttnParams.stream: --model in the window):
// the norm that makes X from the residual stream h, worked for one row; the residual add h +
// Output; the next token's probabilities. The explain column of MAT_ROWS (matrices.h) for those
// rows, and X's when the layer has a norm.
#include "model/explain.h"
#include "hf/layer_stream.h"
#include "model/i18n.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

// What the norm divides row `row` of h by: sqrt(mean(h^2) + eps) (RMSNorm) or sqrt(var + eps)
// (LayerNorm), and the mean square or (mean, variance) it comes from.
static double norm_root(const LayerStream *s, int row, double *mean, double *square)
{
    const Matrix *x = &s->x;
    double m = 0, q = 0;
    for (int j = 0; j < x->cols; j++) m += mat_get(x, row, j);
    m /= x->cols;
    for (int j = 0; j < x->cols; j++) {
        double v = mat_get(x, row, j) - (s->norm == NORM_LAYER ? m : 0.0);
        q += v * v;
    }
    q /= x->cols;
    *mean = m;
    *square = q;
    return sqrt(q + s->eps);
}

// MAT_X of a layer with a norm: X[i, j] = h[i, j] / sqrt(mean(h_i^2) + eps) * g[j] (RMSNorm), or
// (h[i, j] - mean) / sqrt(var + eps) * g[j] + b[j] (LayerNorm), worked.
int explain_normed(const CellText *ct, char lines[][256])
{
    const LayerStream *s = ct->p->stream;
    int i = ct->c.row, j = ct->c.col, n = 0;
    double mean, square, root = norm_root(s, i, &mean, &square);
    char h[32], g[32], r[32], m[32], q[32], e[32], b[32];
    model_format_operand(mat_get(&s->x, i, j), h, sizeof h);
    model_format_operand(mat_get(&s->gain, 0, j), g, sizeof g);
    model_format_value(root, r, sizeof r);
    model_format_operand(mean, m, sizeof m);
    model_format_value(square, q, sizeof q);
    snprintf(e, sizeof e, "%g", s->eps);
    if (s->norm == NORM_RMS) {
        snprintf(lines[n++], 256,
                 "%s[%s, %s] = h[%s, %s] / \xe2\x88\x9a(mean(h\xc2\xb2) + \xce\xb5) \xc2\xb7 g[%s] "
                 "= %s / %s \xc2\xb7 %s = %s",
                 ct->name, ct->rl, ct->cl, ct->rl, ct->cl, ct->cl, h, r, g, ct->vs);
        snprintf(lines[n++], 256,
                 TR("mean square of h's row %s over its %d numbers = %s;   \xce\xb5 = %s;   "
                    "\xe2\x88\x9a(%s + \xce\xb5) = %s"),
                 ct->rl, s->x.cols, q, e, q, r);
    } else {
        model_format_operand(mat_get(&s->shift, 0, j), b, sizeof b);
        snprintf(lines[n++], 256, "%s[%s, %s] = (%s \xe2\x88\x92 %s) / %s \xc2\xb7 %s + %s = %s",
                 ct->name, ct->rl, ct->cl, h, m, r, g, b, ct->vs);
        model_format_value(mean, m, sizeof m);
        snprintf(lines[n++], 256,
                 TR("h's row %s: mean \xce\xbc = %s, variance \xcf\x83\xc2\xb2 = %s over its %d "
                    "numbers;   "
                    "\xce\xb5 = %s;   \xe2\x88\x9a(\xcf\x83\xc2\xb2 + \xce\xb5) = %s"),
                 ct->rl, m, q, s->x.cols, e, r);
    }
    snprintf(lines[n++], 256, "%s",
             TR("every row is scaled to the same size, then each dimension by its own weight g"));
    return n;
}

// MAT_STREAM
int explain_stream(const CellText *ct, char lines[][256])
{
    int n = 0;
    snprintf(lines[n++], 256, "%s[%s, %s] = %s", ct->name, ct->rl, ct->cl, ct->vs);
    snprintf(lines[n++], 256, "%s",
             TR("the residual stream at this layer's input: the embedding plus what every layer "
                "before it added"));
    return n;
}

// MAT_GAIN, MAT_SHIFT
int explain_norm_weight(const CellText *ct, char lines[][256])
{
    int n = 0;
    snprintf(lines[n++], 256, "%s[%s] = %s", ct->name, ct->cl, ct->vs);
    snprintf(lines[n++], 256, "%s",
             ct->c.mat == MAT_GAIN
                 ? TR("the norm's learned weight for this dimension (from the checkpoint)")
                 : TR("the norm's learned bias for this dimension (from the checkpoint)"));
    return n;
}

// MAT_RESIDUAL
int explain_residual(const CellText *ct, char lines[][256])
{
    int n = 0;
    char a[32], b[32];
    model_format_terms(ct->p, ct->T, ct->c, MAT_STREAM, MAT_OUTPUT, a, b, sizeof a);
    snprintf(lines[n++], 256, "%s[%s, %s] = h[%s, %s] + Output[%s, %s] = %s + %s = %s", ct->name,
             ct->rl, ct->cl, ct->rl, ct->cl, ct->rl, ct->cl, a, b, ct->vs);
    snprintf(lines[n++], 256, "%s",
             TR("the residual add: the attention's output joins the stream it read"));
    return n;
}

// MAT_NEXT
int explain_next(const CellText *ct, char lines[][256])
{
    const LayerStream *s = ct->p->stream;
    int n = 0;
    const char *tok = s->top_token[(size_t)ct->c.row * (size_t)s->top + (size_t)ct->c.col];
    snprintf(lines[n++], 256, TR("p(\"%s\" after \"%s\") = %s   (rank %d)"), tok, ct->rl, ct->vs,
             ct->c.col + 1);
    snprintf(lines[n++], 256, "%s",
             s->attention_only
                 ? TR("softmax of the logits: the last layer's stream times the unembedding U (no "
                      "norm)")
                 : TR("softmax of the logits: the final norm of the last layer's stream, times the "
                      "unembedding"));
    return n;
}
