// The arithmetic of one cell, in words and numbers, for the hover explanation and the tests:
// computed from the trace's own values (the stable softmax the trace ran, not a naive one). No SDL.
#include "model/explain.h"
#include "core/exactmath.h"
#include "model/i18n.h"
#include "hf/layer_stream.h"
#include "core/utf8.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

#define PRIME "\xe2\x80\xb2"
#define SQRT "\xe2\x88\x9a"

// Appends "(a)(b) + (c)(d) + …" for a dot product of length k, then the sum; at most 6 terms are
// written.
static void dot_terms(char *line, size_t cap, const double *a, int as, const double *b, int bs,
                      int k)
{
    char x[32], y[32];
    line[0] = '\0';
    int shown = k <= 6 ? k : 4;
    for (int i = 0; i < shown; i++) {
        model_format_value(a[(size_t)i * as], x, sizeof x);
        model_format_value(b[(size_t)i * bs], y, sizeof y);
        snprintf(line + strlen(line), cap - strlen(line), "%s(%s)(%s)", i ? " + " : "= ", x, y);
    }
    if (shown < k)
        snprintf(line + strlen(line), cap - strlen(line), TR(" + \xe2\x80\xa6 (%d terms)"), k);
}

static void products(char *line, size_t cap, const double *a, int as, const double *b, int bs,
                     int k, double total)
{
    char x[32];
    line[0] = '\0';
    int shown = k <= 6 ? k : 4;
    for (int i = 0; i < shown; i++) {
        double t = a[(size_t)i * as] * b[(size_t)i * bs];
        model_format_value(i && t < 0 ? -t : t, x, sizeof x);
        snprintf(line + strlen(line), cap - strlen(line), "%s%s",
                 i ? (t < 0 ? " \xe2\x88\x92 " : " + ") : "= ", x);
    }
    if (shown < k) snprintf(line + strlen(line), cap - strlen(line), " + \xe2\x80\xa6");
    model_format_value(total, x, sizeof x);
    snprintf(line + strlen(line), cap - strlen(line), " = %s", x);
    // Adding the rounded terms by hand can miss the last digit: say where the total comes from.
    double by_hand = 0.0;
    for (int i = 0; i < shown; i++)
        by_hand += round(a[(size_t)i * as] * b[(size_t)i * bs] * 1e4) / 1e4;
    if (shown == k && fabs(by_hand - round(total * 1e4) / 1e4) > 0.5e-4)
        snprintf(line + strlen(line), cap - strlen(line), "%s", TR("  (from unrounded values)"));
}

// hints: the last line of an editable cell says how to change it (not on a slide).
// Shown under an embedding or a weight in the window (not on slides).
static const char EDIT_HINT[] = N_("click it, then \xe2\x86\x91 \xe2\x86\x93, the wheel or a "
                                   "vertical drag changes it; every later stage follows");

// A right-to-left token (Arabic, Hebrew) in an explanation is an isolate (U+2068 ... U+2069), so
// that in "A[قطة, على]" each token reads right to left in its place and the pair keeps its order:
// row, then column. A left-to-right mark (U+200E) after it keeps that order where isolates are
// unknown (an SVG viewer or a slide program that implements the older bidi rules): the comma then
// sits between two left-to-right letters. (Built in a buffer of its own and copied back: the shift
// in place, memmove(label + 3, label, ...), made GCC's -O2 with AddressSanitizer report a false
// -Warray-bounds, which -Werror stops.)
static void isolate(char *label, size_t cap)
{
    char out[256];
    size_t len = strlen(label);
    if (!utf8_is_rtl(label) || len + 10 > cap || len + 10 > sizeof out) return;
    snprintf(out, sizeof out, "\xe2\x81\xa8%s\xe2\x81\xa9\xe2\x80\x8e", label);
    memcpy(label, out, len + 10); // U+2068, the label, U+2069, U+200E and the terminating zero
}

// ---------------------------------------------------------------------------------------------------
// One function per kind of cell (the explain column of MAT_ROWS): at most CELL_TEXT_LINES lines
// each.

