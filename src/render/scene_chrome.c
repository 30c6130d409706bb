// The text around the board: the header (stage, formula, head, the strip of stages, the status
// line), the explanation of the focused cell, the footer (the stage's explanation, the notes, a
// question), help, banner.
#include "render/scene_chrome.h"
#include "render/scene_panels.h"
#include "render/scene_text.h"
#include "core/cost.h"
#include "model/panel_text.h"
#include "model/questions.h"
#include "model/rope_shift.h"
#include "model/view.h"

static const char *stage_formula(const Ctx *c, char *buf, size_t cap)
{
    const StageInfo *si = stage_info(view_stage(c->st));
    buf[0] = '\0';
    if (si) si->formula(&c->L->params, c->st->head, buf, cap);
    return buf;
}

static const char *stage_explanation(const Ctx *c, Stage s, char *buf, size_t cap)
{
    const StageInfo *si = stage_info(s);
    buf[0] = '\0';
    if (si) si->explain(&c->L->params, buf, cap);
    return buf;
}

// The header's note: what the last save or revert did, else how many values are edited and how to
// undo or keep them. Returns NULL when there is nothing to say.
static const char *status_text(const Ctx *c, char *buf, size_t cap, Rgba *color)
{
    *color = c->th->status_bg;
    if (c->ex->status) return c->ex->status;
    if (!c->ex->original) return NULL;
    int n = c->ex->edits ? *c->ex->edits : view_param_edit_count(c->ex->original, &c->L->params);
    if (n == 0) return NULL;
    *color = c->th->edited;
    if (training_status(c, buf, cap)) return buf; // the edits are the training's
    if (c->ex->slide)
        snprintf(buf, cap, TRN("\xe2\x9c\x8e %d value edited", "\xe2\x9c\x8e %d values edited", n),
                 n);
    else
        snprintf(buf, cap,
                 TRN("\xe2\x9c\x8e %d value edited  \xc2\xb7  R reverts  \xc2\xb7  Ctrl+S saves",
                     "\xe2\x9c\x8e %d values edited  \xc2\xb7  R reverts  \xc2\xb7  Ctrl+S saves",
                     n),
                 n);
    *color = c->th->edited;
    return buf;
}

// The header's values, shared by its steps.
typedef struct {
    int x, y, w; // the header's box; y the top of line 1
    int ff, sf, l1; // line 1: the name's and formula's font, the head's font, its height
    char head[160]; // the head (or heads) shown at the right of line 1
    char one[96], all[96]; // this head, every head (with their K/V heads when grouped)
    char plain[2][96]; // the same without the K/V heads
    bool grouped; // fewer K/V heads than query heads
    int y2, pf, l2, n, gap; // line 2: its top, font, height, segments and the gap between them
} Header;

// The head's variants: this head and every head, with their K/V heads when grouped.
static void header_head_variants(const Ctx *c, Header *hd)
{
    const ViewState *st = c->st;
    const AttnParams *hp = &c->L->params;
    // Grouped K/V heads: the head's K/V head, and how many K/V heads all the heads
    // share.
    hd->grouped = hp->kv_heads > 0 && hp->kv_heads < hp->heads && hp->heads > 1;
    snprintf(hd->plain[0], sizeof hd->plain[0], TR("head %d  (%d of %d)"), st->head, st->head + 1,
             hp->heads);
    snprintf(hd->plain[1], sizeof hd->plain[1], TR("all %d heads"), hp->heads);
    if (hd->grouped) {
        // TRANSLATORS: the header's head with grouped K/V heads: "head 2  (3 of 4) · K/V head 1".
        snprintf(hd->one, sizeof hd->one, TR("head %d  (%d of %d) \xc2\xb7 K/V head %d"), st->head,
                 st->head + 1, hp->heads, params_kv_head(hp, st->head));
        snprintf(hd->all, sizeof hd->all,
                 // TRANSLATORS: the header of every head with grouped K/V heads: "all 4 heads · 2
                 // K/V heads".
                 TRN("all %d heads \xc2\xb7 %d K/V head", "all %d heads \xc2\xb7 %d K/V heads",
                     hp->kv_heads),
                 hp->heads, hp->kv_heads);
    } else {
        snprintf(hd->one, sizeof hd->one, "%s", hd->plain[0]);
        snprintf(hd->all, sizeof hd->all, "%s", hd->plain[1]);
    }
}

// The head the header names: one head, every head or the panel's, then the heads switched off and
// the zoom.
static void header_head(const Ctx *c, Header *hd)
{
    const ViewState *st = c->st;
    char *head = hd->head;
    size_t cap = sizeof hd->head;
    header_head_variants(c, hd);
    if (st->panel == PANEL_COMPARE) snprintf(head, cap, TR("1 head vs %d"), c->L->params.heads);
    else if (st->panel == PANEL_SHUFFLE) snprintf(head, cap, "%s", TR("shuffle test"));
    else if (st->panel == PANEL_CACHE || st->panel == PANEL_OVERVIEW)
        snprintf(head, cap, "%s", hd->all);
    else if ((st->panel == PANEL_DECODE || st->panel == PANEL_TILES || st->panel == PANEL_ROPE)
             && c->L->params.heads > 1)
        snprintf(head, cap, "%s", hd->one);
    else if (st->view == VIEW_ALL_HEADS) snprintf(head, cap, "%s", hd->all);
    else if (c->L->params.heads == 1) snprintf(head, cap, "%s", TR("one head"));
    else if (stage_result_info(view_stage(st)) && !stage_result_info(view_stage(st))->per_head)
        snprintf(head, cap, "%s", hd->all);
    else snprintf(head, cap, "%s", hd->one);
    // Heads switched off (key O), on every stage: which ones.
    int off = 0, first_off = -1;
    for (int i = 0; i < c->L->params.heads; i++)
        if (params_ablated(&c->L->params, i)) off++, first_off = first_off < 0 ? i : first_off;
    if (off == 1)
        snprintf(head + strlen(head), cap - strlen(head), TR("  \xc2\xb7  head %d off"), first_off);
    else if (off > 1)
        snprintf(head + strlen(head), cap - strlen(head), TR("  \xc2\xb7  %d heads off"), off);
    // A lesson of layers: the layer on the board (Y moves).
    if (c->ex->circuit && c->ex->circuit->ready)
        snprintf(head + strlen(head), cap - strlen(head),
                 TR("  \xc2\xb7  layer %d (of 0\xe2\x80\x93%d)"), c->ex->circuit->layer,
                 c->ex->circuit->layers - 1);
    // The zoom, while the board is not at its own size (key 0 resets it).
    if (st->zoom > 0.0 && fabs(st->zoom - 1.0) > 1e-9)
        snprintf(head + strlen(head), cap - strlen(head), TR("  \xc2\xb7  zoom %d %%"),
                 (int)lround(st->zoom * 100));
}

