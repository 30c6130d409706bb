// Draws scenes into a PDF with cairo: rectangles, outlines, lines and hatching as vector paths,
// text as runs (textrun.h) shaped by HarfBuzz in FreeType faces that cairo embeds as subsets, each
// glyph tied to its characters so that the text can be searched and copied.
#include "render/pdf.h"

#include <cairo-ft.h>
#include <cairo-pdf.h>
#include <cairo.h>
#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_MODULE_H
#include <hb-ft.h>
#include <hb-ot.h>
#include <hb.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"
#include "platform/fontfind.h"
#include "render/textrun.h"

#define FACE_MAX 24 // the three DejaVu files, then fonts found for characters they lack
#define RUN_MAX 96 // runs of one font, script and direction in one line of text
#define GLYPH_MAX 1024 // glyphs of one run (longer runs are cut)

// The mark our PDFs carry in their trailer (the trailer may hold keys of its own; inserting there
// moves no object, so the cross-reference table stays right).
static const char PDF_MARK[] = "   /MhaTracerExport true\n";

typedef struct {
    FT_Face ft; // NULL: not opened yet (or failed)
    hb_font_t *hb;
    cairo_font_face_t *cairo[2]; // regular, and emboldened (a fallback drawn for FONT_BOLD)
    char path[1200];
    int index;
    bool failed;
} PdfFace;

struct PdfDoc {
    FT_Library lib;
    FontFind *find;
    PdfFace faces[FACE_MAX];
    int face_count;
    TextFontMemo cps; // which face shows a code point in a role
    unsigned char *buf;
    size_t len, cap;
    bool oom;
    cairo_surface_t *surface;
    cairo_t *cr;
    int pages;
    bool in_page;
};

static const char *const FILES[FONT_COUNT] = {"DejaVuSans.ttf", "DejaVuSans-Bold.ttf",
                                              "DejaVuSansMono.ttf"};

// ---------------------------------------------------------------------------------------------------
// Fonts

// cairo keeps a font face as long as its caches hold it: the FreeType face (and a reference to the
// library) go when cairo lets it go.
typedef struct {
    FT_Face face;
    FT_Library lib;
} FaceHold;
static const cairo_user_data_key_t FACE_KEY;

static void face_release(void *p)
{
    FaceHold *h = p;
    FT_Done_Face(h->face);
    FT_Done_Library(h->lib);
    free(h);
}

// A cairo face for f (bold: emboldened), holding a FreeType face of its own.
static cairo_font_face_t *face_cairo(PdfDoc *d, const PdfFace *f, bool bold)
{
    FaceHold *h = calloc(1, sizeof *h);
    if (!h) return NULL;
    if (FT_New_Face(d->lib, f->path, f->index, &h->face) != 0) {
        free(h);
        return NULL;
    }
    if (!FT_IS_SCALABLE(h->face) && h->face->num_fixed_sizes > 0) FT_Select_Size(h->face, 0);
    FT_Reference_Library(d->lib);
    h->lib = d->lib;
    cairo_font_face_t *c = cairo_ft_font_face_create_for_ft_face(h->face, FT_LOAD_COLOR);
    if (cairo_font_face_set_user_data(c, &FACE_KEY, h, face_release) != CAIRO_STATUS_SUCCESS) {
        face_release(h);
        cairo_font_face_destroy(c);
        return NULL;
    }
    if (bold) cairo_ft_font_face_set_synthesize(c, CAIRO_FT_SYNTHESIZE_BOLD);
    return c;
}

// Face i opened (FreeType for the question "does it show cp", HarfBuzz for shaping, cairo for
// drawing); false when its file does not open.
static bool face_ready(PdfDoc *d, int i)
{
    PdfFace *f = &d->faces[i];
    if (f->ft) return true;
    if (f->failed) return false;
    f->failed = true;
    if (FT_New_Face(d->lib, f->path, f->index, &f->ft) != 0) {
        f->ft = NULL;
        return false;
    }
    hb_face_t *hf = hb_ft_face_create_referenced(f->ft);
    f->hb = hb_font_create(hf);
    hb_face_destroy(hf);
    hb_ot_font_set_funcs(f->hb);
    f->failed = false;
    return true;
}

