// The command line's JSON of the two computations beside the trace: --json --decode (generation
// step by step with a KV cache, streamed a step at a time) and --json --tiles B (each head's
// FlashAttention tiles). Both print what a step or a tile adds, never the whole cache again, and
// both are refused before a byte is printed when the output would pass the limit --json itself
// keeps (LESSON_MAX_TRACE_VALUES numbers).
#include "app/cli.h"
#include "core/decode.h"

#include <math.h>
#include <stdlib.h>

// A (1, c) matrix as "key": [numbers]; last: no comma after it.
static void json_list(FILE *out, const char *indent, const char *key, const double *v, int count,
                      bool last)
{
    fprintf(out, "%s\"%s\": ", indent, key);
    cli_json_row(out, v, count);
    fprintf(out, "%s\n", last ? "" : ",");
}

static void json_work(FILE *out, const char *indent, int64_t with_cache, int64_t without_cache,
                      bool last)
{
    fprintf(out, "%s\"multiply_adds\": {\"with_cache\": %lld, \"without_cache\": %lld}%s\n", indent,
            (long long)with_cache, (long long)without_cache, last ? "" : ",");
}

static int kv_count(const AttnParams *p) { return p->kv_heads > 0 ? p->kv_heads : p->heads; }

// The positions the caches hold after step t, oldest first, and their slots in the rolling buffers.
static void print_cache(FILE *out, const Decoder *d, int t)
{
    int first = t + 1 - decode_cached(d, t);
    fputs("      \"cache_positions\": [", out);
    for (int j = first; j <= t; j++) fprintf(out, "%s%d", j > first ? ", " : "", j);
    fputs("],\n      \"cache_slots\": [", out);
    for (int j = first; j <= t; j++) fprintf(out, "%s%d", j > first ? ", " : "", decode_slot(d, j));
    fprintf(out, "],\n      \"slot_written\": %d,\n      \"evicted_position\": ", d->slot_written);
    if (d->evicted >= 0) fprintf(out, "%d,\n", d->evicted);
    else fputs("null,\n", out);
}

// One step: the new token, the k and v rows it adds to every K/V head's cache (the rows before it
// were printed by their own steps), which positions the caches hold, every query head's q, weights
// (over positions 0..t: exact zeros for the keys the window has let go) and z, the output row and
// the work.
static void print_step(FILE *out, const Lesson *l, const Decoder *d, int t)
{
    const AttnParams *p = &l->params;
    fprintf(out, "    {\n      \"position\": %d,\n      \"token\": ", t);
    cli_json_string(out, l->tokens[t]);
    fputs(",\n      \"new_kv\": [\n", out);
    for (int g = 0; g < kv_count(p); g++) {
        Matrix k = decode_cache_row(d, g, d->slot_written, false),
               v = decode_cache_row(d, g, d->slot_written, true);
        fprintf(out, "        {\n          \"kv_head\": %d,\n", g);
        json_list(out, "          ", "k", k.data, p->d_k, false);
        json_list(out, "          ", "v", v.data, p->d_k, true);
        fprintf(out, "        }%s\n", g + 1 < kv_count(p) ? "," : "");
    }
    fputs("      ],\n", out);
    print_cache(out, d, t);
    fputs("      \"head\": [\n", out);
    for (int h = 0; h < p->heads; h++) {
        fputs("        {\n", out);
        if (p->kv_given) fprintf(out, "          \"kv_head\": %d,\n", params_kv_head(p, h));
        json_list(out, "          ", "q", d->q[h].data, p->d_k, false);
        json_list(out, "          ", "weights", d->weights[h].data, t + 1, false);
        json_list(out, "          ", "z", d->z[h].data, p->d_k, true);
        fprintf(out, "        }%s\n", h + 1 < p->heads ? "," : "");
    }
    fputs("      ],\n", out);
    json_list(out, "      ", "output", d->output.data, p->d_model, false);
    fprintf(out, "      \"cache_values\": %lld,\n",
            (long long)2 * kv_count(p) * decode_cached(d, t) * p->d_k);
    DecodeWork w = decode_work(p, t);
    json_work(out, "      ", w.with_cache, w.without_cache, true);
    fprintf(out, "    }%s\n", t + 1 < p->n ? "," : "");
}

double cli_decode_values(const AttnParams *p)
{
    int window = p->mask == MASK_CAUSAL && p->window > 0 ? p->window : p->n;
    double total = 0;
    for (int t = 0; t < p->n; t++) {
        double cached = t + 1 < window ? t + 1 : window;
        total += 2.0 * kv_count(p) * p->d_k + (double)p->heads * (2.0 * p->d_k + t + 1) + p->d_model
                 + 2 * cached + 8;
    }
    return total;
}

