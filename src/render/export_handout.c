// The handout: one PDF of a lesson for a class (pdf.h draws it) — a title page, every part of every
// stage of one head as the board shows it (each question asked on its own page before the boards
// that reveal it, and answered after them), the panels the lesson uses, and an answer key. Slides
// style: a 16:9 page per screen; notes style: A4 with two boards a page and the explanation text.
// The same pages go to cairo's PDF (export_handout) or, where there is no cairo (the page), as SVG
// a page to the request's handout_page (export_handout_pages), which the browser prints.
#include "render/export.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/decode.h"
#include "core/utf8.h"
#include "model/handout_text.h"
#include "model/i18n.h"
#include "model/questions.h"
#include "model/stage_text.h"
#include "platform/platform.h"
#include "render/export_jobs.h"
#include "render/export_slide.h"
#include "render/svg.h"
#ifdef MHA_HAVE_HANDOUT
#include "render/pdf.h"
#endif

// The handout's own words (its title page, bookmarks, page labels and the key's headings) come
// through the catalogue in the language asked, as the boards, the stages' titles and sentences and
// the questions do; a label without a word (Q1, A2, 3.1) is the same in every language. File names
// and titles are cut to their buffers on purpose.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

// Pages in points: a 16:9 slide (PowerPoint's 13.33 x 7.5 in) and A4.
#define SLIDE_W 960.0
#define SLIDE_H 540.0
#define A4_W 595.28
#define A4_H 841.89
#define NOTES_MARGIN 36.0
// Every scene is laid out at the sizes of a 1280x720 window (scale 1): 1280 units across a board.
#define UNITS_W 1280

// Where the pages go: the PDF (cairo's), or SVG a page handed to the request's handout_page (the
// page's print, which has no PDF writer). The same pages either way.
typedef struct {
    bool (*begin)(void *out, double w, double h, const char *label);
    bool (*draw)(void *out, const Scene *s, double x, double y, double k);
    bool (*end)(void *out);
    int (*count)(const void *out);
    int (*outline)(void *out, int parent, const char *title, int page);
} PageSink;

typedef struct {
    const ExportRequest *req;
    ExportRequest r; // req at scale 1 (what the boards are laid out at)
    SlideSource src; // r, L, T and tm: what the boards are laid out from
    const Lesson *L;
    const Trace *T;
    Exporter *x;
    TextMetrics tm;
    const PageSink *sink;
    void *out; // the sink's document
    Scene board, text; // a board (or panel) and the text beside it or on a page of text
    Theme theme; // the text pages' colours (the boards' background asked for)
    bool notes; // notes style (else slides)
    int slot; // notes: the boards on the page begun (0: none begun)
    int outline_stage; // the current stage's bookmark (0: none)
    const char *prefix;
    ExportError *err;
} Handout;

static bool fail_pdf(Handout *H, const char *what)
{
    export_fail(H->err, true, "out of memory or cairo failed while drawing %s", what);
    return false;
}

static bool page_begin(Handout *H, double w, double h, const char *label)
{
    return H->sink->begin(H->out, w, h, label);
}
static bool page_draw(Handout *H, const Scene *s, double x, double y, double k)
{
    return H->sink->draw(H->out, s, x, y, k);
}
static bool page_end(Handout *H) { return H->sink->end(H->out); }
static int page_count(const Handout *H) { return H->sink->count(H->out); }
static int page_outline(Handout *H, int parent, const char *title, int page)
{
    return H->sink->outline(H->out, parent, title, page);
}

// ---------------------------------------------------------------------------------------------------
// Text pages: wrapped lines pushed into H->text (UNITS_W units across)

// Page size of text in units: the slide's 1280 x 720, or A4 at the same width.
static int text_page_h(const Handout *H)
{
    return H->notes ? (int)lround(UNITS_W * A4_H / A4_W) : 720;
}