static void face_free(PdfFace *f)
{
    for (int b = 0; b < 2; b++)
        if (f->cairo[b]) cairo_font_face_destroy(f->cairo[b]);
    if (f->hb) hb_font_destroy(f->hb);
    if (f->ft) FT_Done_Face(f->ft);
    memset(f, 0, sizeof *f);
}

static int face_add(PdfDoc *d, const char *path, int index)
{
    if (d->face_count == FACE_MAX) return -1;
    PdfFace *f = &d->faces[d->face_count];
    memset(f, 0, sizeof *f);
    snprintf(f->path, sizeof f->path, "%s", path);
    f->index = index;
    return face_ready(d, d->face_count) ? d->face_count++ : -1;
}

static bool face_has(PdfDoc *d, int i, uint32_t cp)
{
    return face_ready(d, i) && FT_Get_Char_Index(d->faces[i].ft, cp) != 0;
}

// fontfind's check, with a face opened for the question only.
static bool file_covers(void *user, const char *path, int index, uint32_t cp)
{
    PdfDoc *d = user;
    FT_Face f;
    if (FT_New_Face(d->lib, path, index, &f) != 0) return false;
    bool yes = FT_Get_Char_Index(f, cp) != 0;
    FT_Done_Face(f);
    return yes;
}

static bool ask_shows(void *d, int font, uint32_t cp) { return face_has(d, font, cp); }

static bool ask_color(void *user, int font)
{
    PdfDoc *d = user;
    return face_ready(d, font) && FT_HAS_COLOR(d->faces[font].ft);
}

static const char *ask_path(void *d, int font) { return ((PdfDoc *)d)->faces[font].path; }

static int ask_add(void *d, const char *path, int index) { return face_add(d, path, index); }

// The face that shows a code point in a role: textrun_font_for's choice, as the window's.
static const TextFontOps FACE_OPS = {ask_shows, ask_color, ask_path, ask_add, file_covers};
_Static_assert(FACE_MAX <= TEXT_FONT_FILES, "the faces fit textrun_font_for's list");

const char *pdf_missing(PdfDoc *d) { return textrun_memo_missing(&d->cps); }

// ---------------------------------------------------------------------------------------------------
// Text

// One run shaped: its glyphs in the order of their characters, placed from x 0 on the baseline
// (scene pixels), and its advance.
typedef struct {
    cairo_glyph_t g[GLYPH_MAX];
    unsigned cluster[GLYPH_MAX]; // the byte of the run each glyph starts at
    int n;
    double advance;
} Shaped;

static void shape_run(PdfDoc *d, const char *t, const TextRun *r, int size, Shaped *o)
{
    o->n = 0;
    o->advance = 0;
    PdfFace *f = &d->faces[r->font];
    if (!face_ready(d, r->font)) return;
    hb_buffer_t *b = hb_buffer_create();
    hb_buffer_add_utf8(b, t + r->start, (int)r->len, 0, (int)r->len);
    hb_buffer_set_direction(b, r->rtl ? HB_DIRECTION_RTL : HB_DIRECTION_LTR);
    if (strcmp(r->script, "Zyyy") != 0 && strcmp(r->script, "Zinh") != 0)
        hb_buffer_set_script(b, hb_script_from_string(r->script, 4));
    hb_buffer_guess_segment_properties(b);
    hb_shape(f->hb, b, NULL, 0);
    unsigned n = 0;
    const hb_glyph_info_t *gi = hb_buffer_get_glyph_infos(b, &n);
    const hb_glyph_position_t *gp = hb_buffer_get_glyph_positions(b, &n);
    double k = (double)size / (f->ft->units_per_EM ? f->ft->units_per_EM : 2048);
    if (n > GLYPH_MAX) n = GLYPH_MAX;
    double x = 0;
    for (unsigned i = 0; i < n; i++) { // visual order
        o->g[i].index = gi[i].codepoint;
        o->g[i].x = x + gp[i].x_offset * k;
        o->g[i].y = -gp[i].y_offset * k;
        o->cluster[i] = gi[i].cluster;
        x += gp[i].x_advance * k;
    }
    o->n = (int)n;
    o->advance = x;
    hb_buffer_destroy(b);
    // Logical order (by character), which cairo's clusters follow: a stable insertion sort.
    for (int i = 1; i < o->n; i++)
        for (int j = i; j > 0 && o->cluster[j - 1] > o->cluster[j]; j--) {
            cairo_glyph_t g = o->g[j];
            unsigned c = o->cluster[j];
            o->g[j] = o->g[j - 1], o->cluster[j] = o->cluster[j - 1];
            o->g[j - 1] = g, o->cluster[j - 1] = c;
        }
}