// MAT_X, MAT_S
int explain_embedding(const CellText *ct, char lines[][256])
{
    if (ct->c.mat == MAT_X && model_mat_present(ct->p, MAT_GAIN)) return explain_normed(ct, lines);
    int n = 0;
    char a[32], b[32];
    if (ct->p->positions != POS_NONE) { // X = E + P: the token's embedding plus its place's vector
        bool x = ct->c.mat == MAT_X;
        model_format_terms(ct->p, ct->T, ct->c, x ? MAT_E : MAT_ES, x ? MAT_P : MAT_PS, a, b,
                           sizeof a);
        snprintf(lines[n++], 256, "%s[%s, %s] = %s[%s, %s] + %s[%d, %s]", ct->name, ct->rl, ct->cl,
                 x ? "E" : "E^Y", ct->rl, ct->cl, x ? "P" : "P^Y", ct->c.row, ct->cl);
        snprintf(lines[n++], 256, TR("= %s + %s = %s   (\"%s\" at position %d)"), a, b, ct->vs,
                 ct->rl, ct->c.row);
        return n;
    }
    snprintf(lines[n++], 256, "%s[%s, %s] = %s", ct->name, ct->rl, ct->cl, ct->vs);
    snprintf(lines[n++], 256, TR("the embedding of \"%s\", dimension %d: given by the lesson"),
             ct->rl, ct->c.col);
    if (ct->hints) snprintf(lines[n++], 256, "%s", TR(EDIT_HINT));
    return n;
}

// MAT_E, MAT_ES
int explain_token(const CellText *ct, char lines[][256])
{
    int n = 0;
    snprintf(lines[n++], 256, "%s[%s, %s] = %s", ct->name, ct->rl, ct->cl, ct->vs);
    snprintf(lines[n++], 256,
             TR("the embedding of the token \"%s\", dimension %d: given by the lesson; it moves "
                "with the token when the tokens are shuffled"),
             ct->rl, ct->c.col);
    if (ct->hints) snprintf(lines[n++], 256, "%s", TR(EDIT_HINT));
    return n;
}

// MAT_P, MAT_PS
int explain_position(const CellText *ct, char lines[][256])
{
    int n = 0;
    snprintf(lines[n++], 256, "%s[%d, %d] = %s", ct->name, ct->c.row, ct->c.col, ct->vs);
    if (ct->p->positions == POS_SINUSOIDAL) {
        int i = ct->c.col / 2;
        snprintf(lines[n++], 256, TR("= %s(%d / 10000^(%d/%d))   (position %d, dimension %d)"),
                 ct->c.col % 2 ? "cos" : "sin", ct->c.row, 2 * i, ct->p->d_model, ct->c.row,
                 ct->c.col);
    } else
        snprintf(lines[n++], 256,
                 TR("the vector of position %d, given by the lesson: it stays with the place, not "
                    "the token"),
                 ct->c.row);
    return n;
}

// MAT_OUTPUT_ALL
int explain_output_all(const CellText *ct, char lines[][256])
{
    int n = 0;
    snprintf(lines[n++], 256, "%s[%s, %d] = %s", ct->name, ct->rl, ct->c.col, ct->vs);
    snprintf(lines[n++], 256, "%s", TR("the output as it is with every head switched on"));
    return n;
}

// MAT_OUTPUT_DIFF
int explain_output_diff(const CellText *ct, char lines[][256])
{
    int n = 0;
    char a[32], b[32];
    model_format_terms(ct->p, ct->T, ct->c, MAT_OUTPUT_ALL, MAT_OUTPUT, a, b, sizeof a);
    char all[64];
    model_mat_name(ct->p, MAT_OUTPUT_ALL, 0, all, sizeof all);
    snprintf(lines[n++], 256, "%s[%s, %d] = %s[%s, %d] \xe2\x88\x92 Output[%s, %d]", ct->name,
             ct->rl, ct->c.col, all, ct->rl, ct->c.col, ct->rl, ct->c.col);
    snprintf(lines[n++], 256, TR("= %s \xe2\x88\x92 %s = %s   (what the heads switched off add)"),
             a, b, ct->vs);
    return n;
}

