// The pieces the panels' text is built of (panel_text_ctx.h): items, tables, their cells as the
// board rounds them, token and column labels. Below the walks (panel_text.c, panel_decode.c).
#include "model/panel_text_ctx.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/i18n.h"

// ---- building the pieces -------------------------------------------------------------------------------

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static char *
dupf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s) return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

static PanelItem *add_item(PanelText *pt, PanelItemKind kind)
{
    if (pt->oom) return NULL;
    if (pt->count == pt->cap) {
        int cap = pt->cap ? 2 * pt->cap : 16;
        PanelItem *items = realloc(pt->items, sizeof *items * (size_t)cap);
        if (!items) {
            pt->oom = true;
            return NULL;
        }
        pt->items = items, pt->cap = cap;
    }
    PanelItem *it = &pt->items[pt->count++];
    memset(it, 0, sizeof *it);
    it->kind = kind;
    return it;
}

void panel_add_text(PanelText *pt, PanelItemKind kind, const char *text)
{
    if (!text || !text[0]) return;
    PanelItem *it = add_item(pt, kind);
    if (it && !(it->text = dupf("%s", text))) pt->oom = true;
}

// A table of rows x cols empty cells under its caption; NULL when out of memory.
PanelTable *panel_add_table(PanelText *pt, const char *caption, const char *corner, int rows,
                            int cols)
{
    PanelItem *it = add_item(pt, PANEL_ITEM_TABLE);
    if (!it) return NULL;
    PanelTable *t = &it->table;
    t->rows = rows, t->cols = cols;
    t->caption = dupf("%s", caption);
    t->corner = dupf("%s", corner ? corner : "");
    t->col_label = calloc((size_t)cols, sizeof *t->col_label);
    t->row_label = calloc((size_t)rows, sizeof *t->row_label);
    t->cell = calloc((size_t)rows * (size_t)cols, sizeof *t->cell);
    if (!t->caption || !t->corner || !t->col_label || !t->row_label || !t->cell) {
        pt->oom = true;
        return NULL;
    }
    return t;
}

// Sets a string of a table (a label or a cell) to text.
void panel_put(PanelText *pt, char **slot, const char *text)
{
    free(*slot);
    if (!(*slot = dupf("%s", text ? text : ""))) pt->oom = true;
}

void panel_put_value(PanelText *pt, char **slot, double v)
{
    char num[32];
    model_format_value(v, num, sizeof num);
    panel_put(pt, slot, num);
}

const char *panel_token(const Lesson *L, int i)
{
    return L->tokens && L->tokens[i] ? L->tokens[i] : "";
}

// The d_k columns' labels of matrix m (its column axis) into t.
void panel_dim_labels(PanelText *pt, const Lesson *L, MatId m, PanelTable *t)
{
    char label[64];
    for (int j = 0; t && j < t->cols; j++) {
        model_axis_label(L, mat_info(m)->col_axis, j, label, sizeof label);
        panel_put(pt, &t->col_label[j], label);
    }
}
