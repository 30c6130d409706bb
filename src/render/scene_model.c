// A checkpoint's layer's own rooms (--model in the window): the next-token stage as a bar chart of
// the most probable next tokens after one position (the pointed-at token, else the last), and the
// overview of every layer's heads (BertViz's model view). Their numbers are the run's
// (AttnParams.stream); nothing is recomputed.
#include "render/scene_model.h"
#include "render/scene_heatmap.h"
#include "render/scene_text.h"
#include "hf/layer_stream.h"

// The position the chart shows: the row of the focused MAT_NEXT cell (a token pointed at or
// clicked), else the last one.
static int next_position(const Ctx *c)
{
    CellRef f = view_focus_cell(c->st);
    int n = c->L->params.n;
    return f.mat == MAT_NEXT && f.row >= 0 && f.row < n ? f.row : n - 1;
}

// The tokens in a row of chips, each a hit on its position (pointing chooses the position), the
// shown one filled. Returns the height used.
static int position_chips(Ctx *c, int x, int y, int w, int f, int shown)
{
    const AttnParams *p = &c->L->params;
    int lh = line_h(c, FONT_REGULAR, f), pad = f / 3, cx = x, cy = y, rows = 1;
    for (int i = 0; i < p->n; i++) {
        char label[96], cut[96];
        model_axis_label(c->L, AXIS_QUERY, i, label, sizeof label);
        fit_text(c, FONT_REGULAR, f, label, w / 3, cut, sizeof cut);
        int cw = text_w(c, FONT_REGULAR, f, cut) + 2 * pad;
        if (cx + cw > x + w && cx > x) {
            cx = x;
            cy += lh + pad;
            rows++;
        }
        if (i == shown) rect(c, cx, cy, cw, lh, c->th->result);
        else frame(c, cx, cy, cw, lh, 1, c->th->grid);
        text_at(c, FONT_REGULAR, f, i == shown ? c->th->on_result : c->th->ink, cx + pad, cy, cut);
        scene_push_hit(c->s, cx, cy, cw, lh, (CellRef){MAT_NEXT, 0, i, 0}, -1);
        cx += cw + pad;
    }
    return rows * (lh + pad);
}

// The bars: rank r's token, a bar as long as its probability (the longest: the first), the
// probability. Returns how many bars: every one the header announces, the air between them given
// up first, else as many as fit at the floor; *row: the height of each.
static int next_bars(Ctx *c, int x, int y, int w, int h, int pos, int f, int *row)
{
    const LayerStream *s = c->L->params.stream;
    int lh = line_h(c, FONT_MONO, f), gap = f / 4, count = s->top;
    while (gap > 0 && count * (lh + gap) > h) gap--;
    while (count > 1 && count * (lh + gap) > h)
        count--; // as many as fit at the floor, the most probable first
    *row = lh + gap;
    int label_w = 0, num_w = text_w(c, FONT_MONO, f, "0.0000") + f / 2;
    for (int r = 0; r < count; r++) {
        int tw = text_w(c, FONT_MONO, f, s->top_token[(size_t)pos * (size_t)s->top + (size_t)r]);
        label_w = tw > label_w ? tw : label_w;
    }
    if (label_w > w / 3) label_w = w / 3;
    double top = s->top_p[(size_t)pos * (size_t)s->top];
    int bar_x = x + label_w + f / 2, bar_max = w - label_w - f / 2 - num_w;
    for (int r = 0; r < count; r++) {
        size_t k = (size_t)pos * (size_t)s->top + (size_t)r;
        int ry = y + r * (lh + gap), bw = top > 0 ? (int)lround(bar_max * s->top_p[k] / top) : 0;
        char cut[96], num[32];
        fit_text(c, FONT_MONO, f, s->top_token[k], label_w, cut, sizeof cut);
        text_in(c, FONT_MONO, f, c->th->ink, (Box){x, ry, label_w, lh}, RIGHT, cut);
        CellRef ref = {MAT_NEXT, 0, pos, r};
        cell_rect(c, bar_x, ry + lh / 8, bw > 1 ? bw : 1, lh - lh / 4,
                  r == 0 ? c->th->result : c->th->muted, ref);
        model_format_value(s->top_p[k], num, sizeof num);
        text_at(c, FONT_MONO, f, c->th->ink, bar_x + bw + f / 3, ry, num);
        tag_last(c, ROLE_NUMBER, ref);
        scene_push_hit(c->s, x, ry, w, lh, ref, -1);
    }
    return count;
}

void draw_next_chart(Ctx *c, int x, int y, int w, int h)
{
    const AttnParams *p = &c->L->params;
    int f = c->num_font, floor_f = scene_number_floor(c->s->height);
    int pos = next_position(c), cf = f * 4 / 5 > floor_f ? f * 4 / 5 : floor_f;
    int used = position_chips(c, x, y, w, cf, pos) + f / 3;
    char label[96], head[240];
    model_axis_label(c->L, AXIS_QUERY, pos, label, sizeof label);
    // TRANSLATORS: above the next-token chart: the token pointed at, its position, how many bars.
    snprintf(head, sizeof head, TR("after \"%s\" (position %d): the %d most probable next tokens"),
             label, pos, p->stream->top);
    char cut[240];
    fit_text(c, FONT_BOLD, cf, head, w, cut, sizeof cut);
    text_at(c, FONT_BOLD, cf, c->th->ink, x, y + used, cut);
    used += line_h(c, FONT_BOLD, cf) + f / 3;
    while (f > floor_f && p->stream->top * (line_h(c, FONT_MONO, f) + f / 4) > h - used) f--;
    int row = 0, bars = next_bars(c, x, y + used, w, h - used, pos, f, &row);
    // The chart as the layout audit reads a matrix: position pos's row of the top tokens, its bars
    // shown, at the bars' number size.
    SceneBox box = {.mat = MAT_NEXT,
                    .rows = 1,
                    .cols = p->stream->top,
                    .nr = 1,
                    .nc = bars,
                    .x = x,
                    .y = y,
                    .w = w,
                    .h = used + bars * row,
                    .num_font = f,
                    .result = true};
    snprintf(box.title, sizeof box.title, "%s", cut);
    scene_push_box(c->s, &box);
}