// The byte length of the first line of t no wider than w, broken after a space or after a Chinese
// or Japanese character (their text has no spaces), else between characters when a word alone is
// wider; 0 for "".
static size_t wrap_len(const Handout *H, FontRole f, int size, const char *t, int w)
{
    char line[1024];
    size_t best = 0, i = 0, last_break = 0;
    while (t[i] && t[i] != '\n' && i < sizeof line - 8) {
        size_t j = i + 1;
        while (((unsigned char)t[j] & 0xC0) == 0x80) j++;
        memcpy(line, t, j);
        line[j] = '\0';
        if (H->tm.text_width(H->tm.user, f, size, line) > w && best > 0)
            return last_break ? last_break : best;
        size_t at = i;
        uint32_t cp = utf8_decode(t, j, &at);
        if (t[i] == ' ' || (cp >= 0x2E80 && cp <= 0x9FFF) || (cp >= 0xFF00 && cp <= 0xFFEF))
            last_break = j;
        best = j;
        i = j;
    }
    return best;
}

// Text wrapped from (x, *y) in width w at the given font, *y moved past it (line height * 1.2).
static void text_wrap(Handout *H, FontRole f, int size, Rgba color, int x, int *y, int w,
                      const char *t)
{
    int lh = H->tm.line_height(H->tm.user, f, size) * 6 / 5;
    char line[1024];
    while (*t) {
        size_t n = wrap_len(H, f, size, t, w);
        if (n == 0) n = t[0] == '\n' ? 0 : strlen(t);
        if (n >= sizeof line) n = sizeof line - 1;
        memcpy(line, t, n);
        line[n] = '\0';
        while (n > 0 && line[n - 1] == ' ') line[--n] = '\0';
        int lw = H->tm.text_width(H->tm.user, f, size, line);
        if (line[0]) scene_push_text(&H->text, f, size, color, (Box){x, *y, lw, lh * 5 / 6}, line);
        *y += lh;
        t += strlen(line);
        while (*t == ' ') t++;
        if (*t == '\n') t++;
    }
}

static void text_begin(Handout *H, int h)
{
    scene_clear(&H->text);
    H->text.width = UNITS_W;
    H->text.height = h;
    H->text.background = H->theme.bg;
}

// Ends a page of text: drawn over the whole page.
static bool text_page_out(Handout *H, const char *label)
{
    double pw = H->notes ? A4_W : SLIDE_W, ph = H->notes ? A4_H : SLIDE_H;
    return page_begin(H, pw, ph, label) && page_draw(H, &H->text, 0, 0, pw / UNITS_W)
           && page_end(H);
}

// ---------------------------------------------------------------------------------------------------
// The title page: the lesson's title, tokens, shapes and notes

static bool page_title(Handout *H, int stages, int head)
{
    const Lesson *L = H->L;
    text_begin(H, text_page_h(H));
    int y = 90, x = 90, w = UNITS_W - 180;
    char lines[HANDOUT_TITLE_LINES][HANDOUT_LINE_MAX];
    handout_title_lines(L, stages, head, lines);
    text_wrap(H, FONT_BOLD, 40, H->theme.ink, x, &y, w, L->title ? L->title : "mha-tracer");
    y += 20;
    for (int i = HANDOUT_TITLE_TOKENS; i <= HANDOUT_TITLE_SHAPES; i++)
        if (lines[i][0]) text_wrap(H, FONT_REGULAR, 24, H->theme.ink, x, &y, w, lines[i]);
    text_wrap(H, FONT_REGULAR, 20, H->theme.muted, x, &y, w, lines[HANDOUT_TITLE_COUNTS]);
    y += 24;
    if (L->notes) text_wrap(H, FONT_REGULAR, H->notes ? 22 : 20, H->theme.ink, x, &y, w, L->notes);
    int at = page_count(H) + 1;
    page_outline(H, 0, L->title ? L->title : "mha-tracer", at);
    // TRANSLATORS: the handout's first page's label (a PDF reader shows it as the page number)
    return text_page_out(H, TRC("handout page", "Title")) || fail_pdf(H, "the title page");
}

