// The command line's printing: a trace as aligned text (--trace) or as JSON (--json).
#include "cli.h"

#include <math.h>
#include <string.h>

// ---- text ----------------------------------------------------------------------------------------

// Display width of a UTF-8 string (code points; the tokens are usually short words).
static int utf8_width(const char *s)
{
    int w = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80) w++;
    return w;
}

static void print_padded(FILE *out, const char *s, int width, bool right)
{
    int pad = width - utf8_width(s);
    if (right)
        for (int i = 0; i < pad; i++) fputc(' ', out);
    fputs(s, out);
    if (!right)
        for (int i = 0; i < pad; i++) fputc(' ', out);
}

static void format_cell(char *buf, size_t cap, double v)
{
    if (v == -INFINITY)
        snprintf(buf, cap, "-inf");
    else {
        snprintf(buf, cap, "%.4f", v);
        if (strcmp(buf, "-0.0000") == 0) snprintf(buf, cap, "0.0000"); // rounding noise, not a sign
    }
}

// Prints "title (rows×cols)" then the matrix with row labels (tokens or indices) and column labels.
// row_labels/col_labels may be NULL: then "d0, d1, ..." (or "0, 1, ..." for rows) are used.
static void print_matrix(FILE *out, const char *title, const Matrix *m, char *const *row_labels,
                         char *const *col_labels, const char *col_prefix)
{
    fprintf(out, "%s (%d\xc3\x97%d)\n", title, m->rows, m->cols);
    int label_w = 1, cell_w = 7;
    char buf[64];
    for (int r = 0; r < m->rows; r++) {
        int w = row_labels ? utf8_width(row_labels[r]) : snprintf(buf, sizeof buf, "%d", r);
        if (w > label_w) label_w = w;
    }
    for (int c = 0; c < m->cols; c++) {
        int w = col_labels ? utf8_width(col_labels[c]) : snprintf(buf, sizeof buf, "%s%d", col_prefix, c);
        if (w > cell_w) cell_w = w;
    }
    for (size_t i = 0; i < (size_t)m->rows * (size_t)m->cols; i++) {
        format_cell(buf, sizeof buf, m->data[i]);
        int w = (int)strlen(buf);
        if (w > cell_w) cell_w = w;
    }
    fprintf(out, "  %*s", label_w, "");
    for (int c = 0; c < m->cols; c++) {
        fputs("  ", out);
        if (col_labels)
            print_padded(out, col_labels[c], cell_w, true);
        else {
            snprintf(buf, sizeof buf, "%s%d", col_prefix, c);
            print_padded(out, buf, cell_w, true);
        }
    }
    fputc('\n', out);
    for (int r = 0; r < m->rows; r++) {
        fputs("  ", out);
        if (row_labels)
            print_padded(out, row_labels[r], label_w, false);
        else {
            snprintf(buf, sizeof buf, "%d", r);
            print_padded(out, buf, label_w, false);
        }
        for (int c = 0; c < m->cols; c++) {
            format_cell(buf, sizeof buf, mat_get(m, r, c));
            fputs("  ", out);
            print_padded(out, buf, cell_w, true);
        }
        fputc('\n', out);
    }
    fputc('\n', out);
}

static bool any_nonzero(const Matrix *m)
{
    for (size_t i = 0; i < (size_t)m->rows * (size_t)m->cols; i++)
        if (m->data[i] != 0.0) return true;
    return false;
}

