// Slide export: heatmap images and boards laid out by the scene (the window's own layout, with a
// theme for the background asked for), the whole exports (what to make, named in lesson order, one
// image at a time) and the film strip: the top room of the exporter. Rendering and PNG bytes:
// export_png.h; which files are ours and the writing of them all or nothing: export_files.h.
#include "export.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/compare.h"
#include "../core/decode.h"
#include "../model/questions.h"
#include "platform/platform.h"
#include "export_jobs.h"
#include "svg.h"

// File names and titles are cut to their buffers on purpose.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

void export_request_defaults(ExportRequest *r)
{
    memset(r, 0, sizeof *r);
    r->formats = EXPORT_PNG;
    r->what = EXPORT_WHAT_HEATMAPS;
    r->stage = STAGE_SOFTMAX;
    r->scale = 2.0;
    r->background = EXPORT_BG_WHITE;
    r->colormap = COLORMAP_VIRIDIS;
    r->head = 0;
    r->cell_row = r->cell_col = -1;
}

void export_result_free(ExportResult *r)
{
    for (size_t i = 0; i < r->count; i++) free(r->paths[i]);
    free(r->paths);
    r->paths = NULL;
    r->count = 0;
}

// ---------------------------------------------------------------------------------------------------
// Names

void export_slug(const char *title, char *out, size_t cap)
{
    size_t n = 0, limit = cap > 61 ? 60 : (cap ? cap - 1 : 0);
    bool dash = false;
    for (const unsigned char *p = (const unsigned char *)(title ? title : ""); *p && n < limit;
         p++) {
        unsigned char c = *p;
        if (c >= 'A' && c <= 'Z') c = (unsigned char)(c - 'A' + 'a');
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
            if (dash && n > 0 && n + 1 < limit) out[n++] = '-';
            dash = false;
            out[n++] = (char)c;
        } else if (c == '\''
                   || (c == 0xE2 && p[1] == 0x80 && p[2] == 0x99)) { // "BERT's" -> "berts"
            if (c == 0xE2) p += 2;
        } else {
            dash = true;
        }
    }
    if (cap == 0) return;
    if (n == 0) {
        snprintf(out, cap, "lesson");
        return;
    }
    out[n] = '\0';
}

char *export_name_for(const char *lesson_path, const Lesson *lesson, char *out, size_t cap)
{
    if (!lesson_path || !lesson_path[0]) {
        export_slug(lesson ? lesson->title : NULL, out, cap);
        return out;
    }
    const char *base = strrchr(lesson_path, '/');
    base = base ? base + 1 : lesson_path;
    char name[512];
    snprintf(name, sizeof name, "%s", base);
    size_t n = strlen(name);
    if (n > 5 && strcmp(name + n - 5, ".json") == 0) name[n - 5] = '\0';
    export_slug(name, out, cap);
    return out;
}

char *export_default_dir(const char *lesson_path, char *out, size_t cap)
{
    const char *slash = lesson_path ? strrchr(lesson_path, '/') : NULL;
    if (!slash) snprintf(out, cap, "exports");
    else if (slash == lesson_path) snprintf(out, cap, "/exports");
    else snprintf(out, cap, "%.*s/exports", (int)(slash - lesson_path), lesson_path);
    return out;
}

MatId export_stage_matrix(Stage stage, const Lesson *lesson)
{
    return model_stage_heatmap(&lesson->params, stage);
}

const char *export_matrix_key(MatId mat)
{
    const MatInfo *mi = mat_info(mat);
    return mi ? mi->key : "matrix";
}

// ---------------------------------------------------------------------------------------------------
// Themes: the background asked for is a Theme handed to the scene, never a repaint of a finished
// frame. White: the light theme on a white page (the print theme for the grey colour map); dark:
// the dark theme; transparent: the light theme with a page of alpha 0 (the PNG gets an alpha
// channel, the SVG no page).

