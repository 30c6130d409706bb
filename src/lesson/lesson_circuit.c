// A lesson of layers over a vocabulary: "vocabulary", "tokens" as its words, "token_embeddings"
// (vocab x d_model), "positions" (n_ctx x d_model), "weights" (one layer's object, a list of them,
// or {"random": ...} with "layers"), "unembedding" (d_model x vocab) and an induction "train"
// section, read into a LessonCircuit; the Lesson's params hold layer 0 on the lesson's tokens.
#include "lesson/lesson_ctx.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"

#define CIRCUIT_MAX_VOCAB 65536

// The keys of a lesson of one layer that a lesson of layers does not take: said as such, not as
// unknown keys (CIRCUIT_KEYS lets them through lesson_check_keys).
static const char *const ONE_LAYER_KEYS[] = {"rope",    "kv_heads",  "source",
                                             "targets", "questions", NULL};
static const char *const CIRCUIT_KEYS[] = {
    "$schema",    "title",    "notes",       "language",
    "vocabulary", "tokens",   "sentence",    "split",
    "d_model",    "heads",    "d_k",         "mask",
    "window",     "scale",    "positions",   "token_embeddings",
    "weights",    "layers",   "unembedding", "train",
    "rope",       "kv_heads", "source",      "targets",
    "questions",  NULL};
#define CIRCUIT_KEYS_TEXT                                                                          \
    "$schema, title, notes, language, vocabulary, tokens, sentence, split, d_model, heads, d_k, "  \
    "mask, window, scale, positions, token_embeddings, weights, layers, unembedding, train"

void lesson_circuit_free(LessonCircuit *c)
{
    if (!c) return;
    lesson_free_strings(c->vocabulary, c->vocab);
    free(c->ids);
    circuit_free(&c->model);
    free(c);
}

// A string member (out NULL: only checked).
static bool string_member(Ctx *c, const cJSON *root, const char *key, bool required, char **out)
{
    const cJSON *v = required ? lesson_need(c, root, key) : lesson_enter(c, root, key);
    if (!v) return !required;
    const char *s;
    if (!lesson_get_string(c, v, &s)) return false;
    if (out && !(*out = lesson_dup_string(s, strlen(s)))) return lesson_fail(c, "out of memory");
    lesson_pop(c);
    return true;
}

// "vocabulary": 1 .. CIRCUIT_MAX_VOCAB distinct non-empty strings.
static bool read_vocabulary(Ctx *c, const cJSON *root, LessonCircuit *lc)
{
    const cJSON *v = lesson_need(c, root, "vocabulary");
    if (!v) return false;
    int count = cJSON_IsArray(v) ? cJSON_GetArraySize(v) : -1;
    if (count < 1 || count > CIRCUIT_MAX_VOCAB)
        return lesson_fail(c, "expected an array of 1 to %d distinct words, got %s",
                           CIRCUIT_MAX_VOCAB, count < 0 ? lesson_type_name(v) : "an empty array");
    if (!(lc->vocabulary = calloc((size_t)count, sizeof *lc->vocabulary)))
        return lesson_fail(c, "out of memory");
    char shown[80];
    int i = 0;
    for (const cJSON *w = v->child; w; w = w->next, i++) {
        lesson_push_index(c, i);
        const char *s;
        if (!lesson_get_string(c, w, &s)) return false;
        if (!*s) return lesson_fail(c, "expected a non-empty word");
        for (int j = 0; j < i; j++)
            if (strcmp(lc->vocabulary[j], s) == 0)
                return lesson_fail(c, "\"%s\" is already word %d of the vocabulary",
                                   lesson_show_key(s, shown, sizeof shown), j);
        if (!(lc->vocabulary[i] = lesson_dup_string(s, strlen(s))))
            return lesson_fail(c, "out of memory");
        lc->vocab = i + 1;
        lesson_pop(c);
    }
    lesson_pop(c);
    return true;
}

// The tokens as indices into the vocabulary (at the token that is not a word of it).
static bool token_ids(Ctx *c, const cJSON *root, Build *b, LessonCircuit *lc)
{
    if (!(lc->ids = calloc((size_t)b->n, sizeof *lc->ids))) return lesson_fail(c, "out of memory");
    char shown[80];
    for (int i = 0; i < b->n; i++) {
        int k = 0;
        while (k < lc->vocab && strcmp(lc->vocabulary[k], b->l.tokens[i]) != 0) k++;
        if (k < lc->vocab) {
            lc->ids[i] = k;
            continue;
        }
        int member;
        bool listed = lesson_member(root, "tokens", &member) != NULL;
        if (!listed) lesson_member(root, "sentence", &member);
        lesson_push_key(c, listed ? "tokens" : "sentence", member);
        if (listed) lesson_push_index(c, i);
        return lesson_fail(c, "token %d, \"%s\", is not a word of the vocabulary", i,
                           lesson_show_key(b->l.tokens[i], shown, sizeof shown));
    }
    return true;
}

