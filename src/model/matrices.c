// The table of logical matrices and what is read from it: shapes, values (the trace's own numbers),
// names, axis labels and shared colour ranges.
#include "model/matrices.h"
#include "hf/layer_stream.h"
#include "model/i18n.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation" // labels are cut to their buffers on purpose
#endif

// ---------------------------------------------------------------------------------------------------
// Value accessors, one per matrix

// A cell of a matrix kept in the lesson or the trace (its row's `at`).
static double v_kept(const AttnParams *p, const Trace *t, CellRef c)
{
    const Matrix *x = model_mat_stored(p, t, c.mat, c.head);
    return x ? mat_get(x, c.row, c.col) : NAN;
}
// Cells computed one by one.
static double v_kt(const AttnParams *p, const Trace *t, CellRef c)
{
    (void)p;
    return mat_get(&t->head[c.head].K, c.col, c.row);
}
static double v_krot_t(const AttnParams *p, const Trace *t, CellRef c)
{
    (void)p;
    return mat_get(&t->head[c.head].K_rot, c.col, c.row);
}
static double v_kshift_t(const AttnParams *p, const Trace *t, CellRef c)
{
    (void)p;
    return mat_get(&t->head[c.head].K_shift, c.col, c.row);
}
// Before the mask: the same operation as the trace's scaling, so the bits are the trace's where it
// is not masked.
static double v_scaled(const AttnParams *p, const Trace *t, CellRef c)
{
    return attn_scale_one(p, mat_get(&t->head[c.head].scores, c.row, c.col), sqrt((double)p->d_k));
}
static double v_mask(const AttnParams *p, const Trace *t, CellRef c)
{
    (void)t;
    return (p->mask == MASK_CAUSAL && attn_masked(c.row, c.col, p->window)) ? -INFINITY : 0.0;
}
// The trace's two outputs, subtracted: what the switched-off heads add to each cell.
static double v_output_diff(const AttnParams *p, const Trace *t, CellRef c)
{
    (void)p;
    return t->full_output.data
               ? mat_get(&t->full_output, c.row, c.col) - mat_get(&t->output, c.row, c.col)
               : NAN;
}

// A checkpoint's layer (AttnParams.stream): its input h, the norm's weights, h + Output, the next
// tokens.
static double v_stream(const AttnParams *p, const Trace *t, CellRef c)
{
    (void)t;
    return mat_get(&p->stream->x, c.row, c.col);
}
static double v_gain(const AttnParams *p, const Trace *t, CellRef c)
{
    (void)t;
    return mat_get(&p->stream->gain, 0, c.col);
}
static double v_shift(const AttnParams *p, const Trace *t, CellRef c)
{
    (void)t;
    return mat_get(&p->stream->shift, 0, c.col);
}
static double v_residual(const AttnParams *p, const Trace *t, CellRef c)
{
    return mat_get(&p->stream->x, c.row, c.col) + mat_get(&t->output, c.row, c.col);
}
static double v_next(const AttnParams *p, const Trace *t, CellRef c)
{
    (void)t;
    return p->stream->top_p[(size_t)c.row * (size_t)p->stream->top + (size_t)c.col];
}
static bool has_stream(const AttnParams *p)
{
    return p->stream && p->stream->x.data && p->stream->x.rows == p->n;
}
static bool has_norm(const AttnParams *p) { return has_stream(p) && p->stream->norm != NORM_NONE; }
static bool has_norm_bias(const AttnParams *p) { return has_norm(p) && p->stream->shift.data; }
static bool has_next(const AttnParams *p)
{
    return has_stream(p) && p->stream->top > 0 && p->stream->top_p;
}

static bool has_positions(const AttnParams *p) { return p->positions != POS_NONE; }
static bool has_source_positions(const AttnParams *p)
{
    return p->positions != POS_NONE && p->cross;
}
static bool has_rope(const AttnParams *p) { return p->rope != ROPE_NONE; }
static bool has_shift(const AttnParams *p) { return p->rope != ROPE_NONE && p->rope_shift > 0; }
static bool has_ablated(const AttnParams *p)
{
    for (int h = 0; h < p->heads; h++)
        if (params_ablated(p, h)) return true;
    return false;
}