// ---- the overview: every layer's heads (key W) ----

// One small heatmap: head h of layer l's weights (n x n, floats) into (x, y, cell x cell pixels
// each); a cell of several tokens when the heatmap has fewer pixels than tokens (the largest weight
// among them).
static void overview_tile(Ctx *c, const LayerStream *s, int l, int h, int x, int y, int side)
{
    const float *w =
        s->overview + ((size_t)l * (size_t)s->heads + (size_t)h) * (size_t)s->n * (size_t)s->n;
    int n = s->n, k = n <= side ? 1 : (n + side - 1) / side, cells = (n + k - 1) / k,
        cell = side / cells;
    if (cell < 1) cell = 1;
    for (int i = 0; i < cells; i++)
        for (int j = 0; j < cells; j++) {
            float v = 0;
            for (int a = i * k; a < (i + 1) * k && a < n; a++)
                for (int b = j * k; b < (j + 1) * k && b < n; b++)
                    v = w[(size_t)a * (size_t)n + (size_t)b] > v
                            ? w[(size_t)a * (size_t)n + (size_t)b]
                            : v;
            DrawCmd *d = scene_push(c->s, CMD_RECT, x + j * cell, y + i * cell, cell, cell,
                                    colormap_rgb(c->st->colormap, v));
            if (d) d->role = ROLE_TILE, d->cell = (CellRef){MAT_WEIGHTS, h, l, 0};
        }
}

void draw_overview(Ctx *c, int x, int y, int w, int h)
{
    const AttnParams *p = &c->L->params;
    const LayerStream *s = p->stream;
    int f = scene_number_floor(c->s->height), lh = line_h(c, FONT_REGULAR, f);
    if (!s || !s->overview) {
        text_in(c, FONT_REGULAR, c->text_font, c->th->muted, (Box){x, y, w, h}, CENTER,
                TR("The overview of every layer's heads is kept only for a checkpoint's layer "
                   "(--model), and only "
                   "while it holds at most 32 Mi numbers."));
        return;
    }
    char head[200];
    snprintf(head, sizeof head,
             // TRANSLATORS: the overview's heading: layers, heads, the layer stepped through.
             TR("Attention weights of all %d layers \xc3\x97 %d heads (layer %d framed)"),
             s->layers, s->heads, s->layer);
    char cut[200];
    fit_text(c, FONT_BOLD, f, head, w, cut, sizeof cut);
    text_at(c, FONT_BOLD, f, c->th->ink, x, y, cut);
    y += lh + f / 3;
    h -= lh + f / 3;
    // The tokens the squares' rows and columns stand for, in order, at the floor.
    char toks[600] = "", tok[96];
    for (int i = 0; i < p->n && strlen(toks) + 100 < sizeof toks; i++) {
        model_axis_label(c->L, AXIS_QUERY, i, tok, sizeof tok);
        snprintf(toks + strlen(toks), sizeof toks - strlen(toks), "%s%s", i ? "  " : "", tok);
    }
    char axes[700];
    // TRANSLATORS: over the overview (Shift+A): each square's rows are the queries, its columns the
    // keys, and these are the tokens, in order.
    snprintf(axes, sizeof axes, TR("queries \xe2\x86\x93 and keys \xe2\x86\x92: %s"), toks);
    int used = wrap_text(c, FONT_REGULAR, f, c->th->muted, x, y, w, 2, axes, true) + f / 4;
    y += used, h -= used;
    int bar = colorbar_width(c, MAT_WEIGHTS) + f / 2; // the weights' scale at the right
    w -= bar;
    int label_w = text_w(c, FONT_REGULAR, f, "L00") + f / 2, gap = 2;
    int side_w = (w - label_w) / s->heads - gap, side_h = (h - lh) / s->layers - gap;
    int side = side_w < side_h ? side_w : side_h;
    if (side < 2) side = 2;
    int step = (lh + gap) / (side + gap)
               + 1; // a label every `step` rows, so that labels at the floor never overlap
    for (int hd = 0; hd < s->heads; hd++) {
        char t[16];
        snprintf(t, sizeof t, "%d", hd);
        if (hd % step == 0)
            text_in(c, FONT_REGULAR, f, c->th->muted,
                    (Box){x + label_w + hd * (side + gap), y, side, lh}, CENTER, t);
    }
    y += lh;
    for (int l = 0; l < s->layers; l++) {
        int ry = y + l * (side + gap);
        char t[16];
        snprintf(t, sizeof t, "L%d", l);
        if (l % step == 0 || l == s->layer)
            text_in(c, FONT_REGULAR, f, l == s->layer ? c->th->ink : c->th->muted,
                    (Box){x, ry, label_w - f / 2, side}, RIGHT, t);
        for (int hd = 0; hd < s->heads; hd++)
            overview_tile(c, s, l, hd, x + label_w + hd * (side + gap), ry, side);
    }
    int fy = y + s->layer * (side + gap) - gap, fw = s->heads * (side + gap) + gap;
    frame(c, x + label_w - gap, fy, fw, side + 2 * gap, px(c, 3), c->th->focus);
    draw_colorbar(c, MAT_WEIGHTS, 1.0, x + label_w + fw + f / 2, y, colorbar_width(c, MAT_WEIGHTS),
                  s->layers * (side + gap) - gap);
}