// The name at the left of line 1: the panel's, else the stage's.
static const char *header_name(const Ctx *c)
{
    ViewPanel panel = c->st->panel;
    const StageInfo *si = stage_info(view_stage(c->st));
    return panel == PANEL_COMPARE    ? TR("Single head vs multi-head")
           : panel == PANEL_SHUFFLE  ? TR("Shuffle test")
           : panel == PANEL_CACHE    ? TR("KV-cache size")
           : panel == PANEL_ROPE     ? TR("RoPE: the pairs turn")
           : panel == PANEL_OVERVIEW ? TR("Every layer's heads")
           : panel == PANEL_CIRCUIT  ? TR("The circuit")
           : panel == PANEL_DECODE   ? TR("Generating with a KV cache")
           : panel == PANEL_TILES    ? TR("FlashAttention: tiles")
           : si                      ? TR(si->name)
                                     : "";
}

// The single-head comparison's formula (key M): the one head's W^Q beside the heads'.
static void header_compare_formula(const Ctx *c, char *formula, size_t cap)
{
    const AttnParams *p = &c->L->params;
    char last[16] = "";
    model_subscript(last, sizeof last, p->heads - 1);
    // Grouped K/V heads: each K/V head's W^K once per query head.
    if (p->kv_heads > 0 && p->kv_heads < p->heads) {
        snprintf(formula, cap,
                 // TRANSLATORS: the single-head comparison's formula (key M) with grouped K/V
                 // heads: W^K and W^V join each K/V head's matrix once for every query head
                 // that reads it (×%d). Keep it as short: the header's room.
                 TR("W^Q = [W\xe2\x82\x80^Q | \xe2\x80\xa6 | W%s^Q], W^K, W^V each \xc3\x97%d; "
                    "the same W^O"),
                 last, p->heads / p->kv_heads);
    } else
        snprintf(formula, cap,
                 TR("W^Q = [W\xe2\x82\x80^Q | \xe2\x80\xa6 | W%s^Q], likewise W^K, W^V; the "
                    "same W^O"),
                 last);
}

// The rotation panel's formula (key W): which pairs turn, and by how much.
static void header_rope_formula(const Ctx *c, char *formula, size_t cap)
{
    const AttnParams *hp = &c->L->params;
    char base[32];
    if (hp->rope_base == floor(hp->rope_base)
        && hp->rope_base < 1e15) // 500,000 rather than 5.000e+05
        cost_format_int(base, sizeof base, (int64_t)hp->rope_base);
    else model_format_value(hp->rope_base, base, sizeof base);
    snprintf(formula, cap,
             // TRANSLATORS: the rotation panel's formula (key W): the pair i of a row at
             // position p turns by p·θ_i.
             TR("pair i = %s turned by p\xc2\xb7\xce\xb8_i,   \xce\xb8_i = 1 / %s^(2i/%d)"),
             hp->rope == ROPE_INTERLEAVED ? "(2i, 2i+1)" : "(i, i+d_k/2)", base, hp->d_k);
}

// The formula beside the name: the panel's, else the stage's.
static void header_formula(const Ctx *c, char *formula, size_t cap)
{
    ViewPanel panel = c->st->panel;
    if (panel == PANEL_COMPARE) header_compare_formula(c, formula, cap);
    else if (panel == PANEL_CACHE)
        snprintf(
            formula, cap, "%s",
            // TRANSLATORS: the KV-cache size panel's formula: G K/V heads, n tokens, a window of W.
            TR("bytes = 2 \xc2\xb7 layers \xc2\xb7 G \xc2\xb7 d_k \xc2\xb7 bytes per number "
               "\xc2\xb7 min(n, W)"));
    else if (panel == PANEL_ROPE) header_rope_formula(c, formula, cap);
    else if (panel == PANEL_CIRCUIT) // attention only: no norm, no MLP
        snprintf(formula, cap, "x_{l+1} = x_l + MHA_l(x_l),  logits = x_L U");
    else if (panel == PANEL_OVERVIEW)
        snprintf(formula, cap,
                 "A = softmax(Q"
                 "K^T / \xe2\x88\x9a"
                 "d_k)");
    else if (panel == PANEL_DECODE)
        snprintf(formula, cap, "%s",
                 TR("z_t = softmax(q_t K_cache^T / \xe2\x88\x9a"
                    "d_k) V_cache"));
    else if (panel == PANEL_TILES)
        snprintf(formula, cap, "%s",
                 TR("m\xe2\x80\xb2 = max(m, rowmax S), l = l e^(m\xe2\x88\x92m\xe2\x80\xb2) + "
                    "\xce\xa3 e^(S\xe2\x88\x92m\xe2\x80\xb2), Z = O / l"));
    else if (panel == PANEL_SHUFFLE)
        snprintf(formula, cap, "%s",
                 c->L->params.positions != POS_NONE
                     ? TR("X = E + P: the tokens move, their positions stay")
                 : c->L->params.mask == MASK_CAUSAL
                     ? TR("no positions, but the causal mask follows the order")
                     : TR("no positions: X = E, the rows move with their tokens"));
    else stage_formula(c, formula, cap);
}

