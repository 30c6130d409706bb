// The circuit panel of a lesson of layers (scene_circuit.h): at the left training's loss (the
// cliff between 0.75 and 0.25 ln V marked) and the heads' previous-token and induction scores at
// each checkpoint; at the right every head's attention pattern on the lesson's tokens, layer by
// layer side by side, under them each head's scores and the repeats with it switched off, and the
// K-composition. Every text at the number floor or above.
#include "render/scene_circuit.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/i18n.h"
#include "model/panel_circuit.h"
#include "render/colormap.h"
#include "render/scene_text.h"

// A plot's frame and its range: x from step 0 to `steps`, y from lo (foot) to hi (top).
typedef struct {
    int x, y, w, h, steps;
    double lo, hi;
} Plot;

static int plot_x(const Plot *p, double step)
{
    return p->x + 1 + (int)lround(step / p->steps * (p->w - 3));
}
static int plot_y(const Plot *p, double v)
{
    if (v < p->lo) v = p->lo;
    if (v > p->hi) v = p->hi;
    return p->y + 1 + (int)lround((p->hi - v) / (p->hi - p->lo) * (p->h - 3));
}

static void seg(Ctx *c, int x0, int y0, int x1, int y1, Rgba col, int t)
{
    DrawCmd *d = scene_push(c->s, CMD_LINE, x0, y0, x1 - x0, y1 - y0, col);
    if (d) d->thickness = t;
}

// A title line cut to w at the floor; returns its height.
static int title_line(Ctx *c, int x, int y, int w, const char *t, bool bold)
{
    int f = ctx_number_floor(c);
    char cut[300];
    fit_text(c, bold ? FONT_BOLD : FONT_REGULAR, f, t, w, cut, sizeof cut);
    text_at(c, bold ? FONT_BOLD : FONT_REGULAR, f, c->th->ink, x, y, cut);
    return line_h(c, FONT_REGULAR, f);
}

// A loss curve of count steps in the plot, a column a pixel.
static void loss_curve(Ctx *c, const Plot *p, const double *loss, int count, Rgba col)
{
    int px = -1, py = 0;
    for (int k0 = 0; k0 < p->w - 2; k0++) {
        int k = (int)((double)k0 / (p->w - 3 > 0 ? p->w - 3 : 1) * p->steps);
        if (k >= count) break;
        int xx = p->x + 1 + k0, yy = plot_y(p, loss[k]);
        if (px >= 0) seg(c, px, py, xx, yy, col, 2);
        px = xx, py = yy;
    }
}

// The legend of the two lessons (--beside): a stroke of each curve's colour (the lesson trained
// beside in ink) and its layers and heads, a line each (or why the other lesson does not train
// beside); returns the height taken.
static int beside_legend(Ctx *c, const CircuitPanel *cp, int x, int y, int w)
{
    int f = ctx_number_floor(c), lh = line_h(c, FONT_REGULAR, f), dash = f;
    char t[300];
    if (cp->beside_why && cp->beside_why[0]) return title_line(c, x, y, w, cp->beside_why, false);
    for (int k = 0; k < 2; k++) {
        Rgba col = k ? c->th->ink : c->th->result;
        seg(c, x, y + k * lh + lh / 2, x + dash, y + k * lh + lh / 2, col, 3);
        panel_circuit_legend(cp, k == 1, t, sizeof t);
        title_line(c, x + dash + f / 3, y + k * lh, w - dash - f / 3, t, false);
    }
    return 2 * lh;
}

