// The stage on screen as text: one walk over the stage's row of the stage table and its matrices'
// rows of the matrix table (stage_text_walk), and two writers of it, HTML for the page's text view
// and tab-separated text for the clipboard and --trace --stage.
#include "model/stage_text.h"
#include "model/rope_shift.h"

#include <stdio.h>
#include <string.h>

#include "model/explain.h"
#include "model/i18n.h"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

#define TIMES "\xc3\x97"

// Whether the matrices of the stage show one head (the per-head ones) and which.
static bool stage_per_head(Stage s)
{
    const StageInfo *si = stage_info(s);
    return si && si->results[0] != MAT_NONE && mat_info(si->results[0])->per_head;
}

void stage_text_status(const StageTextSrc *src, char *buf, size_t cap)
{
    const ViewState *st = src->st;
    const StageInfo *si = stage_info(view_stage(st));
    char name[128];
    stage_text_plain(si ? TR(si->name) : "", name, sizeof name);
    size_t used = (size_t)snprintf(buf, cap, "%s", name);
    int heads = src->L->params.heads;
    if (used < cap && heads > 1 && stage_per_head(view_stage(st))) {
        if (st->view == VIEW_ALL_HEADS)
            used += (size_t)snprintf(buf + used, cap - used, TR(", all %d heads"), heads);
        else
            used += (size_t)snprintf(buf + used, cap - used, TR(", head %d (%d of %d)"), st->head,
                                     st->head + 1, heads);
    }
    if (used < cap && st->substep_count > 1)
        snprintf(buf + used, cap - used, TR(", part %d of %d"), st->substep + 1, st->substep_count);
}

void stage_text_plain(const char *in, char *out, size_t cap)
{
    size_t o = 0;
    if (!cap) return;
    for (const char *p = in; *p && o + 4 < cap; p++) {
        if (p[0] == '^' && p[1] == 'T'
            && (p[2] == '\0' || p[2] == ' ' || p[2] == ')' || p[2] == ',')) {
            memcpy(out + o, "\xe1\xb5\x80", 3); // ᵀ
            o += 3;
            p++;
        } else out[o++] = *p;
    }
    out[o] = '\0';
}

void stage_text_label(const StageTextSrc *src, const StageTable *t, bool row, int i, char *buf,
                      size_t cap)
{
    const MatInfo *mi = mat_info(t->mat);
    model_axis_label(src->L, row ? mi->row_axis : mi->col_axis, i, buf, cap);
}

bool stage_text_value(const StageTextSrc *src, const StageTable *t, int r, int c, char *buf,
                      size_t cap)
{
    CellRef cell = {t->mat, t->head, r, c};
    if (!view_cell_revealed(src->st, cell)) {
        snprintf(buf, cap, "?");
        return false;
    }
    model_format_value(model_cell_value(&src->L->params, src->T, cell), buf, cap);
    return true;
}

bool stage_text_table(const StageTextSrc *src, MatId m, int head, StageTable *t)
{
    const MatInfo *mi = mat_info(m);
    const AttnParams *p = &src->L->params;
    if (!mi || !model_mat_present(p, m)) return false;
    memset(t, 0, sizeof *t);
    t->mat = m;
    t->head = mi->per_head ? head : 0;
    model_mat_shape(p, m, &t->rows, &t->cols);
    if (t->rows <= 0 || t->cols <= 0) return false;
    model_mat_name(p, m, t->head, t->name, sizeof t->name);
    int used = snprintf(t->caption, sizeof t->caption, "%s: %s, %d " TIMES " %d", t->name,
                        TR(mi->what), t->rows, t->cols);
    if (mi->per_head && p->heads > 1 && used > 0 && (size_t)used < sizeof t->caption)
        snprintf(t->caption + used, sizeof t->caption - (size_t)used, TR(", head %d (%d of %d)"),
                 t->head, t->head + 1, p->heads);
    return true;
}

// Whether cell c hides a number now (a result not revealed yet).
static bool any_hidden(const StageTextSrc *src, const StageTable *t)
{
    for (int r = 0; r < t->rows; r++)
        for (int c = 0; c < t->cols; c++)
            if (!view_cell_revealed(src->st, (CellRef){t->mat, t->head, r, c})) return true;
    return false;
}

// The focused cell (pinned, hovered or the last revealed) and its arithmetic.
static void walk_cell(const StageTextSrc *src, const StageTextSink *sink)
{
    CellRef c = view_focus_cell(src->st);
    StageTable t;
    if (c.mat == MAT_NONE || !stage_text_table(src, c.mat, c.head, &t) || c.row >= t.rows
        || c.col >= t.cols)
        return;
    char rl[96], cl[96], v[32], line[400];
    stage_text_label(src, &t, true, c.row, rl, sizeof rl);
    stage_text_label(src, &t, false, c.col, cl, sizeof cl);
    if (!stage_text_value(src, &t, c.row, c.col, v, sizeof v)) return;
    snprintf(line, sizeof line, "%s [%s, %s] = %s", t.name, rl, cl, v);
    sink->text(sink->ctx, STAGE_TEXT_CELL_TITLE, line);
    char lines[CELL_TEXT_LINES][256];
    int n = model_explain(src->L, src->T, c, lines, CELL_TEXT_LINES, false);
    for (int i = 0; i < n; i++) sink->text(sink->ctx, STAGE_TEXT_CELL, lines[i]);
}