// Grouped K/V heads: the head's K/V head in its colour under the head (as its band in the all-heads
// grid), or every K/V head's colour in turn under "all 4 heads".
static void header_kv_rule(Ctx *c, const Header *hd, int hw)
{
    const AttnParams *hp = &c->L->params;
    int x = hd->x, w = hd->w;
    int rule = c->num_font / 8 > 2 ? c->num_font / 8 : 2, by = hd->y + hd->l1 - rule;
    bool every = !strncmp(hd->head, hd->all, strlen(hd->all))
                 || !strncmp(hd->head, hd->plain[1], strlen(hd->plain[1]));
    for (int g = 0, n = every ? hp->kv_heads : 1; g < n; g++)
        rect(c, x + w - hw + g * hw / n, by, hw / n - (n > 1 ? rule : 0), rule,
             scene_series_color(c, every ? g : params_kv_head(hp, c->st->head)));
}

// Line 1: the name, then the formula in the room the head leaves it, the head at the right.
static void header_line1(Ctx *c, Header *hd)
{
    const ViewState *st = c->st;
    int x = hd->x, y = hd->y, w = hd->w, ff = hd->ff, sf = hd->sf, l1 = hd->l1;
    char formula[512];
    int hw = text_w(c, FONT_BOLD, sf, hd->head);
    int nw = math_at(c, FONT_BOLD, ff, c->th->result, x, y + (l1 - line_h(c, FONT_BOLD, ff)) / 2,
                     header_name(c));
    header_formula(c, formula, sizeof formula);
    int room = w - nw - hw - c->num_font * 2;
    // The formula first: where it does not fit beside the head's K/V head, the head without it (the
    // projections' formula names the K/V head itself).
    const char *shorter = !hd->grouped                 ? NULL
                          : !strcmp(hd->head, hd->one) ? hd->plain[0]
                          : !strcmp(hd->head, hd->all) ? hd->plain[1]
                                                       : NULL;
    if (shorter && math_w(c, FONT_REGULAR, c->text_font, formula) > room) {
        snprintf(hd->head, sizeof hd->head, "%s", shorter);
        room += hw - text_w(c, FONT_BOLD, sf, hd->head);
        hw = text_w(c, FONT_BOLD, sf, hd->head);
    }
    text_in(c, FONT_BOLD, sf, c->th->result, (Box){x + w - hw, y, hw, l1}, LEFT, hd->head);
    if (hd->grouped && st->panel != PANEL_COMPARE && st->panel != PANEL_SHUFFLE)
        header_kv_rule(c, hd, hw);
    int fsize = ff;
    while (fsize > c->text_font && math_w(c, FONT_REGULAR, fsize, formula) > room) fsize--;
    if (math_w(c, FONT_REGULAR, fsize, formula) <= room)
        math_at(c, FONT_REGULAR, fsize, c->th->ink, x + nw + c->num_font,
                y + (l1 - line_h(c, FONT_REGULAR, fsize)) / 2, formula);
}

// Line 2's title beside the strip, in what the strip's names leave (a quarter of the width at
// least); a title longer than that has the line to itself, above the strip, rather than being
// cut. Returns the width it takes beside the strip.
static int header_title(Ctx *c, Header *hd)
{
    const ViewState *st = c->st;
    int x = hd->x, w = hd->w, pf = hd->pf, l2 = hd->l2, n = hd->n, gap = hd->gap;
    char title[256], fitted[512];
    snprintf(title, sizeof title, "%s", c->L->title ? c->L->title : "");
    int name_w = 0;
    for (int i = 0; i < st->stage_count; i++) {
        const StageInfo *s2 = stage_info(st->stages[i]);
        int nw2 = s2 ? math_w(c, FONT_BOLD, pf, TR(s2->short_name)) + 8 : 0;
        if (nw2 > name_w) name_w = nw2;
    }
    int tw_max = w - n * name_w - (n - 1) * gap - c->num_font / 2;
    if (tw_max < w / 4) tw_max = w / 4;
    int tf = pf; // smaller, down to 80 %, before a line of its own
    while (tf > pf * 4 / 5 && tf > c->min_font && text_w(c, FONT_BOLD, tf, title) > tw_max) tf--;
    int title_w = text_w(c, FONT_BOLD, tf, title);
    if (title_w > w / 4 && title_w > tw_max) { // a line of its own
        fit_text(c, FONT_BOLD, pf, title, w, fitted, sizeof fitted);
        text_in(c, FONT_BOLD, pf, c->th->ink, (Box){x, hd->y2, w, l2}, LEFT, fitted);
        hd->y2 += l2;
        hd->l1 += l2;
        title[0] = '\0';
    }
    fit_text(c, FONT_BOLD, tf, title, tw_max, fitted, sizeof fitted);
    return title[0]
               ? text_in(c, FONT_BOLD, tf, c->th->ink, (Box){x, hd->y2, tw_max, l2}, LEFT, fitted)
               : -c->num_font / 2;
}

