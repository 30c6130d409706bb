// The KV cache's size (Shift+K, --export --what cache-size): what generating keeps, per token and
// for a context, with every query head's own K/V (MHA), grouped K/V heads (GQA), one K/V head (MQA)
// and a sliding window, for a published shape (a chart of bytes against tokens, with its table) and
// for the lesson (its table). The numbers are core/cost.c's (cost_kv_cache_bytes); this file only
// lays them out.
#include "render/scene_panels.h"
#include "render/scene_text.h"
#include "core/cost.h"
#include "model/panel_text.h"

#include <string.h>

// A shape's rows over a context of `tokens` (panel_text_cache_sheet's: the published shape's, or
// the lesson's).
typedef struct {
    const CacheShape *shape;
    const CacheRow *rows;
    int count;
    int64_t tokens;
} ShapeRows;

// A table of the rows of a shape: a swatch of its line's colour (chart: true), the name with its
// K/V heads, the bytes per token and for `tokens` tokens; its title above. Returns the height used;
// *width its width.
static int cache_table(Ctx *c, const ShapeRows *sr, bool chart, int x, int y, int f, bool draw,
                       int *width)
{
    const CacheShape *s = sr->shape;
    const CacheRow *rows = sr->rows;
    int count = sr->count;
    int64_t tokens = sr->tokens;
    char cell[5][3][64], tok[32];
    cost_format_int(tok, sizeof tok, tokens);
    snprintf(cell[0][0], 64, "%s", TR("K/V heads"));
    snprintf(cell[0][1], 64, "%s", TR("per token"));
    snprintf(cell[0][2], 64, TRN("%s token", "%s tokens", tokens), tok);
    for (int i = 0; i < count; i++) {
        snprintf(cell[1 + i][0], 64, "%s  %lld", rows[i].name, (long long)rows[i].kv_heads);
        cost_format_bytes(cell[1 + i][1], 64,
                          cost_kv_cache_bytes(s->layers, rows[i].kv_heads, s->d_k, s->bytes, 1, 0));
        cost_format_bytes(cell[1 + i][2], 64,
                          cost_kv_cache_bytes(s->layers, rows[i].kv_heads, s->d_k, s->bytes, tokens,
                                              rows[i].window));
    }
    int lh = line_h(c, FONT_REGULAR, f) + f / 4, sw = chart ? f : 0, gap = f, colw[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++)
        for (int i = 0; i <= count; i++) {
            int tw = text_w(c, i == 0 ? FONT_BOLD : FONT_REGULAR, f, cell[i][k]);
            if (tw > colw[k]) colw[k] = tw;
        }
    *width = sw + (sw ? gap / 2 : 0) + colw[0] + colw[1] + colw[2] + 2 * gap;
    for (int i = 0; draw && i <= count; i++) {
        int xx = x, yy = y + i * lh;
        if (i > 0 && chart) rect(c, xx, yy + lh / 4, sw, lh / 2, scene_series_color(c, i - 1));
        xx += sw + (sw ? gap / 2 : 0);
        for (int k = 0; k < 3; k++) {
            Rgba ink = i == 0 ? c->th->muted : k == 2 ? c->th->result : c->th->ink;
            text_in(c, i == 0 || k == 2 ? FONT_BOLD : FONT_REGULAR, f, ink,
                    (Box){xx, yy, colw[k], lh}, k == 0 ? LEFT : RIGHT, cell[i][k]);
            xx += colw[k] + gap;
        }
    }
    return lh * (count + 1);
}