// ---------------------------------------------------------------------------------------------------
// Boards: a page each (slides), or two a page with their explanation (notes)

// The explanation under a board in notes style, at a size that reads on paper: its title and the
// stage's sentences (or the question asked). The arithmetic of the pinned cell is on the board.
static void notes_text(Handout *H, const Job *j, int h)
{
    text_begin(H, h);
    int y = 8, w = UNITS_W;
    text_wrap(H, FONT_BOLD, 26, H->theme.ink, 0, &y, w, j->title);
    const StageInfo *si = stage_info(view_stage(&j->st));
    char buf[1024], plain[1024];
    if (j->question && j->st.quiz_phase == QUIZ_ASKING) {
        text_wrap(H, FONT_REGULAR, 24, H->theme.ink, 0, &y, w, j->question->text);
        return;
    }
    if (j->st.panel == PANEL_NONE && si && si->explain) {
        si->explain(&H->L->params, buf, sizeof buf);
        stage_text_plain(buf, plain, sizeof plain);
        text_wrap(H, FONT_REGULAR, 24, H->theme.ink, 0, &y, w, plain);
    }
}

// Starts a page of its own for what follows in notes style (a question: alone on its page).
static bool notes_flush(Handout *H)
{
    if (!H->notes || H->slot == 0) return true;
    H->slot = 0;
    return page_end(H);
}

// A panel drawn over the board (the cost's table) dims the whole board under it with a
// see-through sheet: the window keeps the class's place, but on paper the greyed board only
// muddles the page. What lies under the last such sheet is left out, the sheet too.
static void drop_under_overlay(Scene *s)
{
    size_t k = s->count;
    for (size_t i = 0; i < s->count; i++) {
        const DrawCmd *c = &s->cmds[i];
        if (c->kind == CMD_RECT && c->x == 0 && c->y == 0 && c->w == s->width && c->h == s->height
            && c->color.a > 0 && c->color.a < 255)
            k = i;
    }
    if (k == s->count) return;
    memmove(s->cmds, s->cmds + k + 1, (s->count - k - 1) * sizeof *s->cmds);
    s->count -= k + 1;
}

// Job j's board as a page (slides) or half a page (notes; alone: a page of its own), labelled
// label; outline (not NULL) bookmarks it under the current stage.
static bool page_board(Handout *H, const Job *j, const char *label, const char *outline, bool alone)
{
    if (!export_board_scene(&H->board, &H->src, &j->st, j->question)) return fail_pdf(H, j->name);
    drop_under_overlay(&H->board);
    if (alone && !notes_flush(H)) return fail_pdf(H, j->name);
    bool ok = true;
    if (!H->notes || H->slot == 0)
        ok = page_begin(H, H->notes ? A4_W : SLIDE_W, H->notes ? A4_H : SLIDE_H, label);
    int page = page_count(H) + 1;
    if (outline) page_outline(H, H->outline_stage, outline, page);
    if (!H->notes) {
        ok = ok && page_draw(H, &H->board, 0, 0, SLIDE_W / H->board.width) && page_end(H);
        return ok || fail_pdf(H, j->name);
    }
    double k = (A4_W - 2 * NOTES_MARGIN) / H->board.width, half = (A4_H - 2 * NOTES_MARGIN) / 2;
    double y = NOTES_MARGIN + H->slot * half, bh = H->board.height * k;
    notes_text(H, j, (int)((half - bh - 12) / k));
    ok = ok && page_draw(H, &H->board, NOTES_MARGIN, y, k)
         && page_draw(H, &H->text, NOTES_MARGIN, y + bh + 6, k);
    H->slot++;
    if (ok && (H->slot == 2 || alone)) ok = page_end(H), H->slot = 0;
    return ok || fail_pdf(H, j->name);
}

// The matrix a board shows a window of (rows or columns left out), the stage's result first; NULL
// when it shows every matrix whole.
static const SceneBox *windowed_box(const Scene *s)
{
    const SceneBox *w = NULL;
    for (size_t i = 0; i < s->box_count; i++) {
        const SceneBox *b = &s->boxes[i];
        if (b->nr <= 0 || b->nc <= 0 || (b->nr >= b->rows && b->nc >= b->cols)) continue;
        if (!w || (b->result && !w->result)) w = b;
    }
    return w;
}