// Draws a shaped run at (x, y) with the characters it stands for (so a reader extracts them).
static void show_run(PdfDoc *d, const char *text, size_t len, Shaped *s, double x, double y)
{
    cairo_text_cluster_t cl[GLYPH_MAX];
    int nc = 0;
    for (int i = 0; i < s->n; i++) s->g[i].x += x, s->g[i].y += y;
    for (int i = 0; i < s->n;) {
        int j = i;
        while (j < s->n && s->cluster[j] == s->cluster[i]) j++;
        unsigned start = nc == 0 ? 0 : s->cluster[i],
                 end = j < s->n ? s->cluster[j] : (unsigned)len;
        cl[nc++] = (cairo_text_cluster_t){(int)(end - start), j - i};
        i = j;
    }
    if (s->n > 0 && s->n < GLYPH_MAX)
        cairo_show_text_glyphs(d->cr, text, (int)len, s->g, s->n, cl, nc, 0);
    else if (s->n > 0)
        cairo_show_glyphs(d->cr, s->g, s->n); // cut short: the glyphs without their text
}

// A line of text, centred in its measured box as the SVG does (another shaper's width spreads
// evenly on both sides), its baseline at DejaVu's ascent (1901 of 2384 units of line height).
static void put_text(PdfDoc *d, const Scene *s, const DrawCmd *c)
{
    int role = c->font >= 0 && c->font < FONT_COUNT ? (int)c->font : 0;
    char label[64];
    const char *t =
        textrun_mark_label(scene_text(s, c), label, sizeof label) ? label : scene_text(s, c);
    if (!t[0]) return;
    TextRun runs[RUN_MAX];
    TextFontAsk ask = {&FACE_OPS, d, role, FONT_COUNT, &d->face_count, d->find, &d->cps};
    int n = textrun_split(t, textrun_font_of, &ask, runs, RUN_MAX, NULL);
    if (n <= 0) { // too many runs: the role's font alone
        runs[0] = (TextRun){0, strlen(t), role, "Zyyy", utf8_is_rtl(t)};
        n = 1;
    }
    Shaped *sh = malloc(sizeof *sh);
    if (!sh) {
        d->oom = true;
        return;
    }
    double total = 0; // measured first (the box is centred), then shaped again to be drawn
    for (int i = 0; i < n; i++) shape_run(d, t, &runs[i], c->size, sh), total += sh->advance;
    // The window's measure (SDL_ttf, hinted) is a little wider than HarfBuzz's: the glyphs are
    // spread to fill it, so that left-aligned labels start and right-aligned numbers end where the
    // window draws them; a width far from it (another font) is centred instead.
    double spread = total > 0 ? c->w / total : 1.0;
    if (spread < 0.85 || spread > 1.2) spread = 1.0;
    double x = c->x + (c->w - total * spread) / 2.0, y = c->y + c->h * (1901.0 / 2384.0);
    cairo_set_source_rgba(d->cr, c->color.r / 255.0, c->color.g / 255.0, c->color.b / 255.0,
                          c->color.a / 255.0);
    for (int i = 0; i < n; i++) {
        shape_run(d, t, &runs[i], c->size, sh);
        bool bold = runs[i].font >= FONT_COUNT && role == FONT_BOLD;
        PdfFace *f = &d->faces[runs[i].font];
        if (!f->cairo[bold]) f->cairo[bold] = face_cairo(d, f, bold);
        if (f->cairo[bold]) {
            cairo_set_font_face(d->cr, f->cairo[bold]);
            cairo_set_font_size(d->cr, c->size);
            for (int g = 0; g < sh->n; g++) sh->g[g].x *= spread;
            show_run(d, t + runs[i].start, runs[i].len, sh, x, y);
        }
        x += sh->advance * spread;
    }
    free(sh);
}