// One segment of the strip: its stage's short name, with the sub-step on the current one, as much
// of it as fits.
static void header_segment(Ctx *c, const Header *hd, int i, int sx0, int seg, bool cur, bool done)
{
    const StageInfo *s2 = stage_info(c->st->stages[i]);
    int y2 = hd->y2, l2 = hd->l2, pf = hd->pf;
    rect(c, sx0, y2 + 1, seg, l2 - 2, cur ? c->th->result : done ? c->th->panel : c->th->bg);
    frame(c, sx0, y2 + 1, seg, l2 - 2, 1, cur ? c->th->result : c->th->grid);
    const char *label = s2 ? TR(s2->short_name) : "";
    char lab[96];
    if (cur && c->s->substeps > 1) // the board decided this frame's sub-steps (it is drawn first)
        snprintf(lab, sizeof lab, "%s %d/%d", label, c->s->substep + 1, c->s->substeps);
    else snprintf(lab, sizeof lab, "%s", label);
    Rgba col = cur ? c->th->on_result : done ? c->th->ink : c->th->muted;
    FontRole lf = cur ? FONT_BOLD : FONT_REGULAR;
    int size = pf;
    // Too wide: smaller (down to 70 %), then the name over the sub-step on two lines (the stage's
    // name is the class's bearing: never "1/3" alone), then the name alone.
    while (size > pf * 7 / 10 && math_w(c, lf, size, lab) > seg - 4) size--;
    if (math_w(c, lf, size, lab) > seg - 4 && cur && c->s->substeps > 1) {
        char step[32];
        snprintf(step, sizeof step, "%d/%d", c->s->substep + 1, c->s->substeps);
        int half = size;
        while (half > 6 && 2 * line_h(c, FONT_REGULAR, half) > l2 - 2) half--;
        if (math_w(c, lf, half, label) <= seg - 4 && math_w(c, lf, half, step) <= seg - 4) {
            int lh = line_h(c, FONT_REGULAR, half), top = y2 + (l2 - 2 * lh) / 2;
            math_at(c, lf, half, col, sx0 + (seg - math_w(c, lf, half, label)) / 2, top, label);
            math_at(c, lf, half, col, sx0 + (seg - math_w(c, lf, half, step)) / 2, top + lh, step);
            return;
        }
    }
    if (math_w(c, lf, size, lab) > seg - 4) snprintf(lab, sizeof lab, "%s", label);
    int lw = math_w(c, lf, size, lab);
    if (lw <= seg - 2)
        math_at(c, lf, size, col, sx0 + (seg - lw) / 2,
                y2 + (l2 - line_h(c, FONT_REGULAR, size)) / 2, lab);
}

// The strip of stages right of the title (tw wide), the current one filled; where it lies is kept
// for the pointer.
static void header_strip(Ctx *c, const Header *hd, int tw)
{
    const ViewState *st = c->st;
    int sx = hd->x + tw + c->num_font / 2, sw = hd->x + hd->w - sx;
    int seg = (sw - (hd->n - 1) * hd->gap) / hd->n;
    c->s->strip_x = sx;
    c->s->strip_y = hd->y2 + 1;
    c->s->strip_seg = seg;
    c->s->strip_gap = hd->gap;
    c->s->strip_h = hd->l2 - 2;
    c->s->strip_n = seg > 0 ? st->stage_count : 0;
    // The comparison and the shuffle test stand in for the board: no stage is lit while they are
    // up.
    bool board = st->panel != PANEL_COMPARE && st->panel != PANEL_SHUFFLE;
    for (int i = 0; i < st->stage_count; i++)
        header_segment(c, hd, i, sx + i * (seg + hd->gap), seg, i == st->stage_index && board,
                       i < st->stage_index && board);
}

// Header: line 1 the stage's name and formula (what the class reads first) and the head; line 2 a
// strip naming every stage, the current one filled, with the lesson's title and the sub-step.
void draw_header(Ctx *c, int x, int y, int w, int *height)
{
    Header hd;
    hd.x = x;
    hd.y = y;
    hd.w = w;
    hd.ff = (int)lround(c->num_font * 0.95);
    hd.sf = c->text_font;
    hd.l1 = line_h(c, FONT_BOLD, hd.ff) + c->num_font / 4;
    header_head(c, &hd);
    header_line1(c, &hd);
    // Line 2: the title, then one segment per stage with its short name.
    hd.y2 = y + hd.l1;
    hd.pf = (int)lround(c->text_font * 0.85);
    hd.l2 = line_h(c, FONT_REGULAR, hd.pf) + c->num_font / 4;
    hd.n = c->st->stage_count > 0 ? c->st->stage_count : 1;
    hd.gap = 3;
    int tw = header_title(c, &hd);
    header_strip(c, &hd, tw);
    *height = hd.l1 + hd.l2 + c->num_font / 5;
}

// The arithmetic of the focused cell, or a one-line hint. The arithmetic is what the class follows:
// at the board's number size (its floor, digits of 2.6 % of the height), its three lines each
// wrapped into two rather than shrunk, four lines at most. The room is reserved whether or not a
// cell is focused, so the board does not move under the pointer: as many lines as the stage's first
// result cell takes (every cell of a stage has the same terms), three at least.
#define EXPLAIN_LINES 4
static int explain_font(const Ctx *c)
{
    int f = scene_number_floor(c->s->height);
    return f > c->text_font ? f : c->text_font;
}

// The lines the arithmetic's lines take at the width w, within `budget` lines (drawn from (x, y)
// when draw).
static int explain_lines(Ctx *c, char lines[][256], int n, int x, int y, int w, int budget,
                         bool draw)
{
    int shown = n < 3 ? n : 3, fe = explain_font(c), le = line_h(c, FONT_REGULAR, fe),
        left = budget;
    for (int i = 0; i < shown; i++) {
        int room = left - (shown - 1 - i); // a line each for the lines still to come
        left -= wrap_text(c, FONT_REGULAR, fe, i == shown - 1 && i > 0 ? c->th->result : c->th->ink,
                          x, y + (budget - left) * le, w, room < 2 ? room : 2, lines[i], draw)
                / le;
    }
    return budget - left;
}

