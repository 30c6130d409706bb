// The command line's printing: a trace as aligned text (--trace), as JSON (--json), and the
// single-head comparison (--compare).
#include "app/cli.h"

#include "core/utf8.h"
#include "lesson/lesson_fields.h"
#include "lesson/strbuf.h"
#include "model/questions.h"
#include "model/stage_text.h"
#include "app/options.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

// ---- text ----------------------------------------------------------------------------------------

// Text from a lesson or the command line (titles, notes, tokens, paths) goes to a terminal: control
// characters are shown, never sent. C0 and DEL as \x1b, C1 (U+0080-U+009F) as \u009b, the bidi
// controls and line separators that reorder a line (utf8_reorders) as \u202e, a byte that is not
// UTF-8 as \xff; other UTF-8 passes through. One piece is one code point (or one bad byte) of the
// input.
typedef struct {
    char text[12];
    size_t in_len; // bytes of input it stands for
    int cols; // display columns (one per code point)
} Piece;

// The code point of a (valid) two-byte sequence.
static uint32_t two_bytes(const unsigned char *p)
{
    return (uint32_t)(p[0] & 0x1F) << 6 | (uint32_t)(p[1] & 0x3F);
}

// The code point of a (valid) three-byte sequence.
static uint32_t three_bytes(const unsigned char *p)
{
    return (uint32_t)(p[0] & 0x0F) << 12 | (uint32_t)(p[1] & 0x3F) << 6 | (uint32_t)(p[2] & 0x3F);
}

static Piece next_piece(const unsigned char *p)
{
    Piece pc = {"", 1, 1};
    unsigned c = p[0];
    size_t n = c < 0x80             ? 1
               : (c & 0xE0) == 0xC0 ? 2
               : (c & 0xF0) == 0xE0 ? 3
               : (c & 0xF8) == 0xF0 ? 4
                                    : 0;
    bool valid = n > 0 && !(n == 2 && c < 0xC2) && !(n == 4 && c > 0xF4);
    for (size_t i = 1; valid && i < n; i++)
        if ((p[i] & 0xC0) != 0x80) valid = false;
    if (valid && n == 3 && ((c == 0xE0 && p[1] < 0xA0) || (c == 0xED && p[1] >= 0xA0)))
        valid = false;
    if (valid && n == 4 && ((c == 0xF0 && p[1] < 0x90) || (c == 0xF4 && p[1] >= 0x90)))
        valid = false;
    if (!valid) {
        snprintf(pc.text, sizeof pc.text, "\\x%02x", c);
        pc.cols = 4;
    } else if (c < 0x20 || c == 0x7F) {
        snprintf(pc.text, sizeof pc.text, "\\x%02x", c);
        pc.cols = 4;
    } else if (c == 0xC2 && p[1] < 0xA0) {
        snprintf(pc.text, sizeof pc.text, "\\u%04x", p[1]);
        pc.in_len = 2;
        pc.cols = 6;
    } else if ((n == 2 && utf8_reorders(two_bytes(p)))
               || (n == 3 && utf8_reorders(three_bytes(p)))) {
        snprintf(pc.text, sizeof pc.text, "\\u%04x",
                 (unsigned)(n == 2 ? two_bytes(p) : three_bytes(p)));
        pc.in_len = n;
        pc.cols = 6;
    } else {
        memcpy(pc.text, p, n);
        pc.text[n] = '\0';
        pc.in_len = n;
    }
    return pc;
}

// Writes s with its control characters shown (see next_piece); '\n' too unless keep_newlines, '\t'
// too unless keep_tabs (tab-separated text).
static void put_text_kept(FILE *out, const char *s, bool keep_newlines, bool keep_tabs)
{
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        if ((*p == '\n' && keep_newlines) || (*p == '\t' && keep_tabs)) {
            fputc(*p, out);
            p++;
            continue;
        }
        Piece pc = next_piece(p);
        fputs(pc.text, out);
        p += pc.in_len;
    }
}

static void put_text(FILE *out, const char *s, bool keep_newlines)
{
    put_text_kept(out, s, keep_newlines, false);
}

