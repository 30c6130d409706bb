// KV-cache decoding (a step per token, the caches growing) and FlashAttention's tiles (an online
// softmax per key block): both on the trace's own kernels, see decode.h for the shapes and the
// promises.
#include "core/decode.h"
#include "core/attn.h"
#include "core/exactmath.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// The K/V heads: grouped-query attention shares one among consecutive query heads (params_kv_head).
static int kv_heads(const AttnParams *p) { return p->kv_heads > 0 ? p->kv_heads : p->heads; }
// The first query head of K/V head g: its W_K, W_V, b_K, b_V entries hold the group's matrices.
static int group_head(const AttnParams *p, int g) { return g * (p->heads / kv_heads(p)); }

// Whether query i sees key j: the causal mask (keys up to i, within the lesson's sliding window)
// when the lesson has it, else every key.
static bool sees(const AttnParams *p, int i, int j)
{
    return p->mask != MASK_CAUSAL || !attn_masked(i, j, p->window);
}

// How many keys query i sees of the first `keys`.
static int64_t seen(const AttnParams *p, int i, int keys)
{
    int64_t count = 0;
    for (int j = 0; j < keys; j++) count += sees(p, i, j);
    return count;
}

// A view of rows r0 .. r0+rows-1 of m (no copy).
static Matrix rows_of(const Matrix *m, int r0, int rows)
{
    return (Matrix){rows, m->cols, mat_row(m, r0)};
}

// The first `cols` columns of a one-row matrix (no copy).
static Matrix first_cols(const Matrix *m, int cols) { return (Matrix){1, cols, m->data}; }

// ---------------------------------------------------------------------------------------------------
// Decoding

const char *decode_refusal(const AttnParams *p)
{
    if (p->cross)
        return "\"source\": decoding generates one sequence, and a lesson with a source attends to "
               "another one";
    if (p->mask != MASK_CAUSAL)
        return "\"mask\": decoding needs \"mask\": \"causal\" (without it each token would see the "
               "tokens after it)";
    return NULL;
}

void decode_free(Decoder *d)
{
    int g = d->p ? kv_heads(d->p) : 0, h = d->p ? d->p->heads : 0;
    for (int i = 0; d->k_cache && i < g; i++) mat_free(&d->k_cache[i]), mat_free(&d->v_cache[i]);
    for (int i = 0; d->q && i < h; i++)
        mat_free(&d->q[i]), mat_free(&d->scores[i]), mat_free(&d->weights[i]), mat_free(&d->z[i]);
    free(d->k_cache), free(d->v_cache), free(d->q), free(d->scores), free(d->weights), free(d->z);
    mat_free(&d->keys), mat_free(&d->values), mat_free(&d->concat), mat_free(&d->output);
    memset(d, 0, sizeof *d);
}

// The rows a cache needs: a sliding window of W keeps the last W keys (Mistral's rolling buffer).
static int cache_rows(const AttnParams *p)
{
    return p->mask == MASK_CAUSAL && p->window > 0 && p->window < p->n ? p->window : p->n;
}

DecodeBuffer decode_buffer(const AttnParams *p, int t)
{
    DecodeBuffer b;
    b.rows = cache_rows(p);
    b.cached = t + 1 < b.rows ? t + 1 : b.rows;
    b.first = t + 1 - b.cached;
    b.slot = t % b.rows;
    b.evicted = t >= b.rows ? t - b.rows : -1;
    return b;
}