static Theme export_theme(ExportBackground b, ColormapId colormap)
{
    if (b == EXPORT_BG_DARK) return THEME_DARK;
    Theme t = b == EXPORT_BG_WHITE && colormap == COLORMAP_GREY ? THEME_PRINT : THEME_LIGHT;
    t.bg = (Rgba){255, 255, 255, b == EXPORT_BG_TRANSPARENT ? 0 : 255};
    return t;
}

// ---------------------------------------------------------------------------------------------------
// Heatmap images: the window's heatmap (scene_build_part_ex) on a page sized for the lesson. The
// page is worked out at scale 1 (the sizes of a 1280x720 window) and multiplied by the scale, so
// that scale 2 is exactly twice scale 1; the scene lays the heatmap out in it at that scale and
// fills it.

bool export_build_heatmap(Scene *s, const HeatmapSpec *spec, const Lesson *L, const Trace *T,
                          const TextMetrics *tm)
{
    scene_clear(s);
    const AttnParams *p = &L->params;
    if (!mat_info(spec->mat) || spec->head >= p->heads) return false;
    ViewDims dims = view_dims_from_params(p);
    ViewState st;
    view_init(&st, &dims);
    // The first stage whose heatmap is the matrix asked for (the scene draws the stage's heatmap).
    int stage = -1;
    for (int i = 0; i < st.stage_count && stage < 0; i++)
        if (model_stage_heatmap(p, st.stages[i]) == spec->mat) stage = i;
    if (stage < 0) return false;
    st.stage_index = stage;
    st.colormap = spec->colormap;
    st.view = spec->head < 0 ? VIEW_ALL_HEADS : VIEW_ONE_HEAD;
    st.head = spec->head < 0 ? -1 : spec->head; // all heads: none is marked as the current one
    int w1, h1;
    scene_heatmap_page(L, T, spec->mat, spec->head, 1.0, tm, &w1, &h1);
    double k = spec->scale > 0.0 ? spec->scale : 1.0;
    if (w1 * k > EXPORT_MAX_SIDE) k = floor((double)EXPORT_MAX_SIDE / w1 * 64.0) / 64.0;
    if (h1 * k > EXPORT_MAX_SIDE) k = floor((double)EXPORT_MAX_SIDE / h1 * 64.0) / 64.0;
    if ((double)w1 * h1 * k * k > EXPORT_MAX_PIXELS)
        k = floor(sqrt(EXPORT_MAX_PIXELS / ((double)w1 * h1)) * 64.0) / 64.0;
    // The scale-1 size times k, rounded once: scale 2 is exactly twice scale 1.
    int w = (int)lround(w1 * k), h = (int)lround(h1 * k);
    // Small scales: the scene's fonts stop shrinking, so the page is measured at k as well; when
    // that page is over the pixel limit, smaller scales are tried (down to 1/16).
    for (int tries = 0; k < 1.0 && tries < 8; tries++) {
        int wk, hk;
        scene_heatmap_page(L, T, spec->mat, spec->head, k, tm, &wk, &hk);
        w = (int)lround(w1 * k), h = (int)lround(h1 * k);
        w = w > wk ? w : wk;
        h = h > hk ? h : hk;
        if ((double)w * h <= EXPORT_MAX_PIXELS || k <= 1.0 / 16.0) break;
        double smaller = floor(k * sqrt(EXPORT_MAX_PIXELS / ((double)w * h)) * 64.0) / 64.0;
        k = smaller < k ? (smaller > 1.0 / 16.0 ? smaller : 1.0 / 16.0) : k - 1.0 / 64.0;
    }
    st.width = w;
    st.height = h;
    Theme theme = export_theme(spec->background, spec->colormap);
    SceneExtras ex = {.slide = true, .theme = &theme};
    return scene_build_part_ex(s, spec->head < 0 ? SCENE_PART_ALL_HEADS : SCENE_PART_HEATMAP, &st,
                               L, T, &ex, w, h, k, tm);
}