void cli_line(FILE *out, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    char small[512];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    char *text = small;
    if (n >= (int)sizeof small && (text = malloc((size_t)n + 1)) != NULL)
        vsnprintf(text, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    if (n < 0 || !text) {
        fputs("mha-tracer: error: out of memory\n", out);
        return;
    }
    size_t len = strlen(text);
    bool newline = len > 0 && text[len - 1] == '\n';
    if (newline) text[len - 1] = '\0';
    put_text(out, text, false);
    if (newline) fputc('\n', out);
    if (text != small) free(text);
}

// Labels of rows and columns (tokens) are cut to this many display columns, the last one "…", so a
// long token cannot widen every cell of a matrix.
#define LABEL_MAX_COLS 16

// Display width of s as printed (control characters escaped), at most max (counting stops there).
static int shown_width(const char *s, int max)
{
    int w = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p && w <= max;) {
        Piece pc = next_piece(p);
        w += pc.cols;
        p += pc.in_len;
    }
    return w;
}

// A label's width: its shown form, at most LABEL_MAX_COLS.
static int utf8_width(const char *s)
{
    int w = shown_width(s, LABEL_MAX_COLS);
    return w < LABEL_MAX_COLS ? w : LABEL_MAX_COLS;
}

// Prints a label padded to width columns: its shown form, cut to LABEL_MAX_COLS with "…" at the
// end.
static void print_padded(FILE *out, const char *s, int width, bool right)
{
    int full = shown_width(s, LABEL_MAX_COLS);
    bool cut = full > LABEL_MAX_COLS;
    int shown = cut ? LABEL_MAX_COLS : full;
    int pad = width - shown;
    if (right)
        for (int i = 0; i < pad; i++) fputc(' ', out);
    int w = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        Piece pc = next_piece(p);
        if (cut && w + pc.cols > LABEL_MAX_COLS - 1) break;
        fputs(pc.text, out);
        w += pc.cols;
        p += pc.in_len;
    }
    if (cut) {
        for (; w < LABEL_MAX_COLS - 1; w++) fputc('.', out); // an escape that does not fit whole
        fputs("\xe2\x80\xa6", out);
    }
    if (!right)
        for (int i = 0; i < pad; i++) fputc(' ', out);
}

static void format_cell(char *buf, size_t cap, double v)
{
    if (v == -INFINITY) snprintf(buf, cap, "-inf");
    else if (fabs(v) >= 1e9
             && isfinite(v)) // %.4f of 1e99 is 100 digits: keep the magnitude instead
        snprintf(buf, cap, "%.4e", v);
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
        int w = col_labels ? utf8_width(col_labels[c])
                           : snprintf(buf, sizeof buf, "%s%d", col_prefix, c);
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
        if (col_labels) print_padded(out, col_labels[c], cell_w, true);
        else {
            snprintf(buf, sizeof buf, "%s%d", col_prefix, c);
            print_padded(out, buf, cell_w, true);
        }
    }
    fputc('\n', out);
    for (int r = 0; r < m->rows; r++) {
        fputs("  ", out);
        if (row_labels) print_padded(out, row_labels[r], label_w, false);
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

// Title, tokens and sizes: the first lines of --trace and --compare.
static void print_header(FILE *out, const Lesson *l)
{
    const AttnParams *p = &l->params;
    put_text(out, l->title, false);
    fputc('\n', out);
    if (l->notes
        && l->notes[0]) { // for proof-reading without the window: each line indented under "notes:"
        fputs("notes:\n  ", out);
        for (const unsigned char *c = (const unsigned char *)l->notes; *c;) {
            if (*c == '\r') {
                c++;
                continue;
            }
            if (*c == '\n' || *c == '\t') {
                fputc(*c, out);
                if (*c == '\n' && c[1]) fputs("  ", out);
                c++;
                continue;
            }
            Piece pc = next_piece(c);
            fputs(pc.text, out);
            c += pc.in_len;
        }
        if (l->notes[strlen(l->notes) - 1] != '\n') fputc('\n', out);
    }
    fprintf(out, "tokens:");
    for (int i = 0; i < p->n; i++) {
        fputc(' ', out);
        put_text(out, l->tokens[i], false);
    }
    if (p->cross) {
        fprintf(out, "\nsource tokens:");
        for (int i = 0; i < p->m; i++) {
            fputc(' ', out);
            put_text(out, l->source_tokens[i], false);
        }
    }
    fputc('\n', out);
    StrBuf fields = {0}; // the sizes and the settings: the lesson-field table's rows
    lesson_fields_trace(&fields, l);
    if (fields.p) fputs(fields.p, out);
    free(fields.p);
    if (p->ablated) {
        fprintf(out, "ablated heads:");
        for (int h = 0; h < p->heads; h++)
            if (params_ablated(p, h)) fprintf(out, " %d", h);
        fprintf(out, " (their Z enter the concat as zeros)\n");
    }
    fputc('\n', out);
}

void cli_print_trace(FILE *out, const Lesson *l, const Trace *t)
{
    cli_print_trace_ex(out, l, t, NULL);
}

int cli_finish_stdout(void)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        cli_line(stderr, "mha-tracer: error: cannot write to standard output: %s\n",
                 strerror(errno));
        return EXIT_IO;
    }
    return EXIT_OK;
}