// A matrix of `rows` rows of `cols` numbers at key, explicit or {"random": {"seed", "std"}}.
static bool read_table(Ctx *c, const cJSON *root, const char *key, Matrix *out, int rows, int cols,
                       const char *rows_what, const char *cols_what)
{
    const cJSON *v = lesson_need(c, root, key);
    if (!v) return false;
    if (cJSON_IsObject(v)) {
        int d = cols;
        if (!lesson_read_embeddings(c, v, rows, rows_what, &d, -1, out)) return false;
    } else {
        if (!mat_init(out, rows, cols)) return lesson_fail(c, "out of memory");
        if (!lesson_read_matrix(c, v, out, rows_what, cols_what)) return false;
    }
    lesson_pop(c);
    return true;
}

// "positions": absent or "none" (zeros), "sinusoidal", {"random": ...} (one row per token) or
// n_ctx >= n rows of d_model numbers. *n_ctx the rows; the matrix itself is read later.
static bool positions_kind(Ctx *c, const cJSON *root, Build *b, LessonCircuit *lc, int *n_ctx)
{
    const cJSON *v = lesson_enter(c, root, "positions");
    *n_ctx = b->n;
    lc->positions = POS_NONE;
    if (!v) return true;
    if (cJSON_IsString(v) && strcmp(v->valuestring, "sinusoidal") == 0)
        lc->positions = POS_SINUSOIDAL;
    else if (cJSON_IsObject(v)) lc->positions = POS_EXPLICIT;
    else if (cJSON_IsArray(v)) {
        lc->positions = POS_EXPLICIT;
        *n_ctx = cJSON_GetArraySize(v);
        if (*n_ctx < b->n || *n_ctx > LESSON_MAX_TOKENS)
            return lesson_fail(c, "expected %d to %d rows (n_ctx, at least one per token), got %d",
                               b->n, LESSON_MAX_TOKENS, *n_ctx);
    } else if (!(cJSON_IsString(v) && strcmp(v->valuestring, "none") == 0))
        return lesson_fail(c,
                           "expected \"none\", \"sinusoidal\", {\"random\": ...} or rows of %d "
                           "numbers (n_ctx of them, at least one per token)",
                           b->l.params.d_model);
    lesson_pop(c);
    return true;
}

// {"random": {"seed", "qkv_std", "out_std"}} for every layer: one stream, default_rng(seed), each
// layer drawn as a lesson of one layer draws its weights (per head W_Q, W_K, W_V; then W_O), layer
// after layer.
static bool random_layers(Ctx *c, const cJSON *w, Circuit *m)
{
    static const char *const keys[] = {"seed", "qkv_std", "out_std", NULL};
    int k;
    const cJSON *r = lesson_member(w, "random", &k);
    lesson_push_key(c, "random", k);
    if (!cJSON_IsObject(r))
        return lesson_fail(c, "expected an object {\"seed\": S, \"qkv_std\": 1.0, \"out_std\": "
                              "1.0}");
    if (!lesson_check_keys(c, r, keys, "seed, qkv_std, out_std")) return false;
    const cJSON *s = lesson_need(c, r, "seed");
    uint64_t seed;
    if (!s || !lesson_get_seed(c, s, &seed)) return false;
    lesson_pop(c);
    double qkv = 1.0, out = 1.0;
    if (!lesson_optional_std(c, r, "qkv_std", &qkv) || !lesson_optional_std(c, r, "out_std", &out))
        return false;
    Rng rng;
    rng_seed(&rng, seed);
    size_t each = (size_t)m->shape.d_model * (size_t)m->shape.d_k;
    for (int l = 0; l < m->layers; l++) {
        LayerWeights *lw = &m->w[l];
        for (int h = 0; h < m->shape.heads; h++) {
            rng_normal_fill(&rng, 0.0, qkv, lw->W_Q[h].data, each);
            rng_normal_fill(&rng, 0.0, qkv, lw->W_K[h].data, each);
            rng_normal_fill(&rng, 0.0, qkv, lw->W_V[h].data, each);
        }
        rng_normal_fill(&rng, 0.0, out, lw->W_O.data, (size_t)lw->W_O.rows * (size_t)lw->W_O.cols);
        if (!mat_all_finite(&lw->W_O, false) || !mat_all_finite(&lw->W_Q[0], false))
            return lesson_fail(c, "a standard deviation times a normal draw overflows a double");
    }
    lesson_pop(c);
    return true;
}