// MAT_WQ, MAT_WK, MAT_WV, MAT_WO
int explain_weight(const CellText *ct, char lines[][256])
{
    int n = 0;
    snprintf(lines[n++], 256, "%s[%d, %d] = %s", ct->name, ct->c.row, ct->c.col, ct->vs);
    bool checkpoint = ct->p->stream && !ct->p->stream->attention_only;
    snprintf(lines[n++], 256, "%s",
             checkpoint
                 // TRANSLATORS: a weight of a Hugging Face checkpoint's layer, read from its files.
                 ? TR("a learned weight (read from the checkpoint's files)")
                 : TR("a learned weight (in this lesson: given, or random with a fixed seed)"));
    if (ct->hints) snprintf(lines[n++], 256, "%s", TR(EDIT_HINT));
    return n;
}

// MAT_Q, MAT_K, MAT_V, MAT_KT
int explain_projection(const CellText *ct, char lines[][256])
{
    int n = 0;
    const Matrix *in = ct->c.mat == MAT_Q ? &ct->p->X : &ct->p->S;
    const Matrix *w = ct->c.mat == MAT_Q   ? &ct->p->W_Q[ct->h]
                      : ct->c.mat == MAT_V ? &ct->p->W_V[ct->h]
                                           : &ct->p->W_K[ct->h];
    const Matrix *bias = ct->c.mat == MAT_Q   ? &ct->p->b_Q[ct->h]
                         : ct->c.mat == MAT_V ? &ct->p->b_V[ct->h]
                                              : &ct->p->b_K[ct->h];
    int r = ct->c.mat == MAT_KT ? ct->c.col : ct->c.row,
        col = ct->c.mat == MAT_KT ? ct->c.row : ct->c.col;
    char tok[96], wn[32];
    model_axis_label(ct->L, ct->c.mat == MAT_Q ? AXIS_QUERY : AXIS_KEY, r, tok, sizeof tok);
    isolate(tok, sizeof tok);
    model_mat_name(ct->p,
                   ct->c.mat == MAT_Q   ? MAT_WQ
                   : ct->c.mat == MAT_V ? MAT_WV
                                        : MAT_WK,
                   ct->h, wn, sizeof wn);
    char bn[8];
    snprintf(bn, sizeof bn, "%c", ct->c.mat == MAT_Q ? 'Q' : ct->c.mat == MAT_V ? 'V' : 'K');
    snprintf(lines[n++], 256, "%s%s[%s, %d] = %s[%s] \xc2\xb7 %s[:, %d]%s", bn,
             ct->c.mat == MAT_Q ? ct->hn : ct->kvn, tok, col,
             ct->c.mat == MAT_Q ? "X" : (ct->p->cross ? "Y" : "X"), tok, wn, col,
             mat_get(bias, 0, col) != 0.0 ? " + b" : "");
    dot_terms(lines[n++], 256, mat_row(in, r), 1, w->data + col, w->cols, ct->p->d_model);
    products(lines[n++], 256, mat_row(in, r), 1, w->data + col, w->cols, ct->p->d_model, ct->v);
    return n;
}

// MAT_SCORES
int explain_score(const CellText *ct, char lines[][256])
{
    int n = 0;
    char kt[96];
    model_axis_label(ct->L, AXIS_KEY, ct->c.col, kt, sizeof kt);
    isolate(kt, sizeof kt);
    char hr[24],
        kr[24]; // the head's subscript (the key's: its K/V head's), with RoPE the raised R: "₀^R"
    snprintf(hr, sizeof hr, "%s%s", ct->hn, ct->p->rope != ROPE_NONE ? "^R" : "");
    snprintf(kr, sizeof kr, "%s%s", ct->kvn, ct->p->rope != ROPE_NONE ? "^R" : "");
    snprintf(lines[n++], 256,
             TR("S%s[%s, %s] = Q%s[%s] \xc2\xb7 K%s[%s]   (dot product of %d numbers)"), ct->hn,
             ct->rl, ct->cl, hr, ct->rl, kr, kt, ct->p->d_k);
    const Matrix *q = ct->ht->Q_rot.data ? &ct->ht->Q_rot : &ct->ht->Q,
                 *k = ct->ht->K_rot.data ? &ct->ht->K_rot : &ct->ht->K;
    dot_terms(lines[n++], 256, mat_row(q, ct->c.row), 1, mat_row(k, ct->c.col), 1, ct->p->d_k);
    products(lines[n++], 256, mat_row(q, ct->c.row), 1, mat_row(k, ct->c.col), 1, ct->p->d_k,
             ct->v);
    return n;
}

