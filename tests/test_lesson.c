// Tests the lesson loader: the built-in lesson against NumPy's reference, each weight form,
// sentences, cross-attention, random embeddings, big seeds, error formatting, and the JSON
// scanner's bounds.
#define _POSIX_C_SOURCE 200809L // mkstemp, ftruncate
#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "core/rng.h"
#include "core/trace.h"
#include "lesson/json_locate.h"
#include "lesson/lesson.h"
#include "model/saturation.h"
#include "read_all.h"

// Loads tests/good/NAME; on failure records the error and returns false.
static bool load_good(Lesson *l, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/good/%s", MHA_TEST_DATA, name);
    LessonError err;
    bool ok = lesson_load(l, path, &err);
    char msg[1200];
    CHECK(ok, "%s", lesson_error_format(&err, msg, sizeof msg));
    return ok;
}

// true when every entry of m equals the JSON array of rows (or, rows_json a flat array, the single
// row).
static bool matrix_equals_json(const Matrix *m, const cJSON *rows_json)
{
    if (!cJSON_IsArray(rows_json)) return false;
    if (cJSON_IsNumber(rows_json->child)) { // a vector
        if (m->rows != 1 || cJSON_GetArraySize(rows_json) != m->cols) return false;
        int c = 0;
        for (const cJSON *x = rows_json->child; x; x = x->next, c++)
            if (mat_get(m, 0, c) != x->valuedouble) return false;
        return true;
    }
    if (cJSON_GetArraySize(rows_json) != m->rows) return false;
    int r = 0;
    for (const cJSON *row = rows_json->child; row; row = row->next, r++) {
        if (cJSON_GetArraySize(row) != m->cols) return false;
        int c = 0;
        for (const cJSON *x = row->child; x; x = x->next, c++)
            if (mat_get(m, r, c) != x->valuedouble) return false;
    }
    return true;
}

static bool same_matrix(const Matrix *a, const Matrix *b)
{
    if (a->rows != b->rows || a->cols != b->cols) return false;
    size_t n = (size_t)a->rows * (size_t)a->cols;
    for (size_t i = 0; i < n; i++)
        if (a->data[i] != b->data[i]) return false;
    return true;
}

static bool same_params(const AttnParams *a, const AttnParams *b)
{
    if (a->n != b->n || a->m != b->m || a->d_model != b->d_model || a->heads != b->heads
        || a->d_k != b->d_k || a->mask != b->mask || a->cross != b->cross)
        return false;
    bool ok = same_matrix(&a->X, &b->X) && same_matrix(&a->S, &b->S)
              && same_matrix(&a->W_O, &b->W_O) && same_matrix(&a->b_O, &b->b_O);
    for (int h = 0; ok && h < a->heads; h++)
        ok = same_matrix(&a->W_Q[h], &b->W_Q[h]) && same_matrix(&a->W_K[h], &b->W_K[h])
             && same_matrix(&a->W_V[h], &b->W_V[h]) && same_matrix(&a->b_Q[h], &b->b_Q[h])
             && same_matrix(&a->b_K[h], &b->b_K[h]) && same_matrix(&a->b_V[h], &b->b_V[h]);
    return ok;
}

// The first `count` values of default_rng(seed).normal(0, std, count).
static void normals(double *out, uint64_t seed, double std, size_t count)
{
    Rng r;
    rng_seed(&r, seed);
    rng_normal_fill(&r, 0.0, std, out, count);
}