// One layer's weights object v (explicit, random or PyTorch: as a lesson of one layer reads
// "weights") into layer l.
static bool one_layer(Ctx *c, const cJSON *v, const Build *b, Circuit *m, int l)
{
    AttnParams tmp;
    if (!params_init(&tmp, 1, 1, m->shape.d_model, m->shape.heads, m->shape.d_k))
        return lesson_fail(c, "out of memory");
    tmp.cfg = b->cfg;
    tmp.kv_heads = m->shape.heads;
    tmp.kv_given = false;
    bool ok = lesson_read_weights(c, v, &tmp);
    if (ok) layer_weights_copy_values(&m->w[l], &tmp.w, m->shape);
    params_free(&tmp);
    return ok;
}

// "weights" and "layers": the number of layers (checked against a list's length) and every
// layer's weights into the circuit, made here.
static bool read_layers(Ctx *c, const cJSON *root, Build *b, LessonCircuit *lc, int n_ctx)
{
    int layers = 1, k;
    const cJSON *lv = lesson_member(root, "layers", &k), *w = lesson_member(root, "weights", &k);
    if (!lesson_optional_int(c, root, "layers", 1, CIRCUIT_MAX_LAYERS, &layers)) return false;
    if (!w) return lesson_fail(c, "missing required key \"weights\"");
    if (cJSON_IsArray(w)) {
        int count = cJSON_GetArraySize(w);
        if (count < 1 || count > CIRCUIT_MAX_LAYERS || (lv && count != layers)) {
            lesson_push_key(c, "weights", k);
            return lv ? lesson_fail(c, "expected %d layer%s (as \"layers\" says), got %d", layers,
                                    plural(layers), count)
                      : lesson_fail(c, "expected 1 to %d layers (one object each), got %d",
                                    CIRCUIT_MAX_LAYERS, count);
        }
        layers = count;
    }
    LayerShape shape = {b->l.params.d_model, b->cfg.heads, b->cfg.heads, b->cfg.d_k};
    double values = 4.0 * layers * shape.heads * (double)shape.d_k * shape.d_model;
    if (values > LESSON_MAX_WEIGHT_VALUES)
        return lesson_fail_top(c, "weights", k,
                               "the layers' weights would hold %.0f numbers (4 * layers * heads * "
                               "d_k * d_model); the limit is %.0f",
                               values, LESSON_MAX_WEIGHT_VALUES);
    if (!circuit_init(&lc->model, layers, shape, lc->vocab, n_ctx))
        return lesson_fail(c, "out of memory");
    lesson_push_key(c, "weights", k);
    if (!cJSON_IsArray(w)) {
        int rk;
        if (cJSON_IsObject(w) && lesson_member(w, "random", &rk))
            return random_layers(c, w, &lc->model) && (lesson_pop(c), true);
        if (layers != 1)
            return lesson_fail(c, "\"layers\": %d needs a list of %d layers or {\"random\": ...}",
                               layers, layers);
        return one_layer(c, w, b, &lc->model, 0) && (lesson_pop(c), true);
    }
    int l = 0;
    for (const cJSON *item = w->child; item; item = item->next, l++) {
        lesson_push_index(c, l);
        if (!one_layer(c, item, b, &lc->model, l)) return false;
        lesson_pop(c);
    }
    lesson_pop(c);
    return true;
}