// ---- the matrices of --trace and --json: the rows of the matrix table -------------------------------

// The three parts of both, each in the matrix table's order (MAT_ROWS): the embeddings (the rows
// before the first per-head one), each head's matrices, the layer's (the other rows). A part's
// biases (PARAMS) follow its last weight matrix.
typedef enum { PART_INPUT, PART_HEAD, PART_LAYER } Part;

// One matrix to write: a row of the matrix table, or a bias.
typedef struct {
    const char *json; // its --json key
    char title[128]; // its --trace title ("": not in --trace)
    const Matrix *m;
    bool bias; // a bias: a JSON vector, and in --trace only when its part has one that is not zero
    char *const *row_labels, *const *col_labels;
    const char *col_prefix; // the column labels without col_labels: "d0", "k0", "c0"
} Item;

static Part mat_part(MatId m)
{
    bool head_seen = false;
    for (int i = MAT_NONE + 1; i < (int)m; i++)
        head_seen = head_seen || mat_info((MatId)i)->per_head;
    return mat_info(m)->per_head ? PART_HEAD : head_seen ? PART_LAYER : PART_INPUT;
}

static char *const *axis_labels(const Lesson *l, Axis a)
{
    return a == AXIS_QUERY ? l->tokens : a == AXIS_KEY ? l->source_tokens : NULL;
}

static const char *dim_prefix(int cols_are_d_k, int cols_are_h_d_k)
{
    return cols_are_d_k ? "k" : cols_are_h_d_k ? "c" : "d";
}

// Whether the condition `name` of a --trace title ("{pos?...}") holds for head h.
static bool title_holds(const AttnParams *p, int h, const char *name, size_t len)
{
    static const char *const names[] = {"pos", "cross", "mask", "ablated", "window", "rope"};
    bool holds[] = {p->positions != POS_NONE, p->cross,      p->mask == MASK_CAUSAL,
                    params_ablated(p, h),     p->window > 0, p->rope != ROPE_NONE};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i]) == len && strncmp(names[i], name, len) == 0) return holds[i];
    return false;
}