void stage_text_walk(const StageTextSrc *src, const StageTextSink *sink)
{
    const ViewState *st = src->st;
    const AttnParams *p = &src->L->params;
    const StageInfo *si = stage_info(view_stage(st));
    if (!si) return;
    char buf[1024], where[256];
    sink->text(sink->ctx, STAGE_TEXT_TITLE, TR(si->name));
    buf[0] = '\0';
    si->formula(p, st->head, buf, sizeof buf);
    if (buf[0]) sink->text(sink->ctx, STAGE_TEXT_FORMULA, buf);
    stage_text_status(src, where, sizeof where);
    sink->text(sink->ctx, STAGE_TEXT_WHERE, where);
    buf[0] = '\0';
    si->explain(p, buf, sizeof buf);
    if (buf[0]) sink->text(sink->ctx, STAGE_TEXT_EXPLAIN, buf);
    if (model_rope_shift_note(p, src->T, view_stage(st), st->head, buf,
                              sizeof buf)) // RoPE's point (key S)
        sink->text(sink->ctx, STAGE_TEXT_EXPLAIN, buf);
    Equation eq[EQ_MAX];
    int neq = si->equations(p, st->head, eq, EQ_MAX);
    struct {
        MatId mat;
        int head;
    } given[EQ_MAX * TERM_MAX]; // the matrices already given: each once
    int ngiven = 0;
    bool hidden = false;
    for (int e = 0; e < neq; e++) {
        if (eq[e].caption[0]) sink->text(sink->ctx, STAGE_TEXT_PART, eq[e].caption);
        for (int k = 0; k < eq[e].count; k++) {
            const Term *term = &eq[e].t[k];
            StageTable t;
            if (term->mat == MAT_NONE || !stage_text_table(src, term->mat, term->head, &t))
                continue;
            bool seen = false;
            for (int i = 0; i < ngiven; i++)
                seen = seen || (given[i].mat == t.mat && given[i].head == t.head);
            if (seen) continue;
            given[ngiven].mat = t.mat;
            given[ngiven++].head = t.head;
            hidden = hidden || any_hidden(src, &t);
            sink->table(sink->ctx, src, &t);
        }
    }
    if (hidden)
        sink->text(sink->ctx, STAGE_TEXT_HIDDEN,
                   TR("? : a cell not shown yet (fill it with . or answer the question)"));
    walk_cell(src, sink);
}

bool stage_text_view(ViewState *st, const AttnParams *p, Stage s, int head)
{
    ViewDims dims = view_dims_from_params(p);
    view_init(st, &dims);
    if (head < 0 || head >= p->heads) return false;
    st->head = head;
    for (int i = 0; i < st->stage_count; i++)
        if (st->stages[i] == s) {
            st->stage_index = i;
            return true;
        }
    return false;
}

// ---- HTML ------------------------------------------------------------------------------------------------

// '^' raises one character, or a group in parentheses (drawn without them), as on the board.
void stage_text_html_put(StrBuf *b, const char *s, bool math)
{
    for (const char *p = s; *p; p++) {
        if (math && p[0] == '^' && p[1]) {
            const char *start = p + 1, *end;
            const char *close = start[0] == '(' ? strchr(start, ')') : NULL;
            if (close && close - start > 1) start++, end = close;
            else {
                end = start + 1;
                while (((unsigned char)*end & 0xC0) == 0x80) end++;
            }
            strbuf_puts(b, "<sup>");
            for (const char *q = start; q < end; q++) {
                char one[2] = {*q, '\0'};
                stage_text_html_put(b, one, false);
            }
            strbuf_puts(b, "</sup>");
            p = close && end == close ? close : end - 1;
            continue;
        }
        switch (*p) {
        case '&': strbuf_puts(b, "&amp;"); break;
        case '<': strbuf_puts(b, "&lt;"); break;
        case '>': strbuf_puts(b, "&gt;"); break;
        case '"': strbuf_puts(b, "&quot;"); break;
        case '\'': strbuf_puts(b, "&#39;"); break;
        default: strbuf_put(b, p, 1);
        }
    }
}