// ---------------------------------------------------------------------------------------------------
// Boards: the window's screen, laid out with the theme of the background asked for

// The board of export_build_board with what the window shows beyond the lesson (edit marks, the
// comparison); ex may be NULL. A slide has no pointer and no keys: their hints and any status line
// are left out.
bool export_board_scene(Scene *s, const ViewState *st, const Lesson *L, const Trace *T,
                        const SceneExtras *ex, const LessonQuestion *question, double scale,
                        ExportBackground background, const TextMetrics *tm)
{
    ViewState view = *st;
    view.help = false;
    view.zoom = 1.0;
    double k = scale > 0.0 ? scale : 1.0;
    if (1280.0 * k > EXPORT_MAX_SIDE) k = EXPORT_MAX_SIDE / 1280.0;
    if (1280.0 * 720.0 * k * k > EXPORT_MAX_PIXELS)
        k = floor(sqrt(EXPORT_MAX_PIXELS / (1280.0 * 720.0)) * 64.0) / 64.0;
    int w = (int)lround(1280.0 * k), h = (int)lround(720.0 * k);
    view.width = w;
    view.height = h;
    Theme theme = export_theme(background, st->colormap);
    SceneExtras slide = {0};
    if (ex) slide = *ex;
    slide.status = NULL;
    slide.slide = true;
    slide.theme = &theme;
    if (question)
        slide.question =
            question; // a question slide: asked (the result hidden) or answered (st->quiz_phase)
    if (view.panel == PANEL_COMPARE && !slide.compare)
        view.panel = PANEL_NONE; // nothing to compare with
    return scene_build_ex(s, &view, L, T, &slide, w, h, tm, NULL);
}

bool export_build_board(Scene *s, const ViewState *st, const Lesson *L, const Trace *T,
                        double scale, ExportBackground background, const TextMetrics *tm)
{
    return export_board_scene(s, st, L, T, NULL, NULL, scale, background, tm);
}

// ---------------------------------------------------------------------------------------------------
// Whole exports (the jobs: export_jobs.c)