bool decode_init(Decoder *d, const AttnParams *p)
{
    memset(d, 0, sizeof *d);
    d->p = p;
    d->cache_rows = cache_rows(p);
    d->slot_written = -1, d->evicted = -1;
    int g = kv_heads(p), h = p->heads, rows = d->cache_rows;
    d->k_cache = calloc((size_t)g, sizeof(Matrix)), d->v_cache = calloc((size_t)g, sizeof(Matrix));
    d->q = calloc((size_t)h, sizeof(Matrix)), d->scores = calloc((size_t)h, sizeof(Matrix));
    d->weights = calloc((size_t)h, sizeof(Matrix)), d->z = calloc((size_t)h, sizeof(Matrix));
    bool ok = d->k_cache && d->v_cache && d->q && d->scores && d->weights && d->z;
    for (int i = 0; ok && i < g; i++)
        ok = mat_init(&d->k_cache[i], rows, p->d_k) && mat_init(&d->v_cache[i], rows, p->d_k);
    for (int i = 0; ok && i < h; i++)
        ok = mat_init(&d->q[i], 1, p->d_k) && mat_init(&d->scores[i], 1, p->n)
             && mat_init(&d->weights[i], 1, p->n) && mat_init(&d->z[i], 1, p->d_k);
    if (rows < p->n) // a rolling buffer: its rows are put in position order each step (else they
                     // are in it)
        ok = ok && mat_init(&d->keys, rows, p->d_k) && mat_init(&d->values, rows, p->d_k);
    ok = ok && mat_init(&d->concat, 1, p->heads * p->d_k) && mat_init(&d->output, 1, p->d_model);
    if (!ok) decode_free(d);
    return ok;
}

int decode_cached(const Decoder *d, int t) { return t + 1 < d->cache_rows ? t + 1 : d->cache_rows; }

Matrix decode_cache_row(const Decoder *d, int g, int slot, bool value)
{
    return rows_of(value ? &d->v_cache[g] : &d->k_cache[g], slot, 1);
}

// K/V head g's cached rows of positions first .. t, in position order, into d->keys and d->values
// (the rolling buffer's two runs, slots first mod rows .. rows-1 then 0 ..): rows t - first + 1.
static void gather(Decoder *d, int g, int first, int t)
{
    size_t row = (size_t)d->p->d_k * sizeof(double);
    for (int j = first; j <= t; j++) {
        int slot = decode_slot(d, j);
        memcpy(mat_row(&d->keys, j - first), mat_row(&d->k_cache[g], slot), row);
        memcpy(mat_row(&d->values, j - first), mat_row(&d->v_cache[g], slot), row);
    }
}

// Token t's key and value into every K/V head's cache, slot t mod cache_rows, computed as the trace
// computes row t of K and V (the key turned by RoPE at position t when the lesson rotates). False:
// a number overflowed.
static bool write_kv(Decoder *d, const Matrix *x, int t, int slot)
{
    const AttnParams *p = d->p;
    const LayerWeights *lw = &p->w;
    for (int g = 0; g < kv_heads(p); g++) {
        Matrix k = rows_of(&d->k_cache[g], slot, 1), v = rows_of(&d->v_cache[g], slot, 1);
        int h = group_head(p, g);
        if (p->rope != ROPE_NONE) {
            attn_project(&d->q[h], x, &lw->W_K[h],
                         &lw->b_K[h]); // the unturned key, in a row of its size
            attn_rope_scaled(&k, &d->q[h], p->rope, p->rope_base, &p->rope_scale, +1, t);
        } else attn_project(&k, x, &lw->W_K[h], &lw->b_K[h]);
        attn_project(&v, x, &lw->W_V[h], &lw->b_V[h]);
        if (!mat_all_finite(&k, false) || !mat_all_finite(&v, false)) return false;
    }
    return true;
}