static void test_builtin(void)
{
    Lesson l;
    LessonError err;
    char msg[1200];
    bool ok = lesson_load_builtin(&l, &err);
    CHECK(ok, "%s", lesson_error_format(&err, msg, sizeof msg));
    if (!ok) return;
    const AttnParams *p = &l.params;
    CHECK(strcmp(l.title, "The cat sat") == 0, "title %s", l.title);
    CHECK(l.notes == NULL, "notes should be absent");
    CHECK(p->n == 3 && p->m == 3 && p->d_model == 4 && p->heads == 2 && p->d_k == 2,
          "sizes n=%d m=%d d=%d h=%d dk=%d", p->n, p->m, p->d_model, p->heads, p->d_k);
    CHECK(p->mask == MASK_NONE && !p->cross, "mask %d cross %d", p->mask, p->cross);
    CHECK(strcmp(l.tokens[0], "The") == 0 && strcmp(l.tokens[1], "cat") == 0
              && strcmp(l.tokens[2], "sat") == 0,
          "tokens %s %s %s", l.tokens[0], l.tokens[1], l.tokens[2]);
    for (int i = 0; i < 3; i++)
        CHECK(l.source_tokens[i] != l.tokens[i] && strcmp(l.source_tokens[i], l.tokens[i]) == 0,
              "source token %d", i);
    CHECK(mat_get(&p->W_Q[0], 0, 0) == 0.30471707975443135, "W_Q[0][0][0] = %.17g",
          mat_get(&p->W_Q[0], 0, 0));
    CHECK(l.text_len == lesson_builtin_len && memcmp(l.text, lesson_builtin_text, l.text_len) == 0
              && l.text[l.text_len] == 0,
          "text kept");

    // W_O comes after the 2 heads x 3 matrices x (4 x 2) = 48 draws of the one seed-42 stream,
    // times out_std 0.5.
    double z[49];
    normals(z, 42, 1.0, 49);
    CHECK(mat_get(&p->W_O, 0, 0) == 0.5 * z[48], "W_O[0][0] = %.17g, want %.17g",
          mat_get(&p->W_O, 0, 0), 0.5 * z[48]);
    CHECK(mat_get(&p->W_K[0], 0, 0) == z[8] && mat_get(&p->W_Q[1], 0, 0) == z[24],
          "stream order W_Q, W_K, W_V per head");

    // Every parameter equals NumPy's reference exactly.
    size_t len;
    char *ref_text = read_all(MHA_TEST_DATA "/data/the-cat-sat.trace.json", &len);
    CHECK(ref_text != NULL, "cannot read tests/data/the-cat-sat.trace.json");
    cJSON *ref = ref_text ? cJSON_Parse(ref_text) : NULL;
    CHECK(ref != NULL, "reference does not parse");
    if (ref) {
        CHECK(matrix_equals_json(&p->X, cJSON_GetObjectItem(ref, "embeddings")), "X");
        CHECK(matrix_equals_json(&p->S, cJSON_GetObjectItem(ref, "source_embeddings")), "S");
        CHECK(matrix_equals_json(&p->W_O, cJSON_GetObjectItem(ref, "W_O")), "W_O");
        CHECK(matrix_equals_json(&p->b_O, cJSON_GetObjectItem(ref, "b_O")), "b_O");
        const cJSON *heads = cJSON_GetObjectItem(ref, "head");
        CHECK(cJSON_GetArraySize(heads) == 2, "reference heads");
        for (int h = 0; h < 2 && h < cJSON_GetArraySize(heads); h++) {
            const cJSON *hj = cJSON_GetArrayItem(heads, h);
            CHECK(matrix_equals_json(&p->W_Q[h], cJSON_GetObjectItem(hj, "W_Q")), "W_Q[%d]", h);
            CHECK(matrix_equals_json(&p->W_K[h], cJSON_GetObjectItem(hj, "W_K")), "W_K[%d]", h);
            CHECK(matrix_equals_json(&p->W_V[h], cJSON_GetObjectItem(hj, "W_V")), "W_V[%d]", h);
            CHECK(matrix_equals_json(&p->b_Q[h], cJSON_GetObjectItem(hj, "b_Q")), "b_Q[%d]", h);
            CHECK(matrix_equals_json(&p->b_K[h], cJSON_GetObjectItem(hj, "b_K")), "b_K[%d]", h);
            CHECK(matrix_equals_json(&p->b_V[h], cJSON_GetObjectItem(hj, "b_V")), "b_V[%d]", h);
        }
    }
    cJSON_Delete(ref);
    free(ref_text);

    // lessons/the-cat-sat.json gives the same lesson.
    Lesson f;
    ok = lesson_load(&f, MHA_SOURCE_DIR "/lessons/the-cat-sat.json", &err);
    CHECK(ok, "%s", lesson_error_format(&err, msg, sizeof msg));
    if (ok) {
        CHECK(same_params(&f.params, &l.params),
              "lessons/the-cat-sat.json differs from the built-in lesson");
        CHECK(f.text_len == l.text_len && memcmp(f.text, l.text, f.text_len) == 0,
              "file text differs from the built-in");
        lesson_free(&f);
    }

    // Parsing from a buffer with no NUL after it (ASan catches any read past the end).
    char *exact = malloc(lesson_builtin_len);
    if (exact) {
        memcpy(exact, lesson_builtin_text, lesson_builtin_len);
        ok = lesson_parse(&f, exact, lesson_builtin_len, "exact", &err);
        CHECK(ok, "%s", lesson_error_format(&err, msg, sizeof msg));
        if (ok) {
            CHECK(same_params(&f.params, &l.params), "unterminated buffer parse differs");
            lesson_free(&f);
        }
        free(exact);
    }
    lesson_free(&l);
}

static void test_explicit(void)
{
    Lesson l;
    if (!load_good(&l, "explicit-biases.json")) return;
    const AttnParams *p = &l.params;
    CHECK(p->d_model == 2 && p->heads == 2 && p->d_k == 1 && p->n == 3, "sizes");
    CHECK(l.notes && strncmp(l.notes, "d_model 2", 9) == 0, "notes");
    double wq[2][2] = {{1, 2}, {3, 4}}, wk[2][2] = {{5, 6}, {7, 8}}, wv[2][2] = {{9, 10}, {11, 12}};
    for (int h = 0; h < 2; h++) {
        for (int a = 0; a < 2; a++) {
            CHECK(mat_get(&p->W_Q[h], a, 0) == wq[h][a], "W_Q[%d][%d]", h, a);
            CHECK(mat_get(&p->W_K[h], a, 0) == wk[h][a], "W_K[%d][%d]", h, a);
            CHECK(mat_get(&p->W_V[h], a, 0) == wv[h][a], "W_V[%d][%d]", h, a);
        }
    }
    CHECK(mat_get(&p->b_Q[0], 0, 0) == 0.1 && mat_get(&p->b_Q[1], 0, 0) == 0.2, "b_Q");
    CHECK(mat_get(&p->b_K[0], 0, 0) == 0.3 && mat_get(&p->b_K[1], 0, 0) == 0.4, "b_K");
    CHECK(mat_get(&p->b_V[0], 0, 0) == 0.5 && mat_get(&p->b_V[1], 0, 0) == 0.6, "b_V");
    CHECK(mat_get(&p->W_O, 0, 0) == 13 && mat_get(&p->W_O, 0, 1) == 15
              && mat_get(&p->W_O, 1, 0) == 14 && mat_get(&p->W_O, 1, 1) == 16,
          "W_O");
    CHECK(mat_get(&p->b_O, 0, 0) == 0.7 && mat_get(&p->b_O, 0, 1) == 0.8, "b_O");
    CHECK(mat_get(&p->X, 2, 0) == 1 && mat_get(&p->X, 2, 1) == 1 && mat_get(&p->X, 0, 1) == 0, "X");

    // The pytorch form of the same weights, worked by hand: in_proj_weight rows 0, 1 are head 0's
    // and head 1's query column; rows 2, 3 the keys; rows 4, 5 the values; W_O is out_proj_weight
    // transposed.
    Lesson t;
    if (load_good(&t, "pytorch-small.json")) {
        const AttnParams *q = &t.params;
        CHECK(q->d_model == 2 && q->heads == 2 && q->d_k == 1, "pytorch sizes");
        CHECK(mat_get(&q->W_Q[0], 0, 0) == 1 && mat_get(&q->W_Q[0], 1, 0) == 2,
              "pytorch W_Q_0 = in_proj_weight[0]^T");
        CHECK(mat_get(&q->W_Q[1], 0, 0) == 3 && mat_get(&q->W_Q[1], 1, 0) == 4,
              "pytorch W_Q_1 = in_proj_weight[1]^T");
        CHECK(mat_get(&q->W_K[0], 0, 0) == 5 && mat_get(&q->W_K[1], 1, 0) == 8,
              "pytorch W_K rows 2, 3");
        CHECK(mat_get(&q->W_V[0], 0, 0) == 9 && mat_get(&q->W_V[1], 1, 0) == 12,
              "pytorch W_V rows 4, 5");
        CHECK(mat_get(&q->b_Q[1], 0, 0) == 0.2 && mat_get(&q->b_K[0], 0, 0) == 0.3
                  && mat_get(&q->b_V[1], 0, 0) == 0.6,
              "pytorch biases");
        CHECK(mat_get(&q->W_O, 0, 1) == 15 && mat_get(&q->W_O, 1, 0) == 14,
              "pytorch W_O = out_proj_weight^T");
        CHECK(mat_get(&q->b_O, 0, 1) == 0.8, "pytorch b_O");
        CHECK(same_params(p, q),
              "pytorch-small.json and explicit-biases.json should give the same parameters");
        lesson_free(&t);
    }
    lesson_free(&l);
}

