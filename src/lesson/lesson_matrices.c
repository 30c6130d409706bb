// A lesson's matrices: the embeddings (rows, or seeded {"random": ...}), the weights (seeded,
// explicit, or a PyTorch nn.MultiheadAttention state_dict) and the positions (sinusoidal or
// explicit).
#include "lesson/lesson_ctx.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"

// --- embeddings ---

// out (rows, d_model) = the "embeddings" value v at the current path, explicit rows or {"random":
// ...}. *d_model < 0 when not given (explicit rows then set it). d_model_member is the position of
// the top-level "d_model" key, blamed when it disagrees with the rows (-1: the rows are blamed
// instead). rows_what names the row count in messages ("one per token", "one per source token").
// The n numbers at v, drawn with standard deviation std (the key of r, in the current path): all
// finite, else an error at that key (std times a normal draw overflowed a double; what names the
// matrices).
static bool drawn_finite(Ctx *c, const cJSON *r, const char *key, double std, const double *v,
                         size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++) {
        if (isfinite(v[i])) continue;
        char num[40];
        lesson_enter(c, r, key);
        return lesson_fail(c,
                           "%s times a normal draw overflows a double (%s would hold an infinity): "
                           "use a smaller %s",
                           lesson_fmt_num(std, num, sizeof num), what, key);
    }
    return true;
}

bool lesson_read_embeddings(Ctx *c, const cJSON *v, int rows, const char *rows_what, int *d_model,
                            int d_model_member, Matrix *out)
{
    if (cJSON_IsObject(v)) {
        static const char *const keys[] = {"random", NULL};
        static const char *const random_keys[] = {"seed", "std", NULL};
        if (!lesson_check_keys(c, v, keys, "random")) return false;
        int ri;
        const cJSON *r = lesson_member(v, "random", &ri);
        if (!r)
            return lesson_fail(c, "missing required key \"random\" (or give the rows of numbers)");
        lesson_push_key(c, "random", ri);
        if (!cJSON_IsObject(r))
            return lesson_fail(c, "expected an object {\"seed\": S, \"std\": 1.0}, got %s",
                               lesson_type_name(r));
        if (!lesson_check_keys(c, r, random_keys, "seed, std")) return false;
        const cJSON *seed_v = lesson_need(c, r, "seed");
        uint64_t seed;
        if (!seed_v || !lesson_get_seed(c, seed_v, &seed)) return false;
        lesson_pop(c);
        double std = 1.0;
        if (!lesson_optional_std(c, r, "std", &std)) return false;
        lesson_pop(c);
        if (*d_model < 0)
            return lesson_fail_top(c, NULL, 0,
                                   "missing required key \"d_model\" (random embeddings need it)");
        if (!mat_init(out, rows, *d_model)) return lesson_fail(c, "out of memory");
        Rng rng;
        rng_seed(&rng, seed);
        rng_normal_fill(&rng, 0.0, std, out->data, (size_t)rows * (size_t)*d_model);
        lesson_push_key(c, "random", ri);
        if (!drawn_finite(c, r, "std", std, out->data, (size_t)rows * (size_t)*d_model,
                          "the embeddings"))
            return false;
        lesson_pop(c);
        return true;
    }
    if (!cJSON_IsArray(v))
        return lesson_fail(c, "expected an array of rows (%s) or {\"random\": {...}}, got %s",
                           rows_what, lesson_type_name(v));
    int got = cJSON_GetArraySize(v);
    if (got != rows)
        return lesson_fail(c, "expected %d row%s (%s), got %d", rows, plural(rows), rows_what, got);
    // Row lengths: when they all agree but differ from the given d_model, d_model is the one to
    // blame.
    int first_len = -1;
    bool uniform = true;
    for (const cJSON *row = v->child; row; row = row->next) {
        int len = cJSON_IsArray(row) ? cJSON_GetArraySize(row) : -1;
        if (first_len < 0 && row == v->child) first_len = len;
        uniform = uniform && len >= 0 && len == first_len;
    }
    if (*d_model < 0) {
        lesson_push_index(c, 0);
        if (!cJSON_IsArray(v->child))
            return lesson_fail(c, "expected an array of numbers, got %s",
                               lesson_type_name(v->child));
        if (first_len == 0) return lesson_fail(c, "expected at least one number, got an empty row");
        if (first_len > LESSON_MAX_D_MODEL)
            return lesson_fail(c, "a row of %d numbers, but d_model can be at most %d", first_len,
                               LESSON_MAX_D_MODEL);
        lesson_pop(c);
        *d_model = first_len;
    } else if (uniform && first_len != *d_model && d_model_member >= 0) {
        return lesson_fail_top(c, "d_model", d_model_member,
                               "%d disagrees with the embeddings, whose rows have %d number%s",
                               *d_model, first_len, plural(first_len));
    }
    if (!mat_init(out, rows, *d_model)) return lesson_fail(c, "out of memory");
    return lesson_read_matrix(c, v, out, rows_what, "d_model");
}