bool decode_step(Decoder *d)
{
    const AttnParams *p = d->p;
    const LayerWeights *lw = &p->w;
    int t = d->steps;
    if (t >= p->n) return false;
    Matrix x = rows_of(&p->X, t, 1); // (1, d_model) the new token alone
    DecodeBuffer buf = decode_buffer(p, t);
    int slot = buf.slot, first = buf.first, rows = buf.cached;
    // The slot's old key and value (position t - cache_rows, out of the window now) are
    // overwritten.
    if (!write_kv(d, &x, t, slot)) return false;
    double root = sqrt((double)p->d_k);
    int gathered = -1;
    for (int h = 0; h < p->heads; h++) {
        int g = params_kv_head(p, h);
        bool rolling = d->cache_rows < p->n;
        if (rolling && g != gathered) gather(d, g, first, t), gathered = g;
        Matrix keys = rows_of(rolling ? &d->keys : &d->k_cache[g], 0, rows);
        Matrix values = rows_of(rolling ? &d->values : &d->v_cache[g], 0, rows);
        Matrix s = first_cols(&d->scores[h], t + 1), w = first_cols(&d->weights[h], t + 1);
        Matrix s_cached = {1, rows, s.data + first}, w_cached = {1, rows, w.data + first};
        if (p->rope != ROPE_NONE) { // the query turned at position t (z's row holds it unturned
                                    // until below)
            attn_project(&d->z[h], &x, &lw->W_Q[h], &lw->b_Q[h]);
            attn_rope_scaled(&d->q[h], &d->z[h], p->rope, p->rope_base, &p->rope_scale, +1, t);
        } else attn_project(&d->q[h], &x, &lw->W_Q[h], &lw->b_Q[h]);
        attn_scores(&s_cached, &d->q[h],
                    &keys); // (1, rows) = q_t K_cacheᵀ over the cached positions
        for (int j = 0; j <= t; j++)
            s.data[j] =
                j >= first && sees(p, t, j) ? attn_scale_one(p, s.data[j], root) : -INFINITY;
        if (!mat_all_finite(&d->q[h], false) || !mat_all_finite(&s, true)) return false;
        mat_softmax_rows(&w, &s); // over positions 0..t: the ones no longer cached weigh exactly 0
        // (1, d_k) = weights V_cache over the cached rows in position order: the trace's sum
        // without its leading zero terms, which leave its running sum +0 (so the same bits).
        attn_weighted_sum(&d->z[h], &w_cached, &values);
        if (!mat_all_finite(&d->z[h], false)) return false;
    }
    attn_concat(&d->concat, d->z, p->heads);
    attn_ablate(&d->concat, p->req.ablated, p->heads, p->d_k);
    mat_matmul(&d->output, &d->concat, &lw->W_O);
    mat_add_row(&d->output, &lw->b_O);
    if (!mat_all_finite(&d->output, false)) return false;
    d->evicted = buf.evicted;
    d->slot_written = slot, d->first_cached = first, d->steps = t + 1;
    return true;
}

DecodeWork decode_work(const AttnParams *p, int t)
{
    int64_t h = p->heads, g = kv_heads(p), d_model = p->d_model, d_k = p->d_k,
            rows = (int64_t)t + 1;
    // (RoPE's rotation, 4 multiplications a pair, is left out: it is not a multiply-add of the
    // layer's.)
    int64_t project =
        h * d_model * d_k + 2 * g * d_model * d_k; // one token's q (every head), k and v
    int64_t out_row = h * d_k * d_model; // one output row: concat W_O
    DecodeWork w;
    w.with_cache = project + 2 * h * seen(p, t, t + 1) * d_k + out_row;
    w.without_cache = rows * project + 2 * h * rows * rows * d_k + rows * out_row;
    return w;
}

// ---------------------------------------------------------------------------------------------------
// Tiles

// Whether the mask hides every key of columns c0 .. c1-1 from every query of rows r0 .. r1-1.
static bool tile_hidden(const AttnParams *p, int r0, int r1, int c0, int c1)
{
    for (int i = r0; i < r1; i++)
        for (int j = c0; j < c1; j++)
            if (sees(p, i, j)) return false;
    return true;
}

void tiles_count(const AttnParams *p, int block, int64_t *computed, int64_t *skipped)
{
    *computed = *skipped = 0;
    int most = p->n > p->m ? p->n : p->m, b = block < most ? block : most;
    for (int r0 = 0; r0 < p->n; r0 += b)
        for (int c0 = 0; c0 < p->m; c0 += b) {
            int r1 = r0 + b < p->n ? r0 + b : p->n, c1 = c0 + b < p->m ? c0 + b : p->m;
            if (tile_hidden(p, r0, r1, c0, c1)) ++*skipped;
            else ++*computed;
        }
}

int64_t tiles_rows(const AttnParams *p, int block)
{
    int64_t rows = 0;
    int most = p->n > p->m ? p->n : p->m, b = block < most ? block : most;
    for (int r0 = 0; r0 < p->n; r0 += b)
        for (int c0 = 0; c0 < p->m; c0 += b) {
            int r1 = r0 + b < p->n ? r0 + b : p->n, c1 = c0 + b < p->m ? c0 + b : p->m;
            if (!tile_hidden(p, r0, r1, c0, c1)) rows += r1 - r0;
        }
    return rows;
}

// e^(a - b) for the running rescale: 0 when a is -inf (nothing was seen: no weight to carry).
static double rescale(double a, double b) { return a == -INFINITY ? 0.0 : core_exp(a - b); }

