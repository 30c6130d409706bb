// RoPE as a picture (key W, --export --what rotation): each pair of a token's query drawn as an
// arrow on a circle before its turn (Q) and after it (Q^R), the angle written in radians and
// degrees, one circle per pair with its frequency θ_i; the frequencies over i for the lesson's base
// beside 10,000 and 500,000; and a query and a key moved together, the same score. The numbers are
// model/rope_picture.c's (the trace's and core's); this file only lays them out.
#include "render/scene_panels.h"
#include "render/scene_text.h"
#include "core/cost.h"
#include "model/rope_picture.h"

#define ROPE_DEG 57.29577951308232 // degrees in a radian
#define ROPE_TAU 6.283185307179586

static const char *const SUPERSCRIPT[10] = {
    "\xe2\x81\xb0", "\xc2\xb9",     "\xc2\xb2",     "\xc2\xb3",     "\xe2\x81\xb4",
    "\xe2\x81\xb5", "\xe2\x81\xb6", "\xe2\x81\xb7", "\xe2\x81\xb8", "\xe2\x81\xb9"};

// v with 4 significant digits, U+2212 for the minus, and "2.51×10⁻⁶" below 0.001 (the slow pairs'
// θ).
static const char *fmt_sig(char *buf, size_t cap, double v)
{
    const char *minus = v < 0 ? "\xe2\x88\x92" : "";
    double a = fabs(v);
    if (a != 0.0 && a < 1e-3) {
        int e = (int)floor(log10(a));
        double m = a / pow(10.0, e);
        char ex[32] = "";
        snprintf(ex, sizeof ex, "\xe2\x81\xbb"); // superscript minus
        for (int d = 1000; d >= 1; d /= 10)
            if (-e >= d || d == 1)
                strncat(ex, SUPERSCRIPT[(-e / d) % 10], sizeof ex - strlen(ex) - 1);
        snprintf(buf, cap,
                 "%s%.3g\xc3\x97"
                 "10%s",
                 minus, m, ex);
    } else snprintf(buf, cap, "%s%.4g", minus, a);
    return buf;
}

// An integer with U+2212 for its minus, as the board writes numbers.
static void signed_int(char *buf, size_t cap, int v)
{
    snprintf(buf, cap, "%s%d", v < 0 ? "\xe2\x88\x92" : "", v < 0 ? -v : v);
}

static void line_seg(Ctx *c, double x0, double y0, double x1, double y1, int t, Rgba color)
{
    int ax = (int)lround(x0), ay = (int)lround(y0);
    DrawCmd *d =
        scene_push(c->s, CMD_LINE, ax, ay, (int)lround(x1) - ax, (int)lround(y1) - ay, color);
    if (d) d->thickness = t;
}

// An arc of radius r about (cx, cy) from angle a0 through a turn of `turn` radians
// (counter-clockwise, as the plane's angles go: the screen's y grows downwards).
static void arc(Ctx *c, double cx, double cy, double r, double a0, double turn, int t, Rgba color)
{
    int steps = (int)ceil(fabs(turn) / ROPE_TAU * 64.0);
    if (steps < 1) return;
    for (int k = 0; k < steps; k++) {
        double u0 = a0 + turn * k / steps, u1 = a0 + turn * (k + 1) / steps;
        line_seg(c, cx + r * cos(u0), cy - r * sin(u0), cx + r * cos(u1), cy - r * sin(u1), t,
                 color);
    }
}

// An arrow from (cx, cy) to length r at the angle of (vx, vy), its head two short strokes.
static void arrow(Ctx *c, double cx, double cy, double r, double vx, double vy, int t, Rgba color)
{
    if (vx == 0.0 && vy == 0.0) return;
    double a = atan2(vy, vx), tx = cx + r * cos(a), ty = cy - r * sin(a),
           hl = r * 0.22 > 6 ? r * 0.22 : 6;
    line_seg(c, cx, cy, tx, ty, t, color);
    for (int s = -1; s <= 1; s += 2)
        line_seg(c, tx, ty, tx - hl * cos(a + s * 0.45), ty + hl * sin(a + s * 0.45), t, color);
}

