// The command line's JSON of the two computations beside the trace: --json --decode (generation step by step
// with a KV cache, streamed a step at a time) and --json --tiles B (each head's FlashAttention tiles).
#include "cli.h"
#include "../core/decode.h"

#include <math.h>
#include <stdlib.h>

// A (1, c) matrix as "key": [numbers]; last: no comma after it.
static void json_list(FILE *out, const char *indent, const char *key, const double *v, int count, bool last)
{
    fprintf(out, "%s\"%s\": ", indent, key);
    cli_json_row(out, v, count);
    fprintf(out, "%s\n", last ? "" : ",");
}

static void json_work(FILE *out, const char *indent, int64_t with_cache, int64_t without_cache, bool last)
{
    fprintf(out, "%s\"multiply_adds\": {\"with_cache\": %lld, \"without_cache\": %lld}%s\n", indent,
            (long long)with_cache, (long long)without_cache, last ? "" : ",");
}

// One step: the new token, every head's query, caches, weights and z, the output row and the work.
static void print_step(FILE *out, const Lesson *l, const Decoder *d, int t)
{
    const AttnParams *p = &l->params;
    fprintf(out, "    {\n      \"position\": %d,\n      \"token\": ", t);
    cli_json_string(out, l->tokens[t]);
    fputs(",\n      \"head\": [\n", out);
    for (int h = 0; h < p->heads; h++) {
        int g = params_kv_head(p, h); // its K/V head's cache (shared by the heads of its group)
        Matrix keys = {t + 1, p->d_k, d->k_cache[g].data}, values = {t + 1, p->d_k, d->v_cache[g].data};
        fputs("        {\n", out);
        if (p->kv_given) fprintf(out, "          \"kv_head\": %d,\n", g);
        json_list(out, "          ", "q", d->q[h].data, p->d_k, false);
        cli_json_matrix(out, "k_cache", &keys, "          ", false);
        cli_json_matrix(out, "v_cache", &values, "          ", false);
        json_list(out, "          ", "weights", d->weights[h].data, t + 1, false);
        json_list(out, "          ", "z", d->z[h].data, p->d_k, true);
        fprintf(out, "        }%s\n", h + 1 < p->heads ? "," : "");
    }
    fputs("      ],\n", out);
    json_list(out, "      ", "output", d->output.data, p->d_model, false);
    fprintf(out, "      \"cache_values\": %lld,\n", (long long)2 * p->kv_heads * (t + 1) * p->d_k);
    DecodeWork w = decode_work(p, t);
    json_work(out, "      ", w.with_cache, w.without_cache, true);
    fprintf(out, "    }%s\n", t + 1 < p->n ? "," : "");
}

bool cli_print_decode(FILE *out, const Lesson *l)
{
    const AttnParams *p = &l->params;
    Decoder d;
    if (!decode_init(&d, p)) return false;
    fputs("{\n  \"title\": ", out);
    cli_json_string(out, l->title);
    fprintf(out, ",\n  \"heads\": %d,\n  \"d_k\": %d,\n  \"steps\": [\n", p->heads, p->d_k);
    int64_t with_cache = 0, without_cache = 0;
    bool ok = true;
    for (int t = 0; ok && t < p->n; t++) {
        ok = decode_step(&d);
        if (!ok) break;
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
    fprintf(out, "%s          {\n            \"rows\": [%d, %d],\n            \"cols\": [%d, %d],\n", tp->count ? ",\n" : "",
            s->r0, s->r1, s->c0, s->c1);
    json_list(out, "            ", "m", s->m->data, s->m->rows, false);
    json_list(out, "            ", "l", s->l->data, s->l->rows, false);
    cli_json_matrix(out, "O", s->O, "            ", true);
    fputs("          }", out);
    tp->count++;
}

void cli_json_tiles(FILE *out, const Lesson *l, const Trace *t, int h, int block)
{
    const AttnParams *p = &l->params;
    const HeadTrace *ht = &t->head[h];
    Matrix z, m, lsum;
    bool ok = mat_init(&z, p->n, p->d_k), okm = mat_init(&m, p->n, 1), okl = mat_init(&lsum, p->n, 1);
    int64_t computed = 0, skipped = 0;
    tiles_count(p, block, &computed, &skipped);
    fprintf(out, "      \"tiles\": {\n        \"block\": %d,\n        \"computed\": %lld,\n        \"skipped\": %lld,\n"
                 "        \"steps\": [\n", block, (long long)computed, (long long)skipped);
    TilePrint tp = {out, 0};
    bool rope = p->rope != ROPE_NONE; // the scores read the rotated rows
    if (ok && okm && okl)
        tiles_run(p, rope ? &ht->Q_rot : &ht->Q, rope ? &ht->K_rot : &ht->K, &ht->V, block, print_tile, &tp, &z, &m, &lsum);
    fputs(tp.count ? "\n        ],\n" : "        ],\n", out);
    // The largest |O / l - Z| against the softmax stage's Z: rounding only (the sums run in another order).
    double diff = 0.0;
    for (int i = 0; ok && i < p->n; i++)
        for (int c = 0; c < p->d_k; c++) diff = fmax(diff, fabs(mat_row(&z, i)[c] - mat_row(&ht->Z, i)[c]));
    json_list(out, "        ", "m", m.data, m.rows, false);
    json_list(out, "        ", "l", lsum.data, lsum.rows, false);
    fputs("        \"largest_difference_from_Z\": ", out);
    fprintf(out, "%.17g\n      }\n", diff);
    mat_free(&z), mat_free(&m), mat_free(&lsum);
}
