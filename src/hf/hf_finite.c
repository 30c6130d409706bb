// Numbers that are not numbers, traced to the tensor that holds them: a NaN or an infinity in the
// embeddings the text reads, the final norm or the unembedding is named before anything derived
// from it is shown (a layer's own weights reach trace_run, which refuses them itself).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "hf/hf_arch.h"
#include "hf/hf_error.h"

// Are elements [first, first + count) of t all finite? Read a block at a time.
static bool tensor_finite(const StTensor *t, size_t first, size_t count)
{
    enum { BLOCK = 4096 };
    double buf[BLOCK];
    for (size_t at = 0; at < count; at += BLOCK) {
        size_t k = count - at < BLOCK ? count - at : BLOCK;
        st_read(buf, t, first + at, k);
        for (size_t i = 0; i < k; i++)
            if (!isfinite(buf[i])) return false;
    }
    return true;
}

// false with err naming the tensor of part and the file that holds it.
static bool not_finite(const HfModel *m, const StTensor *t, const char *what, LessonError *err)
{
    return hf_fail(err, m->ck.paths[t->file], t->name,
                   "holds a NaN or an infinity in %s: the forward pass would be nonsense", what);
}

bool hf_check_embedding(const HfModel *m, const Matrix *h, const int *ids, int n, LessonError *err)
{
    if (mat_all_finite(h, false)) return true;
    size_t d = (size_t)m->cfg.hidden;
    const StTensor *e = hf_model_tensor(m, HF_EMBED), *pos = hf_model_tensor(m, HF_POSITIONS);
    for (int i = 0; i < n; i++)
        if (!tensor_finite(e, (size_t)ids[i] * d, d)) {
            char what[64];
            snprintf(what, sizeof what, "the row of token %d", ids[i]);
            return not_finite(m, e, what, err);
        }
    if (pos && !tensor_finite(pos, 0, (size_t)n * d))
        return not_finite(m, pos, "the rows of the text's positions", err);
    const HfModelTensor whole[] = {HF_TYPES, HF_EMBED_NORM, HF_EMBED_NORM_BIAS};
    for (int k = 0; k < 3; k++) {
        const StTensor *t = hf_model_tensor(m, whole[k]);
        if (t && !tensor_finite(t, 0, t->count)) return not_finite(m, t, "its numbers", err);
    }
    return hf_fail(err, m->ck.source, NULL, "the embeddings of the text overflow");
}

bool hf_check_logits(const HfModel *m, const Matrix *logits, LessonError *err)
{
    if (mat_all_finite(logits, false)) return true;
    const HfModelTensor parts[] = {HF_FINAL_NORM, HF_FINAL_NORM_BIAS,
                                   m->cfg.tie ? m->ops->unembedding : m->ops->unembedding_untied};
    for (int k = 0; k < 3; k++) {
        const StTensor *t = hf_model_tensor(m, parts[k]);
        if (t && !tensor_finite(t, 0, t->count)) return not_finite(m, t, "its numbers", err);
    }
    return hf_fail(err, m->ck.source, NULL,
                   "the logits of the next token overflow (not a number after the unembedding)");
}