// {"random": {"seed": S}} embeddings: their seed (to warn when the weights share it).
bool lesson_embeddings_seed(const cJSON *v, uint64_t *seed)
{
    const cJSON *r = cJSON_IsObject(v) ? cJSON_GetObjectItemCaseSensitive(v, "random") : NULL;
    const cJSON *s = cJSON_IsObject(r) ? cJSON_GetObjectItemCaseSensitive(r, "seed") : NULL;
    if (!cJSON_IsNumber(s)) return false;
    *seed = (uint64_t)s->valuedouble;
    return true;
}

// --- weights ---

// How many matrices of PARAMS row i a lesson gives, and what the count is called in messages: one
// per head, or one per K/V head when the lesson names kv_heads.
static const char *count_name(const AttnParams *p, int i, const char **per)
{
    bool kv = PARAMS[i].per_kv && p->kv_given;
    *per = kv ? "K/V head" : "head";
    return kv ? "kv_heads" : "heads";
}

// The own matrices of PARAMS row i (params_own; each already shaped) = the array of matrices v.
static bool read_matrix_list(Ctx *c, const cJSON *v, AttnParams *p, int i)
{
    int heads = params_count(p, i);
    const char *per, *what = count_name(p, i, &per);
    const char *noun = heads == 1 ? "matrix" : "matrices";
    if (!cJSON_IsArray(v))
        return lesson_fail(c, "expected an array of %d %s (one per %s), got %s", heads, noun, per,
                           lesson_type_name(v));
    int got = cJSON_GetArraySize(v);
    if (got != heads) return lesson_fail(c, "expected %d %s (%s), got %d", heads, noun, what, got);
    int h = 0, d0 = c->depth;
    bool ok = true;
    for (const cJSON *x = v->child; x; x = x->next, h++) {
        lesson_push_index(c, h);
        if (!lesson_read_matrix(c, x, params_own(p, i, h), "d_model", "d_k")) {
            if (!c->rep) return false;
            ok = false;
        }
        c->depth = d0;
    }
    return ok;
}

// The own bias vectors of PARAMS row i (each (1, d_k)) = the array of bias vectors v.
static bool read_bias_list(Ctx *c, const cJSON *v, AttnParams *p, int i)
{
    int heads = params_count(p, i);
    const char *per, *what = count_name(p, i, &per);
    if (!cJSON_IsArray(v))
        return lesson_fail(c, "expected an array of %d bias vector%s (one per %s), got %s", heads,
                           plural(heads), per, lesson_type_name(v));
    int got = cJSON_GetArraySize(v);
    if (got != heads)
        return lesson_fail(c, "expected %d bias vector%s (%s), got %d", heads, plural(heads), what,
                           got);
    int h = 0, d0 = c->depth;
    bool ok = true;
    for (const cJSON *x = v->child; x; x = x->next, h++) {
        lesson_push_index(c, h);
        Matrix *b = params_own(p, i, h);
        if (!lesson_read_vector(c, x, b->data, b->cols, "d_k")) {
            if (!c->rep) return false;
            ok = false;
        }
        c->depth = d0;
    }
    return ok;
}

