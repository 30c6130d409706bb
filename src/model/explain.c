// The arithmetic of one cell, in words and numbers, for the hover explanation and the tests: computed
// from the trace's own values (the stable softmax the trace ran, not a naive one). No SDL.
#include "explain.h"
#include "core/exactmath.h"
#include "i18n.h"
#include "../core/utf8.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

#define PRIME "\xe2\x80\xb2"
#define SQRT "\xe2\x88\x9a"


// Appends "(a)(b) + (c)(d) + …" for a dot product of length k, then the sum; at most 6 terms are written.
static void dot_terms(char *line, size_t cap, const double *a, int as, const double *b, int bs, int k)
{
    char x[32], y[32];
    line[0] = '\0';
    int shown = k <= 6 ? k : 4;
    for (int i = 0; i < shown; i++) {
        model_format_value(a[(size_t)i * as], x, sizeof x);
        model_format_value(b[(size_t)i * bs], y, sizeof y);
        snprintf(line + strlen(line), cap - strlen(line), "%s(%s)(%s)", i ? " + " : "= ", x, y);
    }
    if (shown < k) snprintf(line + strlen(line), cap - strlen(line), TR(" + \xe2\x80\xa6 (%d terms)"), k);
}

static void products(char *line, size_t cap, const double *a, int as, const double *b, int bs, int k, double total)
{
    char x[32];
    line[0] = '\0';
    int shown = k <= 6 ? k : 4;
    for (int i = 0; i < shown; i++) {
        double t = a[(size_t)i * as] * b[(size_t)i * bs];
        model_format_value(i && t < 0 ? -t : t, x, sizeof x);
        snprintf(line + strlen(line), cap - strlen(line), "%s%s", i ? (t < 0 ? " \xe2\x88\x92 " : " + ") : "= ", x);
    }
    if (shown < k) snprintf(line + strlen(line), cap - strlen(line), " + \xe2\x80\xa6");
    model_format_value(total, x, sizeof x);
    snprintf(line + strlen(line), cap - strlen(line), " = %s", x);
    // Adding the rounded terms by hand can miss the last digit: say where the total comes from.
    double by_hand = 0.0;
    for (int i = 0; i < shown; i++) by_hand += round(a[(size_t)i * as] * b[(size_t)i * bs] * 1e4) / 1e4;
    if (shown == k && fabs(by_hand - round(total * 1e4) / 1e4) > 0.5e-4)
        snprintf(line + strlen(line), cap - strlen(line), "%s", TR("  (from unrounded values)"));
}

// hints: the last line of an editable cell says how to change it (not on a slide).
// Shown under an embedding or a weight in the window (not on slides).
static const char EDIT_HINT[] =
    N_("click it, then \xe2\x86\x91 \xe2\x86\x93, the wheel or a vertical drag changes it; every later stage follows");

// A right-to-left token (Arabic, Hebrew) in an explanation is an isolate (U+2068 ... U+2069), so that in
// "A[قطة, على]" each token reads right to left in its place and the pair keeps its order: row, then column.
static void isolate(char *label, size_t cap)
{
    if (!utf8_is_rtl(label) || strlen(label) + 7 > cap) return;
    memmove(label + 3, label, strlen(label) + 1);
    memcpy(label, "\xe2\x81\xa8", 3);
    strcat(label, "\xe2\x81\xa9");
}

