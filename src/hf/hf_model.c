// A Hugging Face checkpoint opened (its config, tensors checked against it, tokenizer) and run: the
// family's steps (hf_arch.h: hf_llama.c, hf_gpt2.c) layer by layer, each layer's attention the
// project's own trace (trace_run), so layer L is what the window steps through; the next token from
// the last position.
#include "hf/hf_model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/block.h"
#include "core/utf8.h"
#include "hf/hf_arch.h"
#include "hf/hf_error.h"
#include "platform/platform.h"

static int dim_size(const HfConfig *c, HfDim d)
{
    int sizes[] = {[D_NONE] = 0,
                   [D_HIDDEN] = c->hidden,
                   [D_Q] = c->heads * c->head_dim,
                   [D_KV] = c->kv_heads * c->head_dim,
                   [D_QKV] = (c->heads + 2 * c->kv_heads) * c->head_dim,
                   [D_INTER] = c->intermediate,
                   [D_VOCAB] = c->vocab,
                   [D_POSITIONS] = c->positions,
                   [D_TYPES] = c->type_vocab};
    return sizes[d];
}

void hf_columns(Matrix *dst, int c0, const StTensor *t, int r0, int count, double *buf)
{
    int rows = dst->rows;
    st_read(buf, t, (size_t)r0 * (size_t)rows, (size_t)count * (size_t)rows);
    for (int i0 = 0; i0 < rows;
         i0 += 8) { // 8 rows of dst at a time: one cache line of each buf row read
        int i1 = rows - i0 < 8 ? rows : i0 + 8;
        for (int j = 0; j < count; j++)
            for (int i = i0; i < i1; i++)
                mat_row(dst, i)[c0 + j] = buf[(size_t)j * (size_t)rows + (size_t)i];
    }
}

void hf_columns_from_rows(Matrix *dst, const StTensor *t, int r0, double *buf)
{
    for (int c = 0; c < dst->cols; c += HF_COLUMN_BLOCK)
        hf_columns(dst, c, t, r0 + c,
                   dst->cols - c < HF_COLUMN_BLOCK ? dst->cols - c : HF_COLUMN_BLOCK, buf);
}

bool hf_check_positions(const HfModel *m, int n, LessonError *err)
{
    if (n <= m->cfg.positions) return true;
    char config[1100];
    snprintf(config, sizeof config, "%s/config.json", m->dir);
    return hf_fail(err, config, m->ops->positions_key,
                   "the text is %d tokens; the model has positions for %d", n, m->cfg.positions);
}

// out (hidden) = the family's final norm of one row. false: no memory.
static bool final_norm(double *out, const HfModel *m, const double *row)
{
    bool ok = true;
    double *w = hf_model_vector(m, HF_FINAL_NORM, &ok),
           *b = hf_model_vector(m, HF_FINAL_NORM_BIAS, &ok);
    if (ok) {
        Matrix in = {1, m->cfg.hidden, (double *)row}, o = {1, m->cfg.hidden, out};
        if (m->ops->final_norm == NORM_RMS) block_rms_norm(&o, &in, w, m->cfg.eps);
        else block_layer_norm(&o, &in, w, b, m->cfg.eps);
    }
    free(w);
    free(b);
    return ok;
}

bool hf_matrix(Matrix *out, const StTensor *t)
{
    if (!mat_init(out, (int)t->shape[0], (int)t->shape[1])) return false;
    st_read(out->data, t, 0, t->count);
    return true;
}

enum { LINEAR_MAX_JOBS = 8 };

typedef struct {
    Matrix *out;
    const Matrix *x;
    const StTensor *w;
    const double *b;
    int first, last; // the weight rows (output columns) of this job
} LinearJob;

