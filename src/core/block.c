// RMSNorm, LayerNorm, SwiGLU, GELU and the residual add in float64, in the order of Hugging Face's
// modeling code.
#include "core/block.h"

#include <math.h>

void block_rms_norm(Matrix *out, const Matrix *x, const double *w, double eps)
{
    for (int i = 0; i < x->rows; i++) {
        const double *r = mat_row(x, i);
        double *o = mat_row(out, i), sum = 0;
        for (int j = 0; j < x->cols; j++) sum += r[j] * r[j];
        double inv = 1.0 / sqrt(sum / x->cols + eps); // torch.rsqrt(variance + eps)
        for (int j = 0; j < x->cols; j++) o[j] = w[j] * (r[j] * inv);
    }
}

void block_swiglu(Matrix *gate, const Matrix *up)
{
    size_t count = (size_t)gate->rows * (size_t)gate->cols;
    for (size_t k = 0; k < count; k++) {
        double g = gate->data[k];
        gate->data[k] = g / (1.0 + exp(-g)) * up->data[k];
    }
}

void block_gelu_erf(Matrix *x)
{
    size_t count = (size_t)x->rows * (size_t)x->cols;
    for (size_t k = 0; k < count; k++) {
        double v = x->data[k];
        x->data[k] =
            v * 0.5
            * (1.0 + erf(v / sqrt(2.0))); // GELUActivation: x * 0.5 * (1 + erf(x / sqrt(2)))
    }
}

void block_add(Matrix *acc, const Matrix *x)
{
    size_t count = (size_t)acc->rows * (size_t)acc->cols;
    for (size_t k = 0; k < count; k++) acc->data[k] += x->data[k];
}

// block_dot of `lanes` token rows at once: xt (in, lanes) holds them side by side, each lane its
// own four running sums (k mod 4), so every lane is block_dot's arithmetic in block_dot's order.
static void dot_many_plain(double *out, const double *xt, const double *w, int in, int lanes)
{
    double s[4][BLOCK_DOT_LANES] = {{0}};
    int k = 0;
    for (; k + 4 <= in; k += 4)
        for (int q = 0; q < 4; q++) {
            const double *x = xt + (size_t)(k + q) * (size_t)lanes, wk = w[k + q];
            for (int i = 0; i < lanes; i++) s[q][i] += x[i] * wk;
        }
    for (; k < in; k++)
        for (int i = 0; i < lanes; i++) s[0][i] += xt[(size_t)k * (size_t)lanes + (size_t)i] * w[k];
    for (int i = 0; i < lanes; i++) out[i] = (s[0][i] + s[1][i]) + (s[2][i] + s[3][i]);
}

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
// The same with AVX-512: H registers of 8 lanes for each of the four sums; a multiply, then an add.
#define DOT_MANY_AVX512(H)                                                                         \
    __attribute__((target("avx512f"))) static void dot_many_avx512_##H(                            \
        double *out, const double *xt, const double *w, int in)                                    \
    {                                                                                              \
        __m512d s[4][H];                                                                           \
        for (int q = 0; q < 4; q++)                                                                \
            for (int h = 0; h < H; h++) s[q][h] = _mm512_setzero_pd();                             \
        int k = 0;                                                                                 \
        for (; k + 4 <= in; k += 4)                                                                \
            for (int q = 0; q < 4; q++) {                                                          \
                const double *x = xt + (size_t)(k + q) * 8 * H;                                    \
                __m512d wk = _mm512_set1_pd(w[k + q]);                                             \
                for (int h = 0; h < H; h++)                                                        \
                    s[q][h] =                                                                      \
                        _mm512_add_pd(s[q][h], _mm512_mul_pd(_mm512_loadu_pd(x + 8 * h), wk));     \
            }                                                                                      \
        for (; k < in; k++) {                                                                      \
            const double *x = xt + (size_t)k * 8 * H;                                              \
            __m512d wk = _mm512_set1_pd(w[k]);                                                     \
            for (int h = 0; h < H; h++)                                                            \
                s[0][h] = _mm512_add_pd(s[0][h], _mm512_mul_pd(_mm512_loadu_pd(x + 8 * h), wk));   \
        }                                                                                          \
        for (int h = 0; h < H; h++)                                                                \
            _mm512_storeu_pd(out + 8 * h, _mm512_add_pd(_mm512_add_pd(s[0][h], s[1][h]),           \
                                                        _mm512_add_pd(s[2][h], s[3][h])));         \
    }