void cli_print_trace(FILE *out, const Lesson *l, const Trace *t)
{
    const AttnParams *p = &l->params;
    char title[128];
    fprintf(out, "%s\n", l->title);
    fprintf(out, "tokens:");
    for (int i = 0; i < p->n; i++) fprintf(out, " %s", l->tokens[i]);
    if (p->cross) {
        fprintf(out, "\nsource tokens:");
        for (int i = 0; i < p->m; i++) fprintf(out, " %s", l->source_tokens[i]);
    }
    fprintf(out, "\nd_model = %d, heads = %d, d_k = %d, mask = %s%s\n\n", p->d_model, p->heads, p->d_k,
            p->mask == MASK_CAUSAL ? "causal" : "none", p->cross ? ", cross-attention" : "");

    print_matrix(out, "== Input embeddings X", &p->X, l->tokens, NULL, "d");
    if (p->cross) print_matrix(out, "== Source embeddings S", &p->S, l->source_tokens, NULL, "d");

    for (int h = 0; h < p->heads; h++) {
        const HeadTrace *ht = &t->head[h];
        fprintf(out, "==== Head %d ====\n\n", h);
        snprintf(title, sizeof title, "W_Q_%d", h);
        print_matrix(out, title, &p->W_Q[h], NULL, NULL, "k");
        snprintf(title, sizeof title, "W_K_%d", h);
        print_matrix(out, title, &p->W_K[h], NULL, NULL, "k");
        snprintf(title, sizeof title, "W_V_%d", h);
        print_matrix(out, title, &p->W_V[h], NULL, NULL, "k");
        if (any_nonzero(&p->b_Q[h]) || any_nonzero(&p->b_K[h]) || any_nonzero(&p->b_V[h])) {
            snprintf(title, sizeof title, "b_Q_%d", h);
            print_matrix(out, title, &p->b_Q[h], NULL, NULL, "k");
            snprintf(title, sizeof title, "b_K_%d", h);
            print_matrix(out, title, &p->b_K[h], NULL, NULL, "k");
            snprintf(title, sizeof title, "b_V_%d", h);
            print_matrix(out, title, &p->b_V[h], NULL, NULL, "k");
        }
        const char *src = p->cross ? "S" : "X";
        snprintf(title, sizeof title, "Q_%d = X W_Q_%d + b_Q_%d", h, h, h);
        print_matrix(out, title, &ht->Q, l->tokens, NULL, "k");
        snprintf(title, sizeof title, "K_%d = %s W_K_%d + b_K_%d", h, src, h, h);
        print_matrix(out, title, &ht->K, l->source_tokens, NULL, "k");
        snprintf(title, sizeof title, "V_%d = %s W_V_%d + b_V_%d", h, src, h, h);
        print_matrix(out, title, &ht->V, l->source_tokens, NULL, "k");
        snprintf(title, sizeof title, "scores_%d = Q_%d K_%d\xe1\xb5\x80", h, h, h);
        print_matrix(out, title, &ht->scores, l->tokens, l->source_tokens, "");
        snprintf(title, sizeof title, "scaled_%d = scores_%d / \xe2\x88\x9a%d%s", h, h, p->d_k,
                 p->mask == MASK_CAUSAL ? ", causal mask (-inf above the diagonal)" : "");
        print_matrix(out, title, &ht->scaled, l->tokens, l->source_tokens, "");
        snprintf(title, sizeof title, "weights_%d = softmax(scaled_%d), head %d attention weights", h, h, h);
        print_matrix(out, title, &ht->weights, l->tokens, l->source_tokens, "");
        snprintf(title, sizeof title, "Z_%d = weights_%d V_%d", h, h, h);
        print_matrix(out, title, &ht->Z, l->tokens, NULL, "k");
    }
    fprintf(out, "==== All heads ====\n\n");
    snprintf(title, sizeof title, "concat = [Z_0 ... Z_%d]", p->heads - 1);
    print_matrix(out, title, &t->concat, l->tokens, NULL, "c");
    print_matrix(out, "W_O", &p->W_O, NULL, NULL, "d");
    if (any_nonzero(&p->b_O)) print_matrix(out, "b_O", &p->b_O, NULL, NULL, "d");
    print_matrix(out, "output = concat W_O + b_O", &t->output, l->tokens, NULL, "d");
}

// ---- JSON ----------------------------------------------------------------------------------------