static bool run_jobs(const Jobs *given, const ExportRequest *req, const Lesson *L, const Trace *T,
                     ExportResult *out, ExportError *err)
{
    unsigned formats = req->formats & (EXPORT_PNG | EXPORT_SVG);
    if (formats == 0) {
        export_fail(err, false, "no format asked for (png, svg or both)");
        return false;
    }
    Exporter *x = export_open(req->font_dir, err);
    if (!x) return false;
    TextMetrics tm = export_metrics(x);
    Scene scene;
    scene_init(&scene);
    Jobs expanded = {0};
    if (!export_expand_parts(given, &expanded, req, L, T, &tm, &scene)) {
        free(expanded.jobs);
        scene_free(&scene);
        export_close(x);
        export_fail(err, true, "out of memory while laying out the boards");
        return false;
    }
    const Jobs *jobs = &expanded;
    // Every file's name first: the writer checks all targets before anything is drawn or written.
    size_t nfiles = 0, per = (formats & EXPORT_PNG ? 1 : 0) + (formats & EXPORT_SVG ? 1 : 0);
    size_t cap = jobs->count * per + 1;
    char **names = calloc(cap, sizeof *names);
    bool ok = names != NULL;
    for (size_t i = 0; ok && i < jobs->count; i++)
        for (unsigned f = EXPORT_PNG; ok && f <= EXPORT_SVG; f <<= 1) {
            if (!(formats & f)) continue;
            const char *ext = f == EXPORT_PNG ? "png" : "svg";
            size_t len = strlen(jobs->jobs[i].name) + strlen(ext) + 2;
            if (!(names[nfiles] = malloc(len))) ok = false;
            else snprintf(names[nfiles++], len, "%s.%s", jobs->jobs[i].name, ext);
        }
    if (!ok) export_fail(err, true, "out of memory");
    // The SVGs' size before anything is written (export_svg_budget): each laid out once more to be
    // measured.
    double svg_total = 0, svg_largest = 0;
    char svg_name[300] = "";
    for (size_t i = 0; ok && (formats & EXPORT_SVG) && i < jobs->count; i++) {
        const Job *j = &jobs->jobs[i];
        ok = j->board ? export_board_scene(&scene, &j->st, L, T, req->view, j->question, req->scale,
                                           req->background, &tm)
                      : export_build_heatmap(&scene, &j->spec, L, T, &tm);
        if (!ok) export_fail(err, true, "out of memory while laying out %s", j->name);
        else
            ok = export_svg_budget(export_svg_estimate(&scene, strlen(j->title)), j->name,
                                   &svg_total, &svg_largest, svg_name, sizeof svg_name, err);
    }
    ExportWriter *w =
        ok ? export_writer_begin(req->dir, req->create_dir, (const char *const *)names, nfiles, err)
           : NULL;
    ok = w != NULL;
    if (ok && req->progress && !req->progress(req->progress_ctx, 0, nfiles)) {
        export_fail(err, false, "stopped before anything was written");
        ok = false;
    }
    // One image at a time: laid out, encoded, written to its temporary and freed.
    size_t k = 0;
    for (size_t i = 0; ok && i < jobs->count; i++) {
        const Job *j = &jobs->jobs[i];
        bool built = j->board ? export_board_scene(&scene, &j->st, L, T, req->view, j->question,
                                                   req->scale, req->background, &tm)
                              : export_build_heatmap(&scene, &j->spec, L, T, &tm);
        if (!built) {
            export_fail(err, true, "out of memory while laying out %s", j->name);
            ok = false;
            break;
        }
        for (unsigned f = EXPORT_PNG; ok && f <= EXPORT_SVG; f <<= 1) {
            if (!(formats & f)) continue;
            unsigned char *data = NULL;
            size_t size = 0;
            if (f == EXPORT_PNG) {
                ExportBuffer b;
                ok = export_png_encode(x, &scene, req->background, &b, err);
                data = b.data;
                size = b.size;
            } else {
                data = (unsigned char *)svg_encode(&scene, j->title, &size);
                if (!(ok = data != NULL))
                    export_fail(err, true, "out of memory while writing %s", names[k]);
            }
            if (ok) ok = export_writer_add(w, k, data, size, err);
            free(data);
            k++;
            if (ok && req->progress && !req->progress(req->progress_ctx, k, nfiles)) {
                export_fail(err, false, "stopped before anything was written");
                ok = false;
            }
        }
    }
    scene_free(&scene);
    if (x) snprintf(out->missing, sizeof out->missing, "%s", export_missing(x));
    export_close(x);
    if (ok) {
        ok = export_writer_commit(w, err);
        w = NULL;
    }
    if (w) export_writer_abort(w);
    if (ok) {
        out->paths = calloc(nfiles + 1, sizeof *out->paths);
        bool listed = out->paths != NULL;
        for (size_t i = 0; listed && i < nfiles; i++) {
            size_t len = strlen(req->dir) + strlen(names[i]) + 2;
            if (!(out->paths[i] = malloc(len))) break;
            (void)platform_path_join(out->paths[i], len, req->dir,
                                     names[i]); // fits: the writer checked every path
            out->count++;
        }
        // The files are written; a path list cut short by no memory is still a success.
        if (out->count < nfiles) export_fail(err, true, "out of memory");
    }
    for (size_t i = 0; names && i < nfiles; i++) free(names[i]);
    free(names);
    free(expanded.jobs);
    return ok;
}

// The first of the lesson's stages that has a heatmap (its key names where heatmaps start).
static const char *first_heat_stage(const ViewState *st, const Lesson *L)
{
    for (int i = 0; i < st->stage_count; i++)
        if (model_stage_heatmap(&L->params, st->stages[i]) != MAT_NONE)
            return stage_info(st->stages[i])->key;
    return "?";
}