// out (n, d) = x (n, k) @ w^T + b, with w (d, k): PyTorch's F.linear, written out.
static void linear(double *out, const double *x, int n, int k, const Matrix *w, const double *b)
{
    int d = w->rows;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < d; j++) {
            double s = 0;
            for (int a = 0; a < k; a++) s += x[i * k + a] * mat_get(w, j, a);
            out[i * d + j] = s + b[j];
        }
}

// The 4 x 2 x 2 pytorch lesson: the mapping formula entry by entry, then the trace's output against
// nn.MultiheadAttention's computation written directly from the state_dict.
static void test_pytorch_formula(void)
{
    Lesson l;
    if (!load_good(&l, "pytorch-4x2.json")) return;
    const AttnParams *p = &l.params;
    int d = p->d_model, dk = p->d_k, n = p->n;
    CHECK(d == 4 && p->heads == 2 && dk == 2 && n == 3, "sizes");
    cJSON *root = cJSON_Parse(l.text);
    const cJSON *pt = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "weights"), "pytorch");
    const cJSON *in_w = cJSON_GetObjectItem(pt, "in_proj_weight"),
                *in_b = cJSON_GetObjectItem(pt, "in_proj_bias");
    const cJSON *out_w = cJSON_GetObjectItem(pt, "out_proj_weight"),
                *out_b = cJSON_GetObjectItem(pt, "out_proj_bias");
    Matrix ipw, opw, ipb, opb;
    mat_init(&ipw, 3 * d, d);
    mat_init(&opw, d, d);
    mat_init(&ipb, 1, 3 * d);
    mat_init(&opb, 1, d);
    for (int r = 0; r < 3 * d; r++) {
        const cJSON *row = cJSON_GetArrayItem(in_w, r);
        for (int c = 0; c < d; c++) mat_set(&ipw, r, c, cJSON_GetArrayItem(row, c)->valuedouble);
        mat_set(&ipb, 0, r, cJSON_GetArrayItem(in_b, r)->valuedouble);
    }
    for (int r = 0; r < d; r++) {
        const cJSON *row = cJSON_GetArrayItem(out_w, r);
        for (int c = 0; c < d; c++) mat_set(&opw, r, c, cJSON_GetArrayItem(row, c)->valuedouble);
        mat_set(&opb, 0, r, cJSON_GetArrayItem(out_b, r)->valuedouble);
    }
    cJSON_Delete(root);
    int bad = 0;
    const Matrix *W[3] = {p->W_Q, p->W_K, p->W_V}, *B[3] = {p->b_Q, p->b_K, p->b_V};
    for (int part = 0; part < 3; part++)
        for (int i = 0; i < p->heads; i++)
            for (int j = 0; j < dk; j++) {
                for (int a = 0; a < d; a++)
                    bad += mat_get(&W[part][i], a, j) != mat_get(&ipw, part * d + i * dk + j, a);
                bad += mat_get(&B[part][i], 0, j) != mat_get(&ipb, 0, part * d + i * dk + j);
            }
    for (int r = 0; r < d; r++)
        for (int c = 0; c < d; c++) bad += mat_get(&p->W_O, r, c) != mat_get(&opw, c, r);
    CHECK(bad == 0,
          "%d entries break W_Q_i[a][j] = in_proj_weight[i*d_k + j][a] (or the K, V, W_O rules)",
          bad);
    CHECK(same_matrix(&p->b_O, &opb), "b_O = out_proj_bias");

    // nn.MultiheadAttention: q, k, v = x Wq^T + bq ...; per head softmax(q_i k_i^T / sqrt(d_k))
    // v_i; out = concat Wo^T
    // + bo.
    double qkv[3][3 * 4], concat[3 * 4], out[3 * 4];
    for (int part = 0; part < 3; part++) {
        Matrix wpart = {d, d, ipw.data + (size_t)part * (size_t)(d * d)};
        linear(qkv[part], p->X.data, n, d, &wpart, ipb.data + part * d);
    }
    for (int h = 0; h < p->heads; h++)
        for (int i = 0; i < n; i++) {
            double s[3], mx = -INFINITY, sum = 0;
            for (int j = 0; j < n; j++) {
                s[j] = 0;
                for (int c = 0; c < dk; c++)
                    s[j] += qkv[0][i * d + h * dk + c] * qkv[1][j * d + h * dk + c];
                s[j] /= sqrt((double)dk);
                mx = fmax(mx, s[j]);
            }
            for (int j = 0; j < n; j++) sum += (s[j] = exp(s[j] - mx));
            for (int c = 0; c < dk; c++) {
                double z = 0;
                for (int j = 0; j < n; j++) z += s[j] / sum * qkv[2][j * d + h * dk + c];
                concat[i * d + h * dk + c] = z;
            }
        }
    linear(out, concat, n, d, &opw, opb.data);
    Trace t;
    TraceError terr;
    bool ran = trace_run(&t, p, &terr);
    CHECK(ran, "trace_run: %s", terr.message);
    if (ran) {
        double worst = 0;
        for (int i = 0; i < n * d; i++)
            worst = fmax(worst, fabs(out[i] - t.output.data[i]) / fmax(1.0, fabs(out[i])));
        CHECK(worst < 1e-12, "trace output differs from the PyTorch formula by %g", worst);
        printf("pytorch form: trace output vs nn.MultiheadAttention formula, largest relative "
               "difference %.3g\n",
               worst);
        trace_free(&t);
    }
    mat_free(&ipw);
    mat_free(&opw);
    mat_free(&ipb);
    mat_free(&opb);
    lesson_free(&l);
}