bool cli_print_decode(FILE *out, const Lesson *l, char *why, size_t cap, bool *usage)
{
    const AttnParams *p = &l->params;
    *usage = true;
    double values = cli_decode_values(p);
    if (values > LESSON_MAX_TRACE_VALUES) {
        snprintf(why, cap,
                 "--decode: the steps would print %.0f numbers, more than the %.0f --json prints "
                 "at most",
                 values, LESSON_MAX_TRACE_VALUES);
        return false;
    }
    Decoder d;
    if (!decode_init(&d, p)) {
        *usage = false;
        snprintf(why, cap, "out of memory");
        return false;
    }
    fputs("{\n  \"title\": ", out);
    cli_json_string(out, l->title);
    fprintf(out,
            ",\n  \"heads\": %d,\n  \"kv_heads\": %d,\n  \"d_k\": %d,\n  \"cache_rows\": %d,\n  "
            "\"steps\": [\n",
            p->heads, kv_count(p), p->d_k, d.cache_rows);
    int64_t with_cache = 0, without_cache = 0;
    bool ok = true;
    for (int t = 0; ok && t < p->n; t++) {
        ok = decode_step(&d);
        if (!ok) {
            // The trace ran first and is finite, and the steps compute its rows' bits: not reached.
            snprintf(why, cap, "--decode: step %d (\"%s\"): a number exceeds a double", t,
                     l->tokens[t]);
            break;
        }
        print_step(out, l, &d, t);
        DecodeWork w = decode_work(p, t);
        with_cache += w.with_cache, without_cache += w.without_cache;
    }
    if (ok) {
        fputs("  ],\n", out);
        json_work(out, "  ", with_cache, without_cache, true);
        fputs("}\n", out);
    }
    decode_free(&d);
    return ok;
}

// ---- tiles ------------------------------------------------------------------------------------------

typedef struct {
    FILE *out;
    int count; // tiles printed so far
} TilePrint;

static void print_tile(void *ctx, const TileStep *s)
{
    TilePrint *tp = ctx;
    FILE *out = tp->out;
    fprintf(out,
            "%s          {\n            \"rows\": [%d, %d],\n            \"cols\": [%d, %d],\n",
            tp->count ? ",\n" : "", s->r0, s->r1, s->c0, s->c1);
    json_list(out, "            ", "m", s->m->data, s->m->rows, false);
    json_list(out, "            ", "l", s->l->data, s->l->rows, false);
    cli_json_matrix(out, "O", s->O, "            ", true);
    fputs("          }", out);
    tp->count++;
}

// The numbers --tiles B adds to --json: per head every visited tile's m, l and O rows and its
// corners, then the final m and l.
static double tile_values(const AttnParams *p, int block)
{
    int64_t computed = 0, skipped = 0;
    tiles_count(p, block, &computed, &skipped);
    return (double)p->heads
           * ((double)tiles_rows(p, block) * (p->d_k + 2) + 4.0 * computed + 2.0 * p->n + 4);
}

// The first tile cell that is not a finite number: where, for the error.
typedef struct {
    int tile, row, col; // tile -1: none yet; col -1: l's row, not O's
    int count; // tiles seen
    int r0, c0, c1; // the tile's first query and its keys
} TileOverflow;

static void find_overflow(void *ctx, const TileStep *s)
{
    TileOverflow *o = ctx;
    for (int i = 0; o->tile < 0 && i < s->O->rows; i++) {
        for (int c = 0; o->tile < 0 && c < s->O->cols; c++)
            if (!isfinite(mat_row(s->O, i)[c]))
                *o = (TileOverflow){o->count, i, c, o->count, s->r0, s->c0, s->c1};
        if (o->tile < 0 && !isfinite(s->l->data[i]))
            *o = (TileOverflow){o->count, i, -1, o->count, s->r0, s->c0, s->c1};
    }
    o->count++;
}