// Columns [first, last) of out, a few tokens (at most BLOCK_DOT_LANES): each weight row converted
// once into a buffer, then dotted with every row of x at once (block_dot_many: block_dot's bits).
// false: no memory.
static bool linear_rows(LinearJob *j)
{
    int in = j->x->cols, n = j->x->rows, lanes = n <= 8 ? 8 : n <= 12 ? 12 : BLOCK_DOT_LANES;
    double *row = malloc(sizeof *row * (size_t)(in > 0 ? in : 1));
    double *xt = calloc((size_t)(in > 0 ? in : 1) * (size_t)lanes, sizeof *xt);
    if (!row || !xt) {
        free(row);
        free(xt);
        return false;
    }
    for (int i = 0; i < n; i++)
        for (int k = 0; k < in; k++)
            xt[(size_t)k * (size_t)lanes + (size_t)i] = mat_row(j->x, i)[k];
    double dots[BLOCK_DOT_LANES];
    for (int o = j->first; o < j->last; o++) {
        st_read(row, j->w, (size_t)o * (size_t)in, (size_t)in);
        block_dot_many(dots, xt, row, in, lanes);
        for (int i = 0; i < n; i++) mat_row(j->out, i)[o] = dots[i] + (j->b ? j->b[o] : 0.0);
    }
    free(row);
    free(xt);
    return true;
}

// The same for many tokens: LINEAR_CHUNK weight rows converted at a time and multiplied by the
// matrix kernel (mat_matmul_bt), whose packed blocks pay off once x has rows enough. false: no
// memory.
static bool linear_chunks(LinearJob *j)
{
    enum { LINEAR_CHUNK = 128 };
    int in = j->x->cols, n = j->x->rows;
    Matrix w, part;
    if (!mat_init(&w, LINEAR_CHUNK, in)) return false;
    if (!mat_init(&part, n, LINEAR_CHUNK)) {
        mat_free(&w);
        return false;
    }
    for (int o = j->first; o < j->last; o += LINEAR_CHUNK) {
        int rows = j->last - o < LINEAR_CHUNK ? j->last - o : LINEAR_CHUNK;
        Matrix wc = {rows, in, w.data}, pc = {n, rows, part.data};
        st_read(wc.data, j->w, (size_t)o * (size_t)in, (size_t)rows * (size_t)in);
        mat_matmul_bt(&pc, j->x, &wc);
        for (int i = 0; i < n; i++)
            for (int c = 0; c < rows; c++)
                mat_row(j->out, i)[o + c] = mat_get(&pc, i, c) + (j->b ? j->b[o + c] : 0.0);
    }
    mat_free(&w);
    mat_free(&part);
    return true;
}

// The same for one token (the unembedding at the last position): the lanes go over 8 weight rows
// instead of the tokens, so no lane is idle. out[o] = block_dot(w_o, x) is block_dot(x, w_o)'s
// bits: the products are the same (a * b == b * a) and so is the order of the sums. false: no
// memory.
static bool linear_one(LinearJob *j)
{
    enum { LANES = 8 };
    int in = j->x->cols;
    double *rows =
        calloc((size_t)(in > 0 ? in : 1) * LANES, sizeof *rows); // 8 weight rows, then transposed
    double *wt = calloc((size_t)(in > 0 ? in : 1) * LANES, sizeof *wt);
    if (!rows || !wt) {
        free(rows);
        free(wt);
        return false;
    }
    double dots[LANES];
    for (int o = j->first; o < j->last; o += LANES) {
        int count = j->last - o < LANES ? j->last - o : LANES;
        st_read(rows, j->w, (size_t)o * (size_t)in,
                (size_t)count * (size_t)in); // consecutive rows: one read
        for (int k = 0; k < in; k++)
            for (int r = 0; r < LANES; r++)
                wt[(size_t)k * LANES + (size_t)r] = rows[(size_t)r * (size_t)in + (size_t)k];
        block_dot_many(dots, wt, mat_row(j->x, 0), in, LANES);
        for (int r = 0; r < count; r++)
            mat_row(j->out, 0)[o + r] = dots[r] + (j->b ? j->b[o + r] : 0.0);
    }
    free(rows);
    free(wt);
    return true;
}

static int linear_job(void *arg)
{
    LinearJob *j = arg;
    if (!(j->x->rows == 1 ? linear_one(j) : j->x->rows < 16 ? linear_rows(j) : linear_chunks(j)))
        return 1;
    j->first = j->last; // done
    return 0;
}

