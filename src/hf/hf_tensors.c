// A checkpoint's tensors found by their family's rows (hf_arch.h): the name a row gives at a layer,
// its older spelling, whether the config needs it, and the tensor or its numbers as float64. Below
// the run (hf_model.c) and the checks of what the forward reads (hf_finite.c).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hf/hf_arch.h"

bool hf_tensor_needed(const HfConfig *c, HfNeed need)
{
    bool when[] = {[NEED_ALWAYS] = true,
                   [NEED_QKV_BIAS] = c->qkv_bias,
                   [NEED_O_BIAS] = c->attn_bias,
                   [NEED_MLP_BIAS] = c->mlp_bias,
                   [NEED_UNTIED] = !c->tie};
    return when[need];
}

void hf_tensor_name(char *out, size_t cap, const HfModel *m, const HfTensorRow *row, int layer)
{
    size_t k = (size_t)snprintf(out, cap, "%s", m->prefix);
    if (k < cap) snprintf(out + k, cap - k, row->name, layer);
}

// Older checkpoints (bert-base-uncased's own files) call a LayerNorm's weight "gamma" and its bias
// "beta"; transformers renames them as it loads (modeling_utils' _fix_key). name's older spelling
// into alt (cap bytes), or false when it has none.
bool hf_older_name(const char *name, char *alt, size_t cap)
{
    static const char *const PAIRS[][2] = {{".weight", ".gamma"}, {".bias", ".beta"}};
    size_t n = strlen(name);
    for (int i = 0; i < 2; i++) {
        size_t k = strlen(PAIRS[i][0]);
        if (n > k && strcmp(name + n - k, PAIRS[i][0]) == 0 && n < cap) {
            snprintf(alt, cap, "%.*s%s", (int)(n - k), name, PAIRS[i][1]);
            return true;
        }
    }
    return false;
}

// The tensor called name, or by its older name.
const StTensor *hf_find_named(const HfModel *m, const char *name)
{
    const StTensor *t = st_find(&m->ck, name);
    char alt[220];
    if (!t && hf_older_name(name, alt, sizeof alt)) t = st_find(&m->ck, alt);
    return t;
}

const StTensor *hf_tensor(const HfModel *m, const HfTensorRow *row, int layer)
{
    if (!row->name || !hf_tensor_needed(&m->cfg, row->need)) return NULL;
    char name[200];
    hf_tensor_name(name, sizeof name, m, row, layer);
    return hf_find_named(m, name);
}

const StTensor *hf_model_tensor(const HfModel *m, HfModelTensor part)
{
    return part < HF_MODEL_TENSORS ? hf_tensor(m, &m->ops->model_rows[part], -1) : NULL;
}

const StTensor *hf_layer_tensor(const HfModel *m, HfLayerTensor part, int layer)
{
    return hf_tensor(m, &m->ops->layer_rows[part], layer);
}

double *hf_vector(const HfModel *m, const HfTensorRow *row, int layer, bool *ok)
{
    const StTensor *t = hf_tensor(m, row, layer);
    if (!t) return NULL;
    double *v = malloc(sizeof *v * (t->count ? t->count : 1));
    if (v) st_read(v, t, 0, t->count);
    else *ok = false;
    return v;
}

double *hf_model_vector(const HfModel *m, HfModelTensor part, bool *ok)
{
    return hf_vector(m, &m->ops->model_rows[part], -1, ok);
}

double *hf_layer_vector(const HfModel *m, HfLayerTensor part, int layer, bool *ok)
{
    return hf_vector(m, &m->ops->layer_rows[part], layer, ok);
}