static bool read_weights_random(Ctx *c, const cJSON *r, AttnParams *p)
{
    static const char *const keys[] = {"seed", "qkv_std", "out_std", NULL};
    if (!cJSON_IsObject(r))
        return lesson_fail(
            c, "expected an object {\"seed\": S, \"qkv_std\": 1.0, \"out_std\": 1.0}, got %s",
            lesson_type_name(r));
    if (!lesson_check_keys(c, r, keys, "seed, qkv_std, out_std")) return false;
    const cJSON *v = lesson_need(c, r, "seed");
    uint64_t seed;
    if (!v || !lesson_get_seed(c, v, &seed)) return false;
    static const char *const whose[2] = {"the embeddings", "the source's embeddings"};
    for (int i = 0; i < 2; i++)
        if (c->emb_seeded[i] && c->emb_seed[i] == seed)
            lesson_warn(c,
                        "the same seed as %s (%.0f): both are drawn from one random stream that "
                        "starts the same way, "
                        "so W_Q\xe2\x82\x80 is filled with the embeddings' own numbers in the same "
                        "order (its rows repeat "
                        "them) and the attention is not what independent random weights give; give "
                        "the weights "
                        "another seed",
                        whose[i], (double)seed);
    lesson_pop(c);
    double qkv_std = 1.0, out_std = 1.0;
    if (!lesson_optional_std(c, r, "qkv_std", &qkv_std)
        || !lesson_optional_std(c, r, "out_std", &out_std))
        return false;
    // One stream, like rng = default_rng(seed): per head W_Q, and W_K, W_V of its K/V head right
    // after the W_Q of the group's first head (every head with kv_heads = heads); then W_O.
    Rng rng;
    rng_seed(&rng, seed);
    size_t qkv = (size_t)p->d_model * (size_t)p->d_k;
    for (int h = 0; h < p->heads; h++) {
        rng_normal_fill(&rng, 0.0, qkv_std, p->W_Q[h].data, qkv);
        if (h % (p->heads / p->kv_heads)) continue;
        rng_normal_fill(&rng, 0.0, qkv_std, p->W_K[h].data, qkv);
        rng_normal_fill(&rng, 0.0, qkv_std, p->W_V[h].data, qkv);
        if (!drawn_finite(c, r, "qkv_std", qkv_std, p->W_Q[h].data, qkv, "W_Q, W_K and W_V")
            || !drawn_finite(c, r, "qkv_std", qkv_std, p->W_K[h].data, qkv, "W_Q, W_K and W_V")
            || !drawn_finite(c, r, "qkv_std", qkv_std, p->W_V[h].data, qkv, "W_Q, W_K and W_V"))
            return false;
    }
    rng_normal_fill(&rng, 0.0, out_std, p->W_O.data, (size_t)p->W_O.rows * (size_t)p->W_O.cols);
    return drawn_finite(c, r, "out_std", out_std, p->W_O.data,
                        (size_t)p->W_O.rows * (size_t)p->W_O.cols, "W_O");
}

static bool read_weights_explicit(Ctx *c, const cJSON *w, AttnParams *p)
{
    static const char *const required[] = {"W_Q", "W_K", "W_V", "W_O"};
    for (int i = 0; i < 4; i++) {
        int k;
        if (!lesson_member(w, required[i], &k))
            return lesson_fail(
                c, "missing required key \"%s\" (explicit weights need W_Q, W_K, W_V and W_O)",
                required[i]);
    }
    static const char *const bias_names[3] = {"b_Q", "b_K", "b_V"};
    // Each matrix is checked on its own: in a report, a mistake in W_Q does not hide one in W_O.
    int d0 = c->depth;
    bool ok = true;
#define NEXT(read)                                                                                 \
    do {                                                                                           \
        if (!(read)) {                                                                             \
            if (!c->rep) return false;                                                             \
            ok = false;                                                                            \
        }                                                                                          \
        c->depth = d0;                                                                             \
    } while (0)
    for (int i = 0; i < 3; i++) {
        int k;
        const cJSON *v = lesson_member(w, required[i], &k);
        lesson_push_key(c, required[i], k);
        NEXT(read_matrix_list(c, v, p, i)); // PARAMS rows 0..2: W_Q, W_K, W_V
    }
    int k;
    const cJSON *v = lesson_member(w, "W_O", &k);
    lesson_push_key(c, "W_O", k);
    NEXT(lesson_read_matrix(c, v, &p->W_O, "heads * d_k", "d_model"));
    for (int i = 0; i < 3; i++) {
        if (!(v = lesson_member(w, bias_names[i], &k))) continue;
        lesson_push_key(c, bias_names[i], k);
        NEXT(read_bias_list(c, v, p, 3 + i)); // PARAMS rows 3..5: b_Q, b_K, b_V
    }
    if ((v = lesson_enter(c, w, "b_O"))) {
        NEXT(lesson_read_vector(c, v, p->b_O.data, p->d_model, "d_model"));
    }
#undef NEXT
    return ok;
}