// At most this many more pages for the rest of a part's matrix: a checkpoint's 16 columns where
// 8 fit get theirs; a 768-wide one stays a window (its pages say which rows and columns they show).
#define REST_PAGES_MAX 5

// The rest of the matrix part j shows a window of, on pages of its own after it: the same part
// with its pinned cell moved along the matrix, so the window follows to the rows and columns not
// yet shown (labelled as the part, "b", "c" … after it).
static bool page_rest(Handout *H, const Job *j, const char *label)
{
    const SceneBox *w = windowed_box(&H->board);
    if (!w) return true;
    SceneBox b = *w; // the board is laid out again below
    int rw = (b.rows + b.nr - 1) / b.nr, cw = (b.cols + b.nc - 1) / b.nc, n = 0;
    if (rw * cw - 1 > REST_PAGES_MAX) return true;
    bool ok = true;
    for (int r = 0; ok && r < rw; r++)
        for (int c = 0; ok && c < cw; c++) {
            int sr = r * b.nr < b.rows - b.nr ? r * b.nr : b.rows - b.nr;
            int sc = c * b.nc < b.cols - b.nc ? c * b.nc : b.cols - b.nc;
            if (sr == b.r0 && sc == b.c0) continue; // the part's own page
            Job more = *j;
            int row = rw > 1 ? sr + b.nr / 2 : 0, col = cw > 1 ? sc + b.nc / 2 : 0;
            more.st.pinned = (CellRef){b.mat, b.head, row < b.rows ? row : b.rows - 1,
                                       col < b.cols ? col : b.cols - 1};
            char l[48];
            snprintf(l, sizeof l, "%s%c", label, 'b' + n++);
            ok = page_board(H, &more, l, NULL, false);
        }
    return ok;
}

// The number (from 1, as asked) of the question a job asks or answers.
static int job_question_number(const Handout *H, const Job *j)
{
    return question_number(H->L, (int)(j->question - H->L->questions));
}

// One stage: its questions asked, every part of its board, then the answers.
static bool handout_stage(Handout *H, ViewState *st, int stage_no)
{
    Jobs qs = {0}, board = {0}, parts = {0};
    const StageInfo *si = stage_info(view_stage(st));
    bool ok = export_add_questions(&qs, H->prefix, H->L, H->T, st, H->err);
    if (!ok) return false;
    ViewState b = *st;
    b.pinned = export_slide_cell(&b, (CellRef){MAT_X, b.head, 0, 0});
    ok = export_add_board(&board, H->prefix, H->L, &b, false);
    if (ok) board.jobs[0].parts = true;
    ok = ok && export_expand_parts(&board, &parts, &H->src, &H->board);
    char title[200], label[32], mark[64];
    // TRANSLATORS: the handout's bookmarks: a stage, then its questions, parts and answers
    snprintf(title, sizeof title, TR("Stage %d: %s"), stage_no, si ? TR(si->title) : "?");
    H->outline_stage = ok ? page_outline(H, 0, title, page_count(H) + 1) : 0;
    for (size_t k = 0; ok && k < qs.count; k += 2) {
        int q = job_question_number(H, &qs.jobs[k]);
        snprintf(label, sizeof label, "Q%d", q);
        snprintf(mark, sizeof mark, TR("Question %d"), q);
        ok = page_board(H, &qs.jobs[k], label, mark, true);
    }
    for (size_t k = 0; ok && k < parts.count; k++) {
        if (parts.count > 1) snprintf(label, sizeof label, "%d.%d", stage_no, (int)k + 1);
        else snprintf(label, sizeof label, "%d", stage_no);
        snprintf(mark, sizeof mark, TR("Part %d"), (int)k + 1);
        ok = page_board(H, &parts.jobs[k], label, parts.count > 1 ? mark : NULL, false);
        ok = ok && page_rest(H, &parts.jobs[k], label);
    }
    for (size_t k = 1; ok && k < qs.count; k += 2) {
        int q = job_question_number(H, &qs.jobs[k]);
        snprintf(label, sizeof label, "A%d", q);
        snprintf(mark, sizeof mark, TR("Answer %d"), q);
        ok = page_board(H, &qs.jobs[k], label, mark, true);
    }
    if (!ok && !H->err->message[0]) export_fail(H->err, true, "out of memory");
    free(qs.jobs), free(board.jobs), free(parts.jobs);
    return ok;
}

