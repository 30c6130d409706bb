// Slide pages: the size a heatmap slide needs, by the rules of scene_heatmap.c (its heat_grid_cols
// for the all-heads grid); at scale 1 the sizes are a 1280x720 window's, the exporter multiplies
// them by its scale.
#include "render/scene_heatmap.h"

#define MAX_GRID_W                                                                                 \
    1600 // one head's cells at scale 1: larger lessons get smaller cells (colours, no numbers)
#define MAX_GRID_H 1000
#define MAX_ALL_W                                                                                  \
    3840 // all heads at scale 1: 4K, so that 8 heads of 10 tokens keep every label whole
#define MAX_ALL_H 2160

typedef struct {
    const TextMetrics *tm;
    int nf; // the board's number font at the scale; the heatmap's fonts derive from it as in the
            // scene
    int m8; // the scene's page margin at the scale
} Measure;

// The scene's sizes at scale k (its fonts stop shrinking below about 0.4).
static Measure measure_at(const TextMetrics *tm, double k)
{
    int m8 = (int)lround(8.0 * (k < 0.4 ? 0.4 : k));
    return (Measure){tm, scene_number_font((int)lround(720.0 * k)), m8 < 1 ? 1 : m8};
}

static int imax(int a, int b) { return a > b ? a : b; }
static int imin(int a, int b) { return a < b ? a : b; }
static int m_text_w(const Measure *me, FontRole f, int size, const char *t)
{
    return me->tm->text_width(me->tm->user, f, size, t);
}
static int m_line_h(const Measure *me, FontRole f, int size)
{
    return me->tm->line_height(me->tm->user, f, size);
}

static int widest_label(const Measure *me, const Lesson *L, Axis a, int count, int size)
{
    char buf[160];
    int w = 0;
    for (int i = 0; i < count; i++) {
        model_axis_label(L, a, i, buf, sizeof buf);
        w = imax(w, m_text_w(me, FONT_REGULAR, size, buf));
    }
    return w;
}

// The colour bar beside the cells with its widest end value (the scene's colorbar_width): "0" for
// the weights, else the lower end of the shared range ("−2.7498").
static int bar_width(const Measure *me, const Lesson *L, const Trace *T, MatId mat)
{
    RangeGroup g = mat_info(mat)->range;
    char lo[32] = "0";
    if (g != RANGE_PROB) model_format_value(-model_range(&L->params, T, g), lo, sizeof lo);
    return me->nf * 2 / 3 + me->nf / 4 + m_text_w(me, FONT_REGULAR, me->nf, lo) + 2;
}

// The lesson's title above a slide (scene_page_title): its line's height; *w widened to hold it, up
// to twice the page (a longer title is cut).
static int page_title(const Measure *me, const Lesson *L, int *w)
{
    if (!L->title || !L->title[0]) return 0;
    int f = me->nf * 4 / 5, tw = m_text_w(me, FONT_BOLD, f, L->title) + 2 * me->m8;
    *w = imax(*w, imin(tw, 2 * *w));
    return m_line_h(me, FONT_BOLD, f) + me->nf / 5;
}

// One head at scale 1: cells wide enough for the board's numbers and every key, a number high with
// air around it; the title on one line; the colour bar (centred on the cells, three lines at least)
// inside.
static void heatmap_page(const Measure *me, const Lesson *L, const Trace *T, MatId mat, int head,
                         int *w, int *h)
{
    const AttnParams *p = &L->params;
    const MatInfo *mi = mat_info(mat);
    int nf = me->nf, lf = nf * 4 / 5;
    char wide[32], name[64], title[200];
    model_format_value(-model_range(p, T, mi->range), wide, sizeof wide);
    int num = imax(m_text_w(me, FONT_REGULAR, nf, wide), m_text_w(me, FONT_REGULAR, nf, "0.5555"))
              + nf / 4;
    int key = imin(widest_label(me, L, AXIS_KEY, p->m, lf) + nf / 4, 4 * nf);
    int cell_w = imax(num, key) + nf / 2, cell_h = m_line_h(me, FONT_REGULAR, nf) + nf / 2;
    if (cell_w > 3 * cell_h) cell_h = (cell_w + 2) / 3; // the scene keeps cells at most 3:1
    if (p->m * cell_w > MAX_GRID_W) cell_w = imax(MAX_GRID_W / p->m, 1);
    if (p->n * cell_h > MAX_GRID_H) cell_h = imax(MAX_GRID_H / p->n, 1);
    cell_w = imin(cell_w, 3 * cell_h);
    cell_h = imin(cell_h, 2 * cell_w);
    int lw = widest_label(me, L, AXIS_QUERY, p->n, lf) + nf / 4;
    model_mat_name(p, mat, head, name, sizeof name);
    snprintf(title, sizeof title, TR("Head %d \xc2\xb7 %s %s"), head, TR(mi->what), name);
    int heat_w = imax(lw + p->m * cell_w, m_text_w(me, FONT_BOLD, lf, title) + nf);
    heat_w =
        imax(heat_w, 4 * lw); // the scene gives the query labels a quarter of the width at most
    heat_w = imax(heat_w, m_text_w(me, FONT_REGULAR, lf,
                                   scene_heat_axes(L, false))); // the axes' caption under the cells
    int th = m_line_h(me, FONT_BOLD, lf) + nf / 5, top = m_line_h(me, FONT_REGULAR, lf) + nf / 6;
    top += m_line_h(me, FONT_REGULAR, lf) + nf / 6; // the caption's line
    int grid_h = p->n * cell_h, half_bar = 3 * m_line_h(me, FONT_REGULAR, nf) / 2 + 1;
    int heat_h = th + top + imax(grid_h, grid_h / 2 + half_bar);
    *w = heat_w + bar_width(me, L, T, mat) + 3 * me->m8 + nf / 2;
    *h = heat_h + 2 * me->m8 + nf / 4 + page_title(me, L, w);
}