// --what decode, tiles, cost, compare, shuffle or all-heads: the panel's slides as the window shows
// them, on st's stage and head (all-heads: each stage first .. last that has a heatmap). The
// comparison and the shuffle test are computed here when the request's view does not carry them
// (the command line).
static bool export_panels(const ExportRequest *req, const char *prefix, const Lesson *L,
                          const Trace *T, ViewState *st, int first, int last, ExportResult *out,
                          ExportError *err)
{
    const AttnParams *p = &L->params;
    Jobs jobs = {0};
    bool ok = true;
    int block = req->block > 0 ? req->block : st->tiles_block;
    if (req->what == EXPORT_WHAT_DECODE && decode_refusal(p)) {
        export_fail(err, false, "--what decode: %s", decode_refusal(p));
        return false;
    }
    if (req->what == EXPORT_WHAT_TILES && (block < 1 || block > p->n)) {
        export_fail(err, false, "--block %d: the tiles' block size is 1 to the lesson's %d tokens",
                    block, p->n);
        return false;
    }
    if (req->what == EXPORT_WHAT_TILES
        && (p->n > SCENE_TILES_MAX_TOKENS || p->m > SCENE_TILES_MAX_TOKENS
            || p->d_k > SCENE_TILES_MAX_DK)) {
        export_fail(err, false,
                    "--what tiles: the tiles panel steps through lessons of up to %d tokens and "
                    "d_k up to %d "
                    "(--json --tiles %d prints every tile of this one)",
                    SCENE_TILES_MAX_TOKENS, SCENE_TILES_MAX_DK, block);
        return false;
    }
    if (req->what == EXPORT_WHAT_OVERVIEW && !(p->stream && p->stream->overview)) {
        export_fail(
            err, false,
            "--what overview: every layer's heads are kept only for a checkpoint (--model DIR), "
            "and only while layers x heads x tokens x tokens is at most 32 Mi numbers (a shorter "
            "--text)");
        return false;
    }
    if (req->what == EXPORT_WHAT_ROTATION && p->rope == ROPE_NONE) {
        export_fail(err, false,
                    "--what rotation: the lesson has no \"rope\" (RoPE), so nothing turns");
        return false;
    }
    ViewState v = *st;
    v.pinned.mat = v.hover.mat = MAT_NONE;
    switch (req->what) {
    case EXPORT_WHAT_ROTATION: // the last token: the largest turns
        v.panel = PANEL_ROPE, v.rope_t = p->n - 1;
        for (int i = 0; i < v.stage_count; i++) // the strip marks the stage it pictures
            if (v.stages[i] == STAGE_ROTATE) v.stage_index = i;
        ok = export_add_board(&jobs, prefix, L, &v, false);
        break;
    case EXPORT_WHAT_DECODE:
        v.panel = PANEL_DECODE;
        for (int t = 0; ok && t < p->n; t++)
            v.decode_t = t, ok = export_add_board(&jobs, prefix, L, &v, false);
        break;
    case EXPORT_WHAT_TILES: {
        int64_t computed = 0, skipped = 0;
        tiles_count(p, block, &computed, &skipped);
        v.panel = PANEL_TILES, v.tiles_block = block, v.tile_count = (int)computed;
        for (int k = 1; ok && k <= computed; k++)
            v.tile = k, ok = export_add_board(&jobs, prefix, L, &v, false);
        break;
    }
    case EXPORT_WHAT_ALL_HEADS: { // each heatmap once: the weights are the heatmap of every stage
                                  // from the softmax on
        bool done[MAT_COUNT] = {false};
        v.view = VIEW_ALL_HEADS;
        for (int i = first; ok && i <= last; i++) {
            v.stage_index = i;
            MatId mat = model_stage_heatmap(p, view_stage(&v));
            if (mat != MAT_NONE && !done[mat])
                done[mat] = true, ok = export_add_board(&jobs, prefix, L, &v, false);
        }
        break;
    }
    default:
        v.panel = req->what == EXPORT_WHAT_COST       ? PANEL_COST
                  : req->what == EXPORT_WHAT_COMPARE  ? PANEL_COMPARE
                  : req->what == EXPORT_WHAT_CACHE    ? PANEL_CACHE
                  : req->what == EXPORT_WHAT_OVERVIEW ? PANEL_OVERVIEW
                                                      : PANEL_SHUFFLE;
        ok = export_add_board(&jobs, prefix, L, &v, false);
        break;
    }
    if (!ok) {
        free(jobs.jobs);
        export_fail(err, true, "out of memory");
        return false;
    }
    // What the compare and shuffle panels show beyond the lesson.
    SceneExtras view = {0};
    if (req->view) view = *req->view;
    ExportRequest r = *req;
    r.view = &view;
    Comparison cmp;
    SessionShuffle shuf;
    bool have_cmp = false, have_shuf = false;
    memset(&shuf, 0, sizeof shuf);
    TraceError terr;
    if (req->what == EXPORT_WHAT_COMPARE && !view.compare) {
        if (!(ok = have_cmp = compare_run(&cmp, p, &terr)))
            export_fail(err, false, "--what compare: %s", terr.message);
        else view.compare = &cmp;
    }
    if (ok && req->what == EXPORT_WHAT_SHUFFLE && !view.shuffle) {
        shuf.perm = malloc(sizeof *shuf.perm * (size_t)(p->n > 0 ? p->n : 1));
        ok = shuf.perm
             && (view_shuffle_perm(v.shuffle, p->n, shuf.perm),
                 lesson_shuffle(&shuf.lesson, L, shuf.perm));
        if (!ok) export_fail(err, true, "out of memory");
        else if (!(ok = have_shuf = trace_run(&shuf.trace, &shuf.lesson.params, &terr))) {
            lesson_free(&shuf.lesson);
            export_fail(err, false, "--what shuffle: %s", terr.message);
        } else {
            shuf.difference = trace_shuffle_difference(T, &shuf.trace, shuf.perm);
            shuf.same = trace_shuffle_same(T, shuf.difference);
            view.shuffle = &shuf;
        }
    }
    if (ok) ok = run_jobs(&jobs, &r, L, T, out, err);
    if (have_cmp) compare_free(&cmp);
    if (have_shuf) lesson_free(&shuf.lesson), trace_free(&shuf.trace);
    free(shuf.perm);
    free(jobs.jobs);
    return ok;
}