// With positions X = E + P is computed: E is what the class edits (view_param_set recomputes X).
static Matrix *p_x(AttnParams *p, int h)
{
    (void)h;
    return p->positions == POS_NONE ? &p->X : NULL;
}
static Matrix *p_s(AttnParams *p, int h)
{
    (void)h;
    return p->cross && p->positions == POS_NONE ? &p->S : NULL;
}
static Matrix *p_e(AttnParams *p, int h)
{
    (void)h;
    return p->positions != POS_NONE ? &p->E : NULL;
}
static Matrix *p_es(AttnParams *p, int h)
{
    (void)h;
    return p->positions != POS_NONE && p->cross ? &p->E_S : NULL;
}
static Matrix *p_wq(AttnParams *p, int h) { return &p->W_Q[h]; }
static Matrix *p_wk(AttnParams *p, int h) { return &p->W_K[h]; }
static Matrix *p_wv(AttnParams *p, int h) { return &p->W_V[h]; }
static Matrix *p_wo(AttnParams *p, int h)
{
    (void)h;
    return &p->W_O;
}

// What each computed matrix is made of: the row and column bands its cell reads (-1: all of them).
static int bands(CellRef *out, int max, CellRef a, CellRef b, int n)
{
    int k = 0;
    if (k < max && n > 0) out[k++] = a;
    if (k < max && n > 1) out[k++] = b;
    return k;
}
#define BAND(m, h, r, c) ((CellRef){(m), (h), (r), (c)})
static MatId kv_source(const AttnParams *p) { return p->cross ? MAT_S : MAT_X; }
static int f_q(const AttnParams *p, CellRef c, CellRef *o, int max)
{
    (void)p;
    return bands(o, max, BAND(MAT_X, c.head, c.row, -1), BAND(MAT_WQ, c.head, -1, c.col), 2);
}
static int f_k(const AttnParams *p, CellRef c, CellRef *o, int max)
{
    return bands(o, max, BAND(kv_source(p), c.head, c.row, -1), BAND(MAT_WK, c.head, -1, c.col), 2);
}
static int f_v(const AttnParams *p, CellRef c, CellRef *o, int max)
{
    return bands(o, max, BAND(kv_source(p), c.head, c.row, -1), BAND(MAT_WV, c.head, -1, c.col), 2);
}
// A rotated row is its own row turned: each cell reads the row (its pair's two cells).
static int f_qrot(const AttnParams *p, CellRef c, CellRef *o, int max)
{
    (void)p;
    return bands(o, max, BAND(MAT_Q, c.head, c.row, -1), c, 1);
}
static int f_krot(const AttnParams *p, CellRef c, CellRef *o, int max)
{
    (void)p;
    return bands(o, max, BAND(MAT_K, c.head, c.row, -1), c, 1);
}
static int f_krot_t(const AttnParams *p, CellRef c, CellRef *o, int max)
{
    (void)p;
    return bands(o, max, BAND(MAT_KT, c.head, -1, c.col), c, 1);
}
// The same rows turned at position p + k (AttnParams.rope_shift) read what the rows above read
// (f_qrot, f_krot, f_krot_t); their scores:
static int f_scores_shift(const AttnParams *p, CellRef c, CellRef *o, int max)
{
    (void)p;
    return bands(o, max, BAND(MAT_QSHIFT, c.head, c.row, -1), BAND(MAT_KSHIFT_T, c.head, -1, c.col),
                 2);
}
// With RoPE the scores read the rotated rows.
static int f_scores(const AttnParams *p, CellRef c, CellRef *o, int max)
{
    bool rope = p->rope != ROPE_NONE;
    return bands(o, max, BAND(rope ? MAT_QROT : MAT_Q, c.head, c.row, -1),
                 BAND(rope ? MAT_KROT_T : MAT_KT, c.head, -1, c.col), 2);
}
static int f_scaled(const AttnParams *p, CellRef c, CellRef *o, int max)
{
    (void)p;
    return bands(o, max, BAND(MAT_SCORES, c.head, c.row, c.col), c, 1);
}
static int f_masked(const AttnParams *p, CellRef c, CellRef *o, int max)
{
    (void)p;
    return bands(o, max, BAND(MAT_SCALED, c.head, c.row, c.col),
                 BAND(MAT_MASK, c.head, c.row, c.col), 2);
}
static int f_weights(const AttnParams *p, CellRef c, CellRef *o, int max)
{
    return bands(o, max, BAND(p->mask == MASK_CAUSAL ? MAT_MASKED : MAT_SCALED, c.head, c.row, -1),
                 c, 1);
}
static int f_z(const AttnParams *p, CellRef c, CellRef *o, int max)
{
    (void)p;
    return bands(o, max, BAND(MAT_WEIGHTS, c.head, c.row, -1), BAND(MAT_V, c.head, -1, c.col), 2);
}
static int f_concat(const AttnParams *p, CellRef c, CellRef *o, int max)
{
    if (p->d_k <= 0) return 0;
    return bands(o, max, BAND(MAT_Z, c.col / p->d_k, c.row, c.col % p->d_k), c, 1); // head i's part
}
static int f_output(const AttnParams *p, CellRef c, CellRef *o, int max)
{
    (void)p;
    return bands(o, max, BAND(MAT_CONCAT, c.head, c.row, -1), BAND(MAT_WO, c.head, -1, c.col), 2);
}
// With positions X and Y are sums: X[i, j] = E[i, j] + P[i, j].
static int f_x(const AttnParams *p, CellRef c, CellRef *o, int max)
{
    if (p->positions == POS_NONE) return 0;
    return bands(o, max, BAND(MAT_E, c.head, c.row, c.col), BAND(MAT_P, c.head, c.row, c.col), 2);
}
static int f_s(const AttnParams *p, CellRef c, CellRef *o, int max)
{
    if (p->positions == POS_NONE || !p->cross) return 0;
    return bands(o, max, BAND(MAT_ES, c.head, c.row, c.col), BAND(MAT_PS, c.head, c.row, c.col), 2);
}
static int f_output_diff(const AttnParams *p, CellRef c, CellRef *o, int max)
{
    (void)p;
    return bands(o, max, BAND(MAT_OUTPUT_ALL, c.head, c.row, c.col),
                 BAND(MAT_OUTPUT, c.head, c.row, c.col), 2);
}
// h' = h + Output, cell by cell.
static int f_residual(const AttnParams *p, CellRef c, CellRef *o, int max)
{
    (void)p;
    return bands(o, max, BAND(MAT_STREAM, 0, c.row, c.col), BAND(MAT_OUTPUT, 0, c.row, c.col), 2);
}
#undef BAND