// ---------------------------------------------------------------------------------------------------
// Shapes

static void set_color(PdfDoc *d, Rgba c)
{
    cairo_set_source_rgba(d->cr, c.r / 255.0, c.g / 255.0, c.b / 255.0, c.a / 255.0);
}

static void put_rect(PdfDoc *d, const Scene *s, const DrawCmd *c)
{
    (void)s;
    if (c->w <= 0 || c->h <= 0) return;
    set_color(d, c->color);
    cairo_rectangle(d->cr, c->x, c->y, c->w, c->h);
    cairo_fill(d->cr);
}

// A rectangle's outline, its stroke inside the rectangle as draw_sdl draws it.
static void put_frame(PdfDoc *d, const Scene *s, const DrawCmd *c)
{
    (void)s;
    int t = c->thickness < 1 ? 1 : c->thickness;
    if (c->w <= 0 || c->h <= 0) return;
    set_color(d, c->color);
    cairo_set_line_width(d->cr, t);
    cairo_rectangle(d->cr, c->x + t / 2.0, c->y + t / 2.0, c->w - t > 0 ? c->w - t : 0,
                    c->h - t > 0 ? c->h - t : 0);
    cairo_stroke(d->cr);
}

// A line through the middle of the t one-pixel lines draw_sdl draws side by side.
static void put_line(PdfDoc *d, const Scene *s, const DrawCmd *c)
{
    (void)s;
    int t = c->thickness < 1 ? 1 : c->thickness;
    double dx = c->h ? t / 2.0 : 0.5, dy = c->h ? 0.5 : t / 2.0;
    set_color(d, c->color);
    cairo_set_line_width(d->cr, t);
    cairo_move_to(d->cr, c->x + dx, c->y + dy);
    cairo_line_to(d->cr, c->x + c->w + dx, c->y + c->h + dy);
    cairo_stroke(d->cr);
}

// Diagonal hatching as draw_sdl draws it (bottom-left to top-right, `step` apart), clipped.
static void put_hatch(PdfDoc *d, const Scene *s, const DrawCmd *c)
{
    (void)s;
    if (c->w <= 0 || c->h <= 0) return;
    int step = c->h / 4 > 5 ? c->h / 4 : 5;
    if (step > 14) step = 14;
    cairo_save(d->cr);
    cairo_rectangle(d->cr, c->x, c->y, c->w, c->h);
    cairo_clip(d->cr);
    set_color(d, c->color);
    cairo_set_line_width(d->cr, 1.5);
    for (int k = -c->h; k < c->w; k += step) {
        cairo_move_to(d->cr, c->x + k + 1.0, c->y + c->h);
        cairo_line_to(d->cr, c->x + k + 1.0 + c->h, c->y);
    }
    cairo_stroke(d->cr);
    cairo_restore(d->cr);
}

// A clip: later commands only inside its rectangle, within the scene's own (w or h 0: the scene's).
static void put_clip(PdfDoc *d, const Scene *s, const DrawCmd *c)
{
    cairo_restore(d->cr); // back to the scene's own clip
    cairo_save(d->cr);
    (void)s;
    if (c->w > 0 && c->h > 0) {
        cairo_rectangle(d->cr, c->x, c->y, c->w, c->h);
        cairo_clip(d->cr);
    }
}