int explain_height(const Ctx *c, int w)
{
    const MatInfo *r = stage_result_info(view_stage(c->st));
    int lines = 3;
    char text[4][256];
    int n = r ? model_explain(c->L, c->T, (CellRef){r->id, c->st->head, 0, 0}, text, 4, false) : 0;
    if (n > 0) {
        int need =
            explain_lines((Ctx *)c, text, n, 0, 0, w - 2 * (c->num_font / 3), EXPLAIN_LINES, false);
        if (need > lines) lines = need;
    }
    return lines * line_h(c, FONT_REGULAR, explain_font(c)) + c->num_font / 3;
}

// While a question waits: predict first. When the stage is split and the matrix to click is on a
// later part (the question is asked where its inputs show), the part shown and the key to the cells
// to click.
static const char *quiz_hint(const Ctx *c, char *buf, size_t cap)
{
    const ViewState *st = c->st;
    bool shown = false;
    for (size_t i = 0; i < c->s->hit_count && !shown; i++)
        shown = c->s->hits[i].cell.mat == st->quiz_q.mat;
    if (st->quiz_q.input != QUIZ_CLICK || shown || !c->next[0] || c->s->substeps < 2)
        return TR(
            "Predict first: the result stays hidden until the class answers the question below.");
    snprintf(buf, cap,
             TR("Part %d of %d: what goes in. Predict from it, then \xe2\x86\x92 shows the cells "
                "to click "
                "(their values hidden)."),
             c->s->substep + 1, c->s->substeps);
    return buf;
}

void draw_explain(Ctx *c, int x, int y, int w, int h)
{
    char lines[4][256];
    int n = model_explain(c->L, c->T, c->focus, lines, 4, !c->ex->slide);
    if (n == 0 && c->ex->slide) return; // a slide has no pointer to invite
    int f = c->text_font;
    int lh = line_h(c, FONT_REGULAR, f);
    int pad = c->num_font / 3;
    if (n == 0) {
        Stage at = view_stage(c->st);
        const char *hint = at == STAGE_INPUT ? TR("Point at a number to see where it comes from.  "
                                                  "\xe2\x86\x92 next,  N notes,  H all keys")
                           : at == STAGE_ROTATE // RoPE's point, key S
                               ? TR("Point at a cell to see how it was turned.  S shifts every "
                                    "position by k: the scores "
                                    "stay the same.")
                               : TR("Point at (or click) a cell to see how it was computed.  "
                                    "\xe2\x80\x9c.\xe2\x80\x9d fills the "
                                    "result one cell at a time.");
        char fitted[256], part[256];
        if (c->st->quiz_phase == QUIZ_ASKING && c->ex->question)
            hint = quiz_hint(c, part, sizeof part);
        else if (c->s->substeps > 1
                 && c->caption[0]) { // which part of the stage this is, and what comes next
            if (c->next[0])
                snprintf(
                    part, sizeof part,
                    TR("Part %d of %d: %s  (\xe2\x86\x92 %s).   Point at a cell to see how it was "
                       "computed."),
                    c->s->substep + 1, c->s->substeps, c->caption, c->next);
            else
                snprintf(
                    part, sizeof part,
                    TR("Part %d of %d: %s  (\xe2\x86\x92 next stage).   Point at a cell to see "
                       "how it was computed."),
                    c->s->substep + 1, c->s->substeps, c->caption);
            hint = part;
        }
        fit_text(c, FONT_REGULAR, f, hint, w - 2 * pad, fitted, sizeof fitted);
        text_in(c, FONT_REGULAR, f, c->th->muted, (Box){x, y, w, lh}, LEFT, fitted);
        return;
    }
    rect(c, x, y, w, h, c->th->panel);
    int budget = (h - pad / 2) / line_h(c, FONT_REGULAR, explain_font(c));
    explain_lines(c, lines, n, x + pad, y + pad / 2, w - 2 * pad, budget < 3 ? 3 : budget, true);
}

static const char COMPARE_TEXT[] = N_("The single head holds exactly the heads' weights, joined "
                                      "side by side. It computes one attention pattern where the "
                                      "heads compute one each: the split changes the patterns and "
                                      "the output, not the number of weights or multiplications.");
// With grouped K/V heads the single head repeats each K/V head's W^K and W^V: it holds more weights
//.
static const char COMPARE_GROUPED_TEXT[] =
    N_("The single head holds the heads' W^Q joined side by side and each K/V head's W^K and W^V "
       "once for every query head "
       "that reads it. It computes one attention pattern where the heads compute one each: the "
       "split changes the patterns "
       "and the output, and the shared K/V heads need fewer weights; the multiplications are the "
       "same.");