static void test_sentence(void)
{
    Lesson l;
    if (!load_good(&l, "sentence-white-space.json")) return;
    const char *want[] = {"The", "cat", "sat", "on", "the", "mat"};
    CHECK(l.params.n == 6 && l.params.m == 6, "n %d m %d", l.params.n, l.params.m);
    for (int i = 0; i < 6 && i < l.params.n; i++)
        CHECK(strcmp(l.tokens[i], want[i]) == 0 && strcmp(l.source_tokens[i], want[i]) == 0,
              "token %d: '%s'", i, l.tokens[i]);
    CHECK(l.params.mask == MASK_CAUSAL && !l.params.cross, "causal self-attention");
    double z[24];
    normals(z, 3, 1.0, 24);
    CHECK(memcmp(l.params.X.data, z, sizeof z) == 0, "X = default_rng(3).normal(0, 1, (6, 4))");
    CHECK(same_matrix(&l.params.S, &l.params.X) && l.params.S.data != l.params.X.data,
          "S is a copy of X");
    normals(z, 3, 0.5, 1);
    CHECK(mat_get(&l.params.W_Q[0], 0, 0) == z[0], "W_Q from seed 3 with qkv_std 0.5");
    lesson_free(&l);
}

// "split": "characters": one token per character, white space left out, marks and emoji sequences
// whole; the source says "words" for itself.
static void test_sentence_characters(void)
{
    Lesson l;
    if (!load_good(&l, "sentence-characters.json")) return;
    const char *want[] = {
        "\xe7\x8c\xab",
        "\xe3\x81\x8c",
        "\xe5\xba\xa7",
        "\xe3\x81\xa3",
        "\xe3\x81\x9f",
        "\xe3\x80\x82",
        "e\xcc\x81",
        "\xf0\x9f\x91\x8d\xf0\x9f\x8f\xbd",
        "\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x91\xa7",
        "\xf0\x9f\x87\xaf\xf0\x9f\x87\xb5"};
    int nw = (int)(sizeof want / sizeof want[0]);
    CHECK(l.params.n == nw, "%d tokens, expected %d", l.params.n, nw);
    for (int i = 0; i < nw && i < l.params.n; i++)
        CHECK(strcmp(l.tokens[i], want[i]) == 0, "token %d: '%s'", i, l.tokens[i]);
    CHECK(l.params.m == 2 && strcmp(l.source_tokens[0], "a") == 0
              && strcmp(l.source_tokens[1], "b") == 0,
          "the source split on white space");
    lesson_free(&l);
}

static void test_cross(void)
{
    Lesson l;
    if (!load_good(&l, "cross.json")) return;
    const AttnParams *p = &l.params;
    CHECK(p->cross && p->n == 3 && p->m == 2 && p->d_model == 4 && p->d_k == 2,
          "cross sizes n=%d m=%d", p->n, p->m);
    CHECK(strcmp(l.tokens[2], "cat") == 0 && strcmp(l.source_tokens[0], "le") == 0
              && strcmp(l.source_tokens[1], "chat") == 0,
          "tokens");
    CHECK(p->S.rows == 2 && p->S.cols == 4 && mat_get(&p->S, 0, 1) == 0.25
              && mat_get(&p->S, 1, 3) == -4,
          "S");
    CHECK(p->X.rows == 3 && mat_get(&p->X, 2, 2) == 1, "X");
    Trace t;
    TraceError terr;
    bool ran = trace_run(&t, p, &terr);
    CHECK(ran, "trace_run on a cross-attention lesson: %s", terr.message);
    if (ran) {
        CHECK(t.head[0].weights.rows == 3 && t.head[0].weights.cols == 2,
              "attention weights (n, m)");
        trace_free(&t);
    }
    lesson_free(&l);
}

static void test_random_embeddings(void)
{
    Lesson l;
    if (!load_good(&l, "random-embeddings.json")) return;
    const AttnParams *p = &l.params;
    CHECK(p->n == 4 && p->d_model == 6 && p->heads == 3 && p->d_k == 2, "sizes");
    double z[24];
    normals(z, 12345, 0.5, 24);
    CHECK(memcmp(p->X.data, z, sizeof z) == 0,
          "X = default_rng(12345).normal(0, 0.5, (4, 6)), row-major");
    double zero = 0;
    bool all_zero = true;
    for (int i = 0; i < p->W_O.rows * p->W_O.cols; i++)
        all_zero = all_zero && memcmp(&p->W_O.data[i], &zero, sizeof zero) == 0;
    CHECK(all_zero, "out_std 0 gives W_O of +0.0");
    lesson_free(&l);
}

static void test_big_seeds(void)
{
    Lesson l;
    if (!load_good(&l, "big-seed.json")) return;
    const AttnParams *p = &l.params;
    // tests/data/numpy-normal-vectors.csv: default_rng(4294967303).standard_normal()
    CHECK(mat_get(&p->X, 0, 0) == 0.34736176866043106, "X[0][0] = %.17g", mat_get(&p->X, 0, 0));
    CHECK(mat_get(&p->X, 0, 1) == -2.3378561559560835, "X[0][1] = %.17g", mat_get(&p->X, 0, 1));
    CHECK(mat_get(&p->X, 1, 0) == -0.33885783296512045, "X[1][0] = %.17g", mat_get(&p->X, 1, 0));
    double z;
    normals(&z, 9007199254740991u, 2.0, 1);
    CHECK(mat_get(&p->W_Q[0], 0, 0) == z, "seed 2^53 - 1");
    CHECK(strcmp(l.tokens[0], "\xc3\xa9t\xc3\xa9") == 0, "\\u00e9 escapes decode to UTF-8");
    CHECK(strcmp(l.tokens[1], "\xf0\x9f\x98\x80") == 0,
          "a surrogate pair decodes to one 4-byte character");
    lesson_free(&l);
}

