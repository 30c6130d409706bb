// Where a trace overflowed, in the lesson's terms: the first cell that became infinite or NaN and the
// product of inputs that made it (the largest term of its sum), so the message names the field to fix.
#include "overflow.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

// The term k of row r of a (n, K) times column c of b (K, p) with the largest magnitude (a non-finite
// product counts as the largest); b_t: b is given transposed (p, K), as K is for the scores.
static int largest_term(const Matrix *a, int r, const Matrix *b, int c, bool b_t)
{
    int best = 0;
    double best_mag = -1.0;
    for (int k = 0; k < a->cols; k++) {
        double x = mat_row(a, r)[k], y = b_t ? mat_row(b, c)[k] : mat_row(b, k)[c];
        double mag = fabs(x * y);
        if (!isfinite(mag)) mag = INFINITY;
        if (mag > best_mag) best_mag = mag, best = k;
        if (isinf(best_mag)) break;
    }
    return best;
}

// The first non-finite cell of m (row-major order); false when every value is finite.
static bool first_bad(const Matrix *m, int *r, int *c)
{
    for (int i = 0; i < m->rows; i++)
        for (int j = 0; j < m->cols; j++)
            if (!isfinite(mat_row(m, i)[j])) {
                *r = i;
                *c = j;
                return true;
            }
    return false;
}

static const char *what(double v) { return isnan(v) ? "NaN" : v > 0 ? "+inf" : "-inf"; }

// One head's projection of x by w + b (the matrices of trace_run) and, when it has a non-finite cell, the
// sentence naming the product that made it.
static bool explain_projection(char *out, size_t cap, int h, const Matrix *x, const char *x_path, const Matrix *w,
                               const Matrix *b, const char *name)
{
    Matrix q;
    if (!mat_init(&q, x->rows, w->cols)) return false;
    attn_project(&q, x, w, b);
    int r, c;
    bool found = first_bad(&q, &r, &c);
    if (found) {
        int k = largest_term(x, r, w, c, false);
        snprintf(out, cap, "head %d: %s[%d][%d] is %s, from %s[%d][%d] = %.6g times weights.%s[%d][%d][%d] = %.6g",
                 h, name, r, c, what(mat_row(&q, r)[c]), x_path, r, k, mat_row(x, r)[k], name[0] == 'Q' ? "W_Q"
                 : name[0] == 'K' ? "W_K" : "W_V", h, k, c, mat_row(w, k)[c]);
    }
    mat_free(&q);
    return found;
}

void trace_overflow_detail(const AttnParams *p, TraceError *err)
{
    if (!err) return;
    char detail[300] = "";
    int h = err->head, r, c;
    const char *src_path = p->cross ? "source.embeddings" : "embeddings";
    if (err->stage == STAGE_PROJECT && h >= 0 && h < p->heads) {
        if (!explain_projection(detail, sizeof detail, h, &p->X, "embeddings", &p->W_Q[h], &p->b_Q[h], "Q"))
            if (!explain_projection(detail, sizeof detail, h, &p->S, src_path, &p->W_K[h], &p->b_K[h], "K"))
                explain_projection(detail, sizeof detail, h, &p->S, src_path, &p->W_V[h], &p->b_V[h], "V");
    } else if ((err->stage == STAGE_SCORES || err->stage == STAGE_WEIGHTED_SUM) && h >= 0 && h < p->heads) {
        Matrix Q, K, V, S;
        memset(&Q, 0, sizeof Q), memset(&K, 0, sizeof K), memset(&V, 0, sizeof V), memset(&S, 0, sizeof S);
        if (mat_init(&Q, p->n, p->d_k) && mat_init(&K, p->m, p->d_k) && mat_init(&V, p->m, p->d_k) &&
            mat_init(&S, p->n, p->m)) {
            attn_project(&Q, &p->X, &p->W_Q[h], &p->b_Q[h]);
            attn_project(&K, &p->S, &p->W_K[h], &p->b_K[h]);
            attn_scores(&S, &Q, &K);
            if (err->stage == STAGE_SCORES && first_bad(&S, &r, &c)) {
                int k = largest_term(&Q, r, &K, c, true);
                snprintf(detail, sizeof detail,
                         "head %d: the score of row %d, column %d is %s, from Q[%d][%d] = %.6g times K[%d][%d] = %.6g "
                         "(smaller embeddings, W_Q or W_K)",
                         h, r, c, what(mat_row(&S, r)[c]), r, k, mat_row(&Q, r)[k], c, k, mat_row(&K, c)[k]);
            } else if (err->stage == STAGE_WEIGHTED_SUM) {
                attn_project(&V, &p->S, &p->W_V[h], &p->b_V[h]);
                int bad_r = 0, bad_c = 0;
                if (first_bad(&V, &bad_r, &bad_c))
                    snprintf(detail, sizeof detail, "head %d: V[%d][%d] is %s", h, bad_r, bad_c,
                             what(mat_row(&V, bad_r)[bad_c]));
                else {
                    double big = 0;
                    for (int i = 0; i < V.rows; i++)
                        for (int j = 0; j < V.cols; j++)
                            if (fabs(mat_row(&V, i)[j]) > big) big = fabs(mat_row(&V, i)[j]), bad_r = i, bad_c = j;
                    snprintf(detail, sizeof detail,
                             "head %d: the weighted sum of the values overflows; the largest value is V[%d][%d] = %.6g "
                             "(smaller embeddings or W_V)",
                             h, bad_r, bad_c, big);
                }
            }
        }
        mat_free(&Q), mat_free(&K), mat_free(&V), mat_free(&S);
    } else if (err->stage == STAGE_SCALE && h >= 0 && h < p->heads) {
        // Only a lesson's own "scale" (or the window's slider) can overflow finite scores.
        snprintf(detail, sizeof detail, "head %d: a score times \"scale\" = %.6g is beyond the largest double "
                 "(a smaller scale)", h, p->scale);
    } else if (err->stage == STAGE_OUTPUT) {
        // The output is concat (n, h·d_k) @ W_O: recomputed from the heads' Z would need the whole trace;
        // the largest product of W_O's column with any Z value is what can be named without it.
        int best_j = 0, best_c = 0;
        double best = -1;
        for (int j = 0; j < p->W_O.rows; j++)
            for (int cc = 0; cc < p->W_O.cols; cc++) {
                double v = fabs(mat_row(&p->W_O, j)[cc]);
                if (v > best) best = v, best_j = j, best_c = cc;
            }
        snprintf(detail, sizeof detail,
                 "the output Concat · W^O overflows; the largest number of W^O is weights.W_O[%d][%d] = %.6g "
                 "(smaller W_O, or values V)",
                 best_j, best_c, best);
    }
    if (!detail[0]) return;
    size_t used = strlen(err->message);
    snprintf(err->message + used, sizeof err->message - used, " (%s)", detail);
}