// Predict, then reveal: the question on screen in a framed box, with how to answer (and what was
// typed) while it waits, then the verdict and the answer computed from the trace. A slide shows the
// question (asked) or the answer (revealed) without the verdict or the keys. Returns the height
// used.
static int draw_question(Ctx *c, const LessonQuestion *q, int x, int y, int w, bool draw)
{
    const ViewState *st = c->st;
    // The class reads the question from the back row: its letters at least 2.6 % of the height (a
    // cap height of 0.73 of a 1.2-em line), a little above the sentences' 3 % size where that
    // rounds down.
    int f = c->text_font, legible = (int)ceil(c->s->height * 0.026 / (1.2 * 0.73));
    if (f < legible) f = legible;
    int pad = c->num_font / 4, t = px(c, 2) < 1 ? 1 : px(c, 2);
    int iw = w - 2 * pad - 2 * t, lh = line_h(c, FONT_BOLD, f);
    QuestionAnswer a;
    LessonError err;
    bool answered = question_answer(c->L, c->T, q, st->quiz < 0 ? 0 : st->quiz, &a, &err);
    char head[1200], line[700], words[512];
    if (st->quiz >= 0)
        // TRANSLATORS: questions: predict, then reveal. %s is the teacher's question, in the
        // lesson's language.
        snprintf(head, sizeof head, TR("Question %d of %d: %s"), question_number(c->L, st->quiz),
                 c->L->question_count, q->text);
    else snprintf(head, sizeof head, TR("Question: %s"), q->text);
    int used = t + pad / 2;
    // Answered in the window: the verdict, the answer and (above the box) its arithmetic take the
    // question's room; the question itself was just read (a slide keeps it: it stands alone).
    bool revealed = st->quiz_phase != QUIZ_ASKING && st->quiz_phase != QUIZ_JUDGING;
    if (!revealed || c->ex->slide)
        used += wrap_text(c, FONT_BOLD, f, c->th->result, x + t + pad, y + used, iw, 3, head, draw);
    if (!answered) { // the lesson's question does not fit it (--check says why)
        snprintf(line, sizeof line, TR("No answer: %s"), err.message);
        used += wrap_text(c, FONT_REGULAR, f, c->th->ink, x + t + pad, y + used, iw, 2, line, draw);
    } else if (st->quiz_phase == QUIZ_ASKING || st->quiz_phase == QUIZ_JUDGING) {
        if (c->ex->slide) question_prompt_paper(q, &a, words, sizeof words);
        else question_prompt(q, &a, words, sizeof words);
        if (st->quiz_q.input == QUIZ_TYPE && !c->ex->slide)
            snprintf(line, sizeof line, "%s   %s %s\xe2\x96\x8f", words, TR("Your number:"),
                     st->quiz_input);
        else snprintf(line, sizeof line, "%s", words);
        if (!c->ex->slide)
            snprintf(line + strlen(line), sizeof line - strlen(line), "   %s", TR("(Esc: skip)"));
        used += wrap_text(c, FONT_REGULAR, f, c->th->ink, x + t + pad, y + used, iw, 2, line, draw);
    } else {
        int lx = x + t + pad, room = iw;
        if (!c->ex->slide) { // the verdict: a badge, then what the class gave
            const char *verdict =
                st->quiz_right ? TR("\xe2\x9c\x93 Right") : TR("\xe2\x9c\x97 Not quite");
            Rgba bg = st->quiz_right ? (Rgba){0, 122, 84, 255} : (Rgba){190, 60, 0, 255};
            int bw = text_w(c, FONT_BOLD, f, verdict) + 2 * pad;
            if (draw) {
                rect(c, lx, y + used, bw, lh, bg);
                text_in(c, FONT_BOLD, f, (Rgba){255, 255, 255, 255},
                        (Box){lx + pad, y + used, bw - 2 * pad, lh}, LEFT, verdict);
            }
            char said[400];
            QuestionResponse r = {st->quiz_cell, st->quiz_value, st->quiz_choice};
            question_response(q, c->L, &r, said, sizeof said);
            char fitted[256];
            fit_text(c, FONT_REGULAR, f, said, room - bw - pad, fitted, sizeof fitted);
            if (draw)
                text_in(c, FONT_REGULAR, f, c->th->ink,
                        (Box){lx + bw + pad, y + used, room - bw - pad, lh}, LEFT, fitted);
            used += lh + pad / 3;
        }
        question_describe(q, &a, c->L, words, sizeof words);
        snprintf(line, sizeof line, TR("Answer: %s"), words);
        int fa = scene_number_floor(
            c->s->height); // the answer, at the board's number size as the arithmetic
        used +=
            wrap_text(c, FONT_BOLD, fa > f ? fa : f, c->th->ink, lx, y + used, room, 2, line, draw);
    }
    used += pad / 2 + t;
    if (draw)
        frame(c, x, y, w, used, t,
              c->th->result); // draw_footer laid the box's panel colour under the text
    return used;
}

static const char SHUFFLE_TEXT[] = N_("Attention alone cannot tell the order of the tokens: "
                                      "without positions, shuffling them only moves the output "
                                      "rows. Positions added to the embeddings make the order "
                                      "count. Shift+X: another order;  X: back to the board.");
