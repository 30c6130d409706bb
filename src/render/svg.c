// Writes a Scene as SVG 1.1 text: rectangles, outlines, lines, hatching as clipped line segments
// (no patterns or clip paths, which slide programs import badly) and text with named fonts and a
// generic fallback.
#include "render/svg.h"
#include "core/utf8.h"
#include "render/textrun.h"

#include "lesson/strbuf.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Length of the valid UTF-8 sequence at p (1..4), or 0 when the bytes are not valid UTF-8.
static size_t utf8_len(const unsigned char *p)
{
    unsigned c = p[0];
    if (c < 0x80) return 1;
    size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
    if (n == 0) return 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xC0) != 0x80) return 0;
    unsigned cp = n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
    for (size_t i = 1; i < n; i++) cp = cp << 6 | (p[i] & 0x3F);
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF))) return 0; // overlong
    if (cp >= 0xD800 && cp <= 0xDFFF) return 0; // surrogates
    if (cp == 0xFFFE || cp == 0xFFFF) return 0; // not XML characters
    return n;
}

// Text as XML character data: & < > " ' escaped, control characters dropped (XML 1.0 has no place
// for them), bytes that are not UTF-8 replaced by U+FFFD.
static void put_escaped(StrBuf *o, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        switch (*p) {
        case '&':
            strbuf_puts(o, "&amp;");
            p++;
            continue;
        case '<':
            strbuf_puts(o, "&lt;");
            p++;
            continue;
        case '>':
            strbuf_puts(o, "&gt;");
            p++;
            continue;
        case '"':
            strbuf_puts(o, "&quot;");
            p++;
            continue;
        case '\'':
            strbuf_puts(o, "&apos;");
            p++;
            continue;
        case '\t':
            strbuf_puts(o, " ");
            p++;
            continue;
        default: break;
        }
        if (*p < 0x20) {
            p++;
            continue;
        }
        size_t n = utf8_len(p);
        if (n == 0) {
            strbuf_puts(o, "\xef\xbf\xbd");
            p++;
        } else {
            strbuf_put(o, (const char *)p, n);
            p += n;
        }
    }
}

// fill="#rrggbb" (and fill-opacity when not opaque); attr is "fill" or "stroke".
static void put_color(StrBuf *o, const char *attr, Rgba c)
{
    strbuf_printf(o, " %s=\"#%02x%02x%02x\"", attr, c.r, c.g, c.b);
    if (c.a != 255) strbuf_printf(o, " %s-opacity=\"%.3f\"", attr, c.a / 255.0);
}

// DejaVu as the window draws, then fonts for the scripts and emoji DejaVu lacks (Linux's Noto,
// macOS's and Windows' own), so a slide program finds a glyph for a token in any script before its
// generic family.
#define FALLBACKS                                                                                  \
    "Noto Sans, Noto Sans CJK JP, Noto Sans CJK SC, Hiragino Sans, PingFang SC, Microsoft YaHei, " \
    "Yu Gothic, Malgun Gothic, Noto Sans Arabic, Noto Sans Hebrew, Noto Sans Devanagari, Noto "    \
    "Sans Thai, "                                                                                  \
    "Segoe UI, Tahoma, Noto Color Emoji, Apple Color Emoji, Segoe UI Emoji"
static const char *const FAMILY[FONT_COUNT] = {
    "DejaVu Sans, Verdana, " FALLBACKS ", sans-serif",
    "DejaVu Sans, Verdana, " FALLBACKS ", sans-serif",
    "DejaVu Sans Mono, Menlo, Consolas, " FALLBACKS ", monospace",
};

// Diagonal hatching as draw_sdl draws it (lines from bottom-left to top-right, `step` apart), each
// segment clipped to the rectangle by hand.
static void put_hatch(StrBuf *o, const DrawCmd *c)
{
    int step = c->h / 4 > 5 ? c->h / 4 : 5;
    if (step > 14) step = 14;
    strbuf_printf(o, "<g");
    put_color(o, "stroke", c->color);
    strbuf_puts(o, " stroke-width=\"1.5\">");
    for (int k = -c->h; k < c->w; k += step) {
        // points (x + k + 1 + t, y + h - t) for t in [0, h], inside x .. x + w
        double k1 = k + 1.0;
        double t0 = k1 < 0 ? -k1 : 0.0, t1 = c->w - k1 < c->h ? c->w - k1 : c->h;
        if (t1 <= t0) continue;
        strbuf_printf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", c->x + k1 + t0,
                      c->y + c->h - t0, c->x + k1 + t1, c->y + c->h - t1);
    }
    strbuf_puts(o, "</g>\n");
}

// A filled rectangle; a cell of a matrix says which (its class and data- attributes).
static void put_rect(StrBuf *o, const Scene *s, const DrawCmd *c)
{
    (void)s;
    if (c->w <= 0 || c->h <= 0) return;
    strbuf_puts(o, "<rect");
    if (c->role == ROLE_CELL) // the scene says which cell it drew
        strbuf_printf(o,
                      " class=\"cell\" data-matrix=\"%s\" data-head=\"%d\" data-row=\"%d\" "
                      "data-col=\"%d\"",
                      mat_info(c->cell.mat) ? mat_info(c->cell.mat)->key : "", c->cell.head,
                      c->cell.row, c->cell.col);
    strbuf_printf(o, " x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"", c->x, c->y, c->w, c->h);
    put_color(o, "fill", c->color);
    strbuf_puts(o, "/>\n");
}

// A rectangle's outline, its stroke inside the rectangle as draw_sdl draws it.
static void put_frame(StrBuf *o, const Scene *s, const DrawCmd *c)
{
    (void)s;
    int t = c->thickness < 1 ? 1 : c->thickness;
    if (c->w <= 0 || c->h <= 0) return;
    strbuf_printf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"%d\" fill=\"none\"",
                  c->x + t / 2.0, c->y + t / 2.0, c->w - t > 0 ? c->w - t : 0,
                  c->h - t > 0 ? c->h - t : 0);
    put_color(o, "stroke", c->color);
    strbuf_printf(o, " stroke-width=\"%d\"/>\n", t);
}