// The chart of bytes against tokens 0 .. tokens for the rows of shape s in (x, y, w, h): an axis
// each way, the largest value at the top of the y axis and the tokens at the end of the x axis, one
// line per row.
static void cache_chart(Ctx *c, const ShapeRows *sr, Box r, int f)
{
    const CacheShape *s = sr->shape;
    const CacheRow *rows = sr->rows;
    int count = sr->count, x = r.x, y = r.y, w = r.w, h = r.h;
    int64_t tokens = sr->tokens;
    char top[32], end[64], tok[32];
    int64_t most = 0;
    for (int i = 0; i < count; i++) {
        int64_t b = cost_kv_cache_bytes(s->layers, rows[i].kv_heads, s->d_k, s->bytes, tokens,
                                        rows[i].window);
        if (b > most) most = b;
    }
    if (most <= 0 || tokens <= 0) return;
    cost_format_bytes(top, sizeof top, most);
    cost_format_int(tok, sizeof tok, tokens);
    snprintf(end, sizeof end, TRN("%s token", "%s tokens", tokens), tok);
    int lh = line_h(c, FONT_REGULAR, f), lw = text_w(c, FONT_REGULAR, f, top) + f / 2;
    int px0 = x + lw, py0 = y + lh / 2, pw = w - lw - f / 2, ph = h - lh / 2 - lh - f / 4;
    if (pw < 4 * f || ph < 2 * f) return;
    int t = f / 8 > 2 ? f / 8 : 2;
    rect(c, px0, py0, t, ph, c->th->muted); // the y axis
    rect(c, px0, py0 + ph - t, pw, t, c->th->muted); // the x axis
    rect(c, px0 - f / 4, py0, f / 4, t, c->th->muted); // the top's tick
    text_in(c, FONT_REGULAR, f, c->th->ink, (Box){x, py0 - lh / 2, lw - f / 2, lh}, RIGHT, top);
    text_in(c, FONT_REGULAR, f, c->th->ink, (Box){x, py0 + ph - lh / 2, lw - f / 2, lh}, RIGHT,
            "0");
    text_in(c, FONT_REGULAR, f, c->th->ink, (Box){px0, py0 + ph + f / 4, pw, lh}, RIGHT, end);
    for (int i = 0; i < count; i++) {
        // (0, 0) to (tokens, bytes), through the window's corner where it stops growing.
        int64_t at_end = cost_kv_cache_bytes(s->layers, rows[i].kv_heads, s->d_k, s->bytes, tokens,
                                             rows[i].window);
        int ex = px0 + pw, ey = py0 + ph - (int)((double)at_end / (double)most * ph);
        int cx = ex;
        if (rows[i].window > 0 && rows[i].window < tokens)
            cx = px0 + (int)((double)rows[i].window / (double)tokens * pw);
        int lw2 = f / 6 > 2 ? f / 6 : 2;
        DrawCmd *d = scene_push(c->s, CMD_LINE, px0, py0 + ph, cx - px0, ey - (py0 + ph),
                                scene_series_color(c, i));
        if (d) d->thickness = lw2;
        if (cx < ex
            && (d = scene_push(c->s, CMD_LINE, cx, ey, ex - cx, 0, scene_series_color(c, i))))
            d->thickness = lw2;
    }
}

void draw_cache_size(Ctx *c, int x, int y, int w, int h)
{
    const AttnParams *p = &c->L->params;
    // The published shape (Llama-3-8B's, with Mistral-7B's window as the window's row) and the
    // lesson's one layer stored as a model stores it (16-bit numbers): panel_text's, the text
    // view's.
    CacheSheet sheet;
    panel_text_cache_sheet(c->L, &sheet);
    const ShapeRows pubr = {&sheet.pub, sheet.prow, sheet.pn, sheet.context},
                    miner = {&sheet.mine, sheet.lrow, sheet.ln, p->n};
    const char *t1 = sheet.t1, *t2 = sheet.t2;
    // Everything the class reads at the board's floor at least (digits of 2.6 % of the window's
    // height).
    int floor_font = scene_number_floor(c->s->height),
        f = c->text_font > floor_font ? c->text_font : floor_font;
    int tw1 = 0, tw2 = 0, lh = line_h(c, FONT_BOLD, f) + f / 3;
    for (;;) { // the largest size at which the tables fit beside the chart, down to the floor
        int th = cache_table(c, &pubr, true, 0, 0, f, false, &tw1);
        int th2 = cache_table(c, &miner, false, 0, 0, f, false, &tw2);
        int tw = tw1 > tw2 ? tw1 : tw2;
        int need_h = 2 * lh + th + th2 + lh + f;
        if ((tw <= w / 2 && need_h <= h) || f <= floor_font) break;
        f--;
        lh = line_h(c, FONT_BOLD, f) + f / 3;
    }
    int tw = tw1 > tw2 ? tw1 : tw2, chart_w = w - tw - 2 * f;
    wrap_text(c, FONT_BOLD, f, c->th->ink, x, y, w, 1, t1, true);
    int yy = y + lh;
    int th = cache_table(c, &pubr, true, x + w - tw, yy, f, true, &tw1);
    cache_chart(c, &pubr, (Box){x, yy, chart_w, h - 2 * lh - f}, f);
    yy += th + lh;
    wrap_text(c, FONT_BOLD, f, c->th->ink, x + w - tw, yy, tw, 2, t2, true);
    yy += wrap_text(c, FONT_BOLD, f, c->th->ink, x + w - tw, yy, tw, 2, t2, false);
    cache_table(c, &miner, false, x + w - tw, yy, f, true, &tw2);
}