bool hf_linear(Matrix *out, const Matrix *x, const StTensor *w, const double *b)
{
    LinearJob jobs[LINEAR_MAX_JOBS];
    int rows = out->cols, count = platform_cpu_count();
    if (count > LINEAR_MAX_JOBS) count = LINEAR_MAX_JOBS;
    if (count > rows / 64) count = rows / 64 > 0 ? rows / 64 : 1; // a few rows: not worth a thread
    for (int k = 0; k < count; k++)
        jobs[k] = (LinearJob){out,
                              x,
                              w,
                              b,
                              (int)((long long)rows * k / count),
                              (int)((long long)rows * (k + 1) / count)};
    platform_run_jobs(linear_job, jobs, sizeof jobs[0], count);
    for (int k = 0; k < count; k++)
        if (jobs[k].first != jobs[k].last) return false;
    return true;
}

// Is the tensor of row there, with the shape the config gives and a dtype read here?
static bool check_tensor(const HfModel *m, const HfTensorRow *row, int layer, LessonError *err)
{
    if (!row->name || !hf_tensor_needed(&m->cfg, row->need)) return true;
    char name[200];
    hf_tensor_name(name, sizeof name, m, row, layer);
    const StTensor *t = hf_find_named(m, name);
    char alt[220];
    if (!t && hf_older_name(name, alt, sizeof alt))
        return hf_fail(err, m->ck.source, name, "missing: %s reads it (looked for %s and %s)",
                       m->cfg.model_type, name, alt);
    if (!t) return hf_fail(err, m->ck.source, name, "missing: %s reads it", m->cfg.model_type);
    const char *file = m->ck.paths[t->file];
    snprintf(name, sizeof name, "%s", t->name); // as the file names it
    if (t->dtype == ST_OTHER)
        return hf_fail(err, file, name, "dtype %s: only F32, F16, BF16 and F64 are read",
                       t->dtype_name);
    int rows = dim_size(&m->cfg, row->rows), cols = dim_size(&m->cfg, row->cols);
    int ndim = row->cols == D_NONE ? 1 : 2;
    if (t->ndim != ndim || t->shape[0] != rows || (ndim == 2 && t->shape[1] != cols)) {
        char has[96] = "", want[48];
        for (int d = 0, used = 0; d < t->ndim && used < (int)sizeof has; d++)
            used += snprintf(has + used, sizeof has - (size_t)used, "%s%lld", d ? ", " : "",
                             (long long)t->shape[d]);
        if (ndim == 1) snprintf(want, sizeof want, "[%d]", rows);
        else snprintf(want, sizeof want, "[%d, %d]", rows, cols);
        return hf_fail(err, file, name, "shape [%s], but config.json's sizes make it %s", has,
                       want);
    }
    return true;
}

// Every tensor the forward pass reads, checked before a number is read; the prefix first, from the
// embedding.
static bool check_tensors(HfModel *m, LessonError *err)
{
    const HfArchOps *ops = m->ops;
    for (int i = 0; ops->prefixes[i]; i++) {
        snprintf(m->prefix, sizeof m->prefix, "%s", ops->prefixes[i]);
        if (hf_model_tensor(m, HF_EMBED)) break;
        m->prefix[0] = '\0';
    }
    for (int i = 0; i < HF_MODEL_TENSORS; i++)
        if (!check_tensor(m, &ops->model_rows[i], -1, err)) return false;
    for (int l = 0; l < m->cfg.layers; l++)
        for (int i = 0; i < HF_LAYER_TENSORS; i++)
            if (!check_tensor(m, &ops->layer_rows[i], l, err)) return false;
    return true;
}

// false with err (exit 1) when a weights file shrank while it was read (platform_map_faulted).
static bool model_unchanged(const HfModel *m, LessonError *err)
{
    int f = st_changed(&m->ck);
    return f < 0
           || hf_fail_io(err, m->ck.paths[f], NULL,
                         "changed while it was read: it is shorter than when it was opened (a "
                         "download or a sync still writing it?); nothing computed from it is "
                         "shown, run again once the file is complete");
}