static void test_d_k_given(void)
{
    Lesson l;
    if (!load_good(&l, "d_k-explicit.json")) return;
    const AttnParams *p = &l.params;
    CHECK(p->d_model == 4 && p->heads == 3 && p->d_k == 5, "d_k 5 with heads 3 and d_model 4");
    CHECK(p->W_Q[2].rows == 4 && p->W_Q[2].cols == 5 && p->W_O.rows == 15 && p->W_O.cols == 4,
          "shapes");
    lesson_free(&l);
}

static void test_errors_and_freeing(void)
{
    Lesson l;
    memset(&l, 0, sizeof l);
    lesson_free(&l); // an empty lesson is safe to free
    lesson_free(&l);

    char buf[1200];
    LessonError e = {0};
    snprintf(e.file, sizeof e.file, "x.json");
    snprintf(e.message, sizeof e.message, "boom");
    CHECK(strcmp(lesson_error_format(&e, buf, sizeof buf), "x.json: error: boom") == 0, "%s", buf);
    e.line = 3;
    e.col = 9;
    snprintf(e.path, sizeof e.path, "weights.W_Q[1]");
    CHECK(
        strcmp(lesson_error_format(&e, buf, sizeof buf), "x.json:3:9: error: weights.W_Q[1]: boom")
            == 0,
        "%s", buf);
    char tiny[12];
    lesson_error_format(&e, tiny, sizeof tiny);
    CHECK(strlen(tiny) == sizeof tiny - 1 && strncmp(tiny, "x.json:3:9:", 11) == 0,
          "truncated: '%s'", tiny);

    // The example from the spec: position and path of a short row, given in memory.
    const char *text =
        "{\"title\": \"t\", \"tokens\": [\"a\"], \"embeddings\": [[1, 2, 3, 4]], \"heads\": 2,\n"
        " \"weights\": {\"W_Q\": [[[1, 2], [3, 4], [5, 6], [7, 8]],\n"
        "                     [[1, 2], [3, 4], [5, 6]]],\n"
        "             \"W_K\": [], \"W_V\": [], \"W_O\": []}}";
    bool ok = lesson_parse(&l, text, strlen(text), "lessons/x.json", &e);
    CHECK(!ok && !e.io, "should fail");
    CHECK(strcmp(lesson_error_format(&e, buf, sizeof buf),
                 "lessons/x.json:3:22: error: weights.W_Q[1]: expected 4 rows (d_model), got 3")
              == 0,
          "%s", buf);
    if (ok) lesson_free(&l);

    // Too large: lesson_parse refuses before reading; lesson_load checks the size before reading
    // too.
    ok = lesson_parse(&l, text, (size_t)LESSON_MAX_FILE_BYTES + 1, "huge.json", &e);
    CHECK(!ok && strstr(e.message, "too large"), "%s", e.message);
    char path[] = "/tmp/mha-lesson-huge-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    if (fd >= 0) {
        CHECK(ftruncate(fd, (off_t)LESSON_MAX_FILE_BYTES + 1) == 0, "ftruncate");
        close(fd);
        ok = lesson_load(&l, path, &e);
        CHECK(!ok && e.io && strstr(e.message, "too large") && strcmp(e.file, path) == 0, "%s",
              lesson_error_format(&e, buf, sizeof buf));
        if (ok) lesson_free(&l);
        unlink(path);
    }
}

// Every prefix and many one-byte mutations of a lesson: errors or a lesson, never a crash, leak or
// overread.
static void test_robustness(void)
{
    size_t n = lesson_builtin_len;
    int parsed = 0, failed = 0, unpositioned = 0;
    size_t content =
        n; // the prefixes shorter than the object (before the final line break) are all invalid
    while (content > 0 && strchr(" \t\r\n", lesson_builtin_text[content - 1])) content--;
    for (size_t cut = 0; cut < n; cut++) {
        char *buf = malloc(cut ? cut : 1);
        memcpy(buf, lesson_builtin_text, cut);
        JsonSyntaxError se;
        bool valid = json_check(buf, cut, &se);
        CHECK(valid == (cut >= content), "prefix of %zu bytes: valid %d", cut, valid);
        for (int depth = 0; depth < 4; depth++) {
            int path[4] = {1, 2, 0, 3};
            size_t off;
            if (json_locate(buf, cut, path, depth, depth % 2 == 1, &off))
                CHECK(off < cut, "locate past the end");
        }
        free(buf);
    }
    const char subst[] = {'"', '[', ']', '{', '}', ',', ':', '0', '-', 'e', '\\', ' ', 'x', '\x80'};
    for (size_t i = 0; i < n; i++) {
        for (size_t s = 0; s < sizeof subst; s++) {
            char *buf = malloc(n);
            memcpy(buf, lesson_builtin_text, n);
            buf[i] = subst[s];
            Lesson l;
            LessonError e;
            if (lesson_parse(&l, buf, n, "m.json", &e)) {
                parsed++;
                lesson_free(&l);
            } else {
                failed++;
                unpositioned += e.line == 0;
                CHECK(e.message[0] != '\0', "empty message for byte %zu = %d", i, subst[s]);
            }
            free(buf);
        }
    }
    printf("mutations: %d parsed, %d rejected (%d without a line:col)\n", parsed, failed,
           unpositioned);
    CHECK(unpositioned == 0, "every rejected mutation should have a position");

    // json_locate on a known text.
    const char *t = "{\"a\": 1, \"b\": [10, {\"c\": \"x,]}\", \"d\": [5]}], \"a\": 2}";
    size_t off = 0;
    int p1[] = {1, 1, 1, 0};
    CHECK(json_locate(t, strlen(t), p1, 4, false, &off) && t[off] == '5', "b[1].d[0] at %zu", off);
    int p2[] = {1, 1, 1};
    CHECK(json_locate(t, strlen(t), p2, 3, true, &off) && strncmp(t + off, "\"d\"", 3) == 0,
          "key d at %zu", off);
    int p3[] = {2};
    CHECK(json_locate(t, strlen(t), p3, 1, true, &off) && off == strlen(t) - 7,
          "the second \"a\" at %zu", off);
    int p4[] = {1, 5};
    CHECK(!json_locate(t, strlen(t), p4, 2, false, &off), "index past the end");
    int line, col;
    json_line_col("ab\n\xc3\xa9\xc3\xa9x", 8, 7, &line, &col);
    CHECK(line == 2 && col == 3, "line %d col %d: columns count code points", line, col);
}

