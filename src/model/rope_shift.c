// The shift of every position that shows RoPE's point: its stops, the difference it makes to the
// scores (the trace's own two matrices, subtracted) and the sentence that says so.
#include "model/rope_shift.h"
#include "model/i18n.h"

#include <math.h>
#include <stdio.h>

static const int STOPS[] = {0, 1, 2, 3, 5, 10, 100, 1000};
#define STOP_COUNT (int)(sizeof STOPS / sizeof STOPS[0])

int model_rope_shift_step(int k, int dir)
{
    if (dir > 0) {
        for (int i = 0; i < STOP_COUNT; i++)
            if (STOPS[i] > k) return STOPS[i];
        return STOPS[0];
    }
    for (int i = STOP_COUNT - 1; i >= 0; i--)
        if (STOPS[i] < k) return STOPS[i];
    return STOPS[STOP_COUNT - 1];
}

double model_rope_shift_difference(const Trace *t, int head)
{
    if (!t || head < 0 || head >= t->heads) return 0.0;
    const HeadTrace *ht = &t->head[head];
    if (!ht->scores_shift.data || !ht->scores.data) return 0.0;
    return mat_max_abs_diff(&ht->scores_shift, &ht->scores);
}

bool model_rope_shift_note(const AttnParams *p, const Trace *t, Stage stage, int head, char *buf,
                           size_t cap)
{
    if (cap) buf[0] = '\0';
    if ((stage != STAGE_ROTATE && stage != STAGE_SCORES) || p->rope == ROPE_NONE
        || p->rope_shift <= 0 || !t || head < 0 || head >= t->heads)
        return false;
    double d = model_rope_shift_difference(t, head), big = 1.0;
    const Matrix *s = &t->head[head].scores;
    for (int i = 0; i < s->rows * s->cols; i++) big = fmax(big, fabs(s->data[i]));
    char diff[64];
    // The two are the same numbers up to the last bits: cos and sin of larger angles, summed in the
    // same order.
    if (d == 0.0) snprintf(diff, sizeof diff, "0");
    else if (d <= 1e-9 * big) snprintf(diff, sizeof diff, TR("%.1e (rounding)"), d);
    else snprintf(diff, sizeof diff, "%.3g", d);
    snprintf(buf, cap,
             TR("Every position shifted by k = %d: each row turns further, but a "
                "query and a key still turn apart by the angle of p \xe2\x88\x92 p\xe2\x80\xb2 "
                "only, so the scores do "
                "not change. Largest difference from k = 0: %s."),
             p->rope_shift, diff);
    return true;
}