bool hf_model_open(HfModel *m, const char *dir, LessonError *err)
{
    memset(m, 0, sizeof *m);
    snprintf(m->dir, sizeof m->dir, "%s", dir);
    for (size_t n = strlen(m->dir); n > 1 && m->dir[n - 1] == '/'; n--)
        m->dir[n - 1] = '\0'; // "DIR/": DIR
    dir = m->dir;
    if (!hf_config_load(&m->cfg, dir, err)) return false;
    m->ops = &HF_FAMILIES[m->cfg.arch];
    if (!st_open_dir(&m->ck, dir, err)) return false;
    if (!check_tensors(m, err) || !model_unchanged(m, err) || !tokenizer_load(&m->tok, dir, err)) {
        st_close(&m->ck);
        return false;
    }
    return true;
}

void hf_model_close(HfModel *m)
{
    st_close(&m->ck);
    tokenizer_free(&m->tok);
    memset(m, 0, sizeof *m);
}

// ---- the next token ----

// The logits of the last position (the final norm of its row, then the unembedding: lm_head, or the
// embedding when tied), softmax in float64, the HF_TOP most probable (the lower id first among
// equals).
static bool next_tokens(HfRun *r, const HfModel *m, const Matrix *h, LessonError *err)
{
    const HfConfig *c = &m->cfg;
    const HfArchOps *ops = m->ops;
    double *x = malloc(sizeof *x * (size_t)c->hidden), *p = malloc(sizeof *p * (size_t)c->vocab);
    const StTensor *head = hf_model_tensor(m, c->tie ? ops->unembedding : ops->unembedding_untied);
    Matrix xs = {1, c->hidden, x}, logits = {1, c->vocab, p};
    bool ok =
        x && p && final_norm(x, m, mat_row(h, h->rows - 1)) && hf_linear(&logits, &xs, head, NULL);
    bool finite = !ok || hf_check_logits(m, &logits, err);
    ok = ok && finite;
    if (ok) {
        double top = -INFINITY, sum = 0;
        for (int v = 0; v < c->vocab; v++) top = p[v] > top ? p[v] : top;
        for (int v = 0; v < c->vocab; v++) sum += p[v] = exp(p[v] - top);
        for (int v = 0; v < c->vocab; v++) p[v] /= sum;
    }
    for (int k = 0; ok && k < HF_TOP && k < c->vocab; k++) {
        int best = -1;
        for (int v = 0; v < c->vocab; v++) {
            bool taken = false;
            for (int q = 0; q < k; q++) taken |= r->next[q].id == v;
            if (!taken && (best < 0 || p[v] > p[best])) best = v;
        }
        r->next[k].id = best;
        r->next[k].p = p[best];
        ok = (r->next[k].token = tokenizer_display(&m->tok, best)) != NULL;
    }
    free(x);
    free(p);
    return ok;
}

// The k most probable of p (vocab) into id and prob, most probable first, the lower id first among
// equals: each the largest below the one before in that order. Their tokens as the class reads them
// into token.
static bool top_of(const double *p, int vocab, int k, int *id, double *prob, char **token,
                   const Tokenizer *tok)
{
    if (k > vocab) k = vocab;
    mat_top_k(id, prob, p, vocab, k);
    for (int q = 0; q < k; q++)
        if (!(token[q] = tokenizer_display(tok, id[q]))) return false;
    return true;
}