// --check's report: every independent error of a file with its place, nothing that follows from
// another error, and the warnings that leave a lesson valid.
static int report_of(const char *text, LessonReport *rep, char lines[][1400], int max)
{
    Lesson l;
    bool ok = lesson_parse_report(&l, text, strlen(text), "r.json", rep);
    if (ok) {
        Trace t;
        TraceError terr;
        if (trace_run(&t, &l.params, &terr)) {
            saturation_warn(&l, &t, "r.json", rep);
            trace_free(&t);
        }
        lesson_free(&l);
    }
    for (int i = 0; i < rep->count && i < max; i++)
        lesson_error_format(&rep->items[i], lines[i], sizeof lines[i]);
    return ok;
}

static void test_report(void)
{
    char lines[8][1400];
    LessonReport rep;
    // Three mistakes in three places: each with its line:column and field.
    const char *three =
        "{\"title\": \"Three\",\n"
        " \"tokens\": [\"a\", \"b\", \"c\"],\n"
        " \"embeddings\": [[1, 0, 0, 0], [0, 1, 0], [0, 0, 1, 0]],\n"
        " \"heads\": 2,\n"
        " \"mask\": \"casual\",\n"
        " \"weights\": {\"W_Q\": [[[1, 0], [0, 1], [0, 0], [0, 0]], [[1, 0], [0, 1], [0, 0], [0, "
        "0]]],\n"
        "  \"W_K\": [[[1, 0], [0, 1], [0, 0], [0, 0]], [[1, 0], [0, 1], [0, 0], [0, 0]]],\n"
        "  \"W_V\": [[[1, 0], [0, 1], [0, 0], [0, 0]], [[1, 0], [0, 1], [0, 0]]],\n"
        "  \"W_O\": [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]}}\n";
    bool ok = report_of(three, &rep, lines, 8);
    CHECK(!ok && rep.errors == 3 && rep.count == 3 && rep.warnings == 0,
          "three mistakes: %d errors", rep.errors);
    if (rep.count == 3) {
        CHECK(strcmp(lines[0],
                     "r.json:5:10: error: mask: expected \"none\" or \"causal\", got \"casual\"")
                  == 0,
              "%s", lines[0]);
        CHECK(strcmp(lines[1],
                     "r.json:3:31: error: embeddings[1]: expected 4 numbers (d_model), got 3")
                  == 0,
              "%s", lines[1]);
        CHECK(
            strcmp(lines[2], "r.json:8:45: error: weights.W_V[1]: expected 4 rows (d_model), got 3")
                == 0,
            "%s", lines[2]);
    }
    Lesson l;
    LessonError err;
    CHECK(!lesson_parse(&l, three, strlen(three), "r.json", &err), "lesson_parse rejects it too");
    char one[1400];
    CHECK(rep.count > 0 && strcmp(lesson_error_format(&err, one, sizeof one), lines[0]) == 0,
          "the same first error: %s", one);
    lesson_report_free(&rep);

    // Broken tokens: the embeddings (whose rows they count) are not checked; an unknown key and a
    // bad title still are.
    const char *dep =
        "{\"title\": 5, \"tokens\": [], \"embeddings\": [[1, 2, 3]], \"heads\": 1, \"colour\": 1,"
        " \"weights\": {\"random\": {\"seed\": 1}}}";
    ok = report_of(dep, &rep, lines, 8);
    CHECK(!ok && rep.errors == 3, "dependent errors left out: %d errors", rep.errors);
    if (rep.count == 3) {
        CHECK(strstr(lines[0], "unknown key \"colour\"") != NULL, "%s", lines[0]);
        CHECK(strstr(lines[1], "title: expected a string") != NULL, "%s", lines[1]);
        CHECK(strstr(lines[2], "tokens: expected at least one token") != NULL, "%s", lines[2]);
    }
    lesson_report_free(&rep);

    // The same seed for the embeddings and the weights: a warning at the weights' seed; the lesson
    // is valid.
    const char *seed = "{\"title\": \"s\", \"sentence\": \"a b c\", \"d_model\": 4,\n"
                       " \"embeddings\": {\"random\": {\"seed\": 7}}, \"heads\": 2,\n"
                       " \"weights\": {\"random\": {\"seed\": 7, \"qkv_std\": 0.1}}}";
    ok = report_of(seed, &rep, lines, 8);
    CHECK(ok && rep.errors == 0 && rep.warnings == 1, "shared seed: ok %d, %d warnings", ok,
          rep.warnings);
    if (rep.count == 1)
        CHECK(
            strstr(lines[0],
                   "r.json:3:33: warning: weights.random.seed: the same seed as the embeddings (7)")
                == lines[0],
            "%s", lines[0]);
    lesson_report_free(&rep);
    const char *seed2 = "{\"title\": \"s\", \"sentence\": \"a b c\", \"d_model\": 4,\n"
                        " \"embeddings\": {\"random\": {\"seed\": 7}}, \"heads\": 2,\n"
                        " \"weights\": {\"random\": {\"seed\": 8, \"qkv_std\": 0.1}}}";
    ok = report_of(seed2, &rep, lines, 8);
    CHECK(ok && rep.errors == 0 && rep.warnings == 0, "other seeds: %d warnings (%s)", rep.warnings,
          rep.count ? lines[0] : "");
    lesson_report_free(&rep);

    // A softmax that saturates: one warning, at the weights key, naming a one-hot row.
    const char *hot = "{\"title\": \"h\", \"tokens\": [\"a\", \"b\"], \"embeddings\": [[10, 0], "
                      "[0, 10]], \"heads\": 1,\n"
                      " \"weights\": {\"W_Q\": [[[1, 0], [0, 1]]], \"W_K\": [[[1, 0], [0, 1]]], "
                      "\"W_V\": [[[1, 0], [0, 1]]],"
                      " \"W_O\": [[1, 0], [0, 1]]}}";
    ok = report_of(hot, &rep, lines, 8);
    CHECK(ok && rep.errors == 0 && rep.warnings == 1, "saturation: %d warnings", rep.warnings);
    if (rep.count == 1)
        CHECK(strstr(lines[0],
                     "r.json:2:2: warning: weights: 2 of 2 softmax rows (in 1 of 1 head) saturate")
                      == lines[0]
                  && strstr(lines[0], "query \"a\": 1.0000 on \"a\""),
              "%s", lines[0]);
    lesson_report_free(&rep);

    // PyTorch weights: "heads" cannot be confirmed without "num_heads" (a warning at heads); with
    // it, no warning.
    const char *pt = "{\"title\": \"p\", \"tokens\": [\"a\", \"b\"], \"embeddings\": [[1, 0], [0, "
                     "1]], \"heads\": 2,\n"
                     " \"weights\": {\"pytorch\": {\"in_proj_weight\": [[1, 0], [0, 1], [1, 0], "
                     "[0, 1], [1, 0], [0, 1]],"
                     " \"out_proj_weight\": [[1, 0], [0, 1]]%s}}}";
    char text[600];
    snprintf(text, sizeof text, pt, "");
    ok = report_of(text, &rep, lines, 8);
    CHECK(ok && rep.errors == 0 && rep.warnings == 1, "pytorch: %d warnings", rep.warnings);
    if (rep.count == 1)
        CHECK(strstr(lines[0],
                     "r.json:1:79: warning: heads: PyTorch weights cannot confirm these 2 heads")
                      == lines[0]
                  && strstr(lines[0], "must be the layer's num_heads"),
              "%s", lines[0]);
    lesson_report_free(&rep);
    snprintf(text, sizeof text, pt, ", \"num_heads\": 2");
    ok = report_of(text, &rep, lines, 8);
    CHECK(ok && rep.errors == 0 && rep.warnings == 0, "pytorch with num_heads: %d warnings",
          rep.warnings);
    lesson_report_free(&rep);
    // lesson_parse takes num_heads as well (and gives the same lesson).
    CHECK(lesson_parse(&l, text, strlen(text), "r.json", &err), "%s", err.message);
    lesson_free(&l);

    // A syntax error is the one error: nothing after it can be read.
    ok = report_of("{\"title\": \"x\",\n \"tokens\": [\"a\" \"b\"]}", &rep, lines, 8);
    CHECK(!ok && rep.errors == 1 && rep.count == 1 && strncmp(lines[0], "r.json:2:", 9) == 0,
          "syntax: %d", rep.errors);
    lesson_report_free(&rep);

    // Many mistakes: all counted, at most LESSON_REPORT_MAX kept.
    size_t cap = 20000, n = 0;
    char *full = malloc(cap);
    n += (size_t)snprintf(
        full + n, cap - n,
        "{\"title\": \"m\", \"heads\": 1, \"weights\": {\"random\": {\"seed\": 1}},"
        " \"embeddings\": [");
    for (int i = 0; i < 300; i++)
        n += (size_t)snprintf(full + n, cap - n, "%s[1, \"x\"]", i ? ", " : "");
    n += (size_t)snprintf(full + n, cap - n, "], \"sentence\": \"");
    for (int i = 0; i < 300; i++) n += (size_t)snprintf(full + n, cap - n, "w ");
    snprintf(full + n, cap - n, "\"}");
    ok = report_of(full, &rep, lines, 8);
    CHECK(!ok && rep.errors == 300 && rep.count == LESSON_REPORT_MAX,
          "300 bad rows: %d errors, %d kept", rep.errors, rep.count);
    lesson_report_free(&rep);
    free(full);

    // The questions' fields are checks of their own: a head out of range hides neither an unknown
    // key nor the next question's empty text; the lesson is still built, its broken fields marked,
    // for the model's checks of the rest (questions_check), and the first error is lesson_parse's.
    const char *qs =
        "{\"title\": \"q\", \"sentence\": \"a b\", \"d_model\": 2, \"heads\": 1,\n"
        " \"embeddings\": [[1, 0], [0, 1]], \"weights\": {\"random\": {\"seed\": 3}},\n"
        " \"questions\": [{\"stage\": \"softmax\", \"head\": 5, \"hint\": 1, \"text\": \"t\",\n"
        "   \"answer\": {\"kind\": \"cell\", \"cell\": [0, 1]}},\n"
        "  {\"stage\": \"scores\", \"text\": \"\", \"answer\": {\"kind\": \"cell\", \"cell\": [0, "
        "9]}}]}\n";
    Lesson lq;
    ok = lesson_parse_report(&lq, qs, strlen(qs), "r.json", &rep);
    for (int i = 0; i < rep.count && i < 8; i++)
        lesson_error_format(&rep.items[i], lines[i], sizeof lines[i]);
    CHECK(ok && rep.errors == 3 && rep.count == 3, "question errors: built %d, %d errors", ok,
          rep.errors);
    if (rep.count == 3) {
        CHECK(strcmp(lines[0], "r.json:3:48: error: questions[0]: unknown key \"hint\" (expected "
                               "stage, head, text, answer)")
                  == 0,
              "%s", lines[0]);
        CHECK(strstr(lines[1], "questions[0].head: the lesson has 1 head (0 to 0), got 5") != NULL,
              "%s", lines[1]);
        CHECK(strstr(lines[2], "questions[1].text: empty question") != NULL, "%s", lines[2]);
    }
    if (ok) {
        CHECK(lq.question_count == 2 && lq.questions[0].broken == LESSON_QUESTION_BROKEN_HEAD
                  && lq.questions[0].head == 0
                  && lq.questions[1].broken == LESSON_QUESTION_BROKEN_TEXT,
              "broken fields: %u, %u", lq.question_count > 0 ? lq.questions[0].broken : 99u,
              lq.question_count > 1 ? lq.questions[1].broken : 99u);
        lesson_free(&lq);
    }
    ok = lesson_parse(&l, qs, strlen(qs), "r.json", &err);
    lesson_error_format(&err, lines[7], sizeof lines[7]);
    CHECK(!ok && rep.count > 0 && strcmp(lines[7], lines[0]) == 0,
          "lesson_parse stops at the first: %s", lines[7]);
    if (ok) lesson_free(&l);
    lesson_report_free(&rep);
}