DOT_MANY_AVX512(1)
DOT_MANY_AVX512(2)
// 12 lanes (a dozen tokens): one register of 8 and one of 4 for each sum, where two of 8 left a
// quarter idle (a 4-lane operation costs a processor that splits 8-lane ones half as much).
__attribute__((target("avx512f"))) static void dot_many_avx512_12(double *out, const double *xt,
                                                                  const double *w, int in)
{
    __m512d s[4];
    __m256d t[4];
    for (int q = 0; q < 4; q++) s[q] = _mm512_setzero_pd(), t[q] = _mm256_setzero_pd();
    int k = 0;
    for (; k + 4 <= in; k += 4)
        for (int q = 0; q < 4; q++) {
            const double *x = xt + (size_t)(k + q) * 12;
            double wk = w[k + q];
            s[q] = _mm512_add_pd(s[q], _mm512_mul_pd(_mm512_loadu_pd(x), _mm512_set1_pd(wk)));
            t[q] = _mm256_add_pd(t[q], _mm256_mul_pd(_mm256_loadu_pd(x + 8), _mm256_set1_pd(wk)));
        }
    for (; k < in; k++) {
        const double *x = xt + (size_t)k * 12;
        s[0] = _mm512_add_pd(s[0], _mm512_mul_pd(_mm512_loadu_pd(x), _mm512_set1_pd(w[k])));
        t[0] = _mm256_add_pd(t[0], _mm256_mul_pd(_mm256_loadu_pd(x + 8), _mm256_set1_pd(w[k])));
    }
    _mm512_storeu_pd(out, _mm512_add_pd(_mm512_add_pd(s[0], s[1]), _mm512_add_pd(s[2], s[3])));
    _mm256_storeu_pd(out + 8, _mm256_add_pd(_mm256_add_pd(t[0], t[1]), _mm256_add_pd(t[2], t[3])));
}
#define DOT_MANY_X86 1
#endif

void block_dot_many(double *out, const double *xt, const double *w, int in, int lanes)
{
#ifdef DOT_MANY_X86
    if (__builtin_cpu_supports("avx512f")) {
        if (lanes == 8) dot_many_avx512_1(out, xt, w, in);
        else if (lanes == 12) dot_many_avx512_12(out, xt, w, in);
        else dot_many_avx512_2(out, xt, w, in);
        return;
    }
#endif
    dot_many_plain(out, xt, w, in, lanes);
}

// Four running sums: the loop the compiler can keep in registers and lanes without reordering a sum
// it was not told to.
double block_dot(const double *a, const double *b, int n)
{
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    int k = 0;
    for (; k + 4 <= n; k += 4) {
        s0 += a[k] * b[k];
        s1 += a[k + 1] * b[k + 1];
        s2 += a[k + 2] * b[k + 2];
        s3 += a[k + 3] * b[k + 3];
    }
    for (; k < n; k++) s0 += a[k] * b[k];
    return (s0 + s1) + (s2 + s3);
}

void block_linear(Matrix *out, const Matrix *x, const Matrix *w, const double *b)
{
    // A few rows (a sentence): dot products that read both operands in order; mat_matmul_bt would
    // first transpose all of w, which costs more than the product itself.
    if (x->rows < 16)
        for (int i = 0; i < out->rows; i++)
            for (int j = 0; j < out->cols; j++)
                mat_row(out, i)[j] = block_dot(mat_row(x, i), mat_row(w, j), x->cols);
    else mat_matmul_bt(out, x, w);
    if (b)
        for (int i = 0; i < out->rows; i++)
            for (int j = 0; j < out->cols; j++) mat_row(out, i)[j] += b[j];
}

void block_layer_norm(Matrix *out, const Matrix *x, const double *w, const double *b, double eps)
{
    for (int i = 0; i < x->rows; i++) {
        const double *r = mat_row(x, i);
        double *o = mat_row(out, i), mean = 0, var = 0;
        for (int j = 0; j < x->cols; j++) mean += r[j];
        mean /= x->cols;
        for (int j = 0; j < x->cols; j++) var += (r[j] - mean) * (r[j] - mean);
        double inv = 1.0 / sqrt(var / x->cols + eps);
        for (int j = 0; j < x->cols; j++) o[j] = (r[j] - mean) * inv * w[j] + b[j];
    }
}

void block_gelu_tanh(Matrix *x)
{
    const double k = sqrt(2.0 / 3.14159265358979323846);
    size_t count = (size_t)x->rows * (size_t)x->cols;
    for (size_t i = 0; i < count; i++) {
        double v = x->data[i];
        x->data[i] = 0.5 * v * (1.0 + tanh(k * (v + 0.044715 * v * v * v)));
    }
}