// The loss of every step taken, chance (ln V) a grey line, the cliff's two levels marked, the
// step shown a line across; a press there picks a checkpoint (the scene keeps the plot's place).
// With a lesson trained beside, its loss too, in another colour, and a legend of the two.
static void loss_plot(Ctx *c, const CircuitPanel *cp, int x, int y, int w, int h)
{
    int f = ctx_number_floor(c), lh = line_h(c, FONT_REGULAR, f);
    char t[200];
    snprintf(t, sizeof t, TR("Loss (chance ln %d)"), cp->vocab);
    y += title_line(c, x, y, w, t, true);
    h -= lh;
    if (cp->beside) {
        int taken = beside_legend(c, cp, x, y, w);
        y += taken;
        h -= taken;
    }
    int aw = text_w(c, FONT_REGULAR, f, "0.00") + f / 3;
    Plot p = {x + aw, y, w - aw, h, cp->steps > 0 ? cp->steps : 1, 0.0, cp->chance * 1.15};
    frame(c, p.x, p.y, p.w, p.h, 1, c->th->grid);
    snprintf(t, sizeof t, "%.2f", cp->chance);
    text_in(c, FONT_REGULAR, f, c->th->muted,
            (Box){x, plot_y(&p, cp->chance) - lh / 2, aw - f / 3, lh}, RIGHT, t);
    text_in(c, FONT_REGULAR, f, c->th->muted, (Box){x, p.y + p.h - lh, aw - f / 3, lh}, RIGHT, "0");
    seg(c, p.x, plot_y(&p, cp->chance), p.x + p.w - 1, plot_y(&p, cp->chance), c->th->muted, 1);
    for (int q = 1; q <= 3; q += 2) // the cliff's levels: 0.75 and 0.25 ln V
        seg(c, p.x, plot_y(&p, cp->chance * q / 4), p.x + p.w - 1, plot_y(&p, cp->chance * q / 4),
            c->th->grid, 1);
    if (!cp->training || cp->loss_count == 0) {
        char cut[200]; // cut to the plot in a narrow window
        fit_text(c, FONT_REGULAR, f, TR("T trains: the loss falls off a cliff"), p.w - f / 2, cut,
                 sizeof cut);
        text_in(c, FONT_REGULAR, f, c->th->muted, (Box){p.x, p.y, p.w, p.h}, CENTER, cut);
        return;
    }
    if (cp->beside && cp->beside_count > 0)
        loss_curve(c, &p, cp->beside_loss, cp->beside_count, c->th->ink);
    loss_curve(c, &p, cp->loss, cp->loss_count, c->th->result);
    int sx = plot_x(&p, cp->shown_step);
    seg(c, sx, p.y, sx, p.y + p.h - 1, c->th->focus, 2);
    c->s->train_x = p.x + 1, c->s->train_w = p.w - 3, c->s->train_y = p.y, c->s->train_h = p.h;
    c->s->train_steps = p.steps;
}

// One score of every head over the checkpoints (which: 0 previous-token, 1 induction), a colour a
// head, with its legend.
static void score_plot(Ctx *c, const CircuitPanel *cp, int which, int x, int y, int w, int h)
{
    int f = ctx_number_floor(c), lh = line_h(c, FONT_REGULAR, f), LH = cp->layers * cp->heads;
    y += title_line(c, x, y, w, which ? TR("Induction score") : TR("Previous-token score"), true);
    h -= lh;
    int lw = text_w(c, FONT_REGULAR, f, "L0 H0") + f / 2,
        aw = text_w(c, FONT_REGULAR, f, "1") + f / 3;
    Plot p = {x + aw, y, w - aw - lw, h, cp->steps > 0 ? cp->steps : 1, 0.0, 1.0};
    frame(c, p.x, p.y, p.w, p.h, 1, c->th->grid);
    text_in(c, FONT_REGULAR, f, c->th->muted, (Box){x, p.y, aw - f / 3, lh}, RIGHT, "1");
    text_in(c, FONT_REGULAR, f, c->th->muted, (Box){x, p.y + p.h - lh, aw - f / 3, lh}, RIGHT, "0");
    for (int k = 0; k < LH && k < SESSION_CIRCUIT_MAX_HEADS; k++) {
        Rgba col = scene_series_color(c, k);
        char t[32];
        snprintf(t, sizeof t, "L%d H%d", k / cp->heads, k % cp->heads);
        if (which == 0) // the legend once, beside the two plots
            text_at(c, FONT_BOLD, f, col, p.x + p.w + f / 3, p.y + k * lh, t);
        for (int i = 1; i < cp->points; i++) {
            const SessionCircuitPoint *a = &cp->point[i - 1], *b = &cp->point[i];
            double va = which ? a->induction[k] : a->prev_token[k];
            double vb = which ? b->induction[k] : b->prev_token[k];
            seg(c, plot_x(&p, a->step), plot_y(&p, va), plot_x(&p, b->step), plot_y(&p, vb), col,
                2);
        }
    }
    if (cp->training && cp->points > 0) {
        int sx = plot_x(&p, cp->shown_step);
        seg(c, sx, p.y, sx, p.y + p.h - 1, c->th->focus, 1);
    }
}