// Issue 14: "positions" (sinusoidal, explicit, the source's) and "scale" as loaded.
static void test_positions_and_scale(void)
{
    Lesson l;
    if (load_good(&l, "positions-explicit-cross.json")) {
        const AttnParams *p = &l.params;
        CHECK(p->positions == POS_EXPLICIT && p->scale == 0.75, "explicit positions and the scale");
        CHECK(mat_get(&p->E, 0, 0) == 1 && mat_get(&p->P, 0, 2) == -0.25
                  && mat_get(&p->X, 0, 2) == -0.25 && mat_get(&p->X, 1, 1) == 1.5,
              "X = E + P");
        CHECK(mat_get(&p->E_S, 2, 2) == 1 && mat_get(&p->P_S, 2, 0) == -1
                  && mat_get(&p->S, 2, 0) == -1 && mat_get(&p->S, 1, 2) == 1.3,
              "S = E_S + P_S");
        lesson_free(&l);
    }
    if (load_good(&l, "positions-sinusoidal-cross.json")) {
        const AttnParams *p = &l.params;
        CHECK(p->positions == POS_SINUSOIDAL && p->scale == 0, "sinusoidal, default scale");
        CHECK(mat_get(&p->P, 2, 0) == sin(2.0) && mat_get(&p->P, 2, 1) == cos(2.0), "P row 2");
        CHECK(p->P_S.rows == 2 && mat_get(&p->P_S, 1, 0) == sin(1.0)
                  && mat_get(&p->S, 1, 0) == sin(1.0),
              "the source's own sinusoids, from 0");
        double a = 1.0 / pow(10000.0, 4.0 / 5.0);
        CHECK(mat_get(&p->P, 1, 4) == sin(a), "the odd last column (4 of 5) takes the sine");
        lesson_free(&l);
    }
    // "none" is the default: the same parameters as without the key.
    const char *with =
        "{\"title\": \"t\", \"tokens\": [\"a\", \"b\"], \"embeddings\": [[1, 0], [0, 1]], "
        "\"heads\": 1, \"positions\": \"none\", \"weights\": {\"random\": {\"seed\": 3}}}";
    LessonError err;
    if (lesson_parse(&l, with, strlen(with), "<none>", &err)) {
        CHECK(l.params.positions == POS_NONE && l.params.E.data == NULL
                  && mat_get(&l.params.X, 1, 1) == 1,
              "\"positions\": \"none\" leaves X as given");
        lesson_free(&l);
    } else CHECK(false, "positions none parses: %s", err.message);
}