// ---------------------------------------------------------------------------------------------------
// The panels a lesson uses: a row each (what the panel is, whether the lesson uses it, where its
// slide stands)

static bool uses_rope(const AttnParams *p) { return p->rope != ROPE_NONE; }
// A decoder (causal): generating with a KV cache, and what the cache costs.
static bool uses_cache(const AttnParams *p) { return p->mask == MASK_CAUSAL && !decode_refusal(p); }
static bool uses_tiles(const AttnParams *p)
{
    return p->mask == MASK_CAUSAL && p->n <= SCENE_TILES_MAX_TOKENS
           && p->m <= SCENE_TILES_MAX_TOKENS && p->d_k <= SCENE_TILES_MAX_DK;
}
static bool uses_cost(const AttnParams *p) { return p->heads > 1; }
// A checkpoint's layer (--model) with every layer's heads kept: the overview (Shift+A).
static bool uses_overview(const AttnParams *p) { return p->stream && p->stream->overview; }

static void at_rope(ViewState *v, const AttnParams *p)
{
    v->panel = PANEL_ROPE, v->rope_t = p->n - 1; // the last token: the largest turns
    for (int i = 0; i < v->stage_count; i++)
        if (v->stages[i] == STAGE_ROTATE) v->stage_index = i;
}
static void at_decode(ViewState *v, const AttnParams *p)
{
    v->panel = PANEL_DECODE, v->decode_t = p->n - 1; // the last token: the whole cache read
}
static void at_cache(ViewState *v, const AttnParams *p) { (void)p, v->panel = PANEL_CACHE; }
static void at_tiles(ViewState *v, const AttnParams *p)
{
    int64_t computed = 0, skipped = 0;
    tiles_count(p, v->tiles_block, &computed, &skipped);
    v->panel = PANEL_TILES, v->tile_count = (int)computed, v->tile = (int)computed; // O / l = Z
}
static void at_cost(ViewState *v, const AttnParams *p) { (void)p, v->panel = PANEL_COST; }
static void at_overview(ViewState *v, const AttnParams *p) { (void)p, v->panel = PANEL_OVERVIEW; }

static const struct {
    const char *title; // its bookmark and page label (translated where drawn)
    bool (*uses)(const AttnParams *p);
    void (*at)(ViewState *v, const AttnParams *p);
} PANELS[] = {
    {"RoPE", uses_rope, at_rope},
    // TRANSLATORS: the handout's bookmarks and page labels of the panels it shows
    {N_("KV cache"), uses_cache, at_decode},
    {N_("KV-cache size"), uses_cache, at_cache},
    {N_("Tiles"), uses_tiles, at_tiles},
    {N_("Cost"), uses_cost, at_cost},
    {N_("Every layer's heads"), uses_overview, at_overview},
};

static bool handout_panels(Handout *H, const ViewState *st)
{
    const AttnParams *p = &H->L->params;
    H->outline_stage = 0;
    bool ok = true;
    for (size_t i = 0; ok && i < sizeof PANELS / sizeof PANELS[0]; i++) {
        if (!PANELS[i].uses(p)) continue;
        ViewState v = *st;
        v.pinned.mat = v.hover.mat = MAT_NONE;
        v.stage_index = 0;
        PANELS[i].at(&v, p);
        Jobs one = {0}, parts = {0};
        ok = export_add_board(&one, H->prefix, H->L, &v, false)
             && export_expand_parts(&one, &parts, &H->src, &H->board);
        const char *title = TR(PANELS[i].title);
        for (size_t k = 0; ok && k < parts.count; k++)
            ok = page_board(H, &parts.jobs[k], title, k == 0 ? title : NULL, false);
        if (!ok && !H->err->message[0]) export_fail(H->err, true, "out of memory");
        free(one.jobs), free(parts.jobs);
    }
    return ok;
}