// The pytorch object's keys and shape: "num_heads" (optional) confirms "heads", one K/V head per
// head, heads * d_k == d_model, in_proj_weight and out_proj_weight present.
static bool check_pytorch_form(Ctx *c, const cJSON *t, const AttnParams *p)
{
    static const char *const keys[] = {"in_proj_weight", "in_proj_bias", "out_proj_weight",
                                       "out_proj_bias",  "num_heads",    NULL};
    if (!cJSON_IsObject(t))
        return lesson_fail(
            c, "expected an object {\"in_proj_weight\": ..., \"out_proj_weight\": ...}, got %s",
            lesson_type_name(t));
    if (!lesson_check_keys(
            c, t, keys, "in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias, num_heads"))
        return false;
    int d = p->d_model, dk = p->d_k;
    // A state_dict does not record the layer's num_heads; "num_heads" (optional) confirms "heads".
    int nk, num_heads = 0;
    const cJSON *nh = lesson_member(t, "num_heads", &nk);
    c->pytorch_unconfirmed = nh == NULL;
    if (nh) {
        lesson_push_key(c, "num_heads", nk);
        if (!lesson_get_int(c, nh, 1, LESSON_MAX_HEADS, &num_heads)) return false;
        if (num_heads != p->heads)
            return lesson_fail(
                c,
                "the layer has num_heads %d but the lesson's \"heads\" is %d; heads must be the "
                "layer's "
                "num_heads, or the heads split in_proj_weight differently and attend otherwise",
                num_heads, p->heads);
        lesson_pop(c);
    }
    if (p->kv_heads != p->heads)
        return lesson_fail(
            c,
            "torch.nn.MultiheadAttention has one K/V head per head: \"kv_heads\" (%d) must be "
            "heads (%d) "
            "or left out with PyTorch weights; give grouped-query weights as W_Q, W_K, W_V, W_O",
            p->kv_heads, p->heads);
    if (p->heads * dk != d)
        return lesson_fail(
            c, "the pytorch form needs heads * d_k == d_model, but %d * %d = %d and d_model is %d",
            p->heads, dk, p->heads * dk, d);
    int k;
    if (!lesson_member(t, "in_proj_weight", &k))
        return lesson_fail(c, "missing required key \"in_proj_weight\"");
    if (!lesson_member(t, "out_proj_weight", &k))
        return lesson_fail(c, "missing required key \"out_proj_weight\"");
    return true;
}

// The state_dict's tensors as they are: in_w (3 d_model, d_model), in_b (1, 3 d_model), out_w
// (d_model, d_model), and out_proj_bias straight into b_O.
static bool read_pytorch_tensors(Ctx *c, const cJSON *t, AttnParams *p, Matrix *in_w, Matrix *in_b,
                                 Matrix *out_w)
{
    int d = p->d_model, k;
    const cJSON *v = lesson_member(t, "in_proj_weight", &k);
    lesson_push_key(c, "in_proj_weight", k);
    if (!lesson_read_matrix(c, v, in_w, "3 * d_model", "d_model")) return false;
    lesson_pop(c);
    if ((v = lesson_enter(c, t, "in_proj_bias"))) {
        if (!lesson_read_vector(c, v, in_b->data, 3 * d, "3 * d_model")) return false;
        lesson_pop(c);
    }
    v = lesson_member(t, "out_proj_weight", &k);
    lesson_push_key(c, "out_proj_weight", k);
    if (!lesson_read_matrix(c, v, out_w, "d_model", "d_model")) return false;
    lesson_pop(c);
    if ((v = lesson_enter(c, t, "out_proj_bias"))) {
        if (!lesson_read_vector(c, v, p->b_O.data, d, "d_model")) return false;
        lesson_pop(c);
    }
    return true;
}