// s->top_* (n * s->top) = the top next tokens at every position of h (n, hidden): the final norm
// and the unembedding of 8 rows at a time (one pass over the unembedding for 8 rows, as for 1),
// softmax in float64.
static bool stream_next_tokens(LayerStream *s, const HfModel *m, const Matrix *h, LessonError *err)
{
    enum { ROWS = 8 };
    const HfConfig *c = &m->cfg;
    const HfArchOps *ops = m->ops;
    size_t all = (size_t)h->rows * (size_t)s->top;
    s->top_id = calloc(all, sizeof *s->top_id);
    s->top_p = calloc(all, sizeof *s->top_p);
    s->top_token = calloc(all, sizeof *s->top_token);
    double *x = malloc(sizeof *x * (size_t)c->hidden * ROWS),
           *p = malloc(sizeof *p * (size_t)c->vocab * ROWS);
    const StTensor *head = hf_model_tensor(m, c->tie ? ops->unembedding : ops->unembedding_untied);
    bool ok = s->top_id && s->top_p && s->top_token && x && p;
    for (int r0 = 0; ok && r0 < h->rows; r0 += ROWS) {
        int rows = h->rows - r0 < ROWS ? h->rows - r0 : ROWS;
        Matrix xs = {rows, c->hidden, x}, logits = {rows, c->vocab, p};
        for (int i = 0; ok && i < rows; i++)
            ok = final_norm(x + (size_t)i * (size_t)c->hidden, m, mat_row(h, r0 + i));
        ok = ok && hf_linear(&logits, &xs, head, NULL) && hf_check_logits(m, &logits, err);
        for (int i = 0; ok && i < rows; i++) {
            double *row = mat_row(&logits, i), top = -INFINITY, sum = 0;
            for (int v = 0; v < c->vocab; v++) top = row[v] > top ? row[v] : top;
            for (int v = 0; v < c->vocab; v++) sum += row[v] = exp(row[v] - top);
            for (int v = 0; v < c->vocab; v++) row[v] /= sum;
            size_t at = (size_t)(r0 + i) * (size_t)s->top;
            ok = top_of(row, c->vocab, s->top, s->top_id + at, s->top_p + at, s->top_token + at,
                        &m->tok);
        }
    }
    free(x);
    free(p);
    return ok;
}

// s->x = h (the layer's input), s->gain and s->shift = the weights of the norm that makes its X.
static bool stream_keep_input(LayerStream *s, const HfModel *m, int layer, const Matrix *h)
{
    const HfArchOps *ops = m->ops;
    s->norm = ops->norm;
    s->eps = m->cfg.eps;
    s->layer = layer;
    if (!mat_copy(&s->x, h)) return false;
    const HfLayerTensor rows[2] = {HF_IN_NORM, HF_IN_NORM_BIAS};
    Matrix *into[2] = {&s->gain, &s->shift};
    for (int k = 0; k < 2; k++) {
        if (!ops->layer_rows[rows[k]].name) continue;
        bool ok = true;
        double *v = hf_layer_vector(m, rows[k], layer, &ok);
        if (!ok || !v || !mat_init(into[k], 1, h->cols)) {
            free(v);
            return false;
        }
        memcpy(into[k]->data, v, sizeof *v * (size_t)h->cols);
        free(v);
    }
    return true;
}

// Layer l's attention weights (every head's, n x n) into the overview, as float.
static void stream_keep_weights(LayerStream *s, const Trace *t, int l)
{
    size_t nn = (size_t)s->n * (size_t)s->n;
    for (int h = 0; h < s->heads; h++) {
        float *out = s->overview + ((size_t)l * (size_t)s->heads + (size_t)h) * nn;
        const Matrix *w = &t->head[h].weights;
        for (size_t k = 0; k < nn; k++) out[k] = (float)w->data[k];
    }
}

// ---- the run ----

// r->lesson from layer's params (taken over): its title, tokens and the params.
static bool make_lesson(HfRun *r, const HfModel *m, int layer, AttnParams *p)
{
    Lesson *l = &r->lesson;
    const char *base = strrchr(m->dir, '/');
    base = base && base[1] ? base + 1 : m->dir;
    char title[1200];
    snprintf(title, sizeof title, "%s: layer %d of %d (%s)", base, layer, m->cfg.layers,
             m->cfg.model_type);
    l->title = malloc(strlen(title) + 1);
    l->tokens = calloc((size_t)r->n, sizeof *l->tokens);
    l->source_tokens = calloc((size_t)r->n, sizeof *l->source_tokens);
    l->params = *p;
    memset(p, 0, sizeof *p);
    bool ok = l->title && l->tokens && l->source_tokens;
    if (ok) strcpy(l->title, title);
    for (int i = 0; ok && i < r->n; i++)
        ok = (l->tokens[i] = tokenizer_display(&m->tok, r->ids[i]))
             && (l->source_tokens[i] = tokenizer_display(&m->tok, r->ids[i]));
    return ok;
}