typedef void (*PutCmd)(PdfDoc *d, const Scene *s, const DrawCmd *c);
static const PutCmd PUT[] = {
    [CMD_RECT] = put_rect, [CMD_FRAME] = put_frame, [CMD_LINE] = put_line,
    [CMD_TEXT] = put_text, [CMD_HATCH] = put_hatch, [CMD_CLIP] = put_clip,
};

bool pdf_draw_scene(PdfDoc *d, const Scene *s, double x, double y, double k)
{
    if (!d->in_page) return false;
    cairo_save(d->cr);
    cairo_translate(d->cr, x, y);
    cairo_scale(d->cr, k, k);
    cairo_rectangle(d->cr, 0, 0, s->width, s->height);
    cairo_clip(d->cr);
    if (s->background.a > 0) {
        set_color(d, s->background);
        cairo_paint(d->cr);
    }
    cairo_save(d->cr); // the clip a CMD_CLIP restores
    for (size_t i = 0; i < s->count && !d->oom; i++) {
        const DrawCmd *c = &s->cmds[i];
        if (c->color.a == 0 && c->kind != CMD_CLIP) continue;
        if ((unsigned)c->kind < sizeof PUT / sizeof PUT[0] && PUT[c->kind]) PUT[c->kind](d, s, c);
    }
    cairo_restore(d->cr);
    cairo_restore(d->cr);
    return !d->oom && cairo_status(d->cr) == CAIRO_STATUS_SUCCESS;
}

// ---------------------------------------------------------------------------------------------------
// The document

static cairo_status_t doc_write(void *closure, const unsigned char *data, unsigned int length)
{
    PdfDoc *d = closure;
    if (d->len + length > d->cap) {
        size_t cap = d->cap ? d->cap : 65536;
        while (cap < d->len + length) cap *= 2;
        unsigned char *p = realloc(d->buf, cap);
        if (!p) {
            d->oom = true;
            return CAIRO_STATUS_WRITE_ERROR;
        }
        d->buf = p;
        d->cap = cap;
    }
    memcpy(d->buf + d->len, data, length);
    d->len += length;
    return CAIRO_STATUS_SUCCESS;
}

PdfDoc *pdf_open(const char *font_dir, const char *title, const char *subject, char *msg,
                 size_t cap)
{
    PdfDoc *d = calloc(1, sizeof *d);
    if (!d || !textrun_memo_init(&d->cps) || FT_Init_FreeType(&d->lib) != 0) {
        snprintf(msg, cap, "out of memory (or FreeType did not start)");
        if (d) textrun_memo_free(&d->cps);
        free(d);
        return NULL;
    }
    d->find = fontfind_open();
    for (int i = 0; i < FONT_COUNT; i++) {
        char path[sizeof d->faces[0].path];
        int len = snprintf(path, sizeof path, "%s/%s", font_dir ? font_dir : ".", FILES[i]);
        if (len < 0 || (size_t)len >= sizeof path || face_add(d, path, 0) != i) {
            snprintf(msg, cap, "cannot open the font %s", path);
            pdf_close(d);
            return NULL;
        }
    }
    d->surface = cairo_pdf_surface_create_for_stream(doc_write, d, 595.0, 842.0);
    d->cr = cairo_create(d->surface);
    if (cairo_status(d->cr) != CAIRO_STATUS_SUCCESS) {
        snprintf(msg, cap, "cannot start the PDF: %s", cairo_status_to_string(cairo_status(d->cr)));
        pdf_close(d);
        return NULL;
    }
    cairo_pdf_surface_restrict_to_version(d->surface, CAIRO_PDF_VERSION_1_5);
    cairo_pdf_surface_set_metadata(d->surface, CAIRO_PDF_METADATA_CREATE_DATE, "");
    cairo_pdf_surface_set_metadata(d->surface, CAIRO_PDF_METADATA_CREATOR, "mha-tracer");
    if (title) cairo_pdf_surface_set_metadata(d->surface, CAIRO_PDF_METADATA_TITLE, title);
    if (subject) cairo_pdf_surface_set_metadata(d->surface, CAIRO_PDF_METADATA_SUBJECT, subject);
    return d;
}