// ---------------------------------------------------------------------------------------------------
// The table

// The explanations are explain.c's, one function per kind of cell (see MAT_ROWS).
#define MAT_ROW_EXPLAIN(id, explain, ...) int explain(const struct CellText *ct, char lines[][256]);
MAT_ROWS(MAT_ROW_EXPLAIN)
#undef MAT_ROW_EXPLAIN
// A display-only stage's matrix (the matrix row of a SHOWN row, core/stage_table.h): its from and
// explain are model/stages.c's.
#define MAT_SHOWN_FNS(id, from, explain, ...)                                                      \
    int from(const AttnParams *p, CellRef c, CellRef *out, int max);                               \
    int explain(const struct CellText *ct, char lines[][256]);
#define MAT_SHOWN_DECL(stage, key, compute, row, mat) MAT_SHOWN_FNS mat
STAGE_TABLE(STAGE_TABLE_SKIP, MAT_SHOWN_DECL)
#undef MAT_SHOWN_DECL
#undef MAT_SHOWN_FNS

#define MAT_ROW(mat_id, explain_fn, ...)                                                           \
    [mat_id] = {.id = mat_id, .explain = explain_fn, __VA_ARGS__},
// A display-only stage's matrix: one for the layer, given by the lesson's sizes, kept in
// Trace.shown[stage].
#define MAT_SHOWN_ROW(stage, mat_id, from_fn, explain_fn, ...)                                     \
    [mat_id] = {.id = mat_id,                                                                      \
                .from = from_fn,                                                                   \
                .explain = explain_fn,                                                             \
                .per_head = PER_LAYER,                                                             \
                .editable = false,                                                                 \
                .at = AT_SHOWN(stage),                                                             \
                .value = v_kept,                                                                   \
                __VA_ARGS__},
#define MAT_SHOWN_CALL(m, ...) m(__VA_ARGS__)
#define MAT_SHOWN(stage, key, compute, row, mat)                                                   \
    MAT_SHOWN_CALL(MAT_SHOWN_ROW, stage, STAGE_TABLE_COLS mat)