TilesRequest tiles_request(const AttnParams *p, const HeadTrace *ht, int block)
{
    bool rope = p->rope != ROPE_NONE;
    return (TilesRequest){
        rope ? &ht->Q_rot : &ht->Q, rope ? &ht->K_rot : &ht->K, &ht->V, block, NULL, NULL};
}

int64_t tiles_run(const AttnParams *p, const TilesRequest *req, Matrix *z, Matrix *mz, Matrix *lz)
{
    const Matrix *q = req->q, *k = req->k, *v = req->v;
    int block = req->block;
    Matrix s, pv, m, l, O;
    memset(&s, 0, sizeof s), memset(&pv, 0, sizeof pv);
    memset(&m, 0, sizeof m), memset(&l, 0, sizeof l), memset(&O, 0, sizeof O);
    int most = p->n > p->m ? p->n : p->m, b = block < most ? block : most, d_k = p->d_k;
    int64_t computed = 0;
    bool ok = mat_init(&s, b, b) && mat_init(&pv, b, d_k) && mat_init(&m, b, 1)
              && mat_init(&l, b, 1) && mat_init(&O, b, d_k);
    double root = sqrt((double)d_k);
    for (int r0 = 0; ok && r0 < p->n; r0 += b) {
        int r1 = r0 + b < p->n ? r0 + b : p->n, rb = r1 - r0;
        for (int i = 0; i < rb; i++) m.data[i] = -INFINITY, l.data[i] = 0.0;
        memset(O.data, 0, (size_t)b * (size_t)d_k * sizeof(double));
        Matrix qb = rows_of(q, r0, rb);
        for (int c0 = 0; c0 < p->m; c0 += b) {
            int c1 = c0 + b < p->m ? c0 + b : p->m, cb = c1 - c0;
            if (tile_hidden(p, r0, r1, c0, c1))
                continue; // FlashAttention skips what the mask hides entirely
            Matrix kb = rows_of(k, c0, cb), vb = rows_of(v, c0, cb);
            Matrix sb = {rb, cb, s.data}, pb = {rb, d_k, pv.data};
            attn_scores(&sb, &qb, &kb); // (rb, cb) = Q_blk K_blkᵀ: the only scores held
            for (int i = 0; i < rb; i++) {
                double *row = mat_row(&sb, i), mx = m.data[i];
                for (int j = 0; j < cb; j++) {
                    row[j] = sees(p, r0 + i, c0 + j) ? attn_scale_one(p, row[j], root) : -INFINITY;
                    if (row[j] > mx) mx = row[j];
                }
                double carry = rescale(m.data[i], mx), sum = 0.0; // e^(m - m_new)
                for (int j = 0; j < cb; j++) {
                    row[j] = row[j] == -INFINITY ? 0.0 : core_exp(row[j] - mx); // e^(S - m_new)
                    sum += row[j];
                }
                l.data[i] = l.data[i] * carry + sum;
                double *o = mat_row(&O, i);
                for (int c = 0; c < d_k; c++) o[c] *= carry;
                m.data[i] = mx;
            }
            attn_weighted_sum(&pb, &sb, &vb); // (rb, d_k) = e^(S - m_new) V_blk
            for (int i = 0; i < rb; i++)
                for (int c = 0; c < d_k; c++) mat_row(&O, i)[c] += mat_row(&pb, i)[c];
            computed++;
            if (req->visit) {
                Matrix ms = {rb, 1, m.data}, ls = {rb, 1, l.data}, os = {rb, d_k, O.data};
                TileStep st = {r0, r1, c0, c1, &ms, &ls, &os};
                req->visit(req->ctx, &st);
            }
        }
        for (int i = 0; i < rb;
             i++) { // Z = O / l (a row that sees nothing: zeros, as the softmax gives)
            mz->data[r0 + i] = m.data[i], lz->data[r0 + i] = l.data[i];
            for (int c = 0; c < d_k; c++)
                mat_row(z, r0 + i)[c] = l.data[i] > 0 ? mat_row(&O, i)[c] / l.data[i] : 0.0;
        }
    }
    mat_free(&s), mat_free(&pv), mat_free(&m), mat_free(&l), mat_free(&O);
    return ok ? computed : -1;
}