// ---------------------------------------------------------------------------------------------------
// The answer key: each question as asked, its answer from the trace and the answer cell's
// arithmetic

// Pushes the k-th question asked's entry from *y; false when it did not fit above `bottom`
// (nothing kept then), unless it is the page's first (a page holds at least one entry).
static bool key_entry(Handout *H, int k, int *y, int bottom, int x, int w, bool first)
{
    HandoutKeyEntry e;
    handout_key_entry(H->L, H->T, k, &e);
    size_t mark = H->text.count;
    int y0 = *y;
    text_wrap(H, FONT_BOLD, 22, H->theme.ink, x, y, w, e.heading);
    text_wrap(H, FONT_REGULAR, 20, H->theme.ink, x, y, w, e.question);
    text_wrap(H, e.answered ? FONT_BOLD : FONT_REGULAR, 20,
              e.answered ? H->theme.ink : H->theme.muted, x + 20, y, w - 20, e.answer);
    for (int l = 0; l < e.arithmetic_count; l++)
        text_wrap(H, FONT_MONO, 18, H->theme.muted, x + 20, y, w - 20, e.arithmetic[l]);
    *y += 16;
    if (*y <= bottom || first) return true;
    H->text.count = mark;
    *y = y0;
    return false;
}

static bool handout_key(Handout *H)
{
    const Lesson *L = H->L;
    if (L->question_count == 0) return true;
    if (!notes_flush(H)) return fail_pdf(H, "the answer key");
    int h = text_page_h(H), x = 60, w = UNITS_W - 120, pages = 0;
    // TRANSLATORS: the handout's last pages: each question with its answer
    page_outline(H, 0, TR("Answer key"), page_count(H) + 1);
    for (int k = 0; k < L->question_count;) {
        text_begin(H, h);
        int y = 60;
        if (pages == 0) text_wrap(H, FONT_BOLD, 32, H->theme.ink, x, &y, w, TR("Answer key"));
        for (int start = k; k < L->question_count && key_entry(H, k, &y, h - 40, x, w, k == start);)
            k++;
        char label[64];
        // TRANSLATORS: the answer key's page labels (a PDF reader shows them as the page numbers)
        if (pages) snprintf(label, sizeof label, TRC("handout page", "Key %d"), pages + 1);
        else snprintf(label, sizeof label, "%s", TRC("handout page", "Key"));
        if (!text_page_out(H, label)) return fail_pdf(H, "the answer key");
        pages++;
    }
    return true;
}

// ---------------------------------------------------------------------------------------------------
// The whole handout

static bool handout_pages(Handout *H, const ViewState *st0, int first, int last)
{
    ViewState st = *st0;
    if (!page_title(H, last - first + 1, st.head)) return false;
    for (int i = first; i <= last; i++) {
        st.stage_index = i;
        if (!handout_stage(H, &st, i + 1)) return false;
    }
    if (first == 0 && last == st.stage_count - 1 && !handout_panels(H, &st)) return false;
    if (!handout_key(H)) return false;
    return notes_flush(H) || fail_pdf(H, "the last page");
}