// All heads at scale 1: square cells as wide as the widest key and the numbers at the labels' size
// (draw_heads_page writes them), the panels in the columns that bring the page closest to 16:9
// among those the scene would choose itself; above them the lesson's title and the heading, under
// them the axes' caption.
static void heads_page(const Measure *me, const Lesson *L, const Trace *T, MatId mat, int *w,
                       int *h)
{
    const AttnParams *p = &L->params;
    const MatInfo *mi = mat_info(mat);
    int nf = me->nf, lf = nf * 3 / 5, pad = nf / 4, bar = bar_width(me, L, T, mat);
    int lw = widest_label(me, L, AXIS_QUERY, p->n, lf) + nf / 4;
    int th = m_line_h(me, FONT_BOLD, nf * 2 / 3) + nf / 5,
        top = m_line_h(me, FONT_REGULAR, lf) + nf / 6;
    char wide[32], heading[200];
    model_format_value(-model_range(p, T, mi->range), wide, sizeof wide);
    // (with a sixteenth to spare: the page is measured at scale 1 and multiplied, the text is not
    // quite linear)
    int num = imax(m_text_w(me, FONT_REGULAR, lf, wide), m_text_w(me, FONT_REGULAR, lf, "0.5555"));
    num += num / 16 + lf / 4 + 2;
    int key = imax(widest_label(me, L, AXIS_KEY, p->m, lf),
                   m_text_w(me, FONT_REGULAR, lf, "the\xe2\x80\xa6"))
              + 6;
    // square cells, as the scene's choice of columns (heat_grid_cols) has them
    int cell_w = imin(imax(imax(key, num), m_line_h(me, FONT_REGULAR, lf) + nf / 3), 3 * nf),
        cell_h = cell_w;
    snprintf(heading, sizeof heading, TR("All %d heads \xc2\xb7 %s %s"), p->heads, TR(mi->what),
             mi->symbol);
    int head_h = m_line_h(me, FONT_BOLD, nf * 4 / 5) + nf / 5,
        cap_h = m_line_h(me, FONT_REGULAR, lf) + nf / 6;
    int text_w = imax(m_text_w(me, FONT_BOLD, nf * 4 / 5, heading),
                      m_text_w(me, FONT_REGULAR, lf, scene_heat_axes(L, false)));
    for (;;) {
        double best = 1e300;
        *w = *h = 0;
        for (int c = 1; c <= p->heads; c++) {
            int rows = (p->heads + c - 1) / c;
            int pw = imax(lw + p->m * cell_w, 4 * lw) + 2 * pad,
                ph = th + top + p->n * cell_h + 2 * pad;
            int W = imax(2 * me->m8 + c * pw + nf / 2 + bar, text_w + 2 * me->m8),
                H = 2 * me->m8 + rows * ph;
            double score = fabs(log((double)W / (H + head_h + cap_h) / (16.0 / 9.0)));
            int cells_w = W - 2 * me->m8 - bar - nf / 2,
                cells_h = H - 2 * me->m8; // as draw_heads_grid has them
            if (heat_grid_cols(p, cells_w, cells_h) != c)
                score += 100.0; // the scene would lay it out otherwise
            if (score < best - 1e-9) {
                best = score;
                *w = W;
                *h = H + head_h + cap_h;
            }
        }
        bool fits = *w <= MAX_ALL_W && *h <= MAX_ALL_H;
        if (fits && best > log(2.0)
            && cell_w > key) { // numbers stretch the page past twice 16:9: colours alone
            cell_w = cell_h = imax(key, m_line_h(me, FONT_REGULAR, lf) + nf / 3);
            continue;
        }
        if (fits || cell_w <= 4) break;
        cell_w = cell_h = cell_w * 7 / 8;
    }
    *h += page_title(me, L, w);
}

void scene_heatmap_page(const Lesson *L, const Trace *T, MatId mat, int head, double scale,
                        const TextMetrics *tm, int *w, int *h)
{
    Measure me = measure_at(tm, scale > 0.0 ? scale : 1.0);
    if (head < 0) heads_page(&me, L, T, mat, w, h);
    else heatmap_page(&me, L, T, mat, head, w, h);
}
