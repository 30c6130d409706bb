// Tests slide export headless (no display, no SDL_Init): the heatmap PNG of head 0 of the cat
// lesson decoded back from memory (size at scale 1 and 2, the colour at the centre of cell (The,
// The) = viridis of 0.6111), every cell's fill and number, the SVG (well-formed XML, one cell per
// token pair per head with the right fill, labels as text, escaping), same bytes twice, which files
// count as ours, all-or-nothing writes, heatmaps and boards on each background drawn with the
// theme's own colours, and the whole export into a directory (a board per head, the directory made
// when missing).
#define _POSIX_C_SOURCE 200809L // mkdtemp
#include <SDL.h>
#include <SDL_image.h>
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "render/colormap.h"
#include "render/export.h"
#include "render/svg.h"

#define FONTS MHA_SOURCE_DIR "/assets/fonts"

static bool near(Rgba a, Rgba b, int tol)
{
    return abs(a.r - b.r) <= tol && abs(a.g - b.g) <= tol && abs(a.b - b.b) <= tol;
}

static bool contains(const unsigned char *hay, size_t n, const char *needle, size_t k)
{
    for (size_t i = 0; i + k <= n; i++)
        if (memcmp(hay + i, needle, k) == 0) return true;
    return false;
}

static bool has_text(const Scene *s, const char *needle)
{
    for (size_t i = 0; i < s->count; i++)
        if (s->cmds[i].kind == CMD_TEXT && strstr(scene_text(s, &s->cmds[i]), needle)) return true;
    return false;
}

static int count_text(const Scene *s, const char *exact)
{
    int n = 0;
    for (size_t i = 0; i < s->count; i++)
        if (s->cmds[i].kind == CMD_TEXT && strcmp(scene_text(s, &s->cmds[i]), exact) == 0) n++;
    return n;
}

static const HitRegion *cell_hit(const Scene *s, int head, int row, int col)
{
    for (size_t i = 0; i < s->hit_count; i++) {
        const HitRegion *r = &s->hits[i];
        if (r->cell.mat != MAT_NONE && r->cell.head == head && r->cell.row == row
            && r->cell.col == col)
            return r;
    }
    return NULL;
}

// The fill of the cell drawn on the hit region (the scene tags each cell's rectangle with its
// cell).
static bool cell_rect(const Scene *s, const HitRegion *r, Rgba *fill)
{
    for (size_t i = 0; i < s->count; i++) {
        const DrawCmd *c = &s->cmds[i];
        if (c->kind == CMD_RECT && c->role == ROLE_CELL && c->cell.mat == r->cell.mat
            && c->cell.head == r->cell.head && c->cell.row == r->cell.row
            && c->cell.col == r->cell.col && c->x == r->x && c->y == r->y) {
            *fill = c->color;
            return true;
        }
    }
    return false;
}

static bool same(Rgba a, Rgba b) { return a.r == b.r && a.g == b.g && a.b == b.b && a.a == b.a; }

// Cell rectangles of the scene, and how many of them show another matrix than mat.
static int tagged_cells(const Scene *s, MatId mat, int *other)
{
    int n = 0;
    *other = 0;
    for (size_t i = 0; i < s->count; i++)
        if (s->cmds[i].kind == CMD_RECT && s->cmds[i].role == ROLE_CELL) {
            n++;
            if (s->cmds[i].cell.mat != mat) (*other)++;
        }
    return n;
}

// Decodes PNG bytes with SDL_image and reads one pixel (RGBA).
static SDL_Surface *decode(const ExportBuffer *b)
{
    SDL_Surface *raw = IMG_Load_RW(SDL_RWFromConstMem(b->data, (int)b->size), 1);
    if (!raw) return NULL;
    SDL_Surface *s = SDL_ConvertSurfaceFormat(raw, SDL_PIXELFORMAT_RGBA32, 0);
    SDL_FreeSurface(raw);
    return s;
}

static Rgba pixel(const SDL_Surface *s, int x, int y)
{
    const Uint8 *p = (const Uint8 *)s->pixels + (size_t)y * (size_t)s->pitch + (size_t)x * 4;
    return (Rgba){p[0], p[1], p[2], p[3]};
}

// ---------------------------------------------------------------------------------------------------
// A small XML well-formedness check: one root, matched tags, quoted attributes, known entities
// only.