static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (*p < 0x20)
                fprintf(out, "\\u%04x", *p);
            else
                fputc(*p, out);
        }
    }
    fputc('"', out);
}

static void json_number(FILE *out, double v)
{
    if (!isfinite(v))
        fputs("null", out); // masked (-inf) scores; JSON has no infinity
    else
        fprintf(out, "%.17g", v);
}

static void json_row(FILE *out, const double *row, int count)
{
    fputc('[', out);
    for (int c = 0; c < count; c++) {
        if (c) fputs(", ", out);
        json_number(out, row[c]);
    }
    fputc(']', out);
}

static void json_matrix(FILE *out, const char *key, const Matrix *m, const char *indent, bool last)
{
    fprintf(out, "%s\"%s\": [", indent, key);
    for (int r = 0; r < m->rows; r++) {
        fprintf(out, "%s\n%s  ", r ? "," : "", indent);
        json_row(out, mat_row(m, r), m->cols);
    }
    fprintf(out, "%s%s]%s\n", m->rows ? "\n" : "", m->rows ? indent : "", last ? "" : ",");
}

// A (1, c) bias as a flat array.
static void json_vector(FILE *out, const char *key, const Matrix *m, const char *indent, bool last)
{
    fprintf(out, "%s\"%s\": ", indent, key);
    json_row(out, m->data, m->cols);
    fprintf(out, "%s\n", last ? "" : ",");
}

static void json_tokens(FILE *out, const char *key, char *const *tokens, int count)
{
    fprintf(out, "  \"%s\": [", key);
    for (int i = 0; i < count; i++) {
        if (i) fputs(", ", out);
        json_string(out, tokens[i]);
    }
    fputs("],\n", out);
}

void cli_print_json(FILE *out, const Lesson *l, const Trace *t)
{
    const AttnParams *p = &l->params;
    fputs("{\n  \"title\": ", out);
    json_string(out, l->title);
    fputs(",\n", out);
    json_tokens(out, "tokens", l->tokens, p->n);
    json_tokens(out, "source_tokens", l->source_tokens, p->m);
    fprintf(out, "  \"d_model\": %d,\n  \"heads\": %d,\n  \"d_k\": %d,\n  \"mask\": \"%s\",\n", p->d_model, p->heads,
            p->d_k, p->mask == MASK_CAUSAL ? "causal" : "none");
    json_matrix(out, "embeddings", &p->X, "  ", false);
    json_matrix(out, "source_embeddings", &p->S, "  ", false);
    fputs("  \"head\": [\n", out);
    for (int h = 0; h < p->heads; h++) {
        const HeadTrace *ht = &t->head[h];
        const char *in = "      ";
        fputs("    {\n", out);
        json_matrix(out, "W_Q", &p->W_Q[h], in, false);
        json_matrix(out, "W_K", &p->W_K[h], in, false);
        json_matrix(out, "W_V", &p->W_V[h], in, false);
        json_vector(out, "b_Q", &p->b_Q[h], in, false);
        json_vector(out, "b_K", &p->b_K[h], in, false);
        json_vector(out, "b_V", &p->b_V[h], in, false);
        json_matrix(out, "Q", &ht->Q, in, false);
        json_matrix(out, "K", &ht->K, in, false);
        json_matrix(out, "V", &ht->V, in, false);
        json_matrix(out, "scores", &ht->scores, in, false);
        json_matrix(out, "scaled", &ht->scaled, in, false);
        json_matrix(out, "weights", &ht->weights, in, false);
        json_matrix(out, "Z", &ht->Z, in, true);
        fprintf(out, "    }%s\n", h + 1 < p->heads ? "," : "");
    }
    fputs("  ],\n", out);
    json_matrix(out, "concat", &t->concat, "  ", false);
    json_matrix(out, "W_O", &p->W_O, "  ", false);
    json_vector(out, "b_O", &p->b_O, "  ", false);
    json_matrix(out, "output", &t->output, "  ", true);
    fputs("}\n", out);
}