static const MatInfo MATS[MAT_COUNT] = {MAT_ROWS(MAT_ROW) STAGE_TABLE(STAGE_TABLE_SKIP, MAT_SHOWN)};
#undef MAT_SHOWN
#undef MAT_SHOWN_CALL
#undef MAT_SHOWN_ROW
#undef MAT_ROW

const MatInfo *mat_info(MatId m) { return (m > MAT_NONE && m < MAT_COUNT) ? &MATS[m] : NULL; }

MatId model_mat_untransposed(MatId m)
{
    static const MatId PAIRS[][2] = {
        {MAT_KT, MAT_K}, {MAT_KROT_T, MAT_KROT}, {MAT_KSHIFT_T, MAT_KSHIFT}};
    for (size_t i = 0; i < sizeof PAIRS / sizeof PAIRS[0]; i++)
        if (PAIRS[i][0] == m) return PAIRS[i][1];
    return MAT_NONE;
}

const Matrix *model_mat_stored(const AttnParams *p, const Trace *t, MatId m, int head)
{
    const MatInfo *mi = mat_info(m);
    const Matrix *x = NULL;
    if (!mi) return NULL;
    switch (mi->at.kind) { // the four places a matrix can live: a table of them would be four rows
                           // of this
    case MAT_AT_PARAMS: x = (const Matrix *)(const void *)((const char *)p + mi->at.offset); break;
    case MAT_AT_WEIGHTS:
        x = *(Matrix *const *)(const void *)((const char *)p + mi->at.offset) + head;
        break;
    case MAT_AT_HEAD:
        if (t && t->head && head >= 0 && head < t->heads)
            x = (const Matrix *)(const void *)((const char *)&t->head[head] + mi->at.offset);
        break;
    case MAT_AT_TRACE:
        if (t) x = (const Matrix *)(const void *)((const char *)t + mi->at.offset);
        break;
    default: break;
    }
    return x && x->data ? x : NULL;
}

bool model_mat_own(const AttnParams *p, MatId m)
{
    return model_mat_present(p, m) && (m != MAT_S || p->cross);
}

int model_mat_inputs(const AttnParams *p, CellRef c, CellRef *out, int max)
{
    const MatInfo *mi = mat_info(c.mat);
    return mi && mi->from ? mi->from(p, c, out, max) : 0;
}

int model_dim(const AttnParams *p, Dim d)
{
    const int dims[] = {[DIM_N] = p->n,
                        [DIM_M] = p->m,
                        [DIM_D_MODEL] = p->d_model,
                        [DIM_D_K] = p->d_k,
                        [DIM_H_D_K] = p->heads * p->d_k,
                        [DIM_ONE] = 1,
                        [DIM_TOP] = p->stream ? p->stream->top : 0};
    return (d >= DIM_N && d <= DIM_TOP) ? dims[d] : 0;
}

void model_mat_shape(const AttnParams *p, MatId m, int *rows, int *cols)
{
    const MatInfo *mi = mat_info(m);
    *rows = mi ? model_dim(p, mi->rows) : 0;
    *cols = mi ? model_dim(p, mi->cols) : 0;
}

bool model_mat_present(const AttnParams *p, MatId m)
{
    const MatInfo *mi = mat_info(m);
    return mi && (!mi->present || mi->present(p));
}

// Whether head h of a matrix has cells to read: the matrix is there, the head exists, and a
// computed matrix has its trace (what every cell of model_cell_value needs besides its row and
// column being in range).
static bool head_readable(const AttnParams *p, const Trace *t, const MatInfo *mi, int head)
{
    if (mi->present && !mi->present(p)) return false;
    if (mi->per_head && (head < 0 || head >= p->heads || (!mi->param && (!t || head >= t->heads))))
        return false;
    return mi->param || t;
}

double model_cell_value(const AttnParams *p, const Trace *t, CellRef c)
{
    const MatInfo *mi = mat_info(c.mat);
    if (!mi || !head_readable(p, t, mi, c.head)) return NAN;
    int rows, cols;
    model_mat_shape(p, c.mat, &rows, &cols);
    if (c.row < 0 || c.col < 0 || c.row >= rows || c.col >= cols) return NAN;
    return mi->value(p, t, c);
}

const Matrix *model_mat_whole(const AttnParams *p, const Trace *t, MatId m, int head)
{
    const MatInfo *mi = mat_info(m);
    if (!mi || mi->value != v_kept || !head_readable(p, t, mi, head)) return NULL;
    const Matrix *x = model_mat_stored(p, t, m, head);
    int rows, cols;
    model_mat_shape(p, m, &rows, &cols);
    return x && x->rows == rows && x->cols == cols ? x : NULL;
}