// MAT_SCORES_SHIFT: the dot product of the rows turned at p + k, beside the score of k = 0.
int explain_score_shift(const CellText *ct, char lines[][256])
{
    int n = 0;
    char kt[96], s0[32], diff[32];
    model_axis_label(ct->L, AXIS_KEY, ct->c.col, kt, sizeof kt);
    isolate(kt, sizeof kt);
    const char *r = "^(R+k)";
    snprintf(lines[n++], 256,
             TR("S%s^(k)[%s, %s] = Q%s%s[%s] \xc2\xb7 K%s%s[%s]   (every position + %d)"), ct->hn,
             ct->rl, ct->cl, ct->hn, r, ct->rl, ct->kvn, r, kt, ct->p->rope_shift);
    const Matrix *q = &ct->ht->Q_shift, *k = &ct->ht->K_shift;
    products(lines[n++], 256, mat_row(q, ct->c.row), 1, mat_row(k, ct->c.col), 1, ct->p->d_k,
             ct->v);
    double at0 = mat_get(&ct->ht->scores, ct->c.row, ct->c.col);
    model_format_value(at0, s0, sizeof s0);
    snprintf(diff, sizeof diff, "%.1e", fabs(ct->v - at0));
    snprintf(lines[n++], 256,
             TR("at k = 0: S%s[%s, %s] = %s;   difference %s: both positions moved, p \xe2\x88\x92 "
                "p\xe2\x80\xb2 = %d kept"),
             ct->hn, ct->rl, ct->cl, s0, diff, ct->c.row - ct->c.col);
    return n;
}

// MAT_SCALED
int explain_scaled(const CellText *ct, char lines[][256])
{
    int n = 0;
    char a[32], b[32];
    if (ct->p->scale > 0) {
        char sc[32];
        model_format_value(mat_get(&ct->ht->scores, ct->c.row, ct->c.col), a, sizeof a);
        model_format_value(ct->p->scale, sc, sizeof sc);
        snprintf(
            lines[n++], 256,
            TR("S%s%s[%s, %s] = S%s[%s, %s] \xc3\x97 scale   (the lesson's, instead of 1/%sd_k)"),
            PRIME, ct->hn, ct->rl, ct->cl, ct->hn, ct->rl, ct->cl, SQRT);
        snprintf(lines[n++], 256, "= %s \xc3\x97 %s", a, sc);
        snprintf(lines[n++], 256, "= %s", ct->vs);
        return n;
    }
    model_format_value(mat_get(&ct->ht->scores, ct->c.row, ct->c.col), a, sizeof a);
    model_format_value(ct->root, b, sizeof b);
    snprintf(lines[n++], 256, "S%s%s[%s, %s] = S%s[%s, %s] / %sd_k", PRIME, ct->hn, ct->rl, ct->cl,
             ct->hn, ct->rl, ct->cl, SQRT);
    snprintf(lines[n++], 256, "= %s / %s%d = %s / %s", a, SQRT, ct->p->d_k, a, b);
    snprintf(lines[n++], 256, "= %s", ct->vs);
    return n;
}

// MAT_MASK
int explain_mask(const CellText *ct, char lines[][256])
{
    int n = 0;
    snprintf(lines[n++], 256, "M[%s, %s] = %s", ct->rl, ct->cl, ct->vs);
    if (ct->c.col <= ct->c.row && attn_masked(ct->c.row, ct->c.col, ct->p->window)) {
        snprintf(lines[n++], 256,
                 TR("\"%s\" is %d or more tokens before \"%s\": outside the sliding window"),
                 ct->cl, ct->p->window, ct->rl);
        return n;
    }
    snprintf(lines[n++], 256,
             ct->c.col > ct->c.row ? TR("\"%s\" comes after \"%s\": a query may not look ahead")
                                   : TR("\"%s\" is not after \"%s\": this score is kept"),
             ct->cl, ct->rl);
    return n;
}