// Appends the --trace title template [s, end) for head h to buf: {h} the head, {g} its K/V head,
// {kv} the keys' input (X or Y), {window}, {last} the last head, {scale} "× s" or "/ √d_k", and
// {cond?text} the text only when cond holds.
static void title_expand(char *buf, size_t cap, const char *s, const char *end, const AttnParams *p,
                         int h)
{
    while (s < end) {
        size_t used = strlen(buf);
        if (*s != '{') {
            if (used + 1 < cap) buf[used] = *s, buf[used + 1] = '\0';
            s++;
            continue;
        }
        const char *close = s + 1;
        for (int depth = 1; close < end && (depth > 1 || *close != '}'); close++)
            depth += *close == '{' ? 1 : *close == '}' ? -1 : 0;
        const char *q = memchr(s + 1, '?', (size_t)(close - s - 1));
        size_t len = (size_t)(close - s - 1);
        if (q) {
            if (title_holds(p, h, s + 1, (size_t)(q - s - 1)))
                title_expand(buf, cap, q + 1, close, p, h);
        } else if (len == 1 && s[1] == 'h') snprintf(buf + used, cap - used, "%d", h);
        else if (len == 2 && strncmp(s + 1, "kv", 2) == 0)
            snprintf(buf + used, cap - used, "%s", p->cross ? "Y" : "X");
        else if (len == 1 && s[1] == 'g')
            snprintf(buf + used, cap - used, "%d", params_kv_head(p, h));
        else if (len == 6 && strncmp(s + 1, "window", 6) == 0)
            snprintf(buf + used, cap - used, "%d", p->window);
        else if (len == 4 && strncmp(s + 1, "last", 4) == 0)
            snprintf(buf + used, cap - used, "%d", p->heads - 1);
        else if (len == 5 && strncmp(s + 1, "scale", 5) == 0) {
            if (p->scale > 0) snprintf(buf + used, cap - used, "\xc3\x97 %.6g", p->scale);
            else snprintf(buf + used, cap - used, "/ \xe2\x88\x9a%d", p->d_k);
        }
        s = close < end ? close + 1 : end;
    }
}

// The part's biases (PARAMS rows), for head h in the per-head part.
static int bias_items(Item *out, const Lesson *l, Part part, int h)
{
    int n = 0;
    for (int i = 0; part != PART_INPUT && i < PARAM_COUNT;
         i++) { // the embeddings' part has no bias
        if (!PARAMS[i].bias || PARAMS[i].per_head != (part == PART_HEAD)) continue;
        Item *it = &out[n++];
        memset(it, 0, sizeof *it);
        it->json = PARAMS[i].name;
        if (PARAMS[i].per_head)
            snprintf(it->title, sizeof it->title, "%s_%d", PARAMS[i].name,
                     PARAMS[i].per_kv ? params_kv_head(&l->params, h) : h);
        else snprintf(it->title, sizeof it->title, "%s", PARAMS[i].name);
        it->m = params_at_const(&l->params, i, h);
        it->bias = true;
        it->col_prefix = dim_prefix(PARAMS[i].cols == PDIM_D_K, PARAMS[i].cols == PDIM_H_D_K);
    }
    return n;
}

// The matrices of one part (head h in the per-head part) that the lesson has, in the table's order.
static int part_items(Item *out, const Lesson *l, const Trace *t, Part part, int h)
{
    const AttnParams *p = &l->params;
    int n = 0;
    for (int m = MAT_NONE + 1; m < MAT_COUNT; m++) {
        const MatInfo *mi = mat_info((MatId)m);
        const Matrix *x =
            mi->json && mat_part((MatId)m) == part ? model_mat_stored(p, t, (MatId)m, h) : NULL;
        if (!x) continue;
        Item *it = &out[n++];
        memset(it, 0, sizeof *it);
        it->json = mi->json;
        if (mi->trace)
            title_expand(it->title, sizeof it->title, mi->trace, mi->trace + strlen(mi->trace), p,
                         h);
        it->m = x;
        it->row_labels = axis_labels(l, mi->row_axis);
        it->col_labels = axis_labels(l, mi->col_axis);
        it->col_prefix = dim_prefix(mi->cols == DIM_D_K, mi->cols == DIM_H_D_K);
        bool later_weight = false;
        for (int k = m + 1; k < MAT_COUNT; k++)
            later_weight =
                later_weight || (mat_info((MatId)k)->param && mat_part((MatId)k) == part);
        if (mi->param && !later_weight) n += bias_items(&out[n], l, part, h);
    }
    return n;
}

// --trace: the items with a title; a part's biases only when one of them is not zero.
static void print_items(FILE *out, const Item *items, int count)
{
    bool biases = false;
    for (int i = 0; i < count; i++) biases = biases || (items[i].bias && any_nonzero(items[i].m));
    for (int i = 0; i < count; i++)
        if (items[i].title[0] && (!items[i].bias || biases))
            print_matrix(out, items[i].title, items[i].m, items[i].row_labels, items[i].col_labels,
                         items[i].col_prefix);
}