// "train": {"task": "induction", "period": [min, max], "sequences", "seed", "steps",
// "learning_rate"}.
static bool read_train(Ctx *c, const cJSON *t, LessonCircuit *lc, int n_ctx)
{
    static const char *const keys[] = {"task",  "period",        "sequences", "seed",
                                       "steps", "learning_rate", NULL};
    if (!cJSON_IsObject(t))
        return lesson_fail(c,
                           "expected an object {\"task\": \"induction\", \"period\": [4, 8], "
                           "...}, got %s",
                           lesson_type_name(t));
    if (!lesson_check_keys(c, t, keys, "task, period, sequences, seed, steps, learning_rate"))
        return false;
    CircuitTrainSpec s = {4, 8, 32, TRAIN_DEFAULT_STEPS, 0, TRAIN_DEFAULT_LEARNING_RATE};
    const cJSON *v = lesson_need_hint(c, t, "task", "induction");
    if (!v) return false;
    if (!cJSON_IsString(v) || strcmp(v->valuestring, "induction") != 0)
        return lesson_fail(c, "expected \"induction\" (a lesson of layers trains on repeats)");
    lesson_pop(c);
    if ((v = lesson_enter(c, t, "period"))) {
        if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2)
            return lesson_fail(c, "expected [shortest, longest], two whole numbers");
        int lo, hi;
        lesson_push_index(c, 0);
        if (!lesson_get_int(c, v->child, 1, 256, &lo)) return false;
        lesson_pop(c);
        lesson_push_index(c, 1);
        if (!lesson_get_int(c, v->child->next, lo, 256, &hi)) return false;
        if (hi > lc->vocab)
            return lesson_fail(c, "a period of %d needs %d distinct tokens; the vocabulary has %d",
                               hi, hi, lc->vocab);
        lesson_pop(c);
        lesson_pop(c);
        s.period_min = lo, s.period_max = hi;
    } else if (s.period_max > lc->vocab)
        return lesson_fail(c,
                           "the default period [4, 8] needs 8 distinct tokens; the vocabulary "
                           "has %d: give \"period\"",
                           lc->vocab);
    if (!lesson_optional_int(c, t, "sequences", 1, CIRCUIT_MAX_SEQUENCES, &s.sequences)
        || !lesson_optional_seed(c, t, "seed", &s.seed)
        || !lesson_optional_int(c, t, "steps", 1, CIRCUIT_MAX_STEPS, &s.steps))
        return false;
    if ((v = lesson_enter(c, t, "learning_rate"))) {
        if (!lesson_get_number(c, v, &s.learning_rate)) return false;
        if (!(s.learning_rate > 0 && s.learning_rate <= 1))
            return lesson_fail(c, "must be a number above 0 and at most 1");
        lesson_pop(c);
    }
    if (n_ctx < 2)
        return lesson_fail(c, "training predicts the next token: n_ctx must be 2 or more");
    lc->trains = true;
    lc->train = s;
    return true;
}

// b->l.params: layer 0 on the lesson's tokens (E[tokens], P[0..n), explicit positions),
// self-attention.
static bool layer_zero(Ctx *c, Build *b, const LessonCircuit *lc)
{
    AttnConfig cfg = b->cfg;
    const Circuit *m = &lc->model;
    if (!params_init(&b->l.params, b->n, b->n, m->shape.d_model, m->shape.heads, m->shape.d_k)
        || !params_set_positions(&b->l.params, POS_EXPLICIT))
        return lesson_fail(c, "out of memory");
    b->l.params.cfg = cfg;
    b->l.params.kv_heads = m->shape.heads;
    b->l.params.positions = POS_EXPLICIT;
    size_t row = (size_t)m->shape.d_model * sizeof(double);
    for (int i = 0; i < b->n; i++) {
        memcpy(mat_row(&b->l.params.E, i), mat_row(&m->E, lc->ids[i]), row);
        memcpy(mat_row(&b->l.params.P, i), mat_row(&m->P, i), row);
    }
    params_apply_positions(&b->l.params);
    layer_weights_copy_values(&b->l.params.w, &m->w[0], m->shape);
    if (!(b->l.source_tokens = calloc((size_t)b->n, sizeof *b->l.source_tokens)))
        return lesson_fail(c, "out of memory");
    b->m = b->n;
    for (int i = 0; i < b->n; i++)
        if (!(b->l.source_tokens[i] = lesson_dup_string(b->l.tokens[i], strlen(b->l.tokens[i]))))
            return lesson_fail(c, "out of memory");
    return true;
}

// The sizes: d_model (given, or the token embeddings' rows), heads, d_k (given, or d_model /
// heads).
static bool read_sizes(Ctx *c, const cJSON *root, Build *b, LessonCircuit *lc, Matrix *E)
{
    int d_model = -1, dm_member = -1, k;
    lesson_member(root, "d_model", &dm_member);
    if (!lesson_optional_int(c, root, "d_model", 1, LESSON_MAX_D_MODEL, &d_model)) return false;
    if (!lesson_fields_read(c, root, b, FIELDS_WITH_SHAPE)) return false;
    const cJSON *v = lesson_need(c, root, "token_embeddings");
    if (!v
        || !lesson_read_embeddings(c, v, lc->vocab, "one per word of the vocabulary", &d_model,
                                   dm_member, E))
        return false;
    lesson_pop(c);
    if (b->cfg.d_k < 0) {
        if (d_model % b->cfg.heads != 0)
            return lesson_fail_top(c, "heads", (lesson_member(root, "heads", &k), k),
                                   "%d does not divide d_model (%d); change heads or give d_k",
                                   b->cfg.heads, d_model);
        b->cfg.d_k = d_model / b->cfg.heads;
    }
    b->cfg.kv_heads = b->cfg.heads;
    b->l.params.d_model = d_model;
    return true;
}

