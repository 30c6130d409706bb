// libFuzzer target for the modern paths (issue 39): any bytes -> lesson parser + validator -> trace
// (RoPE, grouped K/V heads, the sliding window, as the lesson asks) -> then, must never crash or
// leak, and:
// - --decode: every step's q, weights, z, output row and cached k and v rows (the rolling buffer's,
// at their
//   slots) are the trace's row bit for bit, the weights exact zeros for the keys the cache no
//   longer holds;
// - --tiles B (B = 1, 2, 3 and one tile for all): O / l within 1e-12 of Z (times the largest |V|,
// as the sums
//   run in another order), unless cli_tiles_check refuses (a running O that overflows), and then
//   what cli_json_tiles prints holds no "inf" or "nan";
// - --rope-shift K: the shifted scores equal the scores up to rounding (1e-9 of |q| |k|),
// everything else of
//   the trace the same bits as without the shift.
// Each run is small: lessons above FUZZ_MAX_VALUES are parsed only. Built with -DMHA_FUZZ=ON
// (clang); seeded with lessons/, tests/good/, tests/bad/ and tests/fuzz-seeds/.
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli.h"
#include "core/decode.h"
#include "lesson/lesson.h"

#define FUZZ_MAX_VALUES 20000.0 // heads x d_model x d_k, n x d_model, heads x n x m
#define FUZZ_MAX_TOKENS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool small(const AttnParams *p)
{
    return p->n <= FUZZ_MAX_TOKENS && (double)p->heads * p->d_model * p->d_k <= FUZZ_MAX_VALUES
           && (double)p->n * p->d_model <= FUZZ_MAX_VALUES
           && (double)p->m * p->d_model <= FUZZ_MAX_VALUES
           && (double)p->heads * p->n * p->m <= FUZZ_MAX_VALUES;
}

static bool same_bits(const double *a, const double *b, int count)
{
    for (int i = 0; i < count; i++)
        if (a[i] != b[i] && !(isnan(a[i]) && isnan(b[i]))) return false;
    return true;
}

static void fail(const char *what, int t, int h)
{
    fprintf(stderr, "fuzz_modern: %s (step or row %d, head %d)\n", what, t, h);
    abort();
}

// --decode against the trace, step by step.
static void fuzz_decode(const Lesson *l, const Trace *t)
{
    const AttnParams *p = &l->params;
    if (decode_refusal(p)) return;
    Decoder d;
    if (!decode_init(&d, p)) return;
    bool rope = p->rope != ROPE_NONE;
    for (int s = 0; s < p->n; s++) {
        if (!decode_step(&d)) fail("a step failed where the trace did not", s, -1);
        int first = s + 1 - decode_cached(&d, s);
        if (d.slot_written != decode_slot(&d, s)
            || d.evicted != (s >= d.cache_rows ? s - d.cache_rows : -1))
            fail("the slot written or the position evicted", s, -1);
        for (int h = 0; h < p->heads; h++) {
            const HeadTrace *ht = &t->head[h];
            const Matrix *q = rope ? &ht->Q_rot : &ht->Q, *k = rope ? &ht->K_rot : &ht->K;
            if (!same_bits(d.q[h].data, mat_row(q, s), p->d_k)) fail("q is not the trace's", s, h);
            if (!same_bits(d.weights[h].data, mat_row(&ht->weights, s), s + 1))
                fail("the weights", s, h);
            for (int j = 0; j < first; j++)
                if (d.weights[h].data[j] != 0.0)
                    fail("a key out of the cache weighs more than 0", s, h);
            if (!same_bits(d.z[h].data, mat_row(&ht->Z, s), p->d_k))
                fail("z is not the trace's", s, h);
            int g = params_kv_head(p, h);
            for (int j = first; j <= s; j++) {
                Matrix kr = decode_cache_row(&d, g, decode_slot(&d, j), false);
                Matrix vr = decode_cache_row(&d, g, decode_slot(&d, j), true);
                if (!same_bits(kr.data, mat_row(k, j), p->d_k)
                    || !same_bits(vr.data, mat_row(&ht->V, j), p->d_k))
                    fail("a cached row is not the trace's", j, h);
            }
        }
        if (!same_bits(d.output.data, mat_row(&t->output, s), p->d_model))
            fail("the output row", s, -1);
    }
    decode_free(&d);
}