// Head h of layer l's attention weights on the lesson's tokens, side x side, with its caption.
static void pattern(Ctx *c, const CircuitPanel *cp, int l, int h, int x, int y, int side)
{
    const Matrix *w = &cp->head[l][h].weights;
    int n = w->rows, cell = side / (n > 0 ? n : 1);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < w->cols; j++) {
            DrawCmd *d = scene_push(c->s, CMD_RECT, x + j * cell, y + i * cell, cell, cell,
                                    colormap_rgb(c->st->colormap, mat_get(w, i, j)));
            if (d) d->role = ROLE_TILE, d->cell = (CellRef){MAT_WEIGHTS, h, l, 0};
        }
    bool off = (cp->ablated[l] >> h) & 1u;
    frame(c, x - 2, y - 2, cell * n + 4, cell * n + 4, l == cp->layer ? 3 : 1,
          off              ? c->th->muted
          : l == cp->layer ? c->th->focus
                           : c->th->grid);
}

// Every head of every layer, a layer's heads side by side, the layers one after the other.
static int patterns(Ctx *c, const CircuitPanel *cp, int x, int y, int w, int h)
{
    int f = ctx_number_floor(c), lh = line_h(c, FONT_REGULAR, f), LH = cp->layers * cp->heads;
    int gap = f, lgap = 2 * f;
    int side = (w - (LH - 1) * gap - (cp->layers - 1) * (lgap - gap)) / (LH > 0 ? LH : 1);
    if (side > h - 2 * lh) side = h - 2 * lh;
    int n = cp->n > 0 ? cp->n : 1;
    side = side / n * n;
    if (side < n) side = n;
    y += title_line(c, x, y, w, TR("Attention, layer by layer"), true);
    int cx = x;
    for (int l = 0; l < cp->layers; l++) {
        for (int hd = 0; hd < cp->heads; hd++) {
            char t[64];
            bool off = (cp->ablated[l] >> hd) & 1u;
            snprintf(t, sizeof t, off ? TR("L%d H%d off") : "L%d H%d", l, hd);
            text_in(c, FONT_REGULAR, f, l == cp->layer ? c->th->ink : c->th->muted,
                    (Box){cx, y, side, lh}, CENTER, t);
            pattern(c, cp, l, hd, cx, y + lh + 2, side);
            cx += side + gap;
        }
        cx += lgap - gap;
    }
    return lh + lh + 2 + side + f / 2;
}

// A row of cells at the floor: label, then values, each in a column of width cw.
// The size at most f (down to 2/3 of it) at which t fits in w: a column's heading, not a number.
static int heading_size(Ctx *c, int f, const char *t, int w)
{
    int size = f;
    while (size > f * 2 / 3 && text_w(c, FONT_BOLD, size, t) > w) size--;
    return size;
}

static void table_row(Ctx *c, int x, int y, int lw, int cw, const char *label, const char *const *v,
                      int count, bool bold)
{
    int f = ctx_number_floor(c), lh = line_h(c, FONT_REGULAR, f);
    FontRole fr = bold ? FONT_BOLD : FONT_REGULAR;
    text_in(c, fr, f, c->th->ink, (Box){x, y, lw, lh}, LEFT, label);
    for (int i = 0; i < count; i++)
        text_in(c, fr, bold ? heading_size(c, f, v[i], cw - f / 3) : f,
                bold ? c->th->muted : c->th->ink, (Box){x + lw + i * cw, y, cw, lh}, RIGHT, v[i]);
}

// Each head's scores and the repeats with it alone switched off; the K-composition beside.
// Whether the K-composition fits beside the heads' table in w (else it goes under it: a narrow
// window, the page beside its text view).
static bool kcomp_beside(Ctx *c, const CircuitPanel *cp, int w)
{
    int f = ctx_number_floor(c), lw = text_w(c, FONT_REGULAR, f, "L0 H0") + f / 2;
    int kw = lw + cp->heads * (text_w(c, FONT_REGULAR, f, "0.00") + f) + f;
    return lw + 4 * (text_w(c, FONT_REGULAR, f, "99 %") + f / 8) + kw <= w; // a wide cell
}