bool export_run(const ExportRequest *req, const Lesson *L, const Trace *T, ExportResult *out,
                ExportError *err)
{
    memset(out, 0, sizeof *out);
    if (!(req->scale >= EXPORT_SCALE_MIN && req->scale <= EXPORT_SCALE_MAX)) {
        export_fail(err, false, "scale %g is out of range (%g to %g)", req->scale, EXPORT_SCALE_MIN,
                    EXPORT_SCALE_MAX);
        return false;
    }
    ViewDims dims = view_dims_from_params(&L->params);
    ViewState st;
    view_init(&st, &dims);
    st.colormap = req->colormap;
    if (req->head < 0 || req->head >= L->params.heads) {
        export_fail(err, false, "there is no head %d: this lesson has %d head%s (0 to %d)",
                    req->head, L->params.heads, L->params.heads == 1 ? "" : "s",
                    L->params.heads - 1);
        return false;
    }
    st.head = req->head;
    int first = 0, last = st.stage_count - 1;
    if (req->stage != EXPORT_ALL_STAGES) {
        const StageInfo *si = stage_info((Stage)req->stage);
        first = -1;
        for (int i = 0; i < st.stage_count; i++)
            if ((int)st.stages[i] == req->stage) first = i;
        if (first < 0) {
            export_fail(err, false, "this lesson has no '%s' stage%s", si ? si->key : "?",
                        req->stage == STAGE_MASK ? " (it is not causal)" : "");
            return false;
        }
        last = first;
        if ((req->what == EXPORT_WHAT_HEATMAPS || req->what == EXPORT_WHAT_ALL_HEADS)
            && model_stage_heatmap(&L->params, (Stage)req->stage) == MAT_NONE) {
            export_fail(err, false,
                        "there are no heatmaps at the '%s' stage: they start at the '%s' stage",
                        si->key, first_heat_stage(&st, L));
            return false;
        }
    }
    char prefix[128];
    if (req->name && req->name[0]) export_slug(req->name, prefix, sizeof prefix);
    else export_slug(L->title, prefix, sizeof prefix);
    if (req->what & EXPORT_WHAT_PANELS) {
        // The stage under the panel (the cost table's board; the strip's lit stage): --stage's, the
        // first for all.
        if (req->stage == EXPORT_ALL_STAGES && req->what != EXPORT_WHAT_ALL_HEADS) first = last = 0;
        st.stage_index = first;
        return export_panels(req, prefix, L, T, &st, first, last, out, err);
    }
    Jobs jobs = {0};
    bool ok = true;
    bool done[MAT_COUNT] = {false}; // the weights are the heatmap of several stages: exported once
    for (int i = first; ok && i <= last; i++) {
        st.stage_index = i;
        Stage stage = view_stage(&st);
        if (req->what & EXPORT_WHAT_BOARD) {
            // A slide has no pointer: the first result cell is pinned, so the board shows how it is
            // computed, or the cell asked for (the first result matrix of the stage that has it).
            ViewState b = st;
            int total = view_reveal_total(&b);
            b.pinned = export_slide_cell(&b, (CellRef){MAT_X, b.head, 0, 0});
            bool named = false;
            if (req->cell_row >= 0) {
                for (int c = 0; c < total && !named; c++) {
                    CellRef r = view_reveal_cell(&b, c);
                    if (r.row == req->cell_row && r.col == req->cell_col) {
                        b.pinned = r;
                        named = true;
                    }
                }
                if (!named && first == last) {
                    const MatInfo *mi =
                        total > 0 ? mat_info(view_reveal_cell(&b, total - 1).mat) : NULL;
                    CellRef lastc =
                        total > 0 ? view_reveal_cell(&b, total - 1) : (CellRef){MAT_NONE, 0, 0, 0};
                    free(jobs.jobs);
                    if (total == 0 || !mi)
                        export_fail(err, false, "the '%s' stage computes no cells to pin",
                                    stage_info(stage)->key);
                    else
                        export_fail(err, false,
                                    "the '%s' stage has no cell %d,%d: its %s run to row %d, "
                                    "column %d (from 0)",
                                    stage_info(stage)->key, req->cell_row, req->cell_col, mi->what,
                                    lastc.row, lastc.col);
                    return false;
                }
            }
            ok = export_add_board(&jobs, prefix, L, &b, named);
            if (ok) {
                jobs.jobs[jobs.count - 1].parts = req->parts;
                jobs.jobs[jobs.count - 1].pinned_named = named;
            }
            if (ok && !export_add_questions(&jobs, prefix, L, T, &st, err)) {
                free(jobs.jobs);
                return false;
            }
        }
        MatId mat = export_stage_matrix(stage, L);
        if (ok && (req->what & EXPORT_WHAT_HEATMAPS) && mat != MAT_NONE && !done[mat]) {
            done[mat] = true;
            for (int h = 0; ok && h < L->params.heads; h++)
                ok = export_add_heatmap(&jobs, req, prefix, L, mat, h);
            if (ok && L->params.heads > 1) ok = export_add_heatmap(&jobs, req, prefix, L, mat, -1);
        }
    }
    if (!ok) {
        free(jobs.jobs);
        export_fail(err, true, "out of memory");
        return false;
    }
    ok = run_jobs(&jobs, req, L, T, out, err);
    free(jobs.jobs);
    return ok;
}