static void html_text(void *ctx, StageTextKind kind, const char *text)
{
    static const char *const open[] = {
        [STAGE_TEXT_TITLE] = "<h2 id=\"st-title\">",
        [STAGE_TEXT_FORMULA] = "<p class=\"st-formula\">",
        [STAGE_TEXT_WHERE] = "<p class=\"st-where\">",
        [STAGE_TEXT_EXPLAIN] = "<p class=\"st-explain\">",
        [STAGE_TEXT_PART] = "<h3>",
        [STAGE_TEXT_HIDDEN] = "<p class=\"st-hidden\">",
        [STAGE_TEXT_CELL_TITLE] = "<h3 class=\"st-cell\">",
        [STAGE_TEXT_CELL] = "<p class=\"st-cell\">",
    };
    static const char *const close[] = {
        [STAGE_TEXT_TITLE] = "</h2>\n",      [STAGE_TEXT_FORMULA] = "</p>\n",
        [STAGE_TEXT_WHERE] = "</p>\n",       [STAGE_TEXT_EXPLAIN] = "</p>\n",
        [STAGE_TEXT_PART] = "</h3>\n",       [STAGE_TEXT_HIDDEN] = "</p>\n",
        [STAGE_TEXT_CELL_TITLE] = "</h3>\n", [STAGE_TEXT_CELL] = "</p>\n",
    };
    StrBuf *b = ctx;
    strbuf_puts(b, open[kind]);
    stage_text_html_put(b, text, true);
    strbuf_puts(b, close[kind]);
}

// The header cell of row (or column) i: <th scope="row|col"> with its label.
static void html_header(StrBuf *b, const StageTextSrc *src, const StageTable *t, bool row, int i)
{
    char label[128];
    stage_text_label(src, t, row, i, label, sizeof label);
    strbuf_puts(b, row ? "<th scope=\"row\">" : "<th scope=\"col\">");
    stage_text_html_put(b, label, false);
    strbuf_puts(b, "</th>");
}

static void html_table(void *ctx, const StageTextSrc *src, const StageTable *t)
{
    StrBuf *b = ctx;
    char v[32];
    const char *key = mat_info(t->mat)->key;
    strbuf_printf(b, "<div class=\"st-scroll\"><table data-mat=\"%s\" data-head=\"%d\"><caption>",
                  key, t->head);
    stage_text_html_put(b, t->caption, true);
    strbuf_puts(b, "</caption>\n<thead><tr><td></td>");
    for (int c = 0; c < t->cols; c++) html_header(b, src, t, false, c);
    strbuf_puts(b, "</tr></thead>\n<tbody>\n");
    for (int r = 0; r < t->rows; r++) {
        strbuf_puts(b, "<tr>");
        html_header(b, src, t, true, r);
        for (int c = 0; c < t->cols; c++) {
            bool shown = stage_text_value(src, t, r, c, v, sizeof v);
            strbuf_printf(b, "<td data-row=\"%d\" data-col=\"%d\"%s>%s</td>", r, c,
                          shown ? "" : " class=\"st-hid\"", v);
        }
        strbuf_puts(b, "</tr>\n");
    }
    strbuf_puts(b, "</tbody></table></div>\n");
}

bool stage_text_html(StrBuf *out, const StageTextSrc *src)
{
    StageTextSink sink = {out, html_text, html_table};
    stage_text_walk(src, &sink);
    return !out->oom;
}

// ---- tab-separated ---------------------------------------------------------------------------------------

// Appends text with its tabs and line breaks as spaces (a cell of its own), in plain notation.
static void tsv_put(StrBuf *b, const char *s)
{
    char plain[1400];
    stage_text_plain(s, plain, sizeof plain);
    for (char *p = plain; *p; p++)
        if (*p == '\t' || *p == '\n' || *p == '\r') *p = ' ';
    strbuf_puts(b, plain);
}

static void tsv_text(void *ctx, StageTextKind kind, const char *text)
{
    StrBuf *b = ctx;
    if (kind == STAGE_TEXT_PART || kind == STAGE_TEXT_CELL_TITLE) strbuf_puts(b, "\n");
    tsv_put(b, text);
    strbuf_puts(b, "\n");
}

static void tsv_table(void *ctx, const StageTextSrc *src, const StageTable *t)
{
    StrBuf *b = ctx;
    char label[128], v[32];
    strbuf_puts(b, "\n");
    tsv_put(b, t->caption);
    strbuf_puts(b, "\n");
    tsv_put(b, t->name);
    for (int c = 0; c < t->cols; c++) {
        stage_text_label(src, t, false, c, label, sizeof label);
        strbuf_puts(b, "\t");
        tsv_put(b, label);
    }
    strbuf_puts(b, "\n");
    for (int r = 0; r < t->rows; r++) {
        stage_text_label(src, t, true, r, label, sizeof label);
        tsv_put(b, label);
        for (int c = 0; c < t->cols; c++) {
            stage_text_value(src, t, r, c, v, sizeof v);
            strbuf_puts(b, "\t");
            // A spreadsheet reads "-0.5" as a number, not the board's "−0.5" (U+2212).
            strbuf_puts(b, strncmp(v, "\xe2\x88\x92", 3) == 0 ? "-" : "");
            strbuf_puts(b, strncmp(v, "\xe2\x88\x92", 3) == 0 ? v + 3 : v);
        }
        strbuf_puts(b, "\n");
    }
}

bool stage_text_tsv(StrBuf *out, const StageTextSrc *src)
{
    StageTextSink sink = {out, tsv_text, tsv_table};
    stage_text_walk(src, &sink);
    return !out->oom;
}