int draw_footer(Ctx *c, int x, int y, int w, bool draw)
{
    int f = c->text_font;
    const LessonQuestion *q = c->ex->question;
    if (q && c->st->quiz_phase != QUIZ_NONE && c->st->panel != PANEL_COMPARE
        && c->st->panel != PANEL_SHUFFLE) {
        if (draw) rect(c, x, y, w, draw_question(c, q, x, y, w, false), c->th->panel);
        return draw_question(c, q, x, y, w, draw);
    }
    if (c->st->panel == PANEL_COMPARE) {
        bool grouped = c->L->params.kv_heads > 0 && c->L->params.kv_heads < c->L->params.heads;
        // The outputs' own part (pair_part 1) draws them over the sentence's room, which keeps its
        // height: the panel's layout is the same on both parts.
        return wrap_text(c, FONT_REGULAR, f, c->th->ink, x, y, w, 3,
                         TR(grouped ? COMPARE_GROUPED_TEXT : COMPARE_TEXT),
                         draw && c->st->pair_part == 0);
    }
    if (c->st->panel == PANEL_SHUFFLE)
        return wrap_text(c, FONT_REGULAR, f, c->th->ink, x, y, w, 3, TR(SHUFFLE_TEXT), draw);
    if (c->st->panel == PANEL_OVERVIEW) // not the stage's text under it
        return wrap_text(c, FONT_REGULAR, f, c->th->ink, x, y, w, 3,
                         // TRANSLATORS: under the overview of every layer's heads (Shift+A).
                         TR("Each square is one head's attention weights A in one layer: its rows "
                            "are the queries and its columns the keys, in the order of the tokens "
                            "above; the colour bar gives the weights."),
                         draw);
    const char *panel =
        panel_text_footer(c->st->panel); // the decode and tiles panels (panel_text.c)
    if (panel) return wrap_text(c, FONT_REGULAR, f, c->th->ink, x, y, w, 3, TR(panel), draw);
    char text[768];
    char note[1600];
    Rgba ncol;
    const char *status = status_text(c, note, sizeof note, &ncol);
    if (status && !(c->st->notes && c->L->notes && c->L->notes[0])) {
        // What the last save or revert did, or the edit count: in the explanation's place (the room
        // below the board is reserved, so it never moves the board), on its colour, whole.
        int pad = c->num_font / 6;
        int used = wrap_text(c, FONT_BOLD, f, c->th->white, x + pad, y + pad, w - 2 * pad, 3,
                             status, false)
                   + 2 * pad;
        if (draw) {
            rect(c, x, y, w, used, ncol);
            wrap_text(c, FONT_BOLD, f, c->th->white, x + pad, y + pad, w - 2 * pad, 3, status,
                      true);
        }
        return used;
    }
    if (c->st->notes && c->L->notes && c->L->notes[0]) // the lesson's notes (key N), on any stage
    { // in pages of the room below the board: N turns them (the last line of a page says so)
        int lines = c->notes_lines > 0 ? c->notes_lines : 9,
            page = c->st->notes_page > 0 ? c->st->notes_page : 0;
        bool more = false;
        int per = lines > 1 ? lines - 1 : 1; // a line for "N: more"
        WrapRequest rq = {FONT_REGULAR, f, c->th->ink, x, y, w, page * per, lines};
        wrap_text_page(c, &rq, c->L->notes, false, &more);
        if (!more) per = lines; // the whole rest fits on this page
        rq.skip = page * per, rq.max_lines = per;
        int used = wrap_text_page(c, &rq, c->L->notes, draw, &more);
        if (more) {
            char hint[96];
            snprintf(hint, sizeof hint, TR("N: more of the notes (page %d)"), page + 2);
            used += wrap_text(c, FONT_BOLD, f, c->th->result, x, y + used, w, 1, hint, draw);
        }
        if (draw) c->s->notes_more = more;
        return used;
    }
    if (model_rope_shift_note(&c->L->params, c->T, view_stage(c->st), c->st->head, text,
                              sizeof text)) // key S
        return wrap_text(c, FONT_REGULAR, f, c->th->ink, x, y, w, 3, text, draw);
    return wrap_text(c, FONT_REGULAR, f, c->th->ink, x, y, w, 3,
                     stage_explanation(c, view_stage(c->st), text, sizeof text), draw);
}

// The width a key of the help wraps in: its column's, narrowed while it keeps as many lines, so a
// key of two lines breaks near its middle ("←  Backspace" over "PageUp  ↑", never "↑" alone).
static int help_key_width(Ctx *c, int f, const char *key, int kw)
{
    int lines = wrap_text(c, FONT_BOLD, f, c->th->ink, 0, 0, kw, 4, key, false), best = kw;
    for (int w = kw - f / 2; w > kw / 2; w -= f / 2) {
        if (wrap_text(c, FONT_BOLD, f, c->th->ink, 0, 0, w, 4, key, false) != lines) break;
        best = w;
    }
    return text_w(c, FONT_BOLD, f, key) <= kw ? kw : best;
}

// The help (its lines are src/model/keys.def's: view_help_text) at the back row's size (letters of
// 2.6 % of the height, the board's number floor), each key beside its meaning, both wrapped in
// their columns, in pages when they do not all fit: the page shown is the view's help_page (any
// integer: it wraps around), and the last line says how to turn the pages and close.
void draw_help(Ctx *c, int w, int h)
{
    enum { ROWS = VIEW_HELP_ROWS };
    int f = scene_number_floor(h), pad = f * 3 / 4, gap = f / 4;
    int pw = w - 20, ph = h - 20, x, y;
    draw_overlay(c, w, h, &pw, &ph, &x, &y);
    int iw = pw - 2 * pad, kw = 0;
    for (int i = 0; i < ROWS; i++) {
        int a = text_w(c, FONT_BOLD, f, TR(view_help_text(i, 0)));
        if (a > kw) kw = a;
    }
    if (kw > iw * 3 / 10) kw = iw * 3 / 10; // a long key wraps in its column
    int dw = iw - kw - pad;
    // The pages: page_of[i] the page of row i, each page's rows from its top down to the footer's
    // lines.
    char foot[320];
    int title_h = line_h(c, FONT_BOLD, f) + gap;
    snprintf(foot, sizeof foot,
             TR("Page %d of %d  \xc2\xb7  \xe2\x86\x92 PageDown: next page  \xc2\xb7  \xe2\x86\x90 "
                "PageUp: previous page  \xc2\xb7  Esc, H: close"),
             9, 9);
    int foot_h = wrap_text(c, FONT_BOLD, f, c->th->result, 0, 0, iw, 2, foot, false);
    int body = ph - 2 * pad - title_h - foot_h - gap, used = 0, pages = 1, page_of[ROWS],
        row_h[ROWS];
    for (int i = 0; i < ROWS; i++) {
        const char *key = TR(view_help_text(i, 0)), *text = TR(view_help_text(i, 1));
        int a = wrap_text(c, FONT_BOLD, f, c->th->ink, 0, 0, help_key_width(c, f, key, kw), 4, key,
                          false);
        int b = wrap_text(c, FONT_REGULAR, f, c->th->ink, 0, 0, dw, 6, text, false);
        row_h[i] = (a > b ? a : b) + gap;
        if (used > 0 && used + row_h[i] > body) {
            pages++;
            used = 0;
        }
        page_of[i] = pages - 1;
        used += row_h[i];
    }
    int page = ((c->st->help_page % pages) + pages) % pages;
    text_at(c, FONT_BOLD, f, c->th->result, x + pad, y + pad, TR("Keys"));
    int yy = y + pad + title_h;
    for (int i = 0; i < ROWS; i++) {
        if (page_of[i] != page) continue;
        const char *key = TR(view_help_text(i, 0)), *text = TR(view_help_text(i, 1));
        wrap_text(c, FONT_BOLD, f, c->th->ink, x + pad, yy, help_key_width(c, f, key, kw), 4, key,
                  true);
        wrap_text(c, FONT_REGULAR, f, c->th->ink, x + pad + kw + pad, yy, dw, 6, text, true);
        yy += row_h[i];
    }
    snprintf(foot, sizeof foot,
             // TRANSLATORS: the help's last line: the page shown, of how many, and the keys that
             // turn the pages and close it.
             TR("Page %d of %d  \xc2\xb7  \xe2\x86\x92 PageDown: next page  \xc2\xb7  \xe2\x86\x90 "
                "PageUp: previous page  \xc2\xb7  Esc, H: close"),
             page + 1, pages);
    wrap_text(c, FONT_BOLD, f, c->th->result, x + pad, y + ph - pad - foot_h, iw, 2, foot, true);
}