// Runs head h's tiles once unprinted: false with why when a running sum overflows (JSON has no
// infinity).
static bool tiles_finite(const Lesson *l, const Trace *t, int h, int block, char *why, size_t cap,
                         bool *memory)
{
    const AttnParams *p = &l->params;
    const HeadTrace *ht = &t->head[h];
    Matrix z, m, lsum;
    bool ok = mat_init(&z, p->n, p->d_k), okm = mat_init(&m, p->n, 1),
         okl = mat_init(&lsum, p->n, 1);
    TileOverflow o = {-1, 0, 0, 0, 0, 0, 0};
    TilesRequest rq = tiles_request(p, ht, block);
    rq.visit = find_overflow, rq.ctx = &o;
    *memory = !(ok && okm && okl);
    if (!*memory && tiles_run(p, &rq, &z, &m, &lsum) < 0) *memory = true;
    mat_free(&z), mat_free(&m), mat_free(&lsum);
    if (*memory) {
        snprintf(why, cap, "out of memory");
        return false;
    }
    if (o.tile < 0) return true;
    if (o.col >= 0)
        snprintf(why, cap,
                 "--tiles %d: head[%d].tiles.steps[%d].O[%d][%d] (query %d, the tile of keys "
                 "%d..%d) exceeds a double: "
                 "the running output O sums e^(s - m) times the values before it is divided by l, "
                 "and these values' "
                 "sum overflows where the softmax's Z does not (JSON has no infinity)",
                 block, h, o.tile, o.row, o.col, o.r0 + o.row, o.c0, o.c1 - 1);
    else
        snprintf(why, cap, "--tiles %d: head[%d].tiles.steps[%d].l[%d] exceeds a double", block, h,
                 o.tile, o.row);
    return false;
}

bool cli_tiles_check(const Lesson *l, const Trace *t, int block, char *why, size_t cap, bool *usage)
{
    const AttnParams *p = &l->params;
    *usage = true;
    double trace = trace_values(p->n, p->m, p->d_model, p->heads, p->d_k, p->rope != ROPE_NONE);
    double tiles = tile_values(p, block);
    if (trace + tiles > LESSON_MAX_TRACE_VALUES) {
        int most = p->n > p->m ? p->n : p->m, fits = 0;
        for (int b = block; b < most && !fits;) {
            b = b > most / 2 ? most : 2 * b;
            if (trace + tile_values(p, b) <= LESSON_MAX_TRACE_VALUES) fits = b;
        }
        int len = snprintf(why, cap,
                           "--tiles %d: the tiles would print %.0f numbers beside the trace's "
                           "%.0f, more than the %.0f "
                           "--json prints at most",
                           block, tiles, trace, LESSON_MAX_TRACE_VALUES);
        if (len > 0 && (size_t)len < cap) {
            if (fits)
                snprintf(why + len, cap - (size_t)len, "; a block of %d fits (--tiles %d)", fits,
                         fits);
            else snprintf(why + len, cap - (size_t)len, "; no block size fits this lesson");
        }
        return false;
    }
    for (int h = 0; h < p->heads; h++) {
        bool memory = false;
        if (!tiles_finite(l, t, h, block, why, cap, &memory)) {
            *usage = !memory;
            return false;
        }
    }
    return true;
}

void cli_json_tiles(FILE *out, const Lesson *l, const Trace *t, int h, int block)
{
    const AttnParams *p = &l->params;
    const HeadTrace *ht = &t->head[h];
    Matrix z, m, lsum;
    bool ok = mat_init(&z, p->n, p->d_k), okm = mat_init(&m, p->n, 1),
         okl = mat_init(&lsum, p->n, 1);
    int64_t computed = 0, skipped = 0;
    tiles_count(p, block, &computed, &skipped);
    fprintf(out,
            "      \"tiles\": {\n        \"block\": %d,\n        \"computed\": %lld,\n        "
            "\"skipped\": %lld,\n"
            "        \"steps\": [\n",
            block, (long long)computed, (long long)skipped);
    TilePrint tp = {out, 0};
    TilesRequest rq = tiles_request(p, ht, block); // the scores read the rotated rows
    rq.visit = print_tile, rq.ctx = &tp;
    if (ok && okm && okl) tiles_run(p, &rq, &z, &m, &lsum);
    fputs(tp.count ? "\n        ],\n" : "        ],\n", out);
    // The largest |O / l - Z| against the softmax stage's Z: rounding only (the sums run in another
    // order).
    double diff = 0.0;
    for (int i = 0; ok && i < p->n; i++)
        for (int c = 0; c < p->d_k; c++)
            diff = fmax(diff, fabs(mat_row(&z, i)[c] - mat_row(&ht->Z, i)[c]));
    json_list(out, "        ", "m", m.data, m.rows, false);
    json_list(out, "        ", "l", lsum.data, lsum.rows, false);
    fputs("        \"largest_difference_from_Z\": ", out);
    cli_json_number(out, diff); // finite: cli_tiles_check refused a lesson whose O overflows
    fputs("\n      }\n", out);
    mat_free(&z), mat_free(&m), mat_free(&lsum);
}