void cli_print_trace_ex(FILE *out, const Lesson *l, const Trace *t, const CliExtra *x)
{
    const AttnParams *p = &l->params;
    print_header(out, l);

    Item items[MAT_COUNT + PARAM_COUNT];
    int count = part_items(items, l, t, PART_INPUT, 0);
    print_items(out, items, count);
    for (int h = 0; h < p->heads; h++) {
        if (p->kv_given)
            fprintf(out, "==== Head %d (K/V head %d) ====\n\n", h, params_kv_head(p, h));
        else fprintf(out, "==== Head %d ====\n\n", h);
        count = part_items(items, l, t, PART_HEAD, h);
        print_items(out, items, count);
    }
    fprintf(out, "==== All heads ====\n\n");
    count = part_items(items, l, t, PART_LAYER, 0);
    print_items(out, items, count);
    if (t->full_output.data) {
        print_matrix(out, "output with every head (no ablation)", &t->full_output, l->tokens, NULL,
                     "d");
        fprintf(out, "largest difference the ablation makes: %.4f\n\n",
                mat_max_abs_diff(&t->output, &t->full_output));
    }
    cli_print_cost(out, p);
    if (x && x->shuffle) {
        fprintf(out, "==== Shuffle ====\n\ntokens reordered:");
        for (int i = 0; i < p->n; i++) fprintf(out, "%s%d", i ? "," : " ", x->shuffle[i]);
        fprintf(out, " (token i is the original token at position perm[i]; the positions stay in "
                     "place)\n\n");
        if (x->shuffle_original.data)
            print_matrix(out, "original output, row i = its row perm[i]", &x->shuffle_original,
                         l->tokens, NULL, "d");
        fprintf(out,
                "largest difference between output row i and the original output row perm[i]: %.4f",
                x->shuffle_difference);
        if (x->shuffle_same
            && x->shuffle_difference > 0) // not 0 in the last bits: the sums ran in another order
            fprintf(out, " (%.1e: rounding, the keys summed in another order)",
                    x->shuffle_difference);
        fprintf(
            out, "\n%s\n\n",
            x->shuffle_same
                ? "the same rows, only reordered: without positions attention cannot tell the order"
                : "the rows changed: the positions (or the causal mask) make the order matter");
    }
}

// ---- cost and the single-head comparison --------------------------------------------------------

static void print_cost_rows(FILE *out, const CostFigures *one, const CostFigures *multi)
{
    char line[256];
    fprintf(out, "%s\n", cost_format(line, sizeof line, one));
    if (multi->heads != 1) fprintf(out, "%s\n", cost_format(line, sizeof line, multi));
}

void cli_print_cost(FILE *out, const AttnParams *p)
{
    CostFigures one, multi;
    compare_costs(&one, &multi, p);
    fprintf(out, "==== Cost ====\n\n");
    print_cost_rows(out, &one, &multi);
    fputc('\n', out);
}

// Lines wider than this start a new row of side-by-side patterns (three 6-token patterns fit).
#define SIDE_BY_SIDE_WIDTH 160