// The circle of a pair: its axes, the arrow before the turn (muted) and after it (the result's
// colour), and the turn as an arc between them.
static void pair_circle(Ctx *c, const RopePair *q, double cx, double cy, double r, int f)
{
    int t = f / 8 > 2 ? f / 8 : 2;
    arc(c, cx, cy, r, 0.0, ROPE_TAU, t > 2 ? t - 1 : t, c->th->hatch);
    line_seg(c, cx - r, cy, cx + r, cy, 1, c->th->hatch);
    line_seg(c, cx, cy - r, cx, cy + r, 1, c->th->hatch);
    double from = atan2(q->y, q->x), turn = fmod(q->angle, ROPE_TAU);
    if (turn > 1e-9) arc(c, cx, cy, r * 0.4, from, turn, t, c->th->result);
    arrow(c, cx, cy, r, q->x, q->y, t + 1, c->th->muted); // as thick as after: grey, not faint
    arrow(c, cx, cy, r, q->xr, q->yr, t + 1, c->th->result);
}

// The lines under a pair's circle: which coordinates and its θ, its angle, its numbers before
// (grey, as its arrow) and after (coloured) the turn.
#define PAIR_LINES 4
static void pair_lines(const RopePicture *rp, const RopePair *q, char out[PAIR_LINES][160])
{
    char th[48], an[48], deg[48], a[32], b[32], ar[32], br[32];
    fmt_sig(th, sizeof th, q->theta);
    fmt_sig(an, sizeof an, q->angle);
    double d = q->angle * ROPE_DEG;
    if (d == 0.0 || d >= 0.1)
        snprintf(deg, sizeof deg, "%.1f", d); // the slow pairs' small angles: their digits
    else fmt_sig(deg, sizeof deg, d);
    model_format_value(q->x, a, sizeof a), model_format_value(q->y, b, sizeof b);
    model_format_value(q->xr, ar, sizeof ar), model_format_value(q->yr, br, sizeof br);
    // TRANSLATORS: the rotation panel (key W): pair i of a query, its two coordinates and its
    // frequency θ_i.
    snprintf(out[0], 160, TR("pair %d (q%d, q%d)  \xce\xb8 = %s"), q->j, q->a, q->b, th);
    // TRANSLATORS: the rotation panel (key W): the pair's angle, the position times θ, in radians
    // and degrees.
    snprintf(out[1], 160, TR("%d\xc2\xb7\xce\xb8 = %s rad = %s\xc2\xb0"), rp->token, an, deg);
    snprintf(out[2], 160, "(%s, %s) \xe2\x86\x92", a, b);
    snprintf(out[3], 160, "(%s, %s)", ar, br);
}

// How many circles fit side by side at font f in width w: each as wide as its widest line.
static int circles_fit(Ctx *c, const RopePicture *rp, int w, int f, int *cell_w)
{
    int need = 0;
    for (int j = 0; j < rp->pairs; j++) {
        char l[PAIR_LINES][160];
        pair_lines(rp, &rp->pair[j], l);
        for (int k = 0; k < PAIR_LINES; k++) {
            int tw = text_w(c, k == 0 ? FONT_BOLD : FONT_REGULAR, f, l[k]) + f;
            if (tw > need) need = tw;
        }
    }
    int fit = need > 0 ? w / need : rp->pairs;
    if (fit > rp->pairs) fit = rp->pairs;
    if (fit < 1) fit = 1;
    *cell_w = w / fit;
    return fit;
}