// A question on top of everything (SceneExtras.confirm): its first line as the title, the rest
// below, at the size of the board's sentences, in a box as wide as the screen allows.
void draw_confirm(Ctx *c, int w, int h, const char *msg)
{
    const char *nl = strchr(msg, '\n');
    char title[256];
    snprintf(title, sizeof title, "%.*s", nl ? (int)(nl - msg) : (int)strlen(msg), msg);
    const char *body = nl ? nl + 1 : "";
    int f = c->text_font, pad = c->num_font;
    int pw = w * 7 / 10, iw = pw - 2 * pad;
    int th = wrap_text(c, FONT_BOLD, f, c->th->result, 0, 0, iw, 3, title, false);
    int ph = 2 * pad + th + pad / 2
             + wrap_text(c, FONT_REGULAR, f, c->th->ink, 0, 0, iw, 6, body, false);
    int x, y;
    draw_overlay(c, w, h, &pw, &ph, &x, &y);
    wrap_text(c, FONT_BOLD, f, c->th->result, x + pad, y + pad, pw - 2 * pad, 3, title, true);
    wrap_text(c, FONT_REGULAR, f, c->th->ink, x + pad, y + pad + th + pad / 2, pw - 2 * pad, 6,
              body, true);
}

// The footer's height with the question of *v (c->st is v) asked, and answered with revealed_extra
// more: the larger.
static int footer_asked_answered(Ctx *c, ViewState *v, int w, int revealed_extra)
{
    static const QuizPhase PHASES[] = {QUIZ_ASKING, QUIZ_REVEALED};
    int most = 0;
    for (size_t k = 0; k < sizeof PHASES / sizeof PHASES[0]; k++) {
        v->quiz_phase = PHASES[k];
        v->quiz_right = k == 1;
        int h = draw_footer(c, 0, 0, w, false) + (k == 1 ? revealed_extra : 0);
        if (h > most) most = h;
    }
    return most;
}

// The footer's reserved room: the most that the stage's explanation and each of the lesson's
// questions on this stage (asked and answered) take, so that none of them ever moves the board.
int footer_reserve(Ctx *c, int w, int revealed_extra)
{
    const ViewState *st = c->st;
    const SceneExtras *ex = c->ex;
    ViewState v = *st;
    SceneExtras e = *ex;
    c->st = &v;
    c->ex = &e;
    v.notes = false;
    v.quiz_phase = QUIZ_NONE;
    e.question = NULL;
    int most = draw_footer(c, 0, 0, w, false),
        h; // the notes take the explanation's and the arithmetic's room
    for (int i = 0; i < c->L->question_count && st->panel == PANEL_NONE; i++) {
        Stage qs;
        if (!model_stage_from_key(c->L->questions[i].stage, &qs) || qs != view_stage(st)) continue;
        e.question = &c->L->questions[i];
        v.quiz = i;
        if ((h = footer_asked_answered(c, &v, w, revealed_extra)) > most) most = h;
    }
    // P's automatic questions (the softmax stage's, of the head shown): asked and answered in the
    // same room, over the rows they ask about (the token's name changes the question's length).
    for (int row = 0; row < c->L->params.n && row < 16 && c->T && st->panel == PANEL_NONE
                      && view_stage(st) == STAGE_SOFTMAX;
         row++) {
        LessonQuestion q;
        if (!question_auto(&q, c->L, c->T, st->head, (unsigned)row)) break;
        e.question = &q;
        v.quiz = VIEW_QUIZ_AUTO;
        if ((h = footer_asked_answered(c, &v, w, revealed_extra)) > most) most = h;
        lesson_question_free(&q);
    }
    c->st = st;
    c->ex = ex;
    return most;
}

void draw_banner(Ctx *c, int w, const char *msg, int *height)
{
    int f = px(c, 17);
    int pad = px(c, 10);
    // Over the header, never pushing the board: as many lines as the header's room holds (*height
    // in: it).
    int lines = *height > 0 ? (*height - 2 * pad) / line_h(c, FONT_BOLD, f) : 3;
    if (lines < 1) lines = 1;
    if (lines > 3) lines = 3;
    int used = wrap_text(c, FONT_BOLD, f, c->th->white, 0, 0, w - 2 * pad, lines, msg, false);
    rect(c, 0, 0, w, used + 2 * pad, c->th->banner_bg);
    wrap_text(c, FONT_BOLD, f, c->th->white, pad, pad, w - 2 * pad, lines, msg, true);
    *height = used + 2 * pad;
}

// The help's rows for the page's help dialog (gui_web.inc: the same list as an HTML table): row i's
// keys (col 0) or what they do (col 1), untranslated (TR them); "Keys", the title, as row -1. NULL
// past the end.
const char *scene_help_text(int i, int col)
{
    if (i == -1) return col == 0 ? N_("Keys") : NULL;
    return view_help_text(i, col);
}