// Prints count (n, m) matrices side by side under their titles, sharing the row labels; wraps into
// further rows of blocks when the line would pass SIDE_BY_SIDE_WIDTH characters.
static void print_side_by_side(FILE *out, const char *const *titles, const Matrix *const *ms,
                               int count, char *const *row_labels, char *const *col_labels)
{
    const Matrix *m0 = ms[0];
    int label_w = 1, cell_w = 6;
    char buf[64];
    for (int r = 0; r < m0->rows; r++)
        if (utf8_width(row_labels[r]) > label_w) label_w = utf8_width(row_labels[r]);
    for (int c = 0; c < m0->cols; c++)
        if (utf8_width(col_labels[c]) > cell_w) cell_w = utf8_width(col_labels[c]);
    for (int k = 0; k < count; k++)
        for (size_t i = 0; i < (size_t)ms[k]->rows * (size_t)ms[k]->cols; i++) {
            format_cell(buf, sizeof buf, ms[k]->data[i]);
            if ((int)strlen(buf) > cell_w) cell_w = (int)strlen(buf);
        }
    int block_w = m0->cols * (2 + cell_w);
    for (int k = 0; k < count; k++)
        if ((int)strlen(titles[k]) > block_w) block_w = (int)strlen(titles[k]); // ASCII, ours
    const char *gap = "    ";
    int first = 0;
    while (first < count) {
        int last = first + 1, width = 2 + label_w + block_w;
        while (last < count && width + 4 + block_w <= SIDE_BY_SIDE_WIDTH) {
            width += 4 + block_w;
            last++;
        }
        // Titles, left-aligned over their blocks.
        fprintf(out, "  %*s", label_w, "");
        for (int k = first; k < last; k++) {
            if (k > first) fputs(gap, out);
            fputs("  ", out);
            fputs(titles[k], out);
            if (k + 1 < last) // no trailing blanks
                for (int pad = (int)strlen(titles[k]); pad < block_w - 2; pad++) fputc(' ', out);
        }
        fputc('\n', out);
        // Column labels.
        fprintf(out, "  %*s", label_w, "");
        for (int k = first; k < last; k++) {
            if (k > first) fputs(gap, out);
            for (int c = 0; c < m0->cols; c++) {
                fputs("  ", out);
                print_padded(out, col_labels[c], cell_w, true);
            }
            if (k + 1 < last)
                for (int pad = m0->cols * (2 + cell_w); pad < block_w; pad++) fputc(' ', out);
        }
        fputc('\n', out);
        for (int r = 0; r < m0->rows; r++) {
            fputs("  ", out);
            print_padded(out, row_labels[r], label_w, false);
            for (int k = first; k < last; k++) {
                if (k > first) fputs(gap, out);
                for (int c = 0; c < m0->cols; c++) {
                    format_cell(buf, sizeof buf, mat_get(ms[k], r, c));
                    fputs("  ", out);
                    print_padded(out, buf, cell_w, true);
                }
                if (k + 1 < last)
                    for (int pad = m0->cols * (2 + cell_w); pad < block_w; pad++) fputc(' ', out);
            }
            fputc('\n', out);
        }
        fputc('\n', out);
        first = last;
    }
}

void cli_print_compare(FILE *out, const Lesson *l, const Trace *t, const Comparison *c)
{
    const AttnParams *p = &l->params;
    int h = p->heads, dk1 = c->single.d_k;
    print_header(out, l);
    if (h == 1)
        fprintf(
            out,
            "The lesson has one head: there is nothing to split, and both sides are the same.\n\n");
    else cli_print_compare_claims(out, p, t, c);

    // One title and one matrix per pattern: the single head first, then head 0 ... h-1.
    int count = h + 1;
    const Matrix **ms = malloc(sizeof *ms * (size_t)count);
    char *titles_buf = malloc((size_t)count * 64);
    const char **titles = malloc(sizeof *titles * (size_t)count);
    if (!ms || !titles_buf || !titles) {
        fprintf(out, "(out of memory)\n");
        free(ms);
        free(titles_buf);
        free(titles);
        return;
    }
    snprintf(titles_buf, 64, "one head (d_k = %d)", dk1);
    titles[0] = titles_buf;
    ms[0] = &c->trace.head[0].weights;
    for (int i = 0; i < h; i++) {
        char *tb = titles_buf + (size_t)(i + 1) * 64;
        snprintf(tb, 64, "head %d (d_k = %d)", i, p->d_k);
        titles[i + 1] = tb;
        ms[i + 1] = &t->head[i].weights;
    }
    if (p->mask == MASK_CAUSAL && p->window > 0)
        fprintf(out, "==== Attention weights (causal mask, window %d) ====\n\n", p->window);
    else
        fprintf(out, "==== Attention weights%s ====\n\n",
                p->mask == MASK_CAUSAL ? " (causal mask)" : "");
    print_side_by_side(out, titles, ms, count, l->tokens, l->source_tokens);
    free(ms);
    free(titles_buf);
    free(titles);

    fprintf(out, "==== Outputs ====\n\n");
    print_matrix(out, "output, one head = Z W_O + b_O", &c->trace.output, l->tokens, NULL, "d");
    char title[128];
    snprintf(title, sizeof title, "output, %d head%s = concat W_O + b_O", h, h == 1 ? "" : "s");
    print_matrix(out, title, &t->output, l->tokens, NULL, "d");
    fprintf(out, "largest difference between the two outputs: %.4f\n\n",
            mat_max_abs_diff(&c->trace.output, &t->output));

    fprintf(out, "==== Cost ====\n\n");
    print_cost_rows(out, &c->cost_one, &c->cost_multi);
    fputc('\n', out);
}