// MAT_MASKED
int explain_masked(const CellText *ct, char lines[][256])
{
    int n = 0;
    char a[32], b[32];
    double s = attn_scale_one(ct->p, mat_get(&ct->ht->scores, ct->c.row, ct->c.col), ct->root);
    model_format_value(s, a, sizeof a);
    model_format_operand(
        model_cell_value(ct->p, ct->T, (CellRef){MAT_MASK, ct->h, ct->c.row, ct->c.col}), b,
        sizeof b);
    snprintf(lines[n++], 256, "S%s%s[%s, %s] + M[%s, %s]", PRIME, ct->hn, ct->rl, ct->cl, ct->rl,
             ct->cl);
    snprintf(lines[n++], 256, "= %s + %s = %s", a, b, ct->vs);
    if (isinf(ct->v) && ct->c.col <= ct->c.row)
        snprintf(lines[n++], 256, TR("masked: \"%s\" is outside the sliding window of \"%s\""),
                 ct->cl, ct->rl);
    else if (isinf(ct->v))
        snprintf(lines[n++], 256, TR("masked: \"%s\" may not look at the later \"%s\""), ct->rl,
                 ct->cl);
    return n;
}

// MAT_WEIGHTS
int explain_softmax(const CellText *ct, char lines[][256])
{
    int n = 0;
    char a[32], b[32];
    // The trace's stable softmax: every exponent is taken after subtracting the row's largest
    // score, so no exp overflows (exp(1131) would be ∞ and ∞ / ∞ explains nothing). Same result,
    // exactly as computed.
    const Matrix *sc = &ct->ht->scaled;
    double top = -INFINITY;
    for (int k = 0; k < sc->cols; k++)
        if (mat_get(sc, ct->c.row, k) > top) top = mat_get(sc, ct->c.row, k);
    snprintf(lines[n++], 256,
             "A%s[%s, %s] = exp(S\xe2\x80\xb2[%s, %s] \xe2\x88\x92 max) / \xce\xa3\xe2\x82\x96 "
             "exp(S\xe2\x80\xb2[%s, k] \xe2\x88\x92 max)",
             ct->hn, ct->rl, ct->cl, ct->rl, ct->cl, ct->rl);
    char mx[40];
    model_format_operand(top, mx, sizeof mx);
    double sum = 0.0;
    for (int k = 0; k < sc->cols; k++)
        sum += core_exp(mat_get(sc, ct->c.row, k) - top); // exp(-inf) = 0 for masked keys
    double e = core_exp(mat_get(sc, ct->c.row, ct->c.col) - top);
    char *l = lines[n++];
    model_format_value(mat_get(sc, ct->c.row, ct->c.col), a, sizeof a);
    char top_s[32];
    model_format_value(top, top_s, sizeof top_s);
    snprintf(l, 256, "max = %s;  exp(%s \xe2\x88\x92 %s) / (", top_s, a, mx);
    int shown = sc->cols <= 5 ? sc->cols : 3;
    for (int k = 0; k < shown; k++) {
        model_format_value(core_exp(mat_get(sc, ct->c.row, k) - top), a, sizeof a);
        snprintf(l + strlen(l), 256 - strlen(l), "%s%s", k ? " + " : "", a);
    }
    snprintf(l + strlen(l), 256 - strlen(l), "%s)", shown < sc->cols ? " + \xe2\x80\xa6" : "");
    model_format_value(e, a, sizeof a);
    model_format_value(sum, b, sizeof b);
    // The row's entropy, the "bits" beside it on the board: 0 when one key takes all, log2 m when
    // all are alike.
    char bits[32] = "";
    if (ct->ht->entropy.data && ct->c.row < ct->ht->entropy.rows)
        model_format_value(mat_get(&ct->ht->entropy, ct->c.row, 0), bits, sizeof bits);
    if (bits[0])
        snprintf(lines[n++], 256,
                 TR("= %s / %s = %s   (unrounded; the row sums to 1; entropy %s bits)"), a, b,
                 ct->vs, bits);
    else
        snprintf(lines[n++], 256,
                 TR("= %s / %s = %s   (from unrounded values; each row of A sums to 1)"), a, b,
                 ct->vs);
    return n;
}

