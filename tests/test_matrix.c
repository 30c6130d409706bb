// Tests the plain matrix operations against small cases worked out by hand.
#include <math.h>
#include <string.h>

#include "check.h"
#include "core/matrix.h"

static void fill(Matrix *m, const double *v) { memcpy(m->data, v, sizeof(double) * (size_t)m->rows * (size_t)m->cols); }

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
    CHECK(mat_get(&c, 0, 0) == 58 && mat_get(&c, 0, 1) == 64, "row 0: %g %g", mat_get(&c, 0, 0), mat_get(&c, 0, 1));
    CHECK(mat_get(&c, 1, 0) == 139 && mat_get(&c, 1, 1) == 154, "row 1: %g %g", mat_get(&c, 1, 0), mat_get(&c, 1, 1));
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

    // Softmax: equal scores give equal weights; -inf gives exactly 0; huge finite scores stay exact.
    Matrix s, w;
    mat_init(&s, 3, 3);
    mat_init(&w, 3, 3);
    fill(&s, (double[]){0, 0, 0, 1, -INFINITY, -INFINITY, 1000, 999, -1000});
    mat_softmax_rows(&w, &s);
    CHECK(fabs(mat_get(&w, 0, 0) - 1.0 / 3) < 1e-15, "uniform row: %.17g", mat_get(&w, 0, 0));
    CHECK(mat_get(&w, 1, 0) == 1.0 && mat_get(&w, 1, 1) == 0.0 && mat_get(&w, 1, 2) == 0.0, "masked entries are 0");
    double e = exp(-1.0);
    CHECK(fabs(mat_get(&w, 2, 0) - 1.0 / (1.0 + e)) < 1e-15, "large scores: %.17g", mat_get(&w, 2, 0));
    CHECK(mat_get(&w, 2, 2) == 0.0, "exp(-2000) underflows to 0, not NaN");
    CHECK(mat_all_finite(&w, false), "softmax of finite-or-masked rows is finite");
    fill(&s, (double[]){-INFINITY, -INFINITY, -INFINITY, 0, 0, 0, 0, 0, 0});
    mat_softmax_rows(&w, &s);
    CHECK(mat_get(&w, 0, 0) == 0.0 && !isnan(mat_get(&w, 0, 1)), "a fully masked row is zeros, not NaN");

    CHECK(!mat_all_finite(&s, false) && mat_all_finite(&s, true), "masked entries allowed only when asked");
    Matrix big;
    CHECK(!mat_init(&big, -1, 3), "negative rows rejected");
    CHECK(!mat_init(&big, 1 << 30, 1 << 30) || (mat_free(&big), 0), "absurd size rejected");
    Matrix copy;
    mat_copy(&copy, &a);
    CHECK(mat_max_abs_diff(&copy, &a) == 0.0 && copy.data != a.data, "copy is deep");

    // The blocked kernels against the plain loops, on awkward sizes (edges of every block shape):
    // the same summation order, so the same bits.
    double worst = 0.0;
    unsigned seed = 12345;
    for (int n = 1; n <= 13; n += 3)
        for (int k = 1; k <= 70; k += 23)
            for (int p = 1; p <= 19; p += 6) {
                Matrix x, y, yt, f, r;
                mat_init(&x, n, k), mat_init(&y, k, p), mat_init(&yt, p, k), mat_init(&f, n, p), mat_init(&r, n, p);
                for (int i = 0; i < n * k; i++) x.data[i] = (double)(seed = seed * 1103515245u + 12345u) / 4e9 - 0.5;
                for (int i = 0; i < k * p; i++) y.data[i] = (double)(seed = seed * 1103515245u + 12345u) / 4e9 - 0.5;
                for (int i = 0; i < k; i++)
                    for (int j = 0; j < p; j++) mat_set(&yt, j, i, mat_get(&y, i, j));
                mat_matmul(&f, &x, &y);
                mat_matmul_ref(&r, &x, &y);
                worst = fmax(worst, mat_max_abs_diff(&f, &r));
                mat_matmul_bt(&f, &x, &yt);
                worst = fmax(worst, mat_max_abs_diff(&f, &r));
                mat_matmul_bt_ref(&f, &x, &yt);
                worst = fmax(worst, mat_max_abs_diff(&f, &r));
                mat_free(&x), mat_free(&y), mat_free(&yt), mat_free(&f), mat_free(&r);
            }
    printf("blocked kernels vs reference loops: largest difference %g\n", worst);
    CHECK(worst == 0.0, "fast and reference matmul give the same bits (largest difference %g)", worst);

    mat_free(&a), mat_free(&b), mat_free(&c), mat_free(&bt), mat_free(&c2), mat_free(&bias), mat_free(&s);
    mat_free(&w), mat_free(&copy);
    return check_report("test_matrix");
}