// The largest finite magnitude among count numbers (0 when there is none). On their bits: a
// double's magnitude bits (sign cleared) order as unsigned integers like the magnitudes, and the
// finite ones are those below the exponent's all-ones; an integer maximum the compiler runs over
// whole vectors, exactly the same.
static double largest_magnitude(const double *x, size_t count)
{
    const uint64_t magnitude = UINT64_C(0x7fffffffffffffff),
                   infinity = UINT64_C(0x7ff0000000000000);
    uint64_t r = 0;
    for (size_t k = 0; k < count; k++) {
        uint64_t b;
        memcpy(&b, &x[k], sizeof b);
        b &= magnitude;
        b = b < infinity ? b : 0; // NaN and infinities left out
        r = b > r ? b : r;
    }
    double out;
    memcpy(&out, &r, sizeof out);
    return out;
}

// The largest finite magnitude of head h of matrix m (rows x cols): read from the matrix where it
// is kept whole, else cell by cell (a transposition, a scaling) without model_cell_value's checks,
// made once here. The same cells either way, so the same maximum (a maximum does not depend on the
// order it is taken in).
static double head_magnitude(const AttnParams *p, const Trace *t, MatId m, int h, int rows,
                             int cols)
{
    const MatInfo *mi = &MATS[m];
    if (!head_readable(p, t, mi, h)) return 0.0;
    const Matrix *x = model_mat_whole(p, t, m, h);
    if (x) return largest_magnitude(x->data, (size_t)rows * (size_t)cols);
    // The scaled scores: each score times a positive number (or divided by one), an odd function
    // that never decreases, rounding included; so the largest scaled magnitude is the largest
    // score's, scaled, unless that one overflows (then the cells are read one by one: the largest
    // finite one is another).
    const Matrix *sc = mi->value == v_scaled ? &t->head[h].scores : NULL;
    if (sc && sc->data && sc->rows == rows && sc->cols == cols) {
        double top = attn_scale_one(p, largest_magnitude(sc->data, (size_t)rows * (size_t)cols),
                                    sqrt((double)p->d_k));
        if (isfinite(top)) return top;
    }
    double r = 0.0;
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            double v = mi->value(p, t, (CellRef){m, h, i, j});
            if (isfinite(v) && fabs(v) > r) r = fabs(v);
        }
    return r;
}

double model_range(const AttnParams *p, const Trace *t, RangeGroup g)
{
    if (g == RANGE_PROB || g == RANGE_MASK) return 1.0;
    double r = 0.0;
    for (int m = MAT_NONE + 1; m < MAT_COUNT; m++) {
        const MatInfo *mi = &MATS[m];
        if (mi->range != g || !model_mat_own(p, (MatId)m)) continue;
        int rows, cols;
        model_mat_shape(p, (MatId)m, &rows, &cols);
        if (mi->param
            && mi->param((AttnParams *)p,
                         0)) { // a parameter: its numbers are all there, in one array
            for (int h = 0; h < (mi->per_head ? p->heads : 1); h++) {
                const Matrix *x = mi->param((AttnParams *)p, h); // read only
                double hr = x ? largest_magnitude(x->data, (size_t)x->rows * (size_t)x->cols) : 0.0;
                if (hr > r) r = hr;
            }
            continue;
        }
        for (int h = 0; h < (mi->per_head ? p->heads : 1); h++) {
            double hr = head_magnitude(p, t, (MatId)m, h, rows, cols);
            if (hr > r) r = hr;
        }
    }
    return r > 0.0 ? r : 1.0;
}

// ---------------------------------------------------------------------------------------------------
// Names, labels, numbers

void model_subscript(char *buf, size_t cap, int n)
{
    char digits[16];
    snprintf(digits, sizeof digits, "%d", n);
    for (const char *d = digits; *d; d++) {
        size_t len = strlen(buf);
        if (len + 4 > cap) return;
        buf[len] = (char)0xE2;
        buf[len + 1] = (char)0x82;
        buf[len + 2] = (char)(0x80 + (*d - '0'));
        buf[len + 3] = '\0';
    }
}

