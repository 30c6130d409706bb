// Dense row-major matrices of doubles and the plain operations attention is built from.
// Every function writes its output argument first, then reads const inputs; shapes in the comments.
#ifndef MHA_MATRIX_H
#define MHA_MATRIX_H

#include <stdbool.h>
#include <stddef.h>

// The largest matrix mat_init allocates (2^31 doubles, 16 GiB): far beyond any lesson's limits.
#define MAT_MAX_ELEMENTS ((size_t)1 << 31)

typedef struct {
    int rows, cols;
    double *data; // rows * cols values, row-major; NULL when rows * cols == 0
} Matrix;

// Allocates a zeroed (rows, cols) matrix. Returns false (and leaves m empty) on overflow or no
// memory. Free with mat_free.
bool mat_init(Matrix *m, int rows, int cols);
void mat_free(Matrix *m);
// out = a copy of src (out is initialised; free with mat_free).
bool mat_copy(Matrix *out, const Matrix *src);

static inline double *mat_row(const Matrix *m, int r)
{
    return m->data + (size_t)r * (size_t)m->cols;
}
static inline double mat_get(const Matrix *m, int r, int c)
{
    return m->data[(size_t)r * (size_t)m->cols + (size_t)c];
}
static inline void mat_set(Matrix *m, int r, int c, double v)
{
    m->data[(size_t)r * (size_t)m->cols + (size_t)c] = v;
}

// out (n, p) = a (n, k) @ b (k, p). out must already have shape (n, p) and must not alias a or b.
// A packed, register-blocked kernel (AVX-512 or AVX2 when the CPU has it); it sums in the same
// order as mat_matmul_ref without fused multiply-add, so the bits are the same.
void mat_matmul(Matrix *out, const Matrix *a, const Matrix *b);
// Columns [c0, c1) of out (n, p) = a (n, k) @ b (k, p), the other columns of out untouched: the
// same bits as those columns of mat_matmul (so the columns can be split over threads).
void mat_matmul_cols(Matrix *out, const Matrix *a, const Matrix *b, int c0, int c1);
// mat_matmul with the portable C block kernel the CPUs without AVX2 use (for the tests on any
// machine).
void mat_matmul_portable(Matrix *out, const Matrix *a, const Matrix *b);
// The block kernels mat_matmul chooses from at run time (the best this CPU runs); all give the same
// bits.
typedef enum {
    MAT_KERNEL_PORTABLE,
    MAT_KERNEL_AVX2,
    MAT_KERNEL_AVX512,
    MAT_KERNEL_WASM_SIMD,
    MAT_KERNEL_COUNT
} MatKernel;
bool mat_kernel_available(MatKernel k); // compiled in, and this CPU (and OS) runs it
MatKernel mat_kernel_best(void); // the one mat_matmul uses
const char *mat_kernel_name(MatKernel k);
// mat_matmul with kernel k; false (out untouched) when this CPU cannot run it.
bool mat_matmul_with(Matrix *out, const Matrix *a, const Matrix *b, MatKernel k);
// out (n, m) = a (n, k) @ b^T where b is (m, k). Same bits as mat_matmul_bt_ref.
void mat_matmul_bt(Matrix *out, const Matrix *a, const Matrix *b);
// The plain reference loops the fast versions are tested against.
void mat_matmul_ref(Matrix *out, const Matrix *a, const Matrix *b);
void mat_matmul_bt_ref(Matrix *out, const Matrix *a, const Matrix *b);
// m (n, c) += bias (1, c) added to every row.
void mat_add_row(Matrix *m, const Matrix *bias);
// out (n, c) = in (n, c) * s. out may alias in.
void mat_scale(Matrix *out, const Matrix *in, double s);
// out (n, c) = softmax of each row of in (n, c), stable: exp(x - rowmax) / sum. -INFINITY entries
// give 0. A row of only -INFINITY gives a row of 0 (never NaN).
void mat_softmax_rows(Matrix *out, const Matrix *in);
// The k largest of p (n) in order, the lower index first among equals (k <= n): their indices into
// id (k) and their values into prob (k). Each is the largest below the one before in that order.
void mat_top_k(int *id, double *prob, const double *p, int n, int k);
// true when every entry is finite (-INFINITY entries above the diagonal are allowed when
// allow_masked).
bool mat_all_finite(const Matrix *m, bool allow_masked);
// Largest |a - b| over all entries of two matrices of the same shape.
double mat_max_abs_diff(const Matrix *a, const Matrix *b);

#endif