bool export_from_view(const ExportRequest *req, bool board, const ViewState *st, const Lesson *L,
                      const Trace *T, ExportResult *out, ExportError *err)
{
    memset(out, 0, sizeof *out);
    ExportRequest r = *req;
    if (!(r.scale >= EXPORT_SCALE_MIN && r.scale <= EXPORT_SCALE_MAX)) r.scale = 2.0;
    r.colormap = st->colormap;
    char prefix[128];
    if (r.name && r.name[0]) export_slug(r.name, prefix, sizeof prefix);
    else export_slug(L->title, prefix, sizeof prefix);
    Jobs jobs = {0};
    bool ok;
    if (board) {
        ok = export_add_board(&jobs, prefix, L, st, true);
    } else {
        MatId mat = export_stage_matrix(view_stage(st), L);
        if (mat == MAT_NONE)
            mat = MAT_WEIGHTS; // before the scores, as the all-heads view: the weights
        ok = export_add_heatmap(&jobs, &r, prefix, L, mat,
                                st->view == VIEW_ALL_HEADS ? -1 : st->head);
    }
    if (!ok) {
        free(jobs.jobs);
        export_fail(err, true, "out of memory");
        return false;
    }
    ok = run_jobs(&jobs, &r, L, T, out, err);
    free(jobs.jobs);
    return ok;
}