// Every layer on h: attention (the trace) and residual, MLP and residual; layer `keep`'s params
// into r->lesson. One layer's params are kept for the next (the same shapes, every number
// overwritten): a 1B model's layer is ~100 MB of weights in float64, and fresh pages each layer
// cost the kernel more time zeroing them than the layer's arithmetic.
static bool run_layers(HfRun *r, const HfModel *m, Matrix *h, int keep, LayerStream *st,
                       LessonError *err)
{
    AttnParams p = {0};
    bool ok = true;
    for (int l = 0; ok && l < m->cfg.layers; l++) {
        Trace t;
        TraceError terr;
        char field[64];
        if (st && l == keep && !stream_keep_input(st, m, l, h)) {
            ok = hf_fail(err, m->dir, NULL, "out of memory");
            break;
        }
        if (!m->ops->attention(&p, m, l, h)) {
            ok = hf_fail(err, m->dir, NULL, "out of memory");
            break;
        }
        if (!trace_run(&t, &p, &terr)) {
            snprintf(field, sizeof field, "model.layers.%d.self_attn", l);
            ok = hf_fail(err, m->ck.source, field, "%s", terr.message);
            break;
        }
        if (st && st->overview) stream_keep_weights(st, &t, l);
        block_add(h, &t.output);
        trace_free(&t);
        if (l == keep) { // the lesson takes p over; the next layer makes its own
            ok = make_lesson(r, m, l, &p);
            memset(&p, 0, sizeof p);
        }
        if (!ok || !m->ops->mlp(h, m, l)) ok = hf_fail(err, m->dir, NULL, "out of memory");
        else if (!mat_all_finite(h, false)) {
            snprintf(field, sizeof field, "model.layers.%d", l);
            ok =
                hf_fail(err, m->ck.source, field, "the residual stream overflows after this layer");
        }
    }
    if (p.X.data) params_free(&p);
    return ok;
}

// The lesson's notes: where it comes from and what its embeddings are.
static char *run_notes(const HfModel *m, const char *text, int layer)
{
    const char *fmt = "Layer %d of the %s checkpoint %s on the text \"%s\", computed in float64 by "
                      "mha-tracer --model. "
                      "The embeddings are the layer's input after its norm (%s); the output is the "
                      "attention's, before "
                      "the residual add.";
    const char *norm = m->ops->input_norm;
    size_t cap = strlen(fmt) + strlen(m->dir) + strlen(text) + 64;
    char *notes = malloc(cap);
    if (notes) snprintf(notes, cap, fmt, layer, m->cfg.model_type, m->dir, text, norm);
    return notes;
}

// The stream the window asked for, before the run: the overview's room (none when too big). NULL:
// no memory.
static LayerStream *stream_new(const HfModel *m, int n, const HfRunWant *want)
{
    LayerStream *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->top = m->ops->final_norm != NORM_NONE
                 ? (want->top < HF_TOP_WINDOW ? want->top : HF_TOP_WINDOW)
                 : 0;
    double numbers = (double)m->cfg.layers * m->cfg.heads * n * n;
    if (want->overview && numbers <= HF_OVERVIEW_MAX) {
        s->layers = m->cfg.layers, s->heads = m->cfg.heads, s->n = n;
        if (!(s->overview = malloc(sizeof *s->overview * (size_t)numbers))) {
            free(s);
            return NULL;
        }
    }
    return s;
}

bool hf_model_run(HfRun *r, const HfModel *m, const char *text, int layer, LessonError *err)
{
    return hf_model_run_ex(r, m, text, layer, NULL, err);
}