static void heads_table(Ctx *c, const CircuitPanel *cp, int x, int y, int w)
{
    int f = ctx_number_floor(c), lh = line_h(c, FONT_REGULAR, f), LH = cp->layers * cp->heads;
    char t[300];
    if (!cp->measured) {
        title_line(c, x, y, w,
                   cp->training ? TR("Each head switched off: measured when training pauses (T)")
                                : TR("Each head switched off: the lesson has no \"train\" section"),
                   false);
        return;
    }
    snprintf(t, sizeof t, TR("Repeats: loss %.2f, %.0f %% right; a head off (O):"), cp->repeat_loss,
             100.0 * cp->repeat_accuracy);
    y += title_line(c, x, y, w, t, true);
    int H = cp->heads, kc = cp->layers > 1 ? H : 0;
    int lw = text_w(c, FONT_REGULAR, f, "L0 H0") + f / 2;
    int cw = text_w(c, FONT_BOLD, f, "100 %") + f;
    int kw = kc ? lw + kc * (text_w(c, FONT_REGULAR, f, "0.00") + f) + f : 0;
    bool beside = kcomp_beside(c, cp, w);
    int cols = 4, ky = y; // the K-composition's first line
    if (kc && !beside) kw = 0, ky = y + (LH + 1) * lh + f / 2;
    if (lw + cols * cw > w - kw) cw = (w - kw - lw) / cols;
    const char *head[4] = {TR("prev"), TR("ind"), TR("loss"), TR("acc")};
    table_row(c, x, y, lw, cw, "", head, 4, true);
    char buf[4][32];
    const char *v[4] = {buf[0], buf[1], buf[2], buf[3]};
    for (int k = 0; k < LH; k++) {
        snprintf(buf[0], 32, "%.2f", cp->prev_token[k]);
        snprintf(buf[1], 32, "%.2f", cp->induction[k]);
        snprintf(buf[2], 32, "%.2f", cp->off_loss[k]);
        snprintf(buf[3], 32, "%.0f %%", 100.0 * cp->off_accuracy[k]);
        snprintf(t, sizeof t, "L%d H%d", k / H, k % H);
        table_row(c, x, y + (k + 1) * lh, lw, cw, t, v, 4, false);
    }
    if (!kc) return;
    // K-composition of the last layer with the one before: rows its heads, columns the earlier's.
    int kx = beside ? x + w - kw + f : x, ncw = text_w(c, FONT_REGULAR, f, "0.00") + f;
    int l = cp->layers - 2;
    y = ky;
    text_in(c, FONT_BOLD, heading_size(c, f, TR("K-comp"), lw + f), c->th->ink,
            (Box){kx, y, lw, lh}, LEFT, TR("K-comp"));
    for (int h1 = 0; h1 < H; h1++) {
        snprintf(t, sizeof t, "L%d H%d", l, h1);
        text_in(c, FONT_BOLD, f, c->th->muted, (Box){kx + lw + h1 * ncw, y, ncw, lh}, RIGHT, t + 3);
    }
    for (int h2 = 0; h2 < H; h2++) {
        snprintf(t, sizeof t, "L%d H%d", l + 1, h2);
        text_in(c, FONT_REGULAR, f, c->th->ink, (Box){kx, y + (h2 + 1) * lh, lw, lh}, LEFT, t);
        for (int h1 = 0; h1 < H; h1++) {
            snprintf(t, sizeof t, "%.2f", cp->k_comp[((size_t)l * H + h2) * H + h1]);
            text_in(c, FONT_REGULAR, f, c->th->ink,
                    (Box){kx + lw + h1 * ncw, y + (h2 + 1) * lh, ncw, lh}, RIGHT, t);
        }
    }
}

void draw_circuit(Ctx *c, int x, int y, int w, int h)
{
    const CircuitPanel *cp = c->ex->circuit;
    int f = ctx_number_floor(c), lh = line_h(c, FONT_REGULAR, f);
    if (!cp || !cp->ready) {
        text_in(c, FONT_REGULAR, c->text_font, c->th->muted, (Box){x, y, w, h}, CENTER,
                TR("The circuit panel is for a lesson of layers (lessons/induction-heads.json)."));
        return;
    }
    char t[400];
    panel_circuit_title(cp, false, t, sizeof t); // the lesson's title is above
    y += title_line(c, x, y, w, t, true) + f / 3;
    h -= lh + f / 3;
    int lw = w * 2 / 5, gap = f * 3 / 2, rw = w - lw - gap, rx = x + lw + gap;
    // The loss plot a third of the column, half of it with a lesson trained beside (its legend).
    int third = (h - 2 * (f / 2)) / 3, loss_h = cp->beside ? (h - 2 * (f / 2)) / 2 : third;
    int score_h = cp->beside ? (h - 2 * (f / 2) - loss_h) / 2 : third;
    loss_plot(c, cp, x, y, lw, loss_h);
    score_plot(c, cp, 0, x, y + loss_h + f / 2, lw, score_h);
    score_plot(c, cp, 1, x, y + loss_h + score_h + 2 * (f / 2), lw, score_h);
    int table_h = (cp->layers * cp->heads + 2) * lh;
    if (cp->measured && cp->layers > 1 && !kcomp_beside(c, cp, rw)) // the K-composition under it
        table_h += (cp->heads + 1) * lh + f / 2;
    int ph = patterns(c, cp, rx, y, rw, h - table_h - f);
    heads_table(c, cp, rx, y + ph + f / 2, rw);
}