void pdf_close(PdfDoc *d)
{
    if (!d) return;
    if (d->cr) cairo_destroy(d->cr);
    if (d->surface) cairo_surface_destroy(d->surface);
    for (int i = 0; i < d->face_count; i++) face_free(&d->faces[i]);
    if (d->find) fontfind_close(d->find);
    FT_Done_FreeType(d->lib);
    textrun_memo_free(&d->cps);
    free(d->buf);
    free(d);
}

bool pdf_page_begin(PdfDoc *d, double w, double h, const char *label)
{
    if (d->in_page) return false;
    cairo_pdf_surface_set_size(d->surface, w, h);
    if (label && label[0]) cairo_pdf_surface_set_page_label(d->surface, label);
    d->in_page = true;
    return cairo_status(d->cr) == CAIRO_STATUS_SUCCESS;
}

bool pdf_page_end(PdfDoc *d)
{
    if (!d->in_page) return false;
    cairo_show_page(d->cr);
    d->in_page = false;
    d->pages++;
    return cairo_status(d->cr) == CAIRO_STATUS_SUCCESS && !d->oom;
}

int pdf_page_count(const PdfDoc *d) { return d->pages; }

int pdf_outline(PdfDoc *d, int parent, const char *title, int page)
{
    char link[32];
    snprintf(link, sizeof link, "page=%d", page);
    return cairo_pdf_surface_add_outline(d->surface, parent, title, link, 0);
}

// Our mark inserted into the trailer dictionary, before its closing ">>".
static bool add_mark(PdfDoc *d)
{
    static const char END[] = "\n>>\nstartxref\n";
    size_t at = 0, e = sizeof END - 1;
    for (size_t i = d->len > 200 ? d->len - 200 : 0; i + e <= d->len; i++)
        if (memcmp(d->buf + i, END, e) == 0) at = i + 1;
    size_t m = sizeof PDF_MARK - 1;
    if (at == 0 || doc_write(d, (const unsigned char *)PDF_MARK, (unsigned)m) != 0) return false;
    memmove(d->buf + at + m, d->buf + at, d->len - m - at);
    memcpy(d->buf + at, PDF_MARK, m);
    return true;
}

bool pdf_finish(PdfDoc *d, unsigned char **data, size_t *size, char *msg, size_t cap)
{
    if (d->in_page) pdf_page_end(d);
    cairo_destroy(d->cr);
    d->cr = NULL;
    cairo_surface_finish(d->surface);
    cairo_status_t st = cairo_surface_status(d->surface);
    if (st != CAIRO_STATUS_SUCCESS || d->oom || !add_mark(d)) {
        snprintf(msg, cap, "cannot write the PDF: %s",
                 d->oom ? "out of memory" : cairo_status_to_string(st));
        return false;
    }
    *data = d->buf;
    *size = d->len;
    d->buf = NULL;
    d->len = d->cap = 0;
    return true;
}

bool pdf_is_ours(const unsigned char *head, size_t hn, const unsigned char *tail, size_t tn)
{
    static const char EOF_MARK[] = "%%EOF\n";
    size_t m = sizeof PDF_MARK - 1, e = sizeof EOF_MARK - 1;
    if (hn < 8 || memcmp(head, "%PDF-1.", 7) != 0 || tn < m + e) return false;
    if (memcmp(tail + tn - e, EOF_MARK, e) != 0) return false;
    for (size_t i = 0; i + m <= tn; i++) // the mark, then ">>", startxref and its offset only
        if (memcmp(tail + i, PDF_MARK, m) == 0) {
            static const char REST[] = ">>\nstartxref\n";
            size_t r = sizeof REST - 1, k = i + m;
            if (tn - k < r || memcmp(tail + k, REST, r) != 0) return false;
            for (k += r; k < tn - e; k++)
                if (!(tail[k] >= '0' && tail[k] <= '9') && !(tail[k] == '\n' && k == tn - e - 1))
                    return false;
            return true;
        }
    return false;
}