// The ids in r->ids (r->n of them, checked against the vocabulary) through every layer: what
// hf_model_run_ex and hf_model_run_ids share. text: what the notes say the run was on.
static bool run_on_ids(HfRun *r, const HfModel *m, const char *text, int layer,
                       const HfRunWant *want, LessonError *err)
{
    char config[1100];
    snprintf(config, sizeof config, "%s/config.json", m->dir);
    const char *tok_path = m->tok.source;
    bool ok = true;
    if (r->n < 1 || r->n > LESSON_MAX_TOKENS)
        ok = hf_fail(err, tok_path, NULL, "the text is %d tokens: 1 to %d are traced", r->n,
                     LESSON_MAX_TOKENS);
    for (int i = 0; ok && i < r->n; i++)
        if (r->ids[i] < 0 || r->ids[i] >= m->cfg.vocab)
            ok = hf_fail(err, config, "vocab_size",
                         "token id %d of the text is past the vocabulary's %d", r->ids[i],
                         m->cfg.vocab);
    Matrix h = {0};
    if (ok) {
        memset(err, 0, sizeof *err);
        if (!m->ops->embed(&h, m, r->ids, r->n, err))
            ok = err->message[0] ? false : hf_fail(err, m->dir, NULL, "out of memory");
        else ok = hf_check_embedding(m, &h, r->ids, r->n, err);
    }
    LayerStream *st = NULL;
    if (ok && want && want->stream && !(st = stream_new(m, r->n, want)))
        ok = hf_fail(err, m->dir, NULL, "out of memory");
    if (ok) ok = run_layers(r, m, &h, layer, st, err);
    if (ok && m->ops->final_norm != NORM_NONE && !next_tokens(r, m, &h, err))
        ok = err->message[0] ? false : hf_fail(err, m->dir, NULL, "out of memory");
    if (ok && st && st->top && !stream_next_tokens(st, m, &h, err))
        ok = err->message[0] ? false : hf_fail(err, m->dir, NULL, "out of memory");
    if (st) { // the run owns it (also when the run failed: hf_run_free frees it); the lesson
              // borrows it
        r->stream = st;
        r->lesson.params.stream = st;
    }
    if (ok && !(r->lesson.notes = run_notes(m, text, layer)))
        ok = hf_fail(err, m->dir, NULL, "out of memory");
    mat_free(&h);
    if (!model_unchanged(m, err)) ok = false; // whatever was computed, it read zeros
    if (!ok) hf_run_free(r);
    return ok;
}

// The layer asked for, in range. false with err naming config.json's field.
static bool layer_in_range(const HfModel *m, int layer, LessonError *err)
{
    char config[1100];
    snprintf(config, sizeof config, "%s/config.json", m->dir);
    if (layer >= 0 && layer < m->cfg.layers) return true;
    return hf_fail(err, config, m->ops->layers_key, "--layer %d: the model has %d layers (0 to %d)",
                   layer, m->cfg.layers, m->cfg.layers - 1);
}

bool hf_model_run_ex(HfRun *r, const HfModel *m, const char *text, int layer, const HfRunWant *want,
                     LessonError *err)
{
    memset(r, 0, sizeof *r);
    if (!layer_in_range(m, layer, err)) return false;
    size_t len = strlen(text), bad = utf8_invalid_at(text, len);
    if (bad < len) // never a file or a JSON output that is not UTF-8
        return hf_fail(err, "--text", NULL,
                       "byte %zu (0x%02X) is not UTF-8 (a malformed sequence, or half of a "
                       "surrogate pair, which UTF-8 cannot hold)",
                       bad, (unsigned)(unsigned char)text[bad]);
    if (!tokenizer_encode_max(&m->tok, text, LESSON_MAX_TOKENS, &r->ids, &r->n, m->tok.source, err))
        return false;
    return run_on_ids(r, m, text, layer, want, err);
}

bool hf_model_run_ids(HfRun *r, const HfModel *m, const int *ids, int n, int layer,
                      LessonError *err)
{
    memset(r, 0, sizeof *r);
    if (!layer_in_range(m, layer, err)) return false;
    if (n < 1 || n > LESSON_MAX_TOKENS)
        return hf_fail(err, "--ids", NULL, "%d token ids: 1 to %d are traced", n,
                       LESSON_MAX_TOKENS);
    if (!(r->ids = malloc((size_t)n * sizeof *r->ids)))
        return hf_fail(err, m->dir, NULL, "out of memory");
    memcpy(r->ids, ids, (size_t)n * sizeof *ids);
    r->n = n;
    return run_on_ids(r, m, "(given as token ids)", layer, NULL, err);
}

void hf_run_free(HfRun *r)
{
    free(r->ids);
    lesson_free(&r->lesson);
    layer_stream_free(r->stream);
    free(r->stream);
    for (int k = 0; k < HF_TOP; k++) free(r->next[k].token);
    memset(r, 0, sizeof *r);
}