// The handout's pages drawn from plan into sink (its document out): fonts and scenes set up, the
// pages made, freed again. missing (cap bytes) gets the first character no font showed.
static bool handout_run(const ExportPlan *plan, const PageSink *sink, void *out, char *missing,
                        size_t cap, ExportError *err)
{
    const ExportRequest *req = plan->req;
    Handout H = {.req = req,
                 .r = *req,
                 .L = plan->L,
                 .T = plan->T,
                 .prefix = plan->prefix,
                 .err = err,
                 .sink = sink,
                 .out = out};
    H.r.scale = 1.0;
    H.notes = req->handout_style == EXPORT_HANDOUT_NOTES;
    H.theme = req->background == EXPORT_BG_DARK ? THEME_DARK : THEME_LIGHT;
    if (req->background != EXPORT_BG_DARK) H.theme.bg = (Rgba){255, 255, 255, 255};
    if (!(H.x = export_open(req->font_dir, err))) return false;
    H.tm = export_metrics(H.x);
    H.src = (SlideSource){&H.r, plan->L, plan->T, &H.tm};
    scene_init(&H.board);
    scene_init(&H.text);
    bool ok = handout_pages(&H, &plan->st, plan->first, plan->last);
    if (missing) snprintf(missing, cap, "%s", export_missing(H.x));
    scene_free(&H.board), scene_free(&H.text);
    export_close(H.x);
    return ok;
}

// ---------------------------------------------------------------------------------------------------
// The page's print: each page an SVG document (its scenes nested, scaled to the page's points)

typedef struct {
    const ExportRequest *req;
    char *p; // the page being made
    size_t len, cap;
    bool oom, open;
    int pages;
    char label[64];
} SvgPages;

static void svgp_put(SvgPages *o, const char *t, size_t n)
{
    if (o->oom) return;
    if (o->len + n + 1 > o->cap) {
        size_t cap = (o->len + n + 1) * 2;
        char *p = realloc(o->p, cap);
        if (!p) {
            o->oom = true;
            return;
        }
        o->p = p, o->cap = cap;
    }
    memcpy(o->p + o->len, t, n);
    o->len += n;
    o->p[o->len] = '\0';
}

static bool svgp_begin(void *out, double w, double h, const char *label)
{
    SvgPages *o = out;
    char head[200];
    int n = snprintf(head, sizeof head,
                     "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %g %g\" "
                     "width=\"%gpt\" height=\"%gpt\">\n",
                     w, h, w, h);
    o->len = 0, o->open = true;
    snprintf(o->label, sizeof o->label, "%s", label ? label : "");
    svgp_put(o, head, (size_t)n);
    return !o->oom;
}

// The scene's SVG (svg.c: the slides' own) from its <svg> element on, scaled by k from (x, y).
static bool svgp_draw(void *out, const Scene *s, double x, double y, double k)
{
    SvgPages *o = out;
    size_t size = 0;
    char *svg = svg_encode(s, NULL, &size), g[160];
    const char *at = svg ? strstr(svg, "<svg") : NULL;
    if (!at) {
        free(svg);
        return false;
    }
    int n = snprintf(g, sizeof g, "<g transform=\"translate(%g %g) scale(%g)\">\n", x, y, k);
    svgp_put(o, g, (size_t)n);
    svgp_put(o, at, size - (size_t)(at - svg));
    svgp_put(o, "</g>\n", 5);
    free(svg);
    return !o->oom;
}

static bool svgp_end(void *out)
{
    SvgPages *o = out;
    svgp_put(o, "</svg>\n", 7);
    o->open = false;
    if (o->oom) return false;
    o->pages++;
    return o->req->handout_page(o->req->handout_page_ctx, o->pages, o->label, o->p, o->len);
}

static int svgp_count(const void *out) { return ((const SvgPages *)out)->pages; }
static int svgp_outline(void *out, int parent, const char *title, int page)
{
    (void)out, (void)parent, (void)title, (void)page;
    return 0; // a print has no bookmarks
}

static const PageSink SVG_PAGES = {svgp_begin, svgp_draw, svgp_end, svgp_count, svgp_outline};

bool export_handout_pages(const ExportPlan *plan, ExportResult *out, ExportError *err)
{
    SvgPages o = {.req = plan->req};
    err->message[0] = '\0';
    bool ok = handout_run(plan, &SVG_PAGES, &o, out->missing, sizeof out->missing, err);
    if (!ok && !err->message[0])
        export_fail(err, o.oom, o.oom ? "out of memory" : "stopped before the last page");
    free(o.p);
    return ok;
}