int model_mat_head(const AttnParams *p, MatId m, int head)
{
    const MatInfo *mi = mat_info(m);
    bool grouped = p && p->kv_heads > 0 && p->kv_heads < p->heads && head >= 0;
    return mi && mi->per_head == PER_KV && grouped ? params_kv_head(p, head) : head;
}

void model_mat_name(const AttnParams *p, MatId m, int head, char *buf, size_t cap)
{
    const MatInfo *mi = mat_info(m);
    if (!cap) return;
    buf[0] = '\0';
    if (!mi) return;
    head = model_mat_head(p, m, head);
    // The notation is the same in every language; a qualifier in words ("Output (all heads)") is
    // translated.
    const char *sym = strstr(mi->symbol, " (") ? TR(mi->symbol) : mi->symbol;
    if (!mi->per_head) {
        snprintf(buf, cap, "%s", sym);
        return;
    }
    // The head's subscript goes after the letter and before a raised part or a " + M": W₀^Q, S′₀ +
    // M.
    const char *cut = strchr(sym, '^');
    const char *plus = strstr(sym, " + ");
    if (!cut || (plus && plus < cut)) cut = plus;
    size_t stem = cut ? (size_t)(cut - sym) : strlen(sym);
    snprintf(buf, cap, "%.*s", (int)stem, sym);
    model_subscript(buf, cap, head);
    if (cut) snprintf(buf + strlen(buf), cap - strlen(buf), "%s", cut);
}

void model_axis_label(const Lesson *L, Axis a, int i, char *buf, size_t cap)
{
    const AttnParams *p = &L->params;
    if (a == AXIS_HEAD_DIM && p->d_k > 0 && p->heads > 1 && i >= 0 && i < p->heads * p->d_k) {
        snprintf(buf, cap, "Z");
        model_subscript(buf, cap, i / p->d_k);
        snprintf(buf + strlen(buf), cap - strlen(buf), " %d", i % p->d_k);
        return;
    }
    char *const *tokens = a == AXIS_QUERY ? L->tokens : a == AXIS_KEY ? L->source_tokens : NULL;
    int count = a == AXIS_QUERY ? p->n : a == AXIS_KEY ? p->m : 0;
    if (!tokens || i < 0 || i >= count || !tokens[i]) {
        snprintf(buf, cap, "%d", i);
        return;
    }
    snprintf(buf, cap, "%s", tokens[i]);
    const unsigned char *repeats = a == AXIS_QUERY ? L->repeats : L->source_repeats;
    if (repeats) {
        if (repeats[i]) model_subscript(buf, cap, i); // "the₀" and "the₄": which "the"
        return;
    }
    for (int j = 0; j < count; j++)
        if (j != i && tokens[j] && strcmp(tokens[j], tokens[i]) == 0) {
            model_subscript(buf, cap, i); // "the₀" and "the₄": which "the"
            return;
        }
}

void model_format_value(double v, char *buf, size_t cap)
{
    if (isinf(v)) {
        snprintf(buf, cap, "%s\xe2\x88\x9e", v < 0 ? "\xe2\x88\x92" : ""); // −∞
        return;
    }
    if (isnan(v)) {
        snprintf(buf, cap, "?");
        return;
    }
    char tmp[64];
    if (v == floor(v) && fabs(v) < 1e5)
        snprintf(tmp, sizeof tmp, "%.0f", fabs(v)); // exact integers: "1", "0"
    else {
        if (fabs(v) < 0.00005) v = 0.0;
        snprintf(tmp, sizeof tmp, fabs(v) >= 1e5 ? "%.3e" : "%.4f",
                 fabs(v)); // huge sums stay short
    }
    snprintf(buf, cap, "%s%s", v < 0 ? "\xe2\x88\x92" : "", tmp); // U+2212 minus sign
}

void model_format_operand(double v, char *buf, size_t cap)
{
    char num[32];
    model_format_value(v, num, sizeof num);
    snprintf(buf, cap, strncmp(num, "\xe2\x88\x92", 3) ? "%s" : "(%s)", num);
}

void model_format_terms(const AttnParams *p, const Trace *t, CellRef c, MatId first, MatId second,
                        char *a, char *b, size_t cap)
{
    model_format_value(model_cell_value(p, t, (CellRef){first, 0, c.row, c.col}), a, cap);
    model_format_operand(model_cell_value(p, t, (CellRef){second, 0, c.row, c.col}), b, cap);
}