// ---- JSON ----------------------------------------------------------------------------------------

static void put_file(void *ctx, const char *bytes, size_t n) { fwrite(bytes, 1, n, (FILE *)ctx); }

// The one JSON string writer's escaping (utf8_json_string), onto a stream.
static void json_string(FILE *out, const char *s) { utf8_json_string(put_file, out, s); }

void cli_json_number(FILE *out, double v)
{
    char num[STRBUF_NUMBER_CAP];
    fputs(strbuf_json_number_text(v, num, sizeof num), out);
}

static void json_row(FILE *out, const double *row, int count)
{
    fputc('[', out);
    for (int c = 0; c < count; c++) {
        if (c) fputs(", ", out);
        cli_json_number(out, row[c]);
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

// --json: every item, the last of the object without a comma when `closes`.
static void json_items(FILE *out, const Item *items, int count, const char *indent, bool closes)
{
    for (int i = 0; i < count; i++) {
        bool last = closes && i + 1 == count;
        if (items[i].bias) json_vector(out, items[i].json, items[i].m, indent, last);
        else json_matrix(out, items[i].json, items[i].m, indent, last);
    }
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

// The JSON writers for the other printers of the command line (cli_decode.c).
void cli_json_string(FILE *out, const char *s) { json_string(out, s); }
void cli_json_row(FILE *out, const double *row, int count) { json_row(out, row, count); }
void cli_json_tokens(FILE *out, const char *key, char *const *tokens, int count)
{
    json_tokens(out, key, tokens, count);
}
void cli_json_title_notes(FILE *out, const Lesson *l)
{
    fputs("{\n  \"title\": ", out);
    json_string(out, l->title);
    fputs(",\n  \"notes\": ", out);
    if (l->notes) json_string(out, l->notes);
    else fputs("null", out);
    fputs(",\n", out);
}
void cli_json_matrix_compact(FILE *out, const Matrix *m)
{
    fputc('[', out);
    for (int r = 0; r < m->rows; r++) {
        if (r) fputs(", ", out);
        json_row(out, mat_row(m, r), m->cols);
    }
    fputc(']', out);
}
void cli_json_matrix(FILE *out, const char *key, const Matrix *m, const char *indent, bool last)
{
    json_matrix(out, key, m, indent, last);
}

void cli_print_json(FILE *out, const Lesson *l, const Trace *t)
{
    cli_print_json_ex(out, l, t, NULL);
}

void cli_print_json_ex(FILE *out, const Lesson *l, const Trace *t, const CliExtra *x)
{
    const AttnParams *p = &l->params;
    cli_json_title_notes(out, l);
    json_tokens(out, "tokens", l->tokens, p->n);
    json_tokens(out, "source_tokens", l->source_tokens, p->m);
    if (x && x->top_json) x->top_json(out, x->top_ctx);
    StrBuf fields = {0}; // the sizes and the settings: the lesson-field table's rows
    lesson_fields_json(&fields, l);
    if (fields.p) fputs(fields.p, out);
    free(fields.p);
    if (p->ablated) {
        fputs("  \"ablated\": [", out);
        for (int h = 0, first = 1; h < p->heads; h++)
            if (params_ablated(p, h)) {
                fprintf(out, "%s%d", first ? "" : ", ", h);
                first = 0;
            }
        fputs("],\n", out);
    }
    if (x && x->shuffle) {
        fputs("  \"shuffle\": [", out);
        for (int i = 0; i < p->n; i++) fprintf(out, "%s%d", i ? ", " : "", x->shuffle[i]);
        fputs("],\n  \"shuffle_largest_difference\": ", out);
        cli_json_number(out, x->shuffle_difference);
        fprintf(out, ",\n  \"shuffle_only_reorders\": %s,\n", x->shuffle_same ? "true" : "false");
    }
    Item items[MAT_COUNT + PARAM_COUNT];
    json_items(out, items, part_items(items, l, t, PART_INPUT, 0), "  ", false);
    fputs("  \"head\": [\n", out);
    for (int h = 0; h < p->heads; h++) {
        fputs("    {\n", out);
        if (p->kv_given) fprintf(out, "      \"kv_head\": %d,\n", params_kv_head(p, h));
        bool more = x && x->head_json;
        json_items(out, items, part_items(items, l, t, PART_HEAD, h), "      ", !more);
        if (more) x->head_json(out, l, t, h, x->tiles);
        fprintf(out, "    }%s\n", h + 1 < p->heads ? "," : "");
    }
    fputs("  ],\n", out);
    json_items(out, items, part_items(items, l, t, PART_LAYER, 0), "  ", true);
    fputs("}\n", out);
}

// ---- questions --------------------------------------------------------------------------------------

int cli_print_questions(FILE *out, FILE *err, const Lesson *l, const Trace *t, const char *filename)
{
    int errors = 0;
    if (l->question_count == 0) cli_line(out, "%s: no questions\n", filename);
    for (int k = 0; k < l->question_count; k++) { // in the order asked
        int i = questions_asked(l, k);
        const LessonQuestion *q = &l->questions[i];
        QuestionAnswer a;
        LessonError e;
        memset(&e, 0, sizeof e);
        lesson_error_set_file(&e, filename);
        bool fits = question_answer(l, t, q, i, &a, &e);
        char buf[1400], words[512];
        if (k > 0) fputc('\n', out);
        cli_line(out, "Question %d of %d  (stage %s, head %d, %s)\n", k + 1, l->question_count,
                 q->stage, q->head, lesson_answer_kind_name(q->kind));
        cli_line(out, "  %s\n", q->text);
        if (!fits) {
            cli_line(out, "  (no answer: %s)\n", e.message);
            cli_line(err, "%s\n", lesson_error_format(&e, buf, sizeof buf));
            errors++;
            continue;
        }
        question_prompt(q, &a, words, sizeof words);
        cli_line(out, "  How: %s\n", words);
        question_describe(q, &a, l, words, sizeof words);
        cli_line(out, "  Answer: %s\n", words);
        memset(&e, 0, sizeof e);
        lesson_error_set_file(&e, filename);
        if (!question_check(l, t, q, i, &a, &e)) {
            cli_line(out, "  The lesson's stated answer is WRONG (see the error)\n");
            cli_line(err, "%s\n", lesson_error_format(&e, buf, sizeof buf));
            errors++;
        }
    }
    return errors;
}

// ---- one stage as the board shows it (--trace --stage) -------------------------------------------------

int cli_print_stage(FILE *out, const Lesson *l, const Trace *t, int stage, int head)
{
    ViewState st;
    Stage stages[STAGE_COUNT];
    int n = model_stages(&l->params, stages), printed = 0;
    for (int i = 0; i < n; i++) {
        if (stage >= 0 && stages[i] != (Stage)stage) continue;
        if (!stage_text_view(&st, &l->params, stages[i], head)) return -1;
        StageTextSrc src = {&st, l, t};
        StrBuf b = {0};
        bool ok = stage_text_tsv(&b, &src);
        if (ok && b.p) { // the lesson's tokens and texts among the lines: escaped like every line
                         // printed
            if (printed) fputc('\n', out);
            put_text_kept(out, b.p, true, true);
        }
        free(b.p);
        if (!ok) return -1;
        printed++;
    }
    return printed;
}