// --tiles B against Z, and the JSON it prints.
static void fuzz_tiles(const Lesson *l, const Trace *t, int block)
{
    const AttnParams *p = &l->params;
    char why[700];
    bool usage = true;
    bool allowed = cli_tiles_check(l, t, block, why, sizeof why, &usage);
    if (!allowed && !usage) return; // out of memory
    for (int h = 0; allowed && h < p->heads; h++) {
        const HeadTrace *ht = &t->head[h];
        Matrix z, m, lsum;
        if (mat_init(&z, p->n, p->d_k) && mat_init(&m, p->n, 1) && mat_init(&lsum, p->n, 1)) {
            TilesRequest rq = tiles_request(p, ht, block);
            tiles_run(p, &rq, &z, &m, &lsum);
            double big = 1.0;
            for (int i = 0; i < ht->V.rows * ht->V.cols; i++) big = fmax(big, fabs(ht->V.data[i]));
            for (int i = 0; i < p->n * p->d_k; i++)
                if (!(fabs(z.data[i] - ht->Z.data[i]) <= 1e-12 * big))
                    fail("O / l is not Z within 1e-12", i, h);
        }
        mat_free(&z), mat_free(&m), mat_free(&lsum);
        char *text = NULL;
        size_t len = 0;
        FILE *out = open_memstream(&text, &len);
        if (out) {
            cli_json_tiles(out, l, t, h, block);
            fclose(out);
            if (text && (strstr(text, "inf") || strstr(text, "nan")))
                fail("--tiles printed inf or nan", block, h);
            free(text);
        }
    }
}

// --rope-shift k: the same scores up to rounding, the rest of the trace the same bits.
static void fuzz_rope_shift(Lesson *l, const Trace *t, int k)
{
    AttnParams *p = &l->params;
    if (p->rope == ROPE_NONE) return;
    p->rope_shift = k;
    Trace s;
    TraceError err;
    bool ok = trace_run(&s, p, &err);
    p->rope_shift = 0;
    if (!ok) return; // the shifted rows themselves may overflow where the plain ones did not
    for (int h = 0; h < p->heads; h++) {
        const HeadTrace *a = &t->head[h], *b = &s.head[h];
        double qn = 0, kn = 0;
        for (int i = 0; i < a->Q_rot.rows; i++) {
            double n2 = 0;
            for (int c = 0; c < p->d_k; c++) n2 += mat_row(&a->Q, i)[c] * mat_row(&a->Q, i)[c];
            qn = fmax(qn, sqrt(n2));
        }
        for (int j = 0; j < a->K_rot.rows; j++) {
            double n2 = 0;
            for (int c = 0; c < p->d_k; c++) n2 += mat_row(&a->K, j)[c] * mat_row(&a->K, j)[c];
            kn = fmax(kn, sqrt(n2));
        }
        double d = mat_max_abs_diff(&b->scores_shift, &b->scores);
        if (isfinite(qn * kn) && !(d <= 1e-9 * (1.0 + qn * kn)))
            fail("the shifted scores differ beyond rounding", k, h);
        if (!same_bits(a->scores.data, b->scores.data, a->scores.rows * a->scores.cols)
            || !same_bits(a->Z.data, b->Z.data, a->Z.rows * a->Z.cols))
            fail("the shift changed the trace's own numbers", k, h);
    }
    if (!same_bits(t->output.data, s.output.data, t->output.rows * t->output.cols))
        fail("the shift changed the output", k, -1);
    trace_free(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Lesson l;
    LessonError err;
    if (!lesson_parse(&l, (const char *)data, size, "fuzz.json", &err)) return 0;
    if (small(&l.params)) {
        Trace t;
        TraceError terr;
        if (trace_run(&t, &l.params, &terr)) {
            fuzz_decode(&l, &t);
            int blocks[] = {1, 2, 3, l.params.n > l.params.m ? l.params.n : l.params.m};
            for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++)
                fuzz_tiles(&l, &t, blocks[i]);
            static const int shifts[] = {1, 3, 100, 1000};
            fuzz_rope_shift(&l, &t, shifts[size % 4]);
            trace_free(&t);
        }
    }
    lesson_free(&l);
    return 0;
}