static bool xml_entity(const char **p)
{
    const char *q = *p; // at '&'
    static const char *const known[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
    for (int i = 0; i < 5; i++)
        if (strncmp(q, known[i], strlen(known[i])) == 0) {
            *p = q + strlen(known[i]);
            return true;
        }
    if (q[1] == '#') {
        const char *e = strchr(q, ';');
        if (e && e - q < 12) {
            *p = e + 1;
            return true;
        }
    }
    return false;
}

static bool xml_name(const char **p, char *out, size_t cap)
{
    size_t n = 0;
    while (**p && (isalnum((unsigned char)**p) || strchr(":-_.", **p))) {
        if (n + 1 < cap) out[n++] = **p;
        (*p)++;
    }
    out[n] = '\0';
    return n > 0;
}

static bool xml_well_formed(const char *doc, char *why, size_t cap)
{
    char stack[64][32], name[32];
    int depth = 0, roots = 0;
    const char *p = doc;
    if (strncmp(p, "<?xml", 5) == 0) {
        p = strstr(p, "?>");
        if (!p) return snprintf(why, cap, "unterminated declaration"), false;
        p += 2;
    }
    while (*p) {
        if (*p != '<') {
            if (*p == '&') {
                if (!xml_entity(&p)) return snprintf(why, cap, "bad entity at %.20s", p), false;
                continue;
            }
            if (depth == 0 && !isspace((unsigned char)*p))
                return snprintf(why, cap, "text outside the root"), false;
            p++;
            continue;
        }
        if (strncmp(p, "<!--", 4) == 0) {
            const char *e = strstr(p + 4, "-->");
            if (!e) return snprintf(why, cap, "unterminated comment"), false;
            p = e + 3;
            continue;
        }
        if (p[1] == '/') {
            p += 2;
            if (!xml_name(&p, name, sizeof name) || *p != '>')
                return snprintf(why, cap, "bad end tag"), false;
            if (depth == 0 || strcmp(stack[depth - 1], name) != 0)
                return snprintf(why, cap, "</%s> does not close <%s>", name,
                                depth ? stack[depth - 1] : ""),
                       false;
            depth--;
            p++;
            continue;
        }
        p++;
        if (!xml_name(&p, name, sizeof name))
            return snprintf(why, cap, "bad tag at %.20s", p), false;
        if (depth == 0 && ++roots > 1) return snprintf(why, cap, "two roots"), false;
        for (;;) {
            while (isspace((unsigned char)*p)) p++;
            if (*p == '>' || (p[0] == '/' && p[1] == '>')) break;
            char attr[32];
            if (!xml_name(&p, attr, sizeof attr) || *p != '=' || (p[1] != '"' && p[1] != '\''))
                return snprintf(why, cap, "bad attribute in <%s> at %.20s", name, p), false;
            char quote = p[1];
            p += 2;
            while (*p && *p != quote) {
                if (*p == '<')
                    return snprintf(why, cap, "'<' in an attribute of <%s>", name), false;
                if (*p == '&') {
                    if (!xml_entity(&p))
                        return snprintf(why, cap, "bad entity in an attribute"), false;
                } else p++;
            }
            if (!*p) return snprintf(why, cap, "unterminated attribute"), false;
            p++;
        }
        if (*p == '/') p += 2;
        else {
            if (depth == 64) return snprintf(why, cap, "too deep"), false;
            snprintf(stack[depth++], sizeof stack[0], "%s", name);
            p++;
        }
    }
    if (depth != 0 || roots != 1)
        return snprintf(why, cap, "unclosed <%s>", depth ? stack[depth - 1] : "?"), false;
    return true;
}

// Counts cells of one head in an SVG and checks each fill against want(row, col).
static int svg_cells(const char *svg, int head, const Lesson *L, const Trace *T, MatId mat,
                     int *wrong)
{
    int n = 0;
    *wrong = 0;
    char want_mat[64];
    snprintf(want_mat, sizeof want_mat, "data-matrix=\"%s\"", export_matrix_key(mat));
    for (const char *p = strstr(svg, "<rect class=\"cell\""); p;
         p = strstr(p + 1, "<rect class=\"cell\"")) {
        int h, r, c;
        const char *end = strchr(p, '>'), *d = strstr(p, "data-head=");
        if (!end || !d || d > end
            || sscanf(d, "data-head=\"%d\" data-row=\"%d\" data-col=\"%d\"", &h, &r, &c) != 3) {
            (*wrong)++;
            continue;
        }
        const char *dm = strstr(p, want_mat);
        if (!dm || dm > end) (*wrong)++; // a cell of another matrix
        if (h != head) continue;
        n++;
        const char *f = strstr(p, "fill=\"#");
        unsigned rr, gg, bb;
        if (!f || sscanf(f, "fill=\"#%02x%02x%02x\"", &rr, &gg, &bb) != 3) {
            (*wrong)++;
            continue;
        }
        double v = scene_cell_value(L, T, (CellRef){mat, h, r, c});
        Rgba want = colormap_rgb(COLORMAP_VIRIDIS, v);
        if (!near((Rgba){(unsigned char)rr, (unsigned char)gg, (unsigned char)bb, 255}, want, 0))
            (*wrong)++;
    }
    return n;
}

// ---------------------------------------------------------------------------------------------------

static void test_names(void)
{
    char buf[128];
    export_slug("The cat sat", buf, sizeof buf);
    CHECK(strcmp(buf, "the-cat-sat") == 0, "slug '%s'", buf);
    export_slug("BERT-base's shape: 12 heads of 64", buf, sizeof buf);
    CHECK(strcmp(buf, "bert-bases-shape-12-heads-of-64") == 0, "slug '%s'", buf);
    export_slug("  \xc3\xa9t\xc3\xa9 / <x> ", buf, sizeof buf);
    CHECK(strcmp(buf, "\xc3\xa9t\xc3\xa9-x") == 0, "slug '%s'", buf);
    // The teacher's letters stay ("Leçon 1" -> "leçon-1", not "le-on-1"); punctuation separates.
    export_slug("Le\xc3\xa7on 1 \xe2\x80\x94 \xc3\x89T\xc3\x89 \xc2\xab x \xc2\xbb", buf,
                sizeof buf);
    CHECK(strcmp(buf, "le\xc3\xa7on-1-\xc3\xa9t\xc3\xa9-x") == 0, "slug '%s'", buf);
    export_slug("\xe7\x8c\xab\xe5\x9d\x90\xe3\x80\x82", buf, sizeof buf);
    CHECK(strcmp(buf, "\xe7\x8c\xab\xe5\x9d\x90") == 0, "CJK slug '%s'", buf);
    char small[6];
    export_slug("ab\xc3\xa7\xc3\xa7", small, sizeof small);
    CHECK(strcmp(small, "ab\xc3\xa7") == 0, "cut between letters '%s'", small);
    export_slug("", buf, sizeof buf);
    CHECK(strcmp(buf, "lesson") == 0, "empty slug '%s'", buf);
    export_name_for("lessons/the-cat-sat.json", NULL, buf, sizeof buf);
    CHECK(strcmp(buf, "the-cat-sat") == 0, "name '%s'", buf);
    export_default_dir("a/b/lesson.json", buf, sizeof buf);
    CHECK(strcmp(buf, "a/b/exports") == 0, "dir '%s'", buf);
    export_default_dir("lesson.json", buf, sizeof buf);
    CHECK(strcmp(buf, "exports") == 0, "dir '%s'", buf);
    export_default_dir(NULL, buf, sizeof buf);
    CHECK(strcmp(buf, "exports") == 0, "dir '%s'", buf);
}

// The PNG of head 0's weights: size, the colour under (The, The), every cell's fill and number,
// labels.
static void test_heatmap_png(Exporter *x, const Lesson *L, const Trace *T)
{
    TextMetrics tm = export_metrics(x);
    Scene s1, s2;
    scene_init(&s1);
    scene_init(&s2);
    HeatmapSpec spec = {MAT_WEIGHTS, 0, 1.0, COLORMAP_VIRIDIS, EXPORT_BG_WHITE};
    CHECK(export_build_heatmap(&s1, &spec, L, T, &tm), "heatmap at scale 1");
    spec.scale = 2.0;
    CHECK(export_build_heatmap(&s2, &spec, L, T, &tm), "heatmap at scale 2");
    printf("head 0 weights: %dx%d at scale 1, %dx%d at scale 2\n", s1.width, s1.height, s2.width,
           s2.height);
    CHECK(s2.width == 2 * s1.width && s2.height == 2 * s1.height, "scale 2 is %dx%d, scale 1 %dx%d",
          s2.width, s2.height, s1.width, s1.height);
    // A 3x3 heatmap with its labels, title and colour bar: under half a 1280x720 window at scale 1.
    CHECK(s1.width >= 400 && s1.width <= 800 && s1.height >= 180 && s1.height <= 500,
          "scale 1 size %dx%d", s1.width, s1.height);
    int other, cells = tagged_cells(&s1, MAT_WEIGHTS, &other);
    CHECK(cells == 9 && other == 0, "%d cells, %d of another matrix than the weights", cells,
          other);

    double w00 = mat_get(&T->head[0].weights, 0, 0);
    CHECK(fabs(w00 - 0.6111) < 5e-5, "weights[0][0] = %.6f", w00);
    Rgba want = colormap_rgb(COLORMAP_VIRIDIS, w00);
    for (int pass = 0; pass < 2; pass++) {
        const Scene *s = pass ? &s2 : &s1;
        ExportBuffer png;
        ExportError err;
        CHECK(export_png_encode(x, s, EXPORT_BG_WHITE, &png, &err), "png: %s", err.message);
        CHECK(png.size > 100 && memcmp(png.data, "\x89PNG\r\n\x1a\n", 8) == 0, "PNG signature");
        CHECK(png.data[25] == 2, "colour type %d (RGB expected on white)", png.data[25]);
        CHECK(export_bytes_are_ours(png.data, png.size), "our tEXt chunk is found");
        CHECK(contains(png.data, 80, "tEXtSoftware\0mha-tracer", 23),
              "tEXt Software: mha-tracer after IHDR");
        SDL_Surface *img = decode(&png);
        CHECK(img != NULL, "IMG_Load_RW: %s", SDL_GetError());
        if (img) {
            CHECK(img->w == s->width && img->h == s->height, "decoded %dx%d, scene %dx%d", img->w,
                  img->h, s->width, s->height);
            const HitRegion *r = cell_hit(s, 0, 0, 0);
            CHECK(r != NULL, "cell (The, The) has a hit region");
            if (r) {
                Rgba got = pixel(img, r->x + r->w / 2, r->y + r->h / 2);
                CHECK(near(got, want, 2),
                      "scale %d: centre of (The, The) is %d,%d,%d, viridis(0.6111) is %d,%d,%d",
                      pass + 1, got.r, got.g, got.b, want.r, want.g, want.b);
                Rgba corner = pixel(img, 2, 2);
                CHECK(near(corner, (Rgba){255, 255, 255, 255}, 0), "white background");
            }
            SDL_FreeSurface(img);
        }
        // Same scene, same bytes.
        ExportBuffer again;
        CHECK(export_png_encode(x, s, EXPORT_BG_WHITE, &again, &err), "png again");
        CHECK(again.size == png.size && memcmp(again.data, png.data, png.size) == 0,
              "PNG bytes differ between runs");
        export_buffer_free(&again);
        export_buffer_free(&png);
    }

    // Every cell: the colormap's colour, and its number inside it at a legible size.
    const AttnParams *p = &L->params;
    for (int pass = 0; pass < 2; pass++) {
        const Scene *s = pass ? &s2 : &s1;
        int bad_fill = 0, bad_text = 0;
        for (int i = 0; i < p->n; i++)
            for (int j = 0; j < p->m; j++) {
                const HitRegion *r = cell_hit(s, 0, i, j);
                Rgba fill;
                double v = mat_get(&T->head[0].weights, i, j);
                if (!r || !cell_rect(s, r, &fill)
                    || !near(fill, colormap_rgb(COLORMAP_VIRIDIS, v), 0))
                    bad_fill++;
                char buf[32];
                scene_format_value(v, buf, sizeof buf);
                bool found = false;
                for (size_t k = 0; r && k < s->count; k++) {
                    const DrawCmd *c = &s->cmds[k];
                    if (c->kind == CMD_TEXT && strcmp(scene_text(s, c), buf) == 0 && c->x >= r->x
                        && c->y >= r->y && c->x + c->w <= r->x + r->w && c->y + c->h <= r->y + r->h
                        && c->size
                               == scene_number_font(720 * (pass + 1))) // the board's number size
                        found = true;
                }
                if (!found) bad_text++;
            }
        CHECK(bad_fill == 0, "%d cells with the wrong fill", bad_fill);
        CHECK(bad_text == 0, "%d cells without their number inside them", bad_text);
    }
    CHECK(has_text(&s1, "Head 0") && has_text(&s1, "attention weights"),
          "head and matrix in the title");
    CHECK(count_text(&s1, "The") == 2 && count_text(&s1, "cat") == 2 && count_text(&s1, "sat") == 2,
          "tokens on both axes");
    CHECK(count_text(&s1, "0") == 1 && count_text(&s1, "1") == 1, "colour bar ends");
    // Nothing runs off the page.
    for (int pass = 0; pass < 2; pass++) {
        const Scene *s = pass ? &s2 : &s1;
        int out = 0;
        for (size_t i = 0; i < s->count; i++) {
            const DrawCmd *c = &s->cmds[i];
            if (c->kind != CMD_CLIP
                && (c->x < 0 || c->y < 0 || c->x + c->w > s->width || c->y + c->h > s->height))
                out++;
        }
        CHECK(out == 0, "scale %d: %d commands run off the %dx%d page", pass + 1, out, s->width,
              s->height);
    }
    // The raw scores: the matrix asked for, diverging colours; its colour bar's ends fit the page.
    HeatmapSpec scores = {MAT_SCORES, 1, 1.0, COLORMAP_VIRIDIS, EXPORT_BG_WHITE};
    CHECK(export_build_heatmap(&s1, &scores, L, T, &tm), "scores");
    cells = tagged_cells(&s1, MAT_SCORES, &other);
    CHECK(cells == 9 && other == 0, "%d cells, %d of another matrix than the scores", cells, other);
    CHECK(has_text(&s1, "Head 1") && has_text(&s1, "raw scores"), "scores title");
    // All heads: scale 2 is twice scale 1 too; every head's cells, and no head marked as the
    // current one.
    HeatmapSpec all = {MAT_WEIGHTS, -1, 1.0, COLORMAP_VIRIDIS, EXPORT_BG_WHITE};
    CHECK(export_build_heatmap(&s1, &all, L, T, &tm), "all heads at scale 1");
    all.scale = 2.0;
    CHECK(export_build_heatmap(&s2, &all, L, T, &tm), "all heads at scale 2");
    printf("all heads' weights: %dx%d at scale 1, %dx%d at scale 2\n", s1.width, s1.height,
           s2.width, s2.height);
    CHECK(s2.width == 2 * s1.width && s2.height == 2 * s1.height,
          "all heads: scale 2 is %dx%d, scale 1 %dx%d", s2.width, s2.height, s1.width, s1.height);
    cells = tagged_cells(&s2, MAT_WEIGHTS, &other);
    CHECK(cells == 18 && other == 0, "all heads: %d cells, %d of another matrix", cells, other);
    int marked = 0;
    for (size_t i = 0; i < s2.count; i++)
        if (s2.cmds[i].kind == CMD_FRAME && same(s2.cmds[i].color, THEME_LIGHT.result)) marked++;
    CHECK(marked == 0, "all heads: %d heads framed as the current one", marked);
    CHECK(has_text(&s2, "head 0") && has_text(&s2, "head 1"), "every head named");
    scene_free(&s1);
    scene_free(&s2);
}

// Backgrounds are themes handed to the scene: the page, ink and panels are the theme's own colours.
static void test_backgrounds(Exporter *x, const Lesson *L, const Trace *T)
{
    TextMetrics tm = export_metrics(x);
    Scene s;
    scene_init(&s);
    HeatmapSpec spec = {MAT_SCORES, 0, 1.0, COLORMAP_VIRIDIS, EXPORT_BG_DARK};
    CHECK(export_build_heatmap(&s, &spec, L, T, &tm), "dark heatmap");
    CHECK(s.count > 0 && same(s.cmds[0].color, THEME_DARK.bg) && same(s.background, THEME_DARK.bg),
          "dark page");
    CHECK(has_text(&s, "Head 0"), "title");
    for (size_t i = 0; i < s.count; i++)
        if (s.cmds[i].kind == CMD_TEXT && strstr(scene_text(&s, &s.cmds[i]), "Head 0"))
            CHECK(same(s.cmds[i].color, THEME_DARK.ink), "the title in the dark theme's ink");
    // Transparent: the light theme on a page of alpha 0, an RGBA PNG whose corner is clear.
    spec.background = EXPORT_BG_TRANSPARENT;
    CHECK(export_build_heatmap(&s, &spec, L, T, &tm), "transparent heatmap");
    CHECK(s.cmds[0].color.a == 0 && s.background.a == 0, "transparent page");
    ExportBuffer png;
    ExportError err;
    CHECK(export_png_encode(x, &s, EXPORT_BG_TRANSPARENT, &png, &err), "png: %s", err.message);
    CHECK(png.size > 26 && png.data[25] == 6, "transparent heatmap is RGBA");
    SDL_Surface *img = decode(&png);
    if (img) {
        CHECK(pixel(img, 1, 1).a == 0, "corner is transparent");
        const HitRegion *r = cell_hit(&s, 0, 0, 0);
        Rgba fill = {0, 0, 0, 0};
        CHECK(r && cell_rect(&s, r, &fill), "cell (The, The)");
        if (r) {
            Rgba got = pixel(img, r->x + r->w / 2 - r->w / 3, r->y + 2);
            CHECK(got.a == 255 && near(got, fill, 1), "an opaque cell: %d,%d,%d,%d", got.r, got.g,
                  got.b, got.a);
        }
        SDL_FreeSurface(img);
    }
    export_buffer_free(&png);
    // White with the grey colour map: the print theme (black ink) on white.
    spec.background = EXPORT_BG_WHITE;
    spec.colormap = COLORMAP_GREY;
    CHECK(export_build_heatmap(&s, &spec, L, T, &tm), "grey heatmap");
    CHECK(same(s.cmds[0].color, (Rgba){255, 255, 255, 255}), "white page");
    for (size_t i = 0; i < s.count; i++)
        if (s.cmds[i].kind == CMD_TEXT && strstr(scene_text(&s, &s.cmds[i]), "Head 0"))
            CHECK(same(s.cmds[i].color, THEME_PRINT.ink), "the title in the print theme's ink");
    scene_free(&s);
}

// The SVG of all heads: well-formed, one cell per token pair per head with viridis fills, labels as
// text.
static void test_svg(Exporter *x, const Lesson *L, const Trace *T)
{
    TextMetrics tm = export_metrics(x);
    Scene s;
    scene_init(&s);
    HeatmapSpec spec = {MAT_WEIGHTS, -1, 2.0, COLORMAP_VIRIDIS, EXPORT_BG_WHITE};
    CHECK(export_build_heatmap(&s, &spec, L, T, &tm), "all heads");
    size_t size = 0, size2 = 0;
    char *svg = svg_encode(&s, "The cat sat \xe2\x80\x94 all heads", &size);
    char *svg2 = svg_encode(&s, "The cat sat \xe2\x80\x94 all heads", &size2);
    CHECK(svg && svg2 && size == size2 && memcmp(svg, svg2, size) == 0,
          "SVG bytes differ between runs");
    if (svg) {
        char why[200] = "";
        CHECK(xml_well_formed(svg, why, sizeof why), "SVG is not well-formed: %s", why);
        CHECK(strncmp(svg, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" SVG_MARK "\n", 66) == 0,
              "declaration and mark");
        CHECK(export_bytes_are_ours((const unsigned char *)svg, size), "our mark is found");
        CHECK(strstr(svg, "<image") == NULL && strstr(svg, "base64") == NULL, "no raster inside");
        CHECK(strstr(svg, "font-family=\"DejaVu Sans, Verdana, Noto Sans, Noto Sans CJK JP,")
                      != NULL
                  && strstr(svg, "Noto Sans Arabic") && strstr(svg, "Noto Color Emoji")
                  && strstr(svg, "Emoji, sans-serif\""),
              "fonts with fallbacks for every script and a generic family last");
        for (int h = 0; h < L->params.heads; h++) {
            int wrong;
            int n = svg_cells(svg, h, L, T, MAT_WEIGHTS, &wrong);
            CHECK(n == L->params.n * L->params.m, "head %d: %d cells in the SVG", h, n);
            CHECK(wrong == 0, "head %d: %d cells with the wrong fill", h, wrong);
        }
        CHECK(strstr(svg, ">The</text>") && strstr(svg, ">cat</text>")
                  && strstr(svg, ">sat</text>"),
              "labels as text");
    }
    free(svg);
    free(svg2);
    // One head: its numbers as text.
    HeatmapSpec one_head = {MAT_WEIGHTS, 0, 1.0, COLORMAP_VIRIDIS, EXPORT_BG_WHITE};
    CHECK(export_build_heatmap(&s, &one_head, L, T, &tm), "head 0");
    svg = svg_encode(&s, "The cat sat \xe2\x80\x94 head 0", &size);
    CHECK(svg && strstr(svg, ">0.6111</text>") != NULL, "numbers as text");
    if (svg) {
        int wrong, n = svg_cells(svg, 0, L, T, MAT_WEIGHTS, &wrong);
        CHECK(n == 9 && wrong == 0, "head 0: %d cells, %d wrong", n, wrong);
    }
    free(svg);
    scene_free(&s);

    // Tokens that need escaping, and bytes that are not UTF-8.
    static const char lesson[] =
        "{\"title\": \"Quotes & <tags> \\\"here\\\"\", \"tokens\": [\"a&b\", \"<c>\", \"\\\"d'\"],"
        " \"embeddings\": [[1, 0], [0, 1], [1, 1]], \"heads\": 1, \"weights\": {\"random\": "
        "{\"seed\": 3}}}";
    Lesson E;
    LessonError lerr;
    Trace ET;
    TraceError terr;
    bool parsed = lesson_parse(&E, lesson, strlen(lesson), "escape.json", &lerr);
    CHECK(parsed, "escape lesson: %s", lerr.message);
    bool traced = parsed && trace_run(&ET, &E.params, &terr);
    CHECK(traced, "escape lesson traces: %s", parsed ? terr.message : "not parsed");
    if (!traced) {
        if (parsed) lesson_free(&E);
        return;
    }
    Scene e;
    scene_init(&e);
    HeatmapSpec one = {MAT_SCORES, 0, 1.0, COLORMAP_VIRIDIS, EXPORT_BG_WHITE};
    CHECK(export_build_heatmap(&e, &one, &E, &ET, &tm), "escape heatmap");
    svg = svg_encode(&e, E.title, &size);
    if (svg) {
        char why[200] = "";
        CHECK(xml_well_formed(svg, why, sizeof why), "escaped SVG is not well-formed: %s", why);
        CHECK(strstr(svg, ">a&amp;b</text>") && strstr(svg, ">&lt;c&gt;</text>")
                  && strstr(svg, ">&quot;d&apos;</text>"),
              "tokens escaped");
        CHECK(strstr(svg, "<title>Quotes &amp; &lt;tags&gt; &quot;here&quot;</title>") != NULL,
              "title escaped");
        CHECK(strstr(svg, "<c>") == NULL, "no raw tag from a token");
    }
    free(svg);
    // A text command with control characters and broken UTF-8 (the scene is plain data).
    Scene raw;
    scene_init(&raw);
    raw.width = raw.height = 10;
    raw.text = malloc(16);
    memcpy(raw.text, "a\x01\xff\xc3(b", 7);
    raw.text_len = raw.text_cap = 7;
    raw.cmds = calloc(1, sizeof(DrawCmd));
    raw.cmds[0] =
        (DrawCmd){.kind = CMD_TEXT, .w = 5, .h = 5, .color = {0, 0, 0, 255}, .size = 5, .text = 0};
    raw.count = raw.cap = 1;
    svg = svg_encode(&raw, NULL, &size);
    CHECK(svg && strstr(svg, ">a\xef\xbf\xbd\xef\xbf\xbd(b</text>"),
          "control bytes dropped, bad UTF-8 replaced");
    free(svg);
    scene_free(&raw);
    scene_free(&e);
    trace_free(&ET);
    lesson_free(&E);
}

static bool is_light(Rgba c) { return 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b > 150.0; }

// Boards: the window's size times the scale; each background.
static void test_boards(Exporter *x, const Lesson *L, const Trace *T)
{
    TextMetrics tm = export_metrics(x);
    ViewDims dims = view_dims_from_params(&L->params);
    ViewState st;
    view_init(&st, &dims);
    st.stage_index = 4; // softmax
    Scene s;
    scene_init(&s);
    CHECK(export_build_board(&s, &st, L, T, 1.0, EXPORT_BG_WHITE, &tm), "board");
    CHECK(s.width == 1280 && s.height == 720, "board %dx%d", s.width, s.height);
    CHECK(s.count > 0 && s.cmds[0].kind == CMD_RECT
              && near(s.cmds[0].color, (Rgba){255, 255, 255, 255}, 0),
          "white background");
    CHECK(!has_text(&s, "Point at") && !has_text(&s, "click it"),
          "no hints about the mouse on a slide");
    CHECK(export_build_board(&s, &st, L, T, 2.0, EXPORT_BG_TRANSPARENT, &tm), "board");
    CHECK(s.width == 2560 && s.height == 1440, "board %dx%d", s.width, s.height);
    CHECK(s.cmds[0].color.a == 0, "transparent background");
    ExportBuffer png;
    ExportError err;
    CHECK(export_png_encode(x, &s, EXPORT_BG_TRANSPARENT, &png, &err), "png: %s", err.message);
    CHECK(png.size > 26 && png.data[25] == 6, "transparent board is RGBA");
    SDL_Surface *img = decode(&png);
    if (img) {
        CHECK(pixel(img, 1, 1).a == 0, "corner is transparent");
        SDL_FreeSurface(img);
    }
    export_buffer_free(&png);
    // Dark: text drawn on the background reads light; cells keep their colours.
    CHECK(export_build_board(&s, &st, L, T, 1.0, EXPORT_BG_DARK, &tm), "board");
    CHECK(same(s.cmds[0].color, THEME_DARK.bg) && !is_light(s.cmds[0].color), "dark background");
    int dark_text = 0;
    for (size_t i = 0; i < s.count; i++) {
        const DrawCmd *c = &s.cmds[i];
        if (c->kind != CMD_TEXT) continue;
        int mx = c->x + c->w / 2, my = c->y + c->h / 2;
        bool on_cell = false;
        for (size_t k = 0; k < s.hit_count; k++) {
            const HitRegion *r = &s.hits[k];
            if (r->cell.mat != MAT_NONE && mx >= r->x && my >= r->y && mx < r->x + r->w
                && my < r->y + r->h)
                on_cell = true;
        }
        // (the current stage's name is dark on its light-blue segment: test_contrast measures what
        // is under a text)
        if (!on_cell && !same(c->color, THEME_DARK.on_result) && !is_light(c->color)
            && c->color.b < 150) {
            if (dark_text++ < 3) fprintf(stderr, "  dark text on dark: '%s'\n", scene_text(&s, c));
        }
    }
    CHECK(dark_text == 0, "%d dark texts on the dark background", dark_text);
    const HitRegion *r = NULL;
    for (size_t k = 0; k < s.hit_count && !r; k++)
        if (s.hits[k].cell.mat == MAT_WEIGHTS && s.hits[k].cell.row == 0 && s.hits[k].cell.col == 0)
            r = &s.hits[k];
    Rgba fill = {0, 0, 0, 0};
    CHECK(r && cell_rect(&s, r, &fill), "weights cell (The, The) on the dark board");
    CHECK(near(fill, colormap_rgb(COLORMAP_VIRIDIS, mat_get(&T->head[0].weights, 0, 0)), 0),
          "cells keep their colours");
    // White with the grey colour map: the print theme, as the window shows it.
    st.colormap = COLORMAP_GREY;
    CHECK(export_build_board(&s, &st, L, T, 1.0, EXPORT_BG_WHITE, &tm), "grey board");
    CHECK(same(s.cmds[0].color, THEME_PRINT.bg), "print page");
    int print_ink = 0;
    for (size_t i = 0; i < s.count; i++)
        if (s.cmds[i].kind == CMD_TEXT && same(s.cmds[i].color, THEME_PRINT.ink)) print_ink++;
    CHECK(print_ink > 0, "the print theme's ink");
    // Another head: the board shows it.
    st.colormap = COLORMAP_VIRIDIS;
    st.head = 1;
    CHECK(export_build_board(&s, &st, L, T, 1.0, EXPORT_BG_WHITE, &tm), "head 1");
    CHECK(has_text(&s, "head 1"), "the board names head 1");
    scene_free(&s);
}

// ---------------------------------------------------------------------------------------------------
// Files

static int count_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

static bool file_equals(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    char *buf = malloc(size + 1);
    size_t n = buf ? fread(buf, 1, size + 1, f) : 0;
    fclose(f);
    bool same = buf && n == size && memcmp(buf, data, size) == 0;
    free(buf);
    return same;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

// Head 0's weights at scale 1, the bytes the file tests write: the SVG titled title (malloc'd)
// returned, and the PNG into *png unless png is NULL.
static char *heatmap_files(Exporter *x, const Lesson *L, const Trace *T, const char *title,
                           ExportBuffer *png, size_t *svg_size)
{
    TextMetrics tm = export_metrics(x);
    Scene s;
    scene_init(&s);
    HeatmapSpec spec = {MAT_WEIGHTS, 0, 1.0, COLORMAP_VIRIDIS, EXPORT_BG_WHITE};
    CHECK(export_build_heatmap(&s, &spec, L, T, &tm), "heatmap");
    ExportError err;
    if (png) CHECK(export_png_encode(x, &s, EXPORT_BG_WHITE, png, &err), "png: %s", err.message);
    char *svg = svg_encode(&s, title, svg_size);
    CHECK(svg != NULL, "svg");
    scene_free(&s);
    return svg;
}

static void test_files(Exporter *x, const Lesson *L, const Trace *T, const char *tmp)
{
    ExportBuffer png;
    ExportError err;
    size_t svg_size;
    char *svg = heatmap_files(x, L, T, "t", &png, &svg_size);
    ExportFile files[2] = {{"a.png", png.data, png.size},
                           {"a.svg", (unsigned char *)svg, svg_size}};

    char dir[600], path[700];
    snprintf(dir, sizeof dir, "%s/out", tmp);
    // Missing directory: an I/O error, and nothing is made.
    CHECK(!export_write_files(dir, false, files, 2, &err) && err.io, "missing directory must fail");
    CHECK(strstr(err.message, dir) != NULL, "the error names the directory: %s", err.message);
    CHECK(count_files(dir) < 0, "the directory was not made");
    // create_dir (the window's exports/) makes it.
    CHECK(export_write_files(dir, true, files, 2, &err), "write: %s", err.message);
    snprintf(path, sizeof path, "%s/a.png", dir);
    CHECK(file_equals(path, png.data, png.size), "a.png holds the PNG bytes");
    snprintf(path, sizeof path, "%s/a.svg", dir);
    CHECK(file_equals(path, svg, svg_size), "a.svg holds the SVG bytes");
    CHECK(count_files(dir) == 2, "no temporary files left (%d files)", count_files(dir));
    // Our own files are replaced.
    CHECK(export_write_files(dir, false, files, 2, &err), "rewrite: %s", err.message);
    CHECK(count_files(dir) == 2, "still two files");
    // Anything else is not: the whole write fails before a byte is written.
    snprintf(path, sizeof path, "%s/a.svg", dir);
    write_file(path, "<svg>a teacher's own drawing</svg>");
    ExportFile three[3] = {{"b.png", png.data, png.size}, files[0], files[1]};
    CHECK(!export_write_files(dir, false, three, 3, &err) && err.io,
          "a foreign file in the way must fail");
    CHECK(strstr(err.message, "a.svg") && strstr(err.message, "not an mha-tracer export"),
          "message: %s", err.message);
    CHECK(file_equals(path, "<svg>a teacher's own drawing</svg>", 34),
          "the foreign file is untouched");
    CHECK(count_files(dir) == 2, "b.png was not written (%d files)", count_files(dir));
    // A PNG without our chunk (as IMG_SavePNG writes it) is not ours either.
    CHECK(!export_bytes_are_ours((const unsigned char *)"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16),
          "plain PNG is not ours");
    CHECK(!export_bytes_are_ours((const unsigned char *)"{\"title\": \"x\"}", 14),
          "a lesson is not ours");
    // An unwritable directory: nothing written, no temporaries.
    char ro[600];
    snprintf(ro, sizeof ro, "%s/ro", tmp);
    mkdir(ro, 0555);
    chmod(ro, 0555);
    const char *unwritable = geteuid() == 0 ? "/sys" : ro; // root writes anywhere but in /sys
    CHECK(!export_write_files(unwritable, false, files, 2, &err) && err.io,
          "unwritable %s must fail", unwritable);
    CHECK(strstr(err.message, "nothing was written") != NULL, "message: %s", err.message);
    CHECK(geteuid() == 0 || count_files(ro) == 0, "nothing in the unwritable directory");
    chmod(ro, 0755);
    free(svg);
    export_buffer_free(&png);
}

// The bytes of path (malloc'd; *n its size), or NULL.
static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    unsigned char *b = malloc(1 << 20);
    *n = b ? fread(b, 1, 1 << 20, f) : 0;
    fclose(f);
    return b;
}

// All or nothing at the edges (issue 16, item 6): a rename that fails midway puts back what was
// replaced; temporaries of a killed export are cleaned; paths that do not fit fail before anything
// is written; a file is ours only by its whole shape, not by our comment somewhere in it.
static void test_all_or_nothing(Exporter *x, const Lesson *L, const Trace *T, const char *tmp)
{
    ExportBuffer png;
    ExportError err;
    size_t svg_size;
    char *svg = heatmap_files(x, L, T, "t", &png, &svg_size);

    char dir[600], path[700], p1[700], p2[700], p3[700];
    snprintf(dir, sizeof dir, "%s/aon", tmp);
    mkdir(dir, 0755);
    // Two files of ours, then a new export of those and a third, h1.svg, whose rename fails (a
    // directory appears at its name after the checks): h0 is put back as it was, h2 untouched,
    // nothing else is left.
    ExportFile olds[3] = {{"h0.svg", (unsigned char *)svg, svg_size},
                          {"h2.png", png.data, png.size},
                          {"h1.svg", (unsigned char *)svg, svg_size}};
    CHECK(export_write_files(dir, false, olds, 2, &err), "first export: %s", err.message);
    // New content: the same SVG with another title (still ours).
    size_t svg2_size;
    char *svg2 = heatmap_files(x, L, T, "another title", NULL, &svg2_size);
    CHECK(svg2 && (svg2_size != svg_size || memcmp(svg, svg2, svg_size) != 0),
          "the new SVG differs");
    const char *names[3] = {"h0.svg", "h1.svg", "h2.png"};
    ExportWriter *w = export_writer_begin(dir, false, names, 3, &err);
    CHECK(w != NULL, "begin: %s", err.message);
    if (w) {
        CHECK(export_writer_add(w, 0, (unsigned char *)svg2, svg2_size, &err), "add 0");
        CHECK(export_writer_add(w, 1, (unsigned char *)svg2, svg2_size, &err), "add 1");
        CHECK(export_writer_add(w, 2, png.data, png.size, &err), "add 2");
        snprintf(p1, sizeof p1, "%s/h1.svg", dir);
        snprintf(path, sizeof path, "%s/h1.svg/inside", dir);
        unlink(p1);
        mkdir(p1, 0755); // a non-empty directory: rename(file, dir) fails
        write_file(path, "x");
        CHECK(!export_writer_commit(w, &err) && err.io, "the commit fails at the second rename");
        CHECK(count_files(p1) == 1, "the directory in the way is left as it was");
        CHECK(strstr(err.message, "h1.svg") && strstr(err.message, "put back"), "message: %s",
              err.message);
        snprintf(p1, sizeof p1, "%s/h0.svg", dir);
        CHECK(file_equals(p1, svg, svg_size), "h0.svg was put back as it was");
        snprintf(p3, sizeof p3, "%s/h2.png", dir);
        CHECK(file_equals(p3, png.data, png.size), "h2.png untouched");
        CHECK(count_files(dir) == 3,
              "no temporaries or copies left: %d entries (h0, h2, the folder)", count_files(dir));
        unlink(path);
        snprintf(p2, sizeof p2, "%s/h1.svg", dir);
        rmdir(p2);
        CHECK(export_write_files(dir, false, olds, 3, &err), "then the three: %s", err.message);
    }

    // A killed export's temporaries (a process that is gone) are cleaned by the next export of
    // those names; a running process's and other names' are left alone.
    char stale[700], stale_old[700], live[700], other[700];
    snprintf(stale, sizeof stale, "%s/.h0.svg.2147483646.tmp", dir);
    snprintf(stale_old, sizeof stale_old, "%s/.h2.png.2147483646.old", dir);
    snprintf(live, sizeof live, "%s/.h0.svg.%ld.tmp", dir, (long)getppid());
    snprintf(other, sizeof other, "%s/.notes.txt.2147483646.tmp", dir);
    char stale_try[700];
    snprintf(stale_try, sizeof stale_try, "%s/.h1.svg.2147483646-7.tmp", dir); // a later try's name
    write_file(stale, "half");
    write_file(stale_old, "half");
    write_file(stale_try, "half");
    write_file(live, "writing");
    write_file(other, "not ours");
    CHECK(export_write_files(dir, false, olds, 3, &err), "export: %s", err.message);
    CHECK(access(stale, F_OK) != 0 && access(stale_old, F_OK) != 0 && access(stale_try, F_OK) != 0,
          "the dead process's temporaries are gone");
    CHECK(access(live, F_OK) == 0, "a running process's temporary stays");
    CHECK(access(other, F_OK) == 0, "a temporary of another name stays");
    unlink(live);
    unlink(other);

    // Paths that do not fit: a folder path near PATH_MAX (made of 250-byte components), and a name
    // too long for its temporary: an I/O error before anything is written, never a cut name.
    char deep[4200];
    size_t len = (size_t)snprintf(deep, sizeof deep, "%s", dir);
    char comp[251];
    memset(comp, 'd', 250);
    comp[250] = '\0';
    bool made = true;
    while (len + 251 < 4080 && made) {
        len += (size_t)snprintf(deep + len, sizeof deep - len, "/%s", comp);
        made = mkdir(deep, 0755) == 0;
    }
    while (made && len < 4080) { // up to exactly 4080 bytes
        size_t add = 4080 - len - 1 > 250 ? 250 : 4080 - len - 1;
        deep[len++] = '/';
        memset(deep + len, 'e', add);
        len += add;
        deep[len] = '\0';
        made = mkdir(deep, 0755) == 0;
    }
    CHECK(made && strlen(deep) == 4080, "a 4080-byte folder path: %zu", strlen(deep));
    if (made) {
        ExportFile one[1] = {{"the-cat-sat-stage05-softmax-head0.png", png.data, png.size}};
        CHECK(!export_write_files(deep, false, one, 1, &err) && err.io,
              "a path that does not fit fails");
        CHECK(strstr(err.message, "too long") && strstr(err.message, "nothing was written"),
              "message: %s", err.message);
        CHECK(count_files(deep) == 0, "nothing in the deep folder (%d entries)", count_files(deep));
    }
    char long_name[300];
    memset(long_name, 'n', 250);
    strcpy(long_name + 250, ".png");
    ExportFile lng[1] = {{long_name, png.data, png.size}};
    CHECK(!export_write_files(dir, false, lng, 1, &err) && err.io
              && strstr(err.message, "too long"),
          "a 254-byte name has no room for its temporary: %s", err.message);

    // Recognised by more than a comment: our mark inside someone else's SVG or text, an SVG of ours
    // cut short, a PNG with our chunk but a wrong CRC or no IEND.
    static const char mark_in_text[] =
        "Notes about exports.\n<!-- mha-tracer export -->\n<svg></svg>\n";
    CHECK(!export_bytes_are_ours((const unsigned char *)mark_in_text, sizeof mark_in_text - 1),
          "a comment is not enough");
    CHECK(export_bytes_are_ours((const unsigned char *)svg, svg_size), "our SVG is ours");
    CHECK(!export_bytes_are_ours((const unsigned char *)svg, svg_size / 2),
          "half an SVG of ours is not");
    CHECK(export_bytes_are_ours(png.data, png.size), "our PNG is ours");
    CHECK(!export_bytes_are_ours(png.data, png.size - 12), "a PNG without IEND is not");
    unsigned char *bad_crc = malloc(png.size);
    if (bad_crc) {
        memcpy(bad_crc, png.data, png.size);
        bad_crc[33 + 8 + 4] ^= 1; // inside our tEXt chunk's data: its CRC no longer matches
        CHECK(!export_bytes_are_ours(bad_crc, png.size),
              "a PNG whose chunk has a wrong CRC is not");
        free(bad_crc);
    }
    // On disk: a teacher's file that quotes our comment is left alone.
    snprintf(path, sizeof path, "%s/h0.svg", dir);
    write_file(path, mark_in_text);
    CHECK(!export_write_files(dir, false, olds, 3, &err)
              && strstr(err.message, "not an mha-tracer export"),
          "a file with our comment but not our shape is not replaced: %s", err.message);
    size_t n = 0;
    unsigned char *now = slurp(path, &n);
    CHECK(now && n == sizeof mark_in_text - 1 && memcmp(now, mark_in_text, n) == 0,
          "and is untouched");
    free(now);
    free(svg);
    free(svg2);
    export_buffer_free(&png);
}

// Whole exports into a directory: names, counts, lesson order, same bytes twice, the window's E.
static void test_run(const Lesson *L, const Trace *T, const char *tmp)
{
    char dir[600];
    snprintf(dir, sizeof dir, "%s/run", tmp);
    mkdir(dir, 0755);
    ExportRequest req;
    export_request_defaults(&req);
    req.dir = dir;
    req.font_dir = FONTS;
    req.name = "the-cat-sat";
    req.what = EXPORT_WHAT_BOARD;
    req.stage = EXPORT_ALL_STAGES;
    req.scale = 1.0;
    ExportResult res;
    ExportError err;
    ViewDims dims = view_dims_from_params(&L->params);
    ViewState st;
    view_init(&st, &dims);
    CHECK(export_run(&req, L, T, &res, &err), "board, all stages: %s", err.message);
    // Each stage's board, then two slides (asked, answered) for each of the lesson's questions on
    // that stage, numbered in the order asked (the stages' order): the scores question, third in
    // the file, is question 1.
    char want[40][700];
    int nwant = 0, asked = 0;
    for (int i = 0; i < st.stage_count && nwant < 38; i++) {
        const char *key = stage_info(st.stages[i])->key;
        // the stages whose result belongs to no head (input, concat, output) are named for none
        const MatInfo *ri = mat_info(stage_info(st.stages[i])->results[0]);
        snprintf(want[nwant++], sizeof want[0], "%s/the-cat-sat-stage%02d-%s%s.png", dir, i + 1,
                 key, ri && ri->per_head ? "-head0" : "");
        for (int q = 0; q < L->question_count && nwant < 38; q++) {
            if (strcmp(L->questions[q].stage, key) != 0) continue;
            asked++;
            snprintf(want[nwant++], sizeof want[0],
                     "%s/the-cat-sat-stage%02d-%s-question%d-1-ask.png", dir, i + 1, key, asked);
            snprintf(want[nwant++], sizeof want[0],
                     "%s/the-cat-sat-stage%02d-%s-question%d-2-answer.png", dir, i + 1, key, asked);
        }
    }
    CHECK(L->question_count == 3 && nwant == st.stage_count + 6,
          "the cat lesson's 3 questions give 6 slides");
    CHECK((int)res.count == nwant, "%zu images for %d stages and their questions", res.count,
          st.stage_count);
    for (size_t i = 0; i < res.count && (int)i < nwant; i++)
        CHECK(strcmp(res.paths[i], want[i]) == 0, "path %s, expected %s", res.paths[i], want[i]);
    export_result_free(&res);

    req.what = EXPORT_WHAT_HEATMAPS;
    req.stage = STAGE_SOFTMAX;
    req.formats = EXPORT_PNG | EXPORT_SVG;
    CHECK(export_run(&req, L, T, &res, &err), "heatmaps: %s", err.message);
    CHECK(res.count == 6, "%zu files: two heads and the grid, PNG and SVG", res.count);
    if (res.count == 6) {
        CHECK(strstr(res.paths[0], "/the-cat-sat-stage05-weights-heatmap-head0.png") != NULL,
              "first %s", res.paths[0]);
        CHECK(strstr(res.paths[5], "/the-cat-sat-stage05-weights-heatmap-heads.svg") != NULL,
              "last %s", res.paths[5]);
    }
    // Same request, same bytes.
    FILE *f = fopen(res.paths[0], "rb");
    unsigned char first[200000];
    size_t n1 = f ? fread(first, 1, sizeof first, f) : 0;
    if (f) fclose(f);
    ExportResult again;
    CHECK(export_run(&req, L, T, &again, &err), "again: %s", err.message);
    CHECK(again.count == res.count && file_equals(again.paths[0], first, n1),
          "a second export gives other bytes");
    export_result_free(&again);
    export_result_free(&res);
    // Heatmaps exist from the scores on; a non-causal lesson has no mask stage.
    req.stage = STAGE_INPUT;
    CHECK(!export_run(&req, L, T, &res, &err) && !err.io && strstr(err.message, "'scores'"),
          "heatmaps of the input stage must fail as bad usage: %s", err.message);
    req.stage = STAGE_MASK;
    CHECK(!export_run(&req, L, T, &res, &err) && !err.io && strstr(err.message, "mask"),
          "no mask: %s", err.message);
    // Every stage: each matrix once (the weights are the heatmap of the later stages too).
    req.stage = EXPORT_ALL_STAGES;
    req.formats = EXPORT_PNG;
    CHECK(export_run(&req, L, T, &res, &err), "heatmaps of every stage: %s", err.message);
    CHECK(res.count == 9, "%zu heatmaps: scores, scaled and weights of two heads and the grid",
          res.count);
    export_result_free(&res);
    // The stage of the output shows the weights.
    req.stage = STAGE_OUTPUT;
    CHECK(export_run(&req, L, T, &res, &err) && res.count == 3
              && strstr(res.paths[0], "-stage05-weights-heatmap-head0.png"),
          "heatmaps of the output stage: %s", res.count ? res.paths[0] : err.message);
    export_result_free(&res);
    // A head the lesson does not have.
    req.what = EXPORT_WHAT_BOARD;
    req.head = 2;
    CHECK(!export_run(&req, L, T, &res, &err) && !err.io && strstr(err.message, "head 2"),
          "head 2: %s", err.message);
    req.head = 1;
    req.stage = STAGE_SOFTMAX;
    CHECK(export_run(&req, L, T, &res, &err) && res.count == 5
              && strstr(res.paths[0], "-stage05-softmax-head1.png")
              && strstr(res.paths[4], "-stage05-softmax-question3-2-answer.png"),
          "board of head 1 and the softmax's two questions: %s",
          res.count ? res.paths[0] : err.message);
    export_result_free(&res);
    req.formats = EXPORT_PNG | EXPORT_SVG;

    // A missing directory is made when asked (one level), as --export and the window's exports/ do.
    char made[700];
    snprintf(made, sizeof made, "%s/made", tmp);
    req.dir = made;
    req.create_dir = true;
    req.what = EXPORT_WHAT_HEATMAPS;
    req.formats = EXPORT_PNG;
    CHECK(export_run(&req, L, T, &res, &err) && res.count == 3 && count_files(made) == 3,
          "into a new directory: %s", res.count ? res.paths[0] : err.message);
    export_result_free(&res);

    // The window: E in the all-heads view of the scores stage, Shift+E on head 1 of the softmax
    // stage.
    st.stage_index = 2;
    st.view = VIEW_ALL_HEADS;
    ExportRequest w;
    export_request_defaults(&w);
    w.dir = dir;
    w.font_dir = FONTS;
    w.formats = EXPORT_PNG | EXPORT_SVG;
    w.scale = 1.0;
    CHECK(export_from_view(&w, false, &st, L, T, &res, &err), "E: %s", err.message);
    CHECK(res.count == 2 && strstr(res.paths[0], "the-cat-sat-stage03-scores-heatmap-heads.png"),
          "E wrote %s", res.count ? res.paths[0] : "nothing");
    export_result_free(&res);
    st.view = VIEW_ONE_HEAD;
    st.head = 1;
    st.stage_index = 4;
    CHECK(export_from_view(&w, true, &st, L, T, &res, &err), "Shift+E: %s", err.message);
    CHECK(res.count == 2 && strstr(res.paths[0], "the-cat-sat-stage05-softmax-head1.png"),
          "Shift+E wrote %s", res.count ? res.paths[0] : "nothing");
    char head1[700];
    snprintf(head1, sizeof head1, "%s", res.count ? res.paths[0] : "");
    export_result_free(&res);
    // Shift+E on head 0 then leaves head 1's board alone (issue 17), and the all-heads view has its
    // own.
    st.head = 0;
    CHECK(export_from_view(&w, true, &st, L, T, &res, &err), "Shift+E on head 0: %s", err.message);
    CHECK(res.count == 2 && strstr(res.paths[0], "the-cat-sat-stage05-softmax-head0.png"),
          "Shift+E wrote %s", res.count ? res.paths[0] : "nothing");
    struct stat sb;
    CHECK(stat(head1, &sb) == 0, "head 1's board is still there");
    export_result_free(&res);
    // A pinned cell is in the board's name: pinning another cell gives another file.
    st.pinned = (CellRef){MAT_WEIGHTS, 0, 2, 1};
    CHECK(export_from_view(&w, true, &st, L, T, &res, &err) && res.count == 2
              && strstr(res.paths[0], "the-cat-sat-stage05-softmax-head0-weights-row2-col1.png"),
          "Shift+E with a pinned cell wrote %s", res.count ? res.paths[0] : err.message);
    export_result_free(&res);
    st.pinned = (CellRef){MAT_NONE, 0, 0, 0};
    st.view = VIEW_ALL_HEADS;
    CHECK(export_from_view(&w, true, &st, L, T, &res, &err) && res.count == 2
              && strstr(res.paths[0], "the-cat-sat-stage05-softmax-heads.png"),
          "Shift+E in the all-heads view wrote %s", res.count ? res.paths[0] : err.message);
    export_result_free(&res);
    st.view = VIEW_ONE_HEAD;
    // An edited lesson: the board shows the window's numbers and marks, with the count but not the
    // keys.
    AttnParams e;
    CHECK(params_copy(&e, &L->params), "copy");
    CHECK(view_param_set(&e, (CellRef){MAT_X, 0, 0, 0}, 7.25), "edit");
    Trace et;
    TraceError terr;
    CHECK(trace_run(&et, &e, &terr), "trace");
    Lesson shown = *L;
    shown.params = e;
    SceneExtras ex = {
        &L->params, NULL, "Saved 3 edits as x.json", false, NULL, NULL, NULL, NULL, NULL,
        NULL,       NULL};
    w.view = &ex;
    st.stage_index = 0;
    st.pinned = (CellRef){MAT_X, 0, 0, 0};
    st.panel = PANEL_NONE; // (a panel's slide is the panel's: tests/test_panel_slides.c)
    ExportRequest svg_only = w;
    svg_only.formats = EXPORT_SVG;
    CHECK(export_from_view(&svg_only, true, &st, &shown, &et, &res, &err), "edited board: %s",
          err.message);
    CHECK(res.count == 1, "one SVG for the edited board, got %zu", res.count);
    if (res.count == 1) {
        FILE *f = fopen(res.paths[0], "rb");
        static char text[400000];
        size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
        if (f) fclose(f);
        text[n] = '\0';
        CHECK(strstr(text, "7.2500") != NULL, "the edited value is on the slide");
        CHECK(strstr(text, "1 value edited") != NULL, "the slide counts the edit");
        CHECK(!strstr(text, "Ctrl+S") && !strstr(text, "click it") && !strstr(text, "Saved 3"),
              "no keys, mouse hints or status on the slide");
    }
    export_result_free(&res);
    trace_free(&et);
    params_free(&e);
}

static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    char path[1200];
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (lstat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) remove_tree(path);
        else unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

// Issue 27: the all-heads grid of a huge lesson (512 tokens, 15 heads of d_k 1: 3.9 M cells) is a
// sample of at most SCENE_GRID_MAX_CELLS cells, said under it; one head's heatmap keeps every cell.
static void test_sampled_grid(Exporter *x)
{
    char *json = malloc(8000);
    if (!json) return;
    int at = snprintf(json, 8000, "{\"title\": \"big\", \"sentence\": \"");
    for (int i = 0; i < 512; i++)
        at += snprintf(json + at, 8000 - (size_t)at, "%st%d", i ? " " : "", i);
    snprintf(json + at, 8000 - (size_t)at,
             "\", \"embeddings\": {\"random\": {\"seed\": 1, \"std\": 0.5}}, \"d_model\": 15, "
             "\"heads\": 15, \"d_k\": 1, \"mask\": \"causal\", \"weights\": {\"random\": "
             "{\"seed\": 2}}}");
    Lesson B;
    LessonError lerr;
    Trace BT;
    TraceError terr;
    bool parsed = lesson_parse(&B, json, strlen(json), "big.json", &lerr);
    free(json);
    CHECK(parsed, "big lesson: %s", lerr.message);
    if (!parsed) return;
    bool traced = trace_run(&BT, &B.params, &terr);
    CHECK(traced, "big lesson traces: %s", terr.message);
    if (traced) {
        TextMetrics tm = export_metrics(x);
        Scene s;
        scene_init(&s);
        int other;
        HeatmapSpec all = {MAT_SCORES, -1, 2.0, COLORMAP_VIRIDIS, EXPORT_BG_WHITE};
        CHECK(export_build_heatmap(&s, &all, &B, &BT, &tm), "the all-heads grid of the big lesson");
        int cells = tagged_cells(&s, MAT_SCORES, &other);
        CHECK(cells > 0 && cells <= SCENE_GRID_MAX_CELLS,
              "all heads: %d cells drawn (at most %.0f)", cells, SCENE_GRID_MAX_CELLS);
        CHECK(cells == 15 * 256 * 256, "all heads: every 2nd query and key of 15 heads, %d cells",
              cells);
        CHECK(has_text(&s, "Sampled: 256 of 512 queries and keys per head shown (one in 2)"),
              "the sample is said");
        CHECK(s.width * (double)s.height <= 1.25 * EXPORT_MAX_PIXELS,
              "page %dx%d within the pixel cap", s.width, s.height);
        HeatmapSpec one = {MAT_SCORES, 3, 1.0, COLORMAP_VIRIDIS, EXPORT_BG_WHITE};
        CHECK(export_build_heatmap(&s, &one, &B, &BT, &tm), "head 3 of the big lesson");
        cells = tagged_cells(&s, MAT_SCORES, &other);
        CHECK(cells == 512 * 512 && !has_text(&s, "Sampled"),
              "one head: every cell (%d), no sample", cells);
        scene_free(&s);
        trace_free(&BT);
    }
    lesson_free(&B);
}

// The progress of an export (the window's worker shows it) and a stop before anything is written.
static int progress_calls;
static size_t progress_last, progress_total;
static bool progress_stop_at_1(void *ctx, size_t done, size_t total)
{
    (void)ctx;
    progress_calls++;
    progress_last = done;
    progress_total = total;
    return done < 1;
}
static bool progress_go_on(void *ctx, size_t done, size_t total)
{
    (void)ctx;
    progress_calls++;
    progress_last = done;
    progress_total = total;
    return true;
}

static void test_progress(const Lesson *L, const Trace *T, const char *tmp)
{
    char dir[600];
    snprintf(dir, sizeof dir, "%s/progress", tmp);
    ExportRequest req;
    export_request_defaults(&req);
    req.dir = dir;
    req.create_dir = true;
    req.font_dir = FONTS;
    req.formats = EXPORT_PNG | EXPORT_SVG;
    req.progress = progress_go_on;
    ExportResult res;
    ExportError err;
    bool ok = export_run(&req, L, T, &res, &err);
    CHECK(ok, "export with progress: %s", err.message);
    CHECK(progress_calls == (int)res.count + 1 && progress_last == res.count
              && progress_total == res.count,
          "progress: %d calls, last %zu of %zu, %zu files", progress_calls, progress_last,
          progress_total, res.count);
    size_t written = res.count;
    if (ok) export_result_free(&res);
    // Stopped after the first file: nothing new is written (the first file was the export's own,
    // replaced whole).
    snprintf(dir, sizeof dir, "%s/progress-stop", tmp);
    req.dir = dir;
    req.progress = progress_stop_at_1;
    progress_calls = 0;
    ok = export_run(&req, L, T, &res, &err);
    CHECK(!ok && strstr(err.message, "stopped") && progress_last == 1, "stopped: %s (at %zu)",
          ok ? "ok" : err.message, progress_last);
    CHECK(count_files(dir) == 0, "a stopped export leaves nothing: %d entries (of %zu)",
          count_files(dir), written);
}

int main(void)
{
    Lesson L;
    LessonError lerr;
    Trace T;
    TraceError terr;
    if (!lesson_load_builtin(&L, &lerr) || !trace_run(&T, &L.params, &terr)) {
        fprintf(stderr, "cannot load the built-in lesson\n");
        return 1;
    }
    ExportError err;
    Exporter *x = export_open(FONTS, &err);
    CHECK(x != NULL, "export_open: %s", err.message);
    char tmp[] = "/tmp/mha-export-test-XXXXXX";
    CHECK(mkdtemp(tmp) != NULL, "mkdtemp");
    test_names();
    if (x) {
        test_heatmap_png(x, &L, &T);
        test_svg(x, &L, &T);
        test_backgrounds(x, &L, &T);
        test_boards(x, &L, &T);
        test_files(x, &L, &T, tmp);
        test_all_or_nothing(x, &L, &T, tmp);
        test_sampled_grid(x);
    }
    test_progress(&L, &T, tmp);
    export_close(x);
    test_run(&L, &T, tmp);
    remove_tree(tmp);
    trace_free(&T);
    lesson_free(&L);
    IMG_Quit();
    SDL_Quit();
    return check_report("test_export");
}