// ---------------------------------------------------------------------------------------------------
// The PDF (cairo)

#ifdef MHA_HAVE_HANDOUT
static bool pdfs_begin(void *out, double w, double h, const char *label)
{
    return pdf_page_begin(out, w, h, label);
}
static bool pdfs_draw(void *out, const Scene *s, double x, double y, double k)
{
    return pdf_draw_scene(out, s, x, y, k);
}
static bool pdfs_end(void *out) { return pdf_page_end(out); }
static int pdfs_count(const void *out) { return pdf_page_count(out); }
static int pdfs_outline(void *out, int parent, const char *title, int page)
{
    return pdf_outline(out, parent, title, page);
}
static const PageSink PDF_PAGES = {pdfs_begin, pdfs_draw, pdfs_end, pdfs_count, pdfs_outline};

bool export_handout_pdf(const ExportPlan *plan, ExportHandoutFile *f, ExportError *err)
{
    const ExportRequest *req = plan->req;
    const Lesson *L = plan->L;
    int head = plan->st.head;
    bool notes = req->handout_style == EXPORT_HANDOUT_NOTES;
    err->message[0] = '\0';
    memset(f, 0, sizeof *f);
    snprintf(f->name, sizeof f->name, "%s-handout%s-head%d.pdf", plan->prefix,
             notes ? "-notes" : "", head);
    char subject[200], msg[600], missing[sizeof f->missing];
    // TRANSLATORS: the handout's PDF properties (Subject)
    snprintf(subject, sizeof subject, TR("Multi-head attention, stage by stage: head %d"), head);
    PdfDoc *pdf = pdf_open(req->font_dir, L->title, subject, msg, sizeof msg);
    if (!pdf) {
        export_fail(err, true, "%s", msg);
        return false;
    }
    bool ok = handout_run(plan, &PDF_PAGES, pdf, missing, sizeof missing, err);
    if (ok && !(ok = pdf_finish(pdf, &f->data, &f->size, msg, sizeof msg)))
        export_fail(err, true, "%s", msg);
    snprintf(f->missing, sizeof f->missing, "%s", pdf_missing(pdf)[0] ? pdf_missing(pdf) : missing);
    pdf_close(pdf);
    if (!ok) free(f->data), f->data = NULL;
    return ok;
}

bool export_handout(const ExportPlan *plan, ExportResult *out, ExportError *err)
{
    const ExportRequest *req = plan->req;
    ExportHandoutFile f;
    memset(&f, 0, sizeof f);
    char name[300];
    snprintf(name, sizeof name, "%s-handout%s-head%d.pdf", plan->prefix,
             req->handout_style == EXPORT_HANDOUT_NOTES ? "-notes" : "", plan->st.head);
    const char *names[1] = {name};
    ExportWriter *w = export_writer_begin(req->dir, req->create_dir, names, 1, err);
    bool ok = w && (!req->progress || req->progress(req->progress_ctx, 0, 1));
    if (w && !ok) export_fail(err, false, "stopped before anything was written");
    ok = ok && export_handout_pdf(plan, &f, err);
    if (ok) snprintf(out->missing, sizeof out->missing, "%s", f.missing);
    if (ok) ok = export_writer_add(w, 0, f.data, f.size, err);
    if (ok && req->progress && !req->progress(req->progress_ctx, 1, 1)) {
        export_fail(err, false, "stopped before anything was written");
        ok = false;
    }
    if (ok) ok = export_writer_commit(w, err), w = NULL;
    if (w) export_writer_abort(w);
    free(f.data);
    if (!ok) return false;
    size_t len = strlen(req->dir) + strlen(name) + 2;
    out->paths = calloc(1, sizeof *out->paths);
    if (out->paths && (out->paths[0] = malloc(len))) {
        (void)platform_path_join(out->paths[0], len, req->dir, name);
        out->count = 1;
    }
    return true;
}
#endif