// The row of circles in (x, y, w, h): as many pairs as fit at their lines' width; each pair's lines
// under its circle, or beside it where that lets the circle grow by a third or more (two pairs in
// the width of a 720p window: circles of 100 px under, about twice that beside).
static void draw_circles(Ctx *c, const RopePicture *rp, int shown, int x, int y, int w, int h,
                         int f)
{
    int lh = line_h(c, FONT_REGULAR, f), cw = w / shown, text_h = PAIR_LINES * lh, tw = 0;
    double r = (h - text_h - f / 2) / 2.0;
    if (r > cw / 2.0 - f / 2.0) r = cw / 2.0 - f / 2.0;
    char l[PAIR_LINES][160];
    for (int j = 0; j < shown; j++) {
        pair_lines(rp, &rp->pair[j == shown - 1 && shown >= 2 ? rp->pairs - 1 : j], l);
        for (int k = 0; k < PAIR_LINES; k++) {
            int lw = text_w(c, k == 0 ? FONT_BOLD : FONT_REGULAR, f, l[k]);
            if (lw > tw) tw = lw;
        }
    }
    double side = (h - f / 2) / 2.0;
    if (side > (cw - tw - 2 * f) / 2.0) side = (cw - tw - 2 * f) / 2.0;
    bool beside = side >= r * 4 / 3 && side >= f && h >= text_h;
    if (beside) r = side;
    for (int j = 0; j < shown; j++) {
        // Where not every pair fits: the fastest ones and the slowest (the last), which barely
        // turns.
        const RopePair *q = &rp->pair[j == shown - 1 && shown >= 2 ? rp->pairs - 1 : j];
        int cx = x + j * cw;
        int gx = beside ? cx + (cw - (int)(2 * r) - f - tw) / 2 : cx; // the circle and its lines
        if (r >= f) pair_circle(c, q, beside ? gx + r : cx + cw / 2.0, y + r, r, f);
        pair_lines(rp, q, l);
        int ty = beside ? y + (int)r - text_h / 2 : y + (int)(2 * r) + f / 2;
        Box line = beside ? (Box){gx + (int)(2 * r) + f, ty, tw, lh} : (Box){cx, ty, cw, lh};
        static const int INK[PAIR_LINES] = {
            0, 1, 2, 1}; // ink, the result's colour (the turn, after), muted (before)
        for (int k = 0; k < PAIR_LINES; k++) {
            Rgba ink = INK[k] == 0 ? c->th->ink : INK[k] == 1 ? c->th->result : c->th->muted;
            text_in(c, k == 0 ? FONT_BOLD : FONT_REGULAR, f, ink,
                    (Box){line.x, line.y + k * lh, line.w, lh}, beside ? LEFT : CENTER, l[k]);
        }
    }
}