// The matrices once the circuit is made: E (read before), P, U.
static bool read_tables(Ctx *c, const cJSON *root, LessonCircuit *lc, Matrix *E)
{
    Circuit *m = &lc->model;
    memcpy(m->E.data, E->data, (size_t)E->rows * (size_t)E->cols * sizeof(double));
    if (lc->positions == POS_EXPLICIT) {
        Matrix P = {0};
        bool ok = read_table(c, root, "positions", &P, m->n_ctx, m->shape.d_model,
                             "n_ctx, one per position", "d_model");
        if (ok) memcpy(m->P.data, P.data, (size_t)P.rows * (size_t)P.cols * sizeof(double));
        mat_free(&P);
        if (!ok) return false;
    } else if (lc->positions == POS_SINUSOIDAL) positions_sinusoidal(&m->P);
    Matrix U = {0};
    bool ok = read_table(c, root, "unembedding", &U, m->shape.d_model, lc->vocab,
                         "d_model, one per number of a residual", "one per word of the vocabulary");
    if (ok) memcpy(m->U.data, U.data, (size_t)U.rows * (size_t)U.cols * sizeof(double));
    mat_free(&U);
    return ok;
}

// Each key of ONE_LAYER_KEYS in root, refused at its place with what a lesson of layers is.
static bool one_layer_keys(Ctx *c, const cJSON *root)
{
    bool ok = true;
    int d0 = c->depth, k;
    for (int i = 0; ONE_LAYER_KEYS[i]; i++) {
        if (!lesson_member(root, ONE_LAYER_KEYS[i], &k)) continue;
        lesson_push_key(c, ONE_LAYER_KEYS[i], k);
        ok = lesson_fail_key(c,
                             "\"%s\" is not a key of a lesson of layers (a lesson with a "
                             "\"vocabulary\"): rope, kv_heads, source, targets and questions "
                             "are for a lesson of one layer",
                             ONE_LAYER_KEYS[i]);
        if (!c->rep) return false;
        c->depth = d0;
    }
    return ok;
}

bool lesson_build_circuit(Ctx *c, const cJSON *root, Build *b)
{
    LessonCircuit *lc = calloc(1, sizeof *lc);
    if (!lc) return lesson_fail(c, "out of memory");
    b->l.circuit = lc;
    Matrix E = {0};
    int n_ctx = 0, k;
    bool ok = one_layer_keys(c, root) && lesson_check_keys(c, root, CIRCUIT_KEYS, CIRCUIT_KEYS_TEXT)
              && string_member(c, root, "$schema", false, NULL)
              && string_member(c, root, "title", true, &b->l.title)
              && string_member(c, root, "notes", false, &b->l.notes)
              && lesson_fields_read(c, root, b, FIELDS_WITH_TITLE) && read_vocabulary(c, root, lc)
              && lesson_read_tokens(c, root, &b->l.tokens, &b->n) && token_ids(c, root, b, lc)
              && read_sizes(c, root, b, lc, &E) && positions_kind(c, root, b, lc, &n_ctx)
              && read_layers(c, root, b, lc, n_ctx) && read_tables(c, root, lc, &E);
    mat_free(&E);
    const cJSON *t = ok ? lesson_member(root, "train", &k) : NULL;
    if (t) {
        lesson_push_key(c, "train", k);
        ok = read_train(c, t, lc, n_ctx);
        if (ok) lesson_pop(c);
    }
    double trace = lc->model.layers
                   * trace_values(b->n, b->n, b->l.params.d_model, b->cfg.heads, b->cfg.d_k, false);
    if (ok && trace > LESSON_MAX_TRACE_VALUES)
        ok = lesson_fail_top(c, "heads", (lesson_member(root, "heads", &k), k),
                             "the layers' traces would hold %.0f numbers; the limit is %.0f", trace,
                             LESSON_MAX_TRACE_VALUES);
    ok = ok && layer_zero(c, b, lc);
    c->depth = 0;
    return ok;
}