// Head h's W_Q, W_K, W_V (d_model, d_k) = rows h*d_k .. of each third of in_w, transposed, and its
// biases from in_b; W_O (d_model, d_model) = out_w transposed.
static void split_pytorch(AttnParams *p, const Matrix *in_w, const Matrix *in_b,
                          const Matrix *out_w)
{
    int d = p->d_model, dk = p->d_k;
    Matrix *W[3] = {p->W_Q, p->W_K, p->W_V};
    Matrix *B[3] = {p->b_Q, p->b_K, p->b_V};
    for (int part = 0; part < 3; part++) {
        for (int h = 0; h < p->heads; h++) {
            for (int j = 0; j < dk; j++) {
                int row = part * d + h * dk + j;
                for (int a = 0; a < d; a++) mat_set(&W[part][h], a, j, mat_get(in_w, row, a));
                mat_set(&B[part][h], 0, j, mat_get(in_b, 0, row));
            }
        }
    }
    for (int r = 0; r < d; r++)
        for (int col = 0; col < d; col++) mat_set(&p->W_O, r, col, mat_get(out_w, col, r));
}

// torch.nn.MultiheadAttention's state_dict: q = x Wq^T + bq with Wq the first d_model rows of
// in_proj_weight (then Wk, Wv); head i takes rows i*d_k .. (i+1)*d_k - 1 of each third, transposed.
static bool read_weights_pytorch(Ctx *c, const cJSON *t, AttnParams *p)
{
    if (!check_pytorch_form(c, t, p)) return false;
    int d = p->d_model;
    Matrix in_w = {0}, in_b = {0}, out_w = {0};
    bool ok = mat_init(&in_w, 3 * d, d) && mat_init(&in_b, 1, 3 * d) && mat_init(&out_w, d, d);
    if (!ok) ok = lesson_fail(c, "out of memory");
    else if ((ok = read_pytorch_tensors(c, t, p, &in_w, &in_b, &out_w)))
        split_pytorch(p, &in_w, &in_b, &out_w);
    mat_free(&in_w);
    mat_free(&in_b);
    mat_free(&out_w);
    return ok;
}

static int weight_form(const char *key)
{
    if (strcmp(key, "random") == 0) return 0;
    if (strcmp(key, "pytorch") == 0) return 1;
    return 2;
}

// The "weights" value w (at the current path) into p (already shaped, zeroed).
bool lesson_read_weights(Ctx *c, const cJSON *w, AttnParams *p)
{
    static const char *const keys[] = {"random", "pytorch", "W_Q", "W_K", "W_V", "W_O",
                                       "b_Q",    "b_K",     "b_V", "b_O", NULL};
    if (!cJSON_IsObject(w))
        return lesson_fail(
            c, "expected an object with \"random\", \"pytorch\" or W_Q, W_K, W_V, W_O, got %s",
            lesson_type_name(w));
    if (!lesson_check_keys(c, w, keys,
                           "random, pytorch, or W_Q, W_K, W_V, W_O, b_Q, b_K, b_V, b_O"))
        return false;
    if (!w->child)
        return lesson_fail(c, "expected one of \"random\", \"pytorch\", or explicit W_Q, W_K, W_V, "
                              "W_O, got an empty object");
    int form = weight_form(w->child->string);
    int k = 0;
    for (const cJSON *ch = w->child; ch; ch = ch->next, k++) {
        if (weight_form(ch->string) != form) {
            lesson_push_key(c, ch->string, k);
            return lesson_fail_key(
                c, "two weight forms at once: %s\"%s\" and %s\"%s\"; give exactly one",
                form == 2 ? "explicit " : "", w->child->string,
                weight_form(ch->string) == 2 ? "explicit " : "", ch->string);
        }
    }
    if (form == 2) return read_weights_explicit(c, w, p);
    const cJSON *v = lesson_member(w, form == 0 ? "random" : "pytorch", &k);
    lesson_push_key(c, form == 0 ? "random" : "pytorch", k);
    if (!(form == 0 ? read_weights_random(c, v, p) : read_weights_pytorch(c, v, p))) return false;
    lesson_pop(c);
    return true;
}