// A file of `values` values in all: {"title": "t", "$schema": [0,0,...]} (the object and the array
// count).
static char *many_values_text(long values, size_t *len)
{
    long zeros = values - 3; // the object, the array and "t"
    size_t cap = 64 + 2 * (size_t)zeros;
    char *t = malloc(cap);
    if (!t) return NULL;
    size_t n = (size_t)sprintf(t, "{\"title\": \"t\", \"$schema\": [");
    for (long i = 0; i < zeros; i++) {
        t[n++] = '0';
        if (i + 1 < zeros) t[n++] = ',';
    }
    n += (size_t)sprintf(t + n, "]}");
    *len = n;
    return t;
}

// JSON_MAX_VALUES bounds the tree cJSON would build: one value more is a positioned error naming
// the top-level key it is in, before any tree is built; exactly the limit passes the syntax check.
static void test_value_limit(void)
{
    size_t len;
    char *at_limit = many_values_text(JSON_MAX_VALUES, &len);
    JsonSyntaxError se;
    CHECK(at_limit && json_check(at_limit, len, &se), "exactly %d values pass: %s", JSON_MAX_VALUES,
          se.message);
    free(at_limit);

    char *over = many_values_text(JSON_MAX_VALUES + 1L, &len);
    CHECK(over && !json_check(over, len, &se), "one value more fails");
    CHECK(strstr(se.message, "too many values: more than 3000000")
              && strstr(se.message, "inside \"$schema\""),
          "the message says the limit and the key: %s", se.message);
    // The 3000001st value is the last 0 of the array (the object, "t", the array, then 2999998
    // zeros).
    CHECK(se.has_offset && se.offset == len - strlen("0]}"),
          "at the first value too many: %zu of %zu", se.offset, len);
    Lesson l;
    LessonError err;
    CHECK(!lesson_parse(&l, over, len, "many.json", &err) && err.line == 1
              && strstr(err.message, "too many values"),
          "lesson_parse says so at line 1: %d:%d %s", err.line, err.col, err.message);
    free(over);
}

int main(void)
{
    test_builtin();
    test_explicit();
    test_pytorch_formula();
    test_sentence();
    test_sentence_characters();
    test_cross();
    test_random_embeddings();
    test_big_seeds();
    test_d_k_given();
    test_errors_and_freeing();
    test_robustness();
    test_report();
    test_positions_and_scale();
    test_value_limit();
    return check_report("test_lesson");
}
