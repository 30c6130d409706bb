// Tests the plain matrix operations against small cases worked out by hand.
#include <math.h>
#include <string.h>

#include "check.h"
#include "core/matrix.h"
#include "core/trace.h"

static unsigned lcg = 12345;
static double noise(void) { return (double)(lcg = lcg * 1103515245u + 12345u) / 4e9 - 0.5; }

// The largest difference between the fast matmuls (AVX2 where the CPU has it, the portable kernel,
// and the b^T form) and the reference loop for one shape.
static double compare_shapes(int n, int k, int p)
{
    Matrix x, y, yt, f, r;
    mat_init(&x, n, k), mat_init(&y, k, p), mat_init(&yt, p, k), mat_init(&f, n, p),
        mat_init(&r, n, p);
    for (int i = 0; i < n * k; i++) x.data[i] = noise();
    for (int i = 0; i < k * p; i++) y.data[i] = noise();
    for (int i = 0; i < k; i++)
        for (int j = 0; j < p; j++) mat_set(&yt, j, i, mat_get(&y, i, j));
    double worst = 0.0;
    mat_matmul(&f, &x, &y);
    mat_matmul_ref(&r, &x, &y);
    worst = fmax(worst, mat_max_abs_diff(&f, &r));
    mat_matmul_portable(&f, &x, &y);
    worst = fmax(worst, mat_max_abs_diff(&f, &r));
    mat_matmul_bt(&f, &x, &yt);
    worst = fmax(worst, mat_max_abs_diff(&f, &r));
    mat_matmul_bt_ref(&f, &x, &yt);
    worst = fmax(worst, mat_max_abs_diff(&f, &r));
    mat_free(&x), mat_free(&y), mat_free(&yt), mat_free(&f), mat_free(&r);
    return worst;
}

// trace_run (fast kernels; heads, then the output rows, on two threads at this size) against the
// stages written out with the plain reference loops on one thread: the largest difference over
// every head's Z and the output.
static double compare_trace(void)
{
    AttnParams p;
    int n = 40, d_model = 256, heads = 5, d_k = 48; // large enough for both two-thread paths
    if (!params_init(&p, n, n, d_model, heads, d_k)) return INFINITY;
    for (int i = 0; i < n * d_model; i++) p.X.data[i] = p.S.data[i] = noise() * 2;
    for (int h = 0; h < heads; h++)
        for (int i = 0; i < d_model * d_k; i++)
            p.W_Q[h].data[i] = noise(), p.W_K[h].data[i] = noise(), p.W_V[h].data[i] = noise();
    for (int i = 0; i < heads * d_k * d_model; i++) p.W_O.data[i] = noise();
    for (int i = 0; i < d_model; i++) p.b_O.data[i] = noise();
    p.mask = MASK_CAUSAL;
    Trace t;
    TraceError err;
    double worst = INFINITY;
    if (trace_run(&t, &p, &err)) {
        worst = 0.0;
        Matrix q, k, v, sc, w, z, concat, out;
        mat_init(&q, n, d_k), mat_init(&k, n, d_k), mat_init(&v, n, d_k), mat_init(&sc, n, n),
            mat_init(&w, n, n);
        mat_init(&z, n, d_k), mat_init(&concat, n, heads * d_k), mat_init(&out, n, d_model);
        for (int h = 0; h < heads; h++) {
            mat_matmul_ref(&q, &p.X, &p.W_Q[h]);
            mat_matmul_ref(&k, &p.S, &p.W_K[h]);
            mat_matmul_ref(&v, &p.S, &p.W_V[h]);
            mat_matmul_bt_ref(&sc, &q, &k);
            attn_scale(&sc, &sc, d_k);
            attn_mask_causal(&sc);
            mat_softmax_rows(&w, &sc);
            mat_matmul_ref(&z, &w, &v);
            worst = fmax(worst, mat_max_abs_diff(&z, &t.head[h].Z));
            for (int r = 0; r < n; r++)
                memcpy(mat_row(&concat, r) + h * d_k, mat_row(&z, r), sizeof(double) * d_k);
        }
        mat_matmul_ref(&out, &concat, &p.W_O);
        mat_add_row(&out, &p.b_O);
        worst = fmax(worst, mat_max_abs_diff(&out, &t.output));
        mat_free(&q), mat_free(&k), mat_free(&v), mat_free(&sc), mat_free(&w), mat_free(&z),
            mat_free(&concat);
        mat_free(&out);
        trace_free(&t);
    }
    params_free(&p);
    return worst;
}

static void fill(Matrix *m, const double *v)
{
    memcpy(m->data, v, sizeof(double) * (size_t)m->rows * (size_t)m->cols);
}