// A line: draw_sdl draws t one-pixel lines side by side; the SVG line runs through their middle.
static void put_line(StrBuf *o, const Scene *s, const DrawCmd *c)
{
    (void)s;
    int t = c->thickness < 1 ? 1 : c->thickness;
    double dx = c->h ? t / 2.0 : 0.5, dy = c->h ? 0.5 : t / 2.0;
    strbuf_printf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"", c->x + dx, c->y + dy,
                  c->x + c->w + dx, c->y + c->h + dy);
    put_color(o, "stroke", c->color);
    strbuf_printf(o, " stroke-width=\"%d\"/>\n", t);
}

// Hatching, where the rectangle is not empty.
static void put_hatched(StrBuf *o, const Scene *s, const DrawCmd *c)
{
    (void)s;
    if (c->w > 0 && c->h > 0) put_hatch(o, c);
}

// A line of text, anchored at the middle of the measured width, so another font's different width
// spreads evenly on both sides; the baseline sits at DejaVu's ascent (1901 of 2384 units of line
// height).
static void put_text(StrBuf *o, const Scene *s, const DrawCmd *c)
{
    int f = c->font >= 0 && c->font < FONT_COUNT ? (int)c->font : 0;
    char label[64]; // a text of marks alone is written as the label the window draws and measured
    const char *text =
        textrun_mark_label(scene_text(s, c), label, sizeof label) ? label : scene_text(s, c);
    strbuf_printf(o,
                  "<text x=\"%.1f\" y=\"%.1f\" font-family=\"%s\" font-size=\"%d\"%s "
                  "text-anchor=\"middle\"",
                  c->x + c->w / 2.0, c->y + c->h * (1901.0 / 2384.0), FAMILY[f], c->size,
                  c->font == FONT_BOLD ? " font-weight=\"bold\"" : "");
    // A right-to-left paragraph (Arabic, Hebrew) laid out as the window does: its end, and an
    // ellipsis there, on the left.
    if (utf8_is_rtl(text)) strbuf_puts(o, " direction=\"rtl\"");
    put_color(o, "fill", c->color);
    strbuf_puts(o, ">");
    put_escaped(o, text);
    strbuf_puts(o, "</text>\n");
}

// Each kind of draw command's writer; none for a clip (slides are laid out unzoomed: nothing lies
// outside the page).
typedef void (*PutCmd)(StrBuf *o, const Scene *s, const DrawCmd *c);
static const PutCmd PUT[] = {
    [CMD_RECT] = put_rect, [CMD_FRAME] = put_frame,   [CMD_LINE] = put_line,
    [CMD_TEXT] = put_text, [CMD_HATCH] = put_hatched, [CMD_CLIP] = NULL,
};

// The overview's small heatmaps each in a <g> of their own (layer, head): closes the open one
// (*layer >= 0) when c is not one of its cells, opens one at c's; *layer and *head say which is
// open (-1: none).
static void put_tile_group(StrBuf *o, const DrawCmd *c, int *layer, int *head)
{
    bool tile = c->kind == CMD_RECT && c->role == ROLE_TILE;
    if (*layer >= 0 && (!tile || c->cell.row != *layer || c->cell.head != *head)) {
        strbuf_puts(o, "</g>\n");
        *layer = *head = -1;
    }
    if (tile && *layer < 0) {
        *layer = c->cell.row, *head = c->cell.head;
        strbuf_printf(o, "<g class=\"overview-heatmap\" data-layer=\"%d\" data-head=\"%d\">\n",
                      *layer, *head);
    }
}

char *svg_encode(const Scene *s, const char *title, size_t *size)
{
    StrBuf o = {0};
    strbuf_puts(&o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" SVG_MARK "\n");
    strbuf_printf(
        &o,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" "
        "viewBox=\"0 0 %d %d\" xml:space=\"preserve\" stroke=\"none\">\n",
        s->width, s->height, s->width, s->height);
    if (title && title[0]) {
        strbuf_puts(&o, "<title>");
        put_escaped(&o, title);
        strbuf_puts(&o, "</title>\n");
    }
    int tile_layer = -1, tile_head = -1; // the overview's heatmap whose <g> is open (-1: none)
    for (size_t i = 0; i < s->count; i++) {
        const DrawCmd *c = &s->cmds[i];
        put_tile_group(&o, c, &tile_layer, &tile_head);
        if (c->color.a == 0) continue;
        if ((unsigned)c->kind < sizeof PUT / sizeof PUT[0] && PUT[c->kind]) PUT[c->kind](&o, s, c);
    }
    if (tile_layer >= 0) strbuf_puts(&o, "</g>\n");
    strbuf_puts(&o, "</svg>\n");
    if (o.oom) {
        free(o.p);
        return NULL;
    }
    *size = o.len;
    return o.p;
}