// --- positions ---

// x = e + p all finite, else an error at the number of p (its matrix's path pushed) naming both
// numbers.
static bool sum_finite(Ctx *c, const Matrix *x, const Matrix *e, const Matrix *p, const char *e_key,
                       const char *p_key)
{
    for (int i = 0; i < x->rows; i++)
        for (int j = 0; j < x->cols; j++) {
            if (isfinite(mat_get(x, i, j))) continue;
            char a[40], b[40];
            lesson_push_index(c, i);
            lesson_push_index(c, j);
            return lesson_fail(
                c, "%s[%d][%d] + %s[%d][%d] = %s + %s overflows a double: use smaller numbers",
                e_key, i, j, p_key, i, j, lesson_fmt_num(mat_get(e, i, j), a, sizeof a),
                lesson_fmt_num(mat_get(p, i, j), b, sizeof b));
        }
    return true;
}

// "positions" ("none", "sinusoidal" or an n x d_model matrix) and "source.positions" (m x d_model,
// only beside an explicit "positions") into p, whose X and S hold the token embeddings.
bool lesson_read_positions(Ctx *c, const cJSON *root, const cJSON *source, int source_member,
                           AttnParams *p)
{
    int k, sk = -1;
    const cJSON *v = lesson_member(root, "positions", &k);
    const cJSON *sv = cJSON_IsObject(source) ? lesson_member(source, "positions", &sk) : NULL;
    PositionKind kind = POS_NONE;
    char shown[80];
    if (v) {
        lesson_push_key(c, "positions", k);
        if (cJSON_IsString(v)) {
            if (strcmp(v->valuestring, "sinusoidal") == 0) kind = POS_SINUSOIDAL;
            else if (strcmp(v->valuestring, "none") != 0)
                return lesson_fail(c,
                                   "expected \"none\", \"sinusoidal\" or %d row%s of %d numbers "
                                   "(one per token), got \"%s\"",
                                   p->n, plural(p->n), p->d_model,
                                   lesson_show_key(v->valuestring, shown, sizeof shown));
        } else if (cJSON_IsArray(v)) kind = POS_EXPLICIT;
        else
            return lesson_fail(c,
                               "expected \"none\", \"sinusoidal\" or %d row%s of %d numbers (one "
                               "per token), got %s",
                               p->n, plural(p->n), p->d_model, lesson_type_name(v));
        lesson_pop(c);
    }
    if (sv && kind != POS_EXPLICIT) {
        c->depth = 0;
        lesson_push_key(c, "source", source_member);
        lesson_push_key(c, "positions", sk);
        return lesson_fail(
            c,
            kind == POS_SINUSOIDAL
                ? "not with \"positions\": \"sinusoidal\", which gives the source its own sinusoids"
                : "the source's positions go with an explicit \"positions\" matrix for the "
                  "queries");
    }
    if (kind == POS_NONE) return true;
    if (!params_set_positions(p, kind)) return lesson_fail(c, "out of memory");
    if (kind == POS_EXPLICIT) {
        lesson_push_key(c, "positions", k);
        if (!lesson_read_matrix(c, v, &p->P, "one per token", "d_model")) return false;
        lesson_pop(c);
        if (sv) {
            lesson_push_key(c, "source", source_member);
            lesson_push_key(c, "positions", sk);
            if (!lesson_read_matrix(c, sv, &p->P_S, "one per source token", "d_model"))
                return false;
            lesson_pop(c);
            lesson_pop(c);
        }
        params_apply_positions(p);
        c->depth = 0;
        lesson_push_key(c, "positions", k);
        if (!sum_finite(c, &p->X, &p->E, &p->P, "embeddings", "positions")) return false;
        if (sv) {
            c->depth = 0;
            lesson_push_key(c, "source", source_member);
            lesson_push_key(c, "positions", sk);
            if (!sum_finite(c, &p->S, &p->E_S, &p->P_S, "source.embeddings", "source.positions"))
                return false;
        }
        c->depth = 0;
    }
    return true;
}