// The labels at the lines' ends (tops in y[0..n)) moved apart to a line's height each, inside [lo,
// hi].
static void label_ends(const Ctx *c, double *y, int n, int lo, int hi, int lh)
{
    (void)c;
    int order[3] = {0, 1, 2};
    for (int i = 0; i < n; i++) // by height, top first
        for (int j = i + 1; j < n; j++)
            if (y[order[j]] < y[order[i]]) {
                int t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
    for (int i = 0; i < n; i++) {
        double *v = &y[order[i]];
        if (*v > hi) *v = hi;
        if (i > 0 && *v < y[order[i - 1]] + lh) *v = y[order[i - 1]] + lh;
    }
    for (int i = n - 1; i >= 0;
         i--) { // pushed past the bottom: back up, each a line above the next
        double *v = &y[order[i]];
        if (*v > hi - (n - 1 - i) * lh) *v = hi - (n - 1 - i) * lh;
        if (*v < lo) *v = lo;
    }
}

// θ_i over i on a log scale for the lesson's base and the published 10,000 and 500,000, each line
// labelled with its base at its end (the lesson's "(this lesson)"), in (x, y, w, h).
static void draw_thetas(Ctx *c, const RopePicture *rp, int x, int y, int w, int h, int f)
{
    double bases[3] = {rp->base, ROPE_BASE_CLASSIC, ROPE_BASE_LLAMA3};
    int nb = 3, pairs = rp->d_k / 2;
    if (rp->base == ROPE_BASE_CLASSIC || rp->base == ROPE_BASE_LLAMA3)
        nb = 2, bases[1] = rp->base == ROPE_BASE_CLASSIC ? ROPE_BASE_LLAMA3 : ROPE_BASE_CLASSIC;
    char label[3][64], num[32], low[48];
    int lw = 0, lh = line_h(c, FONT_REGULAR, f);
    for (int b = 0; b < nb; b++) {
        cost_format_int(num, sizeof num, (int64_t)llround(bases[b]));
        if (b == 0)
            snprintf(label[b], sizeof label[b], TR("%s (this lesson)"),
                     num); // TRANSLATORS: the base's curve
        else snprintf(label[b], sizeof label[b], "%s", num);
        int tw = text_w(c, b == 0 ? FONT_BOLD : FONT_REGULAR, f, label[b]);
        if (tw > lw) lw = tw;
    }
    double least = 1.0, th[3][ROPE_PICTURE_MAX_PAIRS];
    if (pairs > ROPE_PICTURE_MAX_PAIRS) pairs = ROPE_PICTURE_MAX_PAIRS;
    for (int b = 0; b < nb; b++) {
        model_rope_thetas(th[b], bases[b], rp->d_k,
                          pairs); // θ_0 is 1 for every base; the last is the least
        if (th[b][pairs - 1] < least) least = th[b][pairs - 1];
    }
    fmt_sig(low, sizeof low, least);
    int yl = text_w(c, FONT_REGULAR, f, low) + f / 2;
    int px0 = x + yl, py0 = y + lh / 2, pw = w - yl - lw - f, ph = h - lh / 2 - 2 * lh;
    if (pw < 3 * f || ph < 2 * f || least <= 0.0) return;
    int t = f / 8 > 2 ? f / 8 : 2;
    rect(c, px0, py0, t, ph, c->th->muted);
    rect(c, px0, py0 + ph - t, pw, t, c->th->muted);
    text_in(c, FONT_REGULAR, f, c->th->ink, (Box){x, py0 - lh / 2, yl - f / 2, lh}, RIGHT, "1");
    text_in(c, FONT_REGULAR, f, c->th->ink, (Box){x, py0 + ph - lh / 2, yl - f / 2, lh}, RIGHT,
            low);
    double span = -log10(least), end_y[3];
    for (int b = 0; b < nb; b++) {
        double prev_x = 0, prev_y = 0;
        Rgba col = b == 0 ? c->th->result : scene_series_color(c, b);
        for (int j = 0; j < pairs; j++) {
            double xx = px0 + (pairs > 1 ? (double)j / (pairs - 1) : 0.5) * pw;
            double yy = py0 + (span > 0 ? -log10(th[b][j]) / span : 0.0) * (ph - t);
            if (pairs <= 16)
                rect(c, (int)lround(xx) - t, (int)lround(yy) - t, 2 * t + 1, 2 * t + 1, col);
            if (j > 0) line_seg(c, prev_x, prev_y, xx, yy, b == 0 ? t + 1 : t, col);
            prev_x = xx, prev_y = yy;
        }
        end_y[b] = prev_y - lh / 2.0;
    }
    label_ends(c, end_y, nb, y, py0 + ph + f / 4 - lh, lh); // above the axis's caption
    for (int b = 0; b < nb; b++)
        text_at(c, b == 0 ? FONT_BOLD : FONT_REGULAR, f,
                b == 0 ? c->th->result : scene_series_color(c, b), px0 + pw + f / 2,
                (int)lround(end_y[b]), label[b]);
    char ax[96];
    // TRANSLATORS: the rotation panel's frequency plot (key W): its x axis, the pairs i, and the y
    // axis's scale.
    snprintf(ax, sizeof ax, TR("pair i = 0 \xe2\x80\xa6 %d  (\xce\xb8_i, log scale)"), pairs - 1);
    text_in(c, FONT_REGULAR, f, c->th->muted, (Box){px0, py0 + ph + f / 4, pw + lw, lh}, LEFT, ax);
}

// One placing of the relative view: pair 0 of q and of k on a circle, their positions over it and
// the score under it.
static void relative_circle(Ctx *c, const RopeRelative *rl, bool moved, int x, int y, int w, int h,
                            int f)
{
    int lh = line_h(c, FONT_REGULAR, f);
    char top[96], sc[48], num[32];
    char qp[16], kp[16];
    signed_int(qp, sizeof qp, moved ? rl->moved_q : rl->query);
    signed_int(kp, sizeof kp, moved ? rl->moved_k : rl->key);
    // TRANSLATORS: the rotation panel's relative view (key W): where the query and the key stand.
    snprintf(top, sizeof top, TR("q at %s, k at %s"), qp, kp);
    model_format_value(moved ? rl->score_moved : rl->score, num, sizeof num);
    snprintf(sc, sizeof sc, "q\xc2\xb7k = %s", num);
    text_in(c, FONT_REGULAR, f, c->th->ink, (Box){x, y, w, lh}, CENTER, top);
    double r = (h - 2 * lh - f / 2) / 2.0;
    if (r > w / 2.0 - f / 2.0) r = w / 2.0 - f / 2.0;
    double cx = x + w / 2.0, cy = y + lh + f / 4 + r;
    int t = f / 8 > 2 ? f / 8 : 2;
    if (r >= f) {
        arc(c, cx, cy, r, 0.0, ROPE_TAU, t > 2 ? t - 1 : t, c->th->hatch);
        // The key's arrow stands the placing's angle from the query's: the same angle at both
        // placings.
        double a_q = moved ? rl->q_angle_moved : rl->q_angle,
               a_k = a_q + (moved ? rl->angle_moved : rl->angle);
        arrow(c, cx, cy, r, cos(a_q), sin(a_q), t + 1, c->th->result);
        arrow(c, cx, cy, r, cos(a_k), sin(a_k), t + 1, scene_series_color(c, 1));
        arc(c, cx, cy, r * 0.4, a_q, moved ? rl->angle_moved : rl->angle, t, c->th->muted);
    }
    text_in(c, FONT_BOLD, f, c->th->result, (Box){x, y + h - lh, w, lh}, CENTER, sc);
}

// The relative view in (x, y, w, h): a heading, the two placings side by side.
static void draw_relative(Ctx *c, const RopePicture *rp, int x, int y, int w, int h, int f)
{
    int lh = line_h(c, FONT_BOLD, f);
    char head[160], d[16];
    signed_int(d, sizeof d, rp->rel.key - rp->rel.query);
    // TRANSLATORS: the rotation panel's relative view (key W): the same query and key moved
    // together, k − q apart.
    snprintf(head, sizeof head, TR("Both moved: k \xe2\x88\x92 q = %s still, the same score"), d);
    int used = wrap_text(c, FONT_BOLD, f, c->th->ink, x, y, w, 2, head, true) + lh / 4;
    int half = w / 2;
    relative_circle(c, &rp->rel, false, x, y + used, half, h - used, f);
    relative_circle(c, &rp->rel, true, x + half, y + used, w - half, h - used, f);
}

void draw_rope(Ctx *c, int x, int y, int w, int h)
{
    RopePicture rp;
    const AttnParams *p = &c->L->params;
    size_t first = c->s->count;
    int floor_font = scene_number_floor(c->s->height),
        f = c->text_font > floor_font ? c->text_font : floor_font;
    int lh = line_h(c, FONT_BOLD, f);
    if (!model_rope_picture(&rp, p, c->T, c->st->head, c->st->rope_t)) {
        wrap_text(c, FONT_REGULAR, f, c->th->ink, x, y, w, 3,
                  TR("This lesson has no RoPE: nothing turns."), true);
        return;
    }
    char title[256], qn[32], tok[96];
    model_mat_name(p, MAT_Q, rp.head, qn, sizeof qn);
    model_axis_label(c->L, AXIS_QUERY, rp.token, tok, sizeof tok);
    int cell_w = 0, shown = circles_fit(c, &rp, w, f, &cell_w);
    // TRANSLATORS: the rotation panel's title (key W): the query row of a token, its position, and
    // which of its pairs are drawn ("pairs 0–3 of 64") when not all fit; grey the pair before the
    // turn, coloured after it.
    if (shown < rp.pairs) { // the first shown − 1 pairs and the last
        char which[48];
        if (shown > 2)
            snprintf(which, sizeof which, "0\xe2\x80\x93%d, %d", shown - 2, rp.pairs - 1);
        else if (shown == 2) snprintf(which, sizeof which, "0, %d", rp.pairs - 1);
        else snprintf(which, sizeof which, "0");
        snprintf(title, sizeof title,
                 TR("%s of \xe2\x80\x9c%s\xe2\x80\x9d at position %d, grey before, coloured after "
                    "the turn: pairs %s of %d"),
                 qn, tok, rp.token, which, rp.pairs);
    } else
        snprintf(title, sizeof title,
                 TR("%s of \xe2\x80\x9c%s\xe2\x80\x9d at position %d, grey before, coloured after "
                    "the turn"),
                 qn, tok, rp.token);
    int used = wrap_text(c, FONT_BOLD, f, c->th->ink, x, y, w, 2, title, true) + f / 4;
    int bottom = (h - used) / 2;
    if (bottom < 6 * lh) bottom = 6 * lh;
    int top_h = h - used - bottom - f / 2;
    draw_circles(c, &rp, shown, x, y + used, w, top_h, f);
    int by = y + h - bottom;
    draw_thetas(c, &rp, x, by, w / 2 - f, bottom, f);
    draw_relative(c, &rp, x + w / 2 + f, by, w - w / 2 - f, bottom, f);
    // The panel's texts are its labels (the layout audit holds them to the floor and apart; the
    // footer is chrome).
    for (size_t i = first; i < c->s->count && !c->s->oom; i++)
        if (c->s->cmds[i].kind == CMD_TEXT) c->s->cmds[i].role = ROLE_LABEL;
}