bool export_heatmap_strip(const char *dir, bool create_dir, const char *font_dir, const char *name,
                          const HeatmapSpec *spec, const StripFrame *frames, size_t count,
                          char *path, size_t cap, ExportError *err)
{
    Exporter *x = export_open(font_dir, err);
    if (!x) return false;
    TextMetrics tm = export_metrics(x);
    Scene strip, part;
    scene_init(&strip);
    scene_init(&part);
    int pad = (int)lround(16 * spec->scale), cap_size = (int)lround(20 * spec->scale);
    int cap_h = tm.line_height(tm.user, FONT_BOLD, cap_size);
    scene_push(&strip, CMD_RECT, 0, 0, 1, 1,
               (Rgba){255, 255, 255, 255}); // the page: sized at the end
    int at = pad, tallest = 0;
    bool ok = true;
    Rgba ink = {30, 30, 30, 255};
    for (size_t i = 0; ok && i < count; i++) {
        if (!(ok = export_build_heatmap(&part, spec, frames[i].lesson, frames[i].trace, &tm))) {
            export_fail(err, true, "out of memory while laying out the strip");
            break;
        }
        if (i == 0 && strip.count)
            strip.cmds[0].color = part.background,
            ink = part.background.r < 128 ? (Rgba){230, 230, 230, 255} : ink;
        const char *caption = frames[i].caption ? frames[i].caption : "";
        int cw = tm.text_width(tm.user, FONT_BOLD, cap_size, caption);
        scene_push_text(&strip, FONT_BOLD, cap_size, ink, at + (part.width - cw) / 2, pad, cw,
                        cap_h, caption);
        scene_append(&strip, &part, at, pad + cap_h);
        at += part.width + pad;
        if (part.height > tallest) tallest = part.height;
    }
    ExportBuffer b = {0};
    if (ok && !strip.oom) {
        strip.width = at;
        strip.height = pad + cap_h + tallest + pad;
        strip.background = strip.cmds[0].color;
        strip.cmds[0].w = strip.width;
        strip.cmds[0].h = strip.height;
        ok = export_png_encode(x, &strip, spec->background, &b, err);
    } else if (ok) {
        ok = false;
        export_fail(err, true, "out of memory while laying out the strip");
    }
    char file[300];
    snprintf(file, sizeof file, "%s.png", name);
    ExportFile f = {file, b.data, b.size};
    if (ok) ok = export_write_files(dir, create_dir, &f, 1, err);
    if (ok && path) snprintf(path, cap, "%s/%s", dir, file);
    export_buffer_free(&b);
    scene_free(&part);
    scene_free(&strip);
    export_close(x);
    return ok;
}