int main(void)
{
    Matrix a, b, c, bt;
    mat_init(&a, 2, 3);
    mat_init(&b, 3, 2);
    mat_init(&c, 2, 2);
    mat_init(&bt, 2, 3);
    fill(&a, (double[]){1, 2, 3, 4, 5, 6});
    fill(&b, (double[]){7, 8, 9, 10, 11, 12});
    fill(&bt, (double[]){7, 9, 11, 8, 10, 12});
    mat_matmul(&c, &a, &b);
    // [1 2 3; 4 5 6] @ [7 8; 9 10; 11 12] = [58 64; 139 154]
    CHECK(mat_get(&c, 0, 0) == 58 && mat_get(&c, 0, 1) == 64, "row 0: %g %g", mat_get(&c, 0, 0),
          mat_get(&c, 0, 1));
    CHECK(mat_get(&c, 1, 0) == 139 && mat_get(&c, 1, 1) == 154, "row 1: %g %g", mat_get(&c, 1, 0),
          mat_get(&c, 1, 1));
    Matrix c2;
    mat_init(&c2, 2, 2);
    mat_matmul_bt(&c2, &a, &bt);
    CHECK(mat_max_abs_diff(&c, &c2) == 0.0, "a b == a (b^T)^T");

    Matrix bias;
    mat_init(&bias, 1, 2);
    fill(&bias, (double[]){1, -1});
    mat_add_row(&c, &bias);
    CHECK(mat_get(&c, 1, 0) == 140 && mat_get(&c, 1, 1) == 153, "bias added to each row");
    mat_scale(&c, &c, 0.5);
    CHECK(mat_get(&c, 0, 0) == 29.5, "scale in place: %g", mat_get(&c, 0, 0));

    // Softmax: equal scores give equal weights; -inf gives exactly 0; huge finite scores stay
    // exact.
    Matrix s, w;
    mat_init(&s, 3, 3);
    mat_init(&w, 3, 3);
    fill(&s, (double[]){0, 0, 0, 1, -INFINITY, -INFINITY, 1000, 999, -1000});
    mat_softmax_rows(&w, &s);
    CHECK(fabs(mat_get(&w, 0, 0) - 1.0 / 3) < 1e-15, "uniform row: %.17g", mat_get(&w, 0, 0));
    CHECK(mat_get(&w, 1, 0) == 1.0 && mat_get(&w, 1, 1) == 0.0 && mat_get(&w, 1, 2) == 0.0,
          "masked entries are 0");
    double e = exp(-1.0);
    CHECK(fabs(mat_get(&w, 2, 0) - 1.0 / (1.0 + e)) < 1e-15, "large scores: %.17g",
          mat_get(&w, 2, 0));
    CHECK(mat_get(&w, 2, 2) == 0.0, "exp(-2000) underflows to 0, not NaN");
    CHECK(mat_all_finite(&w, false), "softmax of finite-or-masked rows is finite");
    fill(&s, (double[]){-INFINITY, -INFINITY, -INFINITY, 0, 0, 0, 0, 0, 0});
    mat_softmax_rows(&w, &s);
    CHECK(mat_get(&w, 0, 0) == 0.0 && !isnan(mat_get(&w, 0, 1)),
          "a fully masked row is zeros, not NaN");

    CHECK(!mat_all_finite(&s, false) && mat_all_finite(&s, true),
          "masked entries allowed only when asked");
    // Near exp's underflow (the softmax skips exp below -746): the same bits as exp itself.
    Matrix u, uw;
    mat_init(&u, 1, 12), mat_init(&uw, 1, 12);
    fill(&u, (double[]){0, -700, -744.4, -745.0, -745.13, -745.1332, -745.14, -745.5, -745.99, -746,
                        -746.01, -1e6});
    mat_softmax_rows(&uw, &u);
    double usum = 0.0, uworst = 0.0;
    for (int j = 0; j < 12; j++) usum += exp(u.data[j]);
    for (int j = 0; j < 12; j++) uworst = fmax(uworst, fabs(uw.data[j] - exp(u.data[j]) / usum));
    printf("softmax near underflow vs exp(): largest difference %g\n", uworst);
    CHECK(uworst == 0.0, "softmax near underflow gives exp's bits (largest difference %g)", uworst);
    mat_free(&u), mat_free(&uw);
    Matrix big;
    CHECK(!mat_init(&big, -1, 3), "negative rows rejected");
    CHECK(!mat_init(&big, 1 << 30, 1 << 30) || (mat_free(&big), 0), "absurd size rejected");
    Matrix copy;
    mat_copy(&copy, &a);
    CHECK(mat_max_abs_diff(&copy, &a) == 0.0 && copy.data != a.data, "copy is deep");

    // The fast kernels against the plain loops, on awkward sizes (edges of every block shape, k
    // past one packed slab of 256): the same summation order and no fused multiply-add, so the same
    // bits.
    double worst = 0.0;
    for (int n = 1; n <= 13; n += 3)
        for (int k = 1; k <= 70; k += 23)
            for (int p = 1; p <= 19; p += 6) worst = fmax(worst, compare_shapes(n, k, p));
    static const int shapes[][3] = {{5, 257, 9},   {10, 512, 64},  {13, 600, 19},
                                    {37, 530, 70}, {128, 768, 64}, {8, 1000, 8}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        worst = fmax(worst, compare_shapes(shapes[i][0], shapes[i][1], shapes[i][2]));
    printf("fast kernels vs reference loops: largest difference %g\n", worst);
    CHECK(worst == 0.0, "fast and reference matmul give the same bits (largest difference %g)",
          worst);
    double tw = compare_trace();
    printf("trace_run (two threads) vs reference stages: largest difference %g\n", tw);
    CHECK(tw == 0.0, "trace_run gives the reference loops' bits (largest difference %g)", tw);

    mat_free(&a), mat_free(&b), mat_free(&c), mat_free(&bt), mat_free(&c2), mat_free(&bias),
        mat_free(&s);
    mat_free(&w), mat_free(&copy);
    return check_report("test_matrix");
}
