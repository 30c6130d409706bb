// The warning --check gives from the numbers: softmax rows of the trace that saturate to one-hot.
#include "saturation.h"

#include <stdio.h>
#include <string.h>

int saturation_warn(const Lesson *l, const Trace *t, const char *filename, LessonReport *rep)
{
    const AttnParams *p = &l->params;
    int rows = 0, hot = 0, first_h = -1, first_r = 0, first_c = 0, hot_heads = 0;
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
    char shown[2][80];
    snprintf(e.message, sizeof e.message,
             "%d of %d softmax rows (in %d of %d head%s) saturate to one-hot at 4 decimals, e.g. head %d, query "
             "\"%s\": 1.0000 on \"%s\" and 0.0000 on every other key. The scaled scores of such a row lie so far "
             "apart that the softmax keeps only the largest; smaller embeddings or weights (std or qkv_std below "
             "1, or smaller numbers) give attention the class can compare",
             hot, rows, hot_heads, p->heads, p->heads == 1 ? "" : "s", first_h, lesson_show_key(l->tokens[first_r], shown[0], 80),
             lesson_show_key(l->source_tokens[first_c], shown[1], 80));
    lesson_error_set_file(&e, filename);
    lesson_report_add(rep, &e);
    return 1;
}