int model_explain(const Lesson *L, const Trace *T, CellRef c, char lines[][256], int max_lines, bool hints)
{
    const AttnParams *p = &L->params;
    int n = 0;
    if (c.mat == MAT_NONE || max_lines < 3) return 0;
    double v = model_cell_value(p, T, c);
    if (isnan(v)) return 0;
    char name[64], rl[96], cl[96], vs[32], a[32], b[32];
    const MatInfo *mi = mat_info(c.mat);
    Axis ra = mi->row_axis, ca = mi->col_axis;
    model_mat_name(c.mat, c.head, name, sizeof name);
    model_axis_label(L, ra, c.row, rl, sizeof rl);
    model_axis_label(L, ca, c.col, cl, sizeof cl);
    isolate(rl, sizeof rl);
    isolate(cl, sizeof cl);
    model_format_value(v, vs, sizeof vs);
    int h = c.head;
    const HeadTrace *ht = (c.mat >= MAT_Q && c.mat <= MAT_Z) ? &T->head[h] : NULL;
    char hn[16] = "";
    model_subscript(hn, sizeof hn, h);
    double root = sqrt((double)p->d_k);
    switch (c.mat) {
    case MAT_X:
    case MAT_S:
        if (p->positions != POS_NONE) { // X = E + P: the token's embedding plus its place's vector
            bool x = c.mat == MAT_X;
            model_format_value(model_cell_value(p, T, (CellRef){x ? MAT_E : MAT_ES, 0, c.row, c.col}), a, sizeof a);
            model_format_value(model_cell_value(p, T, (CellRef){x ? MAT_P : MAT_PS, 0, c.row, c.col}), b, sizeof b);
            snprintf(lines[n++], 256, "%s[%s, %s] = %s[%s, %s] + %s[%d, %s]", name, rl, cl, x ? "E" : "E^Y", rl, cl,
                     x ? "P" : "P^Y", c.row, cl);
            snprintf(lines[n++], 256, TR("= %s + %s = %s   (\"%s\" at position %d)"), a, b, vs, rl, c.row);
            break;
        }
        snprintf(lines[n++], 256, "%s[%s, %s] = %s", name, rl, cl, vs);
        snprintf(lines[n++], 256, TR("the embedding of \"%s\", dimension %d: given by the lesson"), rl, c.col);
        if (hints)
            snprintf(lines[n++], 256, "%s", TR(EDIT_HINT));
        break;
    case MAT_E:
    case MAT_ES:
        snprintf(lines[n++], 256, "%s[%s, %s] = %s", name, rl, cl, vs);
        snprintf(lines[n++], 256, TR("the embedding of the token \"%s\", dimension %d: given by the lesson; it moves "
                 "with the token when the tokens are shuffled"), rl, c.col);
        if (hints) snprintf(lines[n++], 256, "%s", TR(EDIT_HINT));
        break;
    case MAT_P:
    case MAT_PS:
        snprintf(lines[n++], 256, "%s[%d, %d] = %s", name, c.row, c.col, vs);
        if (p->positions == POS_SINUSOIDAL) {
            int i = c.col / 2;
            snprintf(lines[n++], 256, TR("= %s(%d / 10000^(%d/%d))   (position %d, dimension %d)"), c.col % 2 ? "cos" : "sin",
                     c.row, 2 * i, p->d_model, c.row, c.col);
        } else
            snprintf(lines[n++], 256, TR("the vector of position %d, given by the lesson: it stays with the place, not "
                     "the token"), c.row);
        break;
    case MAT_OUTPUT_ALL:
        snprintf(lines[n++], 256, TR("Output (all heads)[%s, %d] = %s"), rl, c.col, vs);
        snprintf(lines[n++], 256, "%s", TR("the output as it is with every head switched on"));
        break;
    case MAT_OUTPUT_DIFF:
        model_format_value(model_cell_value(p, T, (CellRef){MAT_OUTPUT_ALL, 0, c.row, c.col}), a, sizeof a);
        model_format_value(model_cell_value(p, T, (CellRef){MAT_OUTPUT, 0, c.row, c.col}), b, sizeof b);
        snprintf(lines[n++], 256, TR("%s[%s, %d] = Output (all heads)[%s, %d] \xe2\x88\x92 Output[%s, %d]"), name, rl, c.col, rl,
                 c.col, rl, c.col);
        snprintf(lines[n++], 256, TR("= %s \xe2\x88\x92 %s = %s   (what the heads switched off add)"), a, b, vs);
        break;
    case MAT_WQ:
    case MAT_WK:
    case MAT_WV:
    case MAT_WO:
        snprintf(lines[n++], 256, "%s[%d, %d] = %s", name, c.row, c.col, vs);
        snprintf(lines[n++], 256, "%s", TR("a learned weight (in this lesson: given, or random with a fixed seed)"));
        if (hints)
            snprintf(lines[n++], 256, "%s", TR(EDIT_HINT));
        break;
    case MAT_Q:
    case MAT_K:
    case MAT_V:
    case MAT_KT: {
        const Matrix *in = c.mat == MAT_Q ? &p->X : &p->S;
        const Matrix *w = c.mat == MAT_Q ? &p->W_Q[h] : c.mat == MAT_V ? &p->W_V[h] : &p->W_K[h];
        const Matrix *bias = c.mat == MAT_Q ? &p->b_Q[h] : c.mat == MAT_V ? &p->b_V[h] : &p->b_K[h];
        int r = c.mat == MAT_KT ? c.col : c.row, col = c.mat == MAT_KT ? c.row : c.col;
        char tok[96], wn[32];
        model_axis_label(L, c.mat == MAT_Q ? AXIS_QUERY : AXIS_KEY, r, tok, sizeof tok);
        isolate(tok, sizeof tok);
        model_mat_name(c.mat == MAT_Q ? MAT_WQ : c.mat == MAT_V ? MAT_WV : MAT_WK, h, wn, sizeof wn);
        char bn[8];
        snprintf(bn, sizeof bn, "%c", c.mat == MAT_Q ? 'Q' : c.mat == MAT_V ? 'V' : 'K');
        snprintf(lines[n++], 256, "%s%s[%s, %d] = %s[%s] \xc2\xb7 %s[:, %d]%s", bn, hn, tok, col,
                 c.mat == MAT_Q ? "X" : (p->cross ? "Y" : "X"), tok, wn, col,
                 mat_get(bias, 0, col) != 0.0 ? " + b" : "");
        dot_terms(lines[n++], 256, mat_row(in, r), 1, w->data + col, w->cols, p->d_model);
        products(lines[n++], 256, mat_row(in, r), 1, w->data + col, w->cols, p->d_model, v);
        break;
    }
    case MAT_SCORES: {
        char kt[96];
        model_axis_label(L, AXIS_KEY, c.col, kt, sizeof kt);
        isolate(kt, sizeof kt);
        snprintf(lines[n++], 256, TR("S%s[%s, %s] = Q%s[%s] \xc2\xb7 K%s[%s]   (dot product of %d numbers)"), hn, rl, cl,
                 hn, rl, hn, kt, p->d_k);
        dot_terms(lines[n++], 256, mat_row(&ht->Q, c.row), 1, mat_row(&ht->K, c.col), 1, p->d_k);
        products(lines[n++], 256, mat_row(&ht->Q, c.row), 1, mat_row(&ht->K, c.col), 1, p->d_k, v);
        break;
    }
    case MAT_SCALED:
        if (p->scale > 0) {
            char sc[32];
            model_format_value(mat_get(&ht->scores, c.row, c.col), a, sizeof a);
            model_format_value(p->scale, sc, sizeof sc);
            snprintf(lines[n++], 256, TR("S%s%s[%s, %s] = S%s[%s, %s] \xc3\x97 scale   (the lesson's, instead of 1/%sd_k)"),
                     PRIME, hn, rl, cl, hn, rl, cl, SQRT);
            snprintf(lines[n++], 256, "= %s \xc3\x97 %s", a, sc);
            snprintf(lines[n++], 256, "= %s", vs);
            break;
        }
        model_format_value(mat_get(&ht->scores, c.row, c.col), a, sizeof a);
        model_format_value(root, b, sizeof b);
        snprintf(lines[n++], 256, "S%s%s[%s, %s] = S%s[%s, %s] / %sd_k", PRIME, hn, rl, cl, hn, rl, cl, SQRT);
        snprintf(lines[n++], 256, "= %s / %s%d = %s / %s", a, SQRT, p->d_k, a, b);
        snprintf(lines[n++], 256, "= %s", vs);
        break;
    case MAT_MASK:
        snprintf(lines[n++], 256, "M[%s, %s] = %s", rl, cl, vs);
        snprintf(lines[n++], 256, c.col > c.row ? TR("\"%s\" comes after \"%s\": a query may not look ahead")
                                                : TR("\"%s\" is not after \"%s\": this score is kept"),
                 cl, rl);
        break;
    case MAT_MASKED: {
        double s = attn_scale_one(p, mat_get(&ht->scores, c.row, c.col), root);
        model_format_value(s, a, sizeof a);
        model_format_value(model_cell_value(p, T, (CellRef){MAT_MASK, h, c.row, c.col}), b, sizeof b);
        snprintf(lines[n++], 256, "S%s%s[%s, %s] + M[%s, %s]", PRIME, hn, rl, cl, rl, cl);
        snprintf(lines[n++], 256, "= %s + %s = %s", a, b, vs);
        if (isinf(v)) snprintf(lines[n++], 256, TR("masked: \"%s\" may not look at the later \"%s\""), rl, cl);
        break;
    }
    case MAT_WEIGHTS: {
        // The trace's stable softmax: every exponent is taken after subtracting the row's largest score, so
        // no exp overflows (exp(1131) would be ∞ and ∞ / ∞ explains nothing). Same result, exactly as computed.
        const Matrix *sc = &ht->scaled;
        double top = -INFINITY;
        for (int k = 0; k < sc->cols; k++)
            if (mat_get(sc, c.row, k) > top) top = mat_get(sc, c.row, k);
        snprintf(lines[n++], 256, "A%s[%s, %s] = exp(S\xe2\x80\xb2[%s, %s] \xe2\x88\x92 max) / \xce\xa3\xe2\x82\x96 exp(S\xe2\x80\xb2[%s, k] \xe2\x88\x92 max)",
                 hn, rl, cl, rl, cl, rl);
        char mx[32];
        model_format_value(top, mx, sizeof mx);
        double sum = 0.0;
        for (int k = 0; k < sc->cols; k++) sum += core_exp(mat_get(sc, c.row, k) - top); // exp(-inf) = 0 for masked keys
        double e = core_exp(mat_get(sc, c.row, c.col) - top);
        char *l = lines[n++];
        model_format_value(mat_get(sc, c.row, c.col), a, sizeof a);
        snprintf(l, 256, "max = %s;  exp(%s \xe2\x88\x92 %s) / (", mx, a, mx);
        int shown = sc->cols <= 5 ? sc->cols : 3;
        for (int k = 0; k < shown; k++) {
            model_format_value(core_exp(mat_get(sc, c.row, k) - top), a, sizeof a);
            snprintf(l + strlen(l), 256 - strlen(l), "%s%s", k ? " + " : "", a);
        }
        snprintf(l + strlen(l), 256 - strlen(l), "%s)", shown < sc->cols ? " + \xe2\x80\xa6" : "");
        model_format_value(e, a, sizeof a);
        model_format_value(sum, b, sizeof b);
        snprintf(lines[n++], 256, TR("= %s / %s = %s   (from unrounded values; each row of A sums to 1)"), a, b, vs);
        break;
    }
    case MAT_Z: {
        snprintf(lines[n++], 256, TR("Z%s[%s, %d] = \xce\xa3\xe2\x82\x96 A%s[%s, k] \xc2\xb7 V%s[k, %d]   (V's rows, weighted)"),
                 hn, rl, c.col, hn, rl, hn, c.col);
        dot_terms(lines[n++], 256, mat_row(&ht->weights, c.row), 1, ht->V.data + c.col, ht->V.cols, p->m);
        products(lines[n++], 256, mat_row(&ht->weights, c.row), 1, ht->V.data + c.col, ht->V.cols, p->m, v);
        break;
    }
    case MAT_CONCAT: {
        int head = p->d_k > 0 ? c.col / p->d_k : 0, k = p->d_k > 0 ? c.col % p->d_k : 0;
        char zn[16] = "Z";
        model_subscript(zn, sizeof zn, head);
        if (params_ablated(p, head))
            snprintf(lines[n++], 256, TR("Concat[%s, %d] = 0   (head %d is switched off: %s is computed but left out)"), rl,
                     c.col, head, zn);
        else
            snprintf(lines[n++], 256, "Concat[%s, %d] = %s[%s, %d] = %s", rl, c.col, zn, rl, k, vs);
        snprintf(lines[n++], 256, TR("columns %d\xe2\x80\xa6%d of Concat are head %d's output%s"), head * p->d_k,
                 head * p->d_k + p->d_k - 1, head, params_ablated(p, head) ? TR(": switched off, so zeros") : "");
        break;
    }
    case MAT_OUTPUT: {
        int k = p->heads * p->d_k;
        snprintf(lines[n++], 256, "Output[%s, %d] = Concat[%s] \xc2\xb7 W^O[:, %d]%s", rl, c.col, rl, c.col,
                 mat_get(&p->b_O, 0, c.col) != 0.0 ? " + b^O" : "");
        dot_terms(lines[n++], 256, mat_row(&T->concat, c.row), 1, p->W_O.data + c.col, p->W_O.cols, k);
        products(lines[n++], 256, mat_row(&T->concat, c.row), 1, p->W_O.data + c.col, p->W_O.cols, k, v);
        break;
    }
    default: break;
    }
    return n;
}

