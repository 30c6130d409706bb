// The warning --check gives from the numbers: softmax rows of the trace that saturate to one-hot.
#include "model/saturation.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation" // the message is cut to its buffer on purpose
#endif

// Whether row i of a head's scaled scores (its first `keys` keys) would still be one-hot at 4
// decimals with the scores scaled by `factor` more: the largest weight 1 / sum exp(factor (s_j -
// s_max)).
static bool hot_at(const Matrix *scaled, int i, int keys, double factor)
{
    double top = -INFINITY, sum = 0;
    for (int j = 0; j < keys; j++)
        if (mat_get(scaled, i, j) > top) top = mat_get(scaled, i, j);
    for (int j = 0; j < keys; j++)
        if (isfinite(mat_get(scaled, i, j))) sum += exp(factor * (mat_get(scaled, i, j) - top));
    return 1.0 / sum >= 0.99995;
}

int saturation_warn(const Lesson *l, const Trace *t, const char *filename, LessonReport *rep)
{
    const AttnParams *p = &l->params;
    int rows = 0, hot = 0, first_h = -1, first_r = 0, first_c = 0, hot_heads = 0;
    // A lesson's "scale" above the default 1/sqrt(d_k) sharpens every row: the cause when, at the
    // default, no row saturates.
    double usual = 1.0 / sqrt((double)p->d_k);
    bool scale_sharpens = p->scale > usual, hot_usual = false;
    for (int h = 0; h < p->heads && h < t->heads; h++) {
        const Matrix *w = &t->head[h].weights;
        bool head_hot = false;
        for (int i = 0; i < w->rows; i++) {
            int keys = p->mask == MASK_CAUSAL ? (i + 1 < w->cols ? i + 1 : w->cols) : w->cols;
            if (keys < 2) continue; // one key: the weight 1 is no saturation
            rows++;
            int best = 0;
            for (int j = 1; j < keys; j++)
                if (mat_get(w, i, j) > mat_get(w, i, best)) best = j;
            if (mat_get(w, i, best) < 0.99995) continue; // below 1.0000 at 4 decimals
            hot++;
            head_hot = true;
            hot_usual = hot_usual || !scale_sharpens
                        || hot_at(&t->head[h].scaled, i, keys, usual / p->scale);
            if (first_h < 0) {
                first_h = h;
                first_r = i;
                first_c = best;
            }
        }
        hot_heads += head_hot;
    }
    if (hot == 0) return 0;
    LessonError e;
    memset(&e, 0, sizeof e);
    e.warning = true;
    lesson_locate_key(l, "weights", &e);
    char shown[2][80], advice[300];
    if (hot_usual)
        snprintf(
            advice, sizeof advice,
            "smaller embeddings or weights (std or qkv_std below 1, or smaller numbers)%s give",
            scale_sharpens ? " or a smaller \"scale\"" : "");
    else
        snprintf(advice, sizeof advice,
                 "the lesson's \"scale\" (%g) is the cause: at the default 1/\xe2\x88\x9a"
                 "d_k = %.4g no "
                 "row saturates, so a smaller \"scale\" (or none) gives",
                 p->scale, usual);
    snprintf(e.message, sizeof e.message,
             "%d of %d softmax rows (in %d of %d head%s) saturate to one-hot at 4 decimals, e.g. "
             "head %d, query "
             "\"%s\": 1.0000 on \"%s\" and 0.0000 on every other key. The scaled scores of such a "
             "row lie so far "
             "apart that the softmax keeps only the largest; %s attention the class can compare",
             hot, rows, hot_heads, p->heads, p->heads == 1 ? "" : "s", first_h,
             lesson_show_key(l->tokens[first_r], shown[0], 80),
             lesson_show_key(l->source_tokens[first_c], shown[1], 80), advice);
    lesson_error_set_file(&e, filename);
    lesson_report_add(rep, &e);
    return 1;
}