// MAT_Z
int explain_weighted(const CellText *ct, char lines[][256])
{
    int n = 0;
    snprintf(lines[n++], 256,
             TR("Z%s[%s, %d] = \xce\xa3\xe2\x82\x96 A%s[%s, k] \xc2\xb7 V%s[k, %d]   (V's rows, "
                "weighted)"),
             ct->hn, ct->rl, ct->c.col, ct->hn, ct->rl, ct->kvn, ct->c.col);
    dot_terms(lines[n++], 256, mat_row(&ct->ht->weights, ct->c.row), 1, ct->ht->V.data + ct->c.col,
              ct->ht->V.cols, ct->p->m);
    products(lines[n++], 256, mat_row(&ct->ht->weights, ct->c.row), 1, ct->ht->V.data + ct->c.col,
             ct->ht->V.cols, ct->p->m, ct->v);
    return n;
}

// MAT_CONCAT
int explain_concat(const CellText *ct, char lines[][256])
{
    int n = 0;
    int head = ct->p->d_k > 0 ? ct->c.col / ct->p->d_k : 0,
        k = ct->p->d_k > 0 ? ct->c.col % ct->p->d_k : 0;
    char zn[16] = "Z";
    model_subscript(zn, sizeof zn, head);
    if (params_ablated(ct->p, head))
        snprintf(lines[n++], 256,
                 TR("Concat[%s, %d] = 0   (head %d is switched off: %s is computed but left out)"),
                 ct->rl, ct->c.col, head, zn);
    else
        snprintf(lines[n++], 256, "Concat[%s, %d] = %s[%s, %d] = %s", ct->rl, ct->c.col, zn, ct->rl,
                 k, ct->vs);
    snprintf(lines[n++], 256, TR("columns %d\xe2\x80\xa6%d of Concat are head %d's output%s"),
             head * ct->p->d_k, head * ct->p->d_k + ct->p->d_k - 1, head,
             params_ablated(ct->p, head) ? TR(": switched off, so zeros") : "");
    return n;
}

// MAT_OUTPUT
int explain_output(const CellText *ct, char lines[][256])
{
    int n = 0;
    int k = ct->p->heads * ct->p->d_k;
    snprintf(lines[n++], 256, "Output[%s, %d] = Concat[%s] \xc2\xb7 W^O[:, %d]%s", ct->rl,
             ct->c.col, ct->rl, ct->c.col,
             mat_get(&ct->p->b_O, 0, ct->c.col) != 0.0 ? " + b^O" : "");
    dot_terms(lines[n++], 256, mat_row(&ct->T->concat, ct->c.row), 1, ct->p->W_O.data + ct->c.col,
              ct->p->W_O.cols, k);
    products(lines[n++], 256, mat_row(&ct->T->concat, ct->c.row), 1, ct->p->W_O.data + ct->c.col,
             ct->p->W_O.cols, k, ct->v);
    return n;
}

// The row of every matrix names its explanation (MAT_ROWS' explain column): one of the functions
// above.
int model_explain(const Lesson *L, const Trace *T, CellRef c, char lines[][256], int max_lines,
                  bool hints)
{
    CellText ct = {L, &L->params, T, c, 0.0, "", "", "", "", "", "", c.head, NULL, 0.0, hints};
    const AttnParams *p = &L->params;
    if (c.mat == MAT_NONE || max_lines < CELL_TEXT_LINES) return 0;
    ct.v = model_cell_value(p, T, c);
    if (isnan(ct.v)) return 0;
    const MatInfo *mi = mat_info(c.mat);
    model_mat_name(p, c.mat, c.head, ct.name, sizeof ct.name);
    model_axis_label(L, mi->row_axis, c.row, ct.rl, sizeof ct.rl);
    model_axis_label(L, mi->col_axis, c.col, ct.cl, sizeof ct.cl);
    isolate(ct.rl, sizeof ct.rl);
    isolate(ct.cl, sizeof ct.cl);
    model_format_value(ct.v, ct.vs, sizeof ct.vs);
    ct.ht = mi->per_head && mi->at.kind != MAT_AT_WEIGHTS ? &T->head[c.head]
                                                          : NULL; // a computed per-head matrix
    model_subscript(ct.hn, sizeof ct.hn, c.head);
    model_subscript(ct.kvn, sizeof ct.kvn, model_mat_head(p, MAT_K, c.head));
    ct.root = sqrt((double)p->d_k);
    return mi->explain ? mi->explain(&ct, lines) : 0;
}
