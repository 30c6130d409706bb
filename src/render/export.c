// Slide export: the whole exports (what to make, named in lesson order, one image at a time) and
// the film strip: the top room of the exporter. One slide's scene (a heatmap image or a board, laid
// out by the window's own scene with a theme for the background asked for): export_slide.c; the
// list of slides: export_jobs.c; rendering and PNG bytes: export_png.h; which files are ours and
// the writing of them all or nothing: export_files.h.
#include "render/export.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/compare.h"
#include "core/decode.h"
#include "hf/layer_stream.h"
#include "model/panel_circuit.h"
#include "model/questions.h"
#include "platform/platform.h"
#include "render/export_jobs.h"
#include "render/export_slide.h"
#include "render/svg.h"

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

// The bytes of the UTF-8 letter at p (0: not a letter, a separator): a sequence that is valid UTF-8
// and not punctuation (Latin-1's signs U+0080-U+00BF and ×, ÷; general punctuation U+2000-U+206F;
// CJK punctuation U+3000-U+303F; full-width signs U+FF00-U+FF0F).
static int slug_letter_bytes(const unsigned char *p)
{
    int len = p[0] >= 0xF0 && p[0] <= 0xF4 ? 4 : p[0] >= 0xE0 ? 3 : p[0] >= 0xC2 ? 2 : 0;
    if (p[0] >= 0xF5) len = 0;
    for (int k = 1; k < len; k++)
        if ((p[k] & 0xC0) != 0x80) return 0;
    if (len == 2 && (p[0] == 0xC2 || (p[0] == 0xC3 && (p[1] == 0x97 || p[1] == 0xB7)))) return 0;
    if (len == 3 && p[0] == 0xE2 && (p[1] == 0x80 || p[1] == 0x81)) return 0;
    if (len == 3 && p[0] == 0xE3 && p[1] == 0x80) return 0;
    if (len == 3 && p[0] == 0xEF && p[1] == 0xBC && p[2] <= 0x8F) return 0;
    return len;
}

void export_slug(const char *title, char *out, size_t cap)
{
    size_t n = 0, limit = cap > 61 ? 60 : (cap ? cap - 1 : 0);
    bool dash = false;
    for (const unsigned char *p = (const unsigned char *)(title ? title : ""); *p && n < limit;
         p++) {
        unsigned char c = *p;
        if (c >= 'A' && c <= 'Z') c = (unsigned char)(c - 'A' + 'a');
        int wide = c >= 0x80 ? slug_letter_bytes(p) : 0;
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || wide > 0) {
            int len = wide > 0 ? wide : 1;
            if (n + (dash && n > 0) + (size_t)len > limit) break; // never half a letter
            if (dash && n > 0) out[n++] = '-';
            dash = false;
            if (wide == 0) out[n++] = (char)c;
            for (int k = 0; k < wide; k++) out[n++] = (char)p[k];
            // The teacher's letters kept, Latin-1's capitals in lower case ("Leçon" -> "leçon").
            if (wide == 2 && p[0] == 0xC3 && p[1] >= 0x80 && p[1] <= 0x9E)
                out[n - 1] = (char)(p[1] + 0x20);
            p += len - 1;
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
    // A later layer of a lesson of layers: its slides beside layer 0's, none over another's.
    const LayerStream *ls = lesson ? lesson->params.stream : NULL;
    n = strlen(out);
    if (ls && ls->attention_only && ls->layer > 0 && n < cap)
        snprintf(out + n, cap - n, "-layer%d", ls->layer);
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

// ---------------------------------------------------------------------------------------------------
// Whole exports (the jobs: export_jobs.c)

// A whole export while it runs: the request, the exporter and its metrics, the one scene each image
// is laid out in, the jobs and every file's name (one per job and format asked for, in that order).
typedef struct {
    const ExportRequest *req;
    const Lesson *L;
    const Trace *T;
    unsigned formats; // EXPORT_PNG, EXPORT_SVG or both
    Exporter *x;
    TextMetrics tm;
    Scene scene;
    const Jobs *jobs;
    char **names;
    size_t nfiles;
    SlideSource src; // req, L, T and tm, for the boards
} JobRun;

// Lays job j out in R->scene: its board (a slide) or its heatmap.
static bool job_layout(JobRun *R, const Job *j)
{
    return j->board ? export_board_scene(&R->scene, &R->src, &j->st, j->question)
                    : export_build_heatmap(&R->scene, &j->spec, R->L, R->T, &R->tm);
}

// Every file's name first (R->names, R->nfiles): the writer checks all targets before anything is
// drawn or written.
static bool job_names(JobRun *R, ExportError *err)
{
    const Jobs *jobs = R->jobs;
    size_t per = (R->formats & EXPORT_PNG ? 1 : 0) + (R->formats & EXPORT_SVG ? 1 : 0);
    size_t cap = jobs->count * per + 1;
    R->names = calloc(cap, sizeof *R->names);
    bool ok = R->names != NULL;
    for (size_t i = 0; ok && i < jobs->count; i++)
        for (unsigned f = EXPORT_PNG; ok && f <= EXPORT_SVG; f <<= 1) {
            if (!(R->formats & f)) continue;
            const char *ext = f == EXPORT_PNG ? "png" : "svg";
            size_t len = strlen(jobs->jobs[i].name) + strlen(ext) + 2;
            if (!(R->names[R->nfiles] = malloc(len))) ok = false;
            else snprintf(R->names[R->nfiles++], len, "%s.%s", jobs->jobs[i].name, ext);
        }
    if (!ok) export_fail(err, true, "out of memory");
    return ok;
}

// The SVGs' size before anything is written (export_svg_budget): each laid out once more to be
// measured.
static bool job_svg_budget(JobRun *R, ExportError *err)
{
    double svg_total = 0, svg_largest = 0;
    char svg_name[300] = "";
    bool ok = true;
    for (size_t i = 0; ok && (R->formats & EXPORT_SVG) && i < R->jobs->count; i++) {
        const Job *j = &R->jobs->jobs[i];
        ok = job_layout(R, j);
        if (!ok) export_fail(err, true, "out of memory while laying out %s", j->name);
        else
            ok = export_svg_budget(export_svg_estimate(&R->scene, strlen(j->title)), j->name,
                                   &svg_total, &svg_largest, svg_name, sizeof svg_name, err);
    }
    return ok;
}

// File k: job j's scene (laid out) encoded in format f and handed to the writer.
static bool job_file(JobRun *R, ExportWriter *w, const Job *j, unsigned f, size_t k,
                     ExportError *err)
{
    unsigned char *data = NULL;
    size_t size = 0;
    bool ok;
    if (f == EXPORT_PNG) {
        ExportBuffer b;
        ok = export_png_encode(R->x, &R->scene, R->req->background, &b, err);
        data = b.data;
        size = b.size;
    } else {
        data = (unsigned char *)svg_encode(&R->scene, j->title, &size);
        if (!(ok = data != NULL))
            export_fail(err, true, "out of memory while writing %s", R->names[k]);
    }
    if (ok) ok = export_writer_add(w, k, data, size, err);
    free(data);
    return ok;
}

// One image at a time: laid out, encoded, written to its temporary and freed; the progress told
// after each file (it may stop the export).
static bool job_write_all(JobRun *R, ExportWriter *w, ExportError *err)
{
    const ExportRequest *req = R->req;
    bool ok = true;
    size_t k = 0;
    for (size_t i = 0; ok && i < R->jobs->count; i++) {
        const Job *j = &R->jobs->jobs[i];
        if (!job_layout(R, j)) {
            export_fail(err, true, "out of memory while laying out %s", j->name);
            return false;
        }
        for (unsigned f = EXPORT_PNG; ok && f <= EXPORT_SVG; f <<= 1) {
            if (!(R->formats & f)) continue;
            ok = job_file(R, w, j, f, k, err);
            k++;
            if (ok && req->progress && !req->progress(req->progress_ctx, k, R->nfiles)) {
                export_fail(err, false, "stopped before anything was written");
                ok = false;
            }
        }
    }
    return ok;
}

// The written files' paths in out (the folder joined to each name).
static void job_list_paths(const JobRun *R, ExportResult *out, ExportError *err)
{
    const char *dir = R->req->dir;
    out->paths = calloc(R->nfiles + 1, sizeof *out->paths);
    bool listed = out->paths != NULL;
    for (size_t i = 0; listed && i < R->nfiles; i++) {
        size_t len = strlen(dir) + strlen(R->names[i]) + 2;
        if (!(out->paths[i] = malloc(len))) break;
        (void)platform_path_join(out->paths[i], len, dir,
                                 R->names[i]); // fits: the writer checked every path
        out->count++;
    }
    // The files are written; a path list cut short by no memory is still a success.
    if (out->count < R->nfiles) export_fail(err, true, "out of memory");
}

// The jobs' files, and extra (not NULL: a handout made before) as the last file of the same write:
// all of them or none.
static bool run_jobs(const Jobs *given, const ExportRequest *req, const Lesson *L, const Trace *T,
                     const ExportHandoutFile *extra, ExportResult *out, ExportError *err)
{
    JobRun R = {.req = req, .L = L, .T = T, .formats = req->formats & (EXPORT_PNG | EXPORT_SVG)};
    if (R.formats == 0) {
        export_fail(err, false, "no format asked for (png, svg or both)");
        return false;
    }
    R.x = export_open(req->font_dir, err);
    if (!R.x) return false;
    R.tm = export_metrics(R.x);
    R.src = (SlideSource){req, L, T, &R.tm};
    scene_init(&R.scene);
    Jobs expanded = {0};
    if (!export_expand_parts(given, &expanded, &R.src, &R.scene)) {
        free(expanded.jobs);
        scene_free(&R.scene);
        export_close(R.x);
        export_fail(err, true, "out of memory while laying out the boards");
        return false;
    }
    R.jobs = &expanded;
    bool ok = job_names(&R, err) && job_svg_budget(&R, err);
    if (ok && extra) {
        size_t len = strlen(extra->name) + 1;
        if ((R.names[R.nfiles] = malloc(len))) memcpy(R.names[R.nfiles++], extra->name, len);
        else ok = false, export_fail(err, true, "out of memory");
    }
    ExportWriter *w = ok ? export_writer_begin(req->dir, req->create_dir,
                                               (const char *const *)R.names, R.nfiles, err)
                         : NULL;
    ok = w != NULL;
    if (ok && req->progress && !req->progress(req->progress_ctx, 0, R.nfiles)) {
        export_fail(err, false, "stopped before anything was written");
        ok = false;
    }
    if (ok) ok = job_write_all(&R, w, err);
    if (ok && extra) ok = export_writer_add(w, R.nfiles - 1, extra->data, extra->size, err);
    if (ok && extra && req->progress && !req->progress(req->progress_ctx, R.nfiles, R.nfiles)) {
        export_fail(err, false, "stopped before anything was written");
        ok = false;
    }
    scene_free(&R.scene);
    if (R.x) snprintf(out->missing, sizeof out->missing, "%s", export_missing(R.x));
    if (extra && !out->missing[0])
        snprintf(out->missing, sizeof out->missing, "%s", extra->missing);
    export_close(R.x);
    if (ok) {
        ok = export_writer_commit(w, err);
        w = NULL;
    }
    if (w) export_writer_abort(w);
    if (ok) job_list_paths(&R, out, err);
    for (size_t i = 0; R.names && i < R.nfiles; i++) free(R.names[i]);
    free(R.names);
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

// Why the lesson has no slides of the panel req->what (with a block of `block` for the tiles): the
// error said in err; true when it has them.
static bool panels_possible(const ExportRequest *req, const AttnParams *p, int block,
                            ExportError *err)
{
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
    if (req->what == EXPORT_WHAT_CIRCUIT
        && !(req->view && req->view->circuit && req->view->circuit->ready)) {
        export_fail(err, false,
                    "--what circuit: the circuit panel is for a lesson of layers (a "
                    "\"vocabulary\", lessons/induction-heads.json)");
        return false;
    }
    if (req->what == EXPORT_WHAT_ROTATION && p->rope == ROPE_NONE) {
        export_fail(err, false,
                    "--what rotation: the lesson has no \"rope\" (RoPE), so nothing turns");
        return false;
    }
    return true;
}

// The panel's slides as jobs, on the view v (the plan's, without a pointer): one per token
// (decode), per tile (tiles), per heatmap of the plan's stages (all-heads), else one. False: out of
// memory.
static bool panels_add_jobs(Jobs *jobs, const ExportPlan *plan, ViewState *v, int block)
{
    const ExportRequest *req = plan->req;
    const char *prefix = plan->prefix;
    const Lesson *L = plan->L;
    const AttnParams *p = &L->params;
    bool ok = true;
    switch (req->what) {
    case EXPORT_WHAT_ROTATION: // the last token: the largest turns
        v->panel = PANEL_ROPE, v->rope_t = p->n - 1;
        for (int i = 0; i < v->stage_count; i++) // the strip marks the stage it pictures
            if (v->stages[i] == STAGE_ROTATE) v->stage_index = i;
        return export_add_board(jobs, prefix, L, v, false);
    case EXPORT_WHAT_DECODE:
        v->panel = PANEL_DECODE;
        for (int t = 0; ok && t < p->n; t++)
            v->decode_t = t, ok = export_add_board(jobs, prefix, L, v, false);
        return ok;
    case EXPORT_WHAT_TILES: {
        int64_t computed = 0, skipped = 0;
        tiles_count(p, block, &computed, &skipped);
        v->panel = PANEL_TILES, v->tiles_block = block, v->tile_count = (int)computed;
        for (int k = 1; ok && k <= computed; k++)
            v->tile = k, ok = export_add_board(jobs, prefix, L, v, false);
        return ok;
    }
    case EXPORT_WHAT_ALL_HEADS: { // each heatmap once: the weights are the heatmap of every stage
                                  // from the softmax on
        bool done[MAT_COUNT] = {false};
        v->view = VIEW_ALL_HEADS;
        for (int i = plan->first; ok && i <= plan->last; i++) {
            v->stage_index = i;
            MatId mat = model_stage_heatmap(p, view_stage(v));
            if (mat != MAT_NONE && !done[mat])
                done[mat] = true, ok = export_add_board(jobs, prefix, L, v, false);
        }
        return ok;
    }
    default:
        v->panel = req->what == EXPORT_WHAT_COST       ? PANEL_COST
                   : req->what == EXPORT_WHAT_COMPARE  ? PANEL_COMPARE
                   : req->what == EXPORT_WHAT_CACHE    ? PANEL_CACHE
                   : req->what == EXPORT_WHAT_OVERVIEW ? PANEL_OVERVIEW
                   : req->what == EXPORT_WHAT_CIRCUIT  ? PANEL_CIRCUIT
                                                       : PANEL_SHUFFLE;
        return export_add_board(jobs, prefix, L, v, false);
    }
}

// What the compare and shuffle panels show beyond the lesson, computed here when the request's view
// does not carry them (the command line); panels_extras_free frees what was computed.
typedef struct {
    SceneExtras view;
    Comparison cmp;
    SessionShuffle shuf;
    bool have_cmp, have_shuf;
} PanelExtras;

// The comparison (--what compare) or the shuffled lesson's trace (--what shuffle, v's permutation)
// in e->view; false with err set when it cannot be made.
static bool panels_extras(PanelExtras *e, const ExportRequest *req, const Lesson *L, const Trace *T,
                          const ViewState *v, ExportError *err)
{
    const AttnParams *p = &L->params;
    SessionShuffle *shuf = &e->shuf;
    bool ok = true;
    TraceError terr;
    if (req->what == EXPORT_WHAT_COMPARE && !e->view.compare) {
        if (!(ok = e->have_cmp = compare_run(&e->cmp, p, &terr)))
            export_fail(err, false, "--what compare: %s", terr.message);
        else e->view.compare = &e->cmp;
    }
    if (ok && req->what == EXPORT_WHAT_SHUFFLE && !e->view.shuffle) {
        shuf->perm = malloc(sizeof *shuf->perm * (size_t)(p->n > 0 ? p->n : 1));
        ok = shuf->perm
             && (view_shuffle_perm(v->shuffle, p->n, shuf->perm),
                 lesson_shuffle(&shuf->lesson, L, shuf->perm));
        if (!ok) export_fail(err, true, "out of memory");
        else if (!(ok = e->have_shuf = trace_run(&shuf->trace, &shuf->lesson.params, &terr))) {
            lesson_free(&shuf->lesson);
            export_fail(err, false, "--what shuffle: %s", terr.message);
        } else {
            shuf->difference = trace_shuffle_difference(T, &shuf->trace, shuf->perm);
            shuf->same = trace_shuffle_same(T, shuf->difference);
            e->view.shuffle = shuf;
        }
    }
    return ok;
}

static void panels_extras_free(PanelExtras *e)
{
    if (e->have_cmp) compare_free(&e->cmp);
    if (e->have_shuf) lesson_free(&e->shuf.lesson), trace_free(&e->shuf.trace);
    free(e->shuf.perm);
}

// --what decode, tiles, cost, compare, shuffle or all-heads: the panel's slides as the window shows
// them, on the plan's stage and head (all-heads: each of its stages that has a heatmap). The
// comparison and the shuffle test are computed here when the request's view does not carry them
// (the command line).
static bool export_panels(const ExportPlan *plan, ExportResult *out, ExportError *err)
{
    const ExportRequest *req = plan->req;
    const Lesson *L = plan->L;
    Jobs jobs = {0};
    int block = req->block > 0 ? req->block : plan->st.tiles_block;
    if (!panels_possible(req, &L->params, block, err)) return false;
    ViewState v = plan->st;
    v.pinned.mat = v.hover.mat = MAT_NONE;
    if (!panels_add_jobs(&jobs, plan, &v, block)) {
        free(jobs.jobs);
        export_fail(err, true, "out of memory");
        return false;
    }
    PanelExtras e;
    memset(&e, 0, sizeof e);
    if (req->view) e.view = *req->view;
    ExportRequest r = *req;
    r.view = &e.view;
    bool ok = panels_extras(&e, req, L, plan->T, &v, err);
    if (ok) ok = run_jobs(&jobs, &r, L, plan->T, NULL, out, err);
    panels_extras_free(&e);
    free(jobs.jobs);
    return ok;
}

// The plan's stages to export (first .. last, indices of its view's stages): all, or --stage's
// alone; false with err set when the lesson has no such stage or (for heatmaps) the stage has none.
static bool export_stage_range(ExportPlan *plan, ExportError *err)
{
    const ExportRequest *req = plan->req;
    const ViewState *st = &plan->st;
    int *first = &plan->first, *last = &plan->last;
    *first = 0, *last = st->stage_count - 1;
    if (req->stage == EXPORT_ALL_STAGES) return true;
    const StageInfo *si = stage_info((Stage)req->stage);
    *first = -1;
    for (int i = 0; i < st->stage_count; i++)
        if ((int)st->stages[i] == req->stage) *first = i;
    if (*first < 0) {
        export_fail(err, false, "this lesson has no '%s' stage%s", si ? si->key : "?",
                    req->stage == STAGE_MASK ? " (it is not causal)" : "");
        return false;
    }
    *last = *first;
    if ((req->what == EXPORT_WHAT_HEATMAPS || req->what == EXPORT_WHAT_ALL_HEADS)
        && model_stage_heatmap(&plan->L->params, (Stage)req->stage) == MAT_NONE) {
        export_fail(err, false,
                    "there are no heatmaps at the '%s' stage: they start at the '%s' stage",
                    si->key, first_heat_stage(st, plan->L));
        return false;
    }
    return true;
}

// The cell asked for (req->cell_row, cell_col) pinned in b, among the stage's `total` revealed
// cells; false when the stage has no such cell.
static bool pin_asked_cell(ViewState *b, const ExportRequest *req, int total)
{
    for (int c = 0; c < total; c++) {
        CellRef r = view_reveal_cell(b, c);
        if (r.row == req->cell_row && r.col == req->cell_col) {
            b->pinned = r;
            return true;
        }
    }
    return false;
}

// The error for a cell asked for that stage `stage` (b's) does not compute: the stage's last cell.
static void fail_no_cell(const ViewState *b, const ExportRequest *req, int total, Stage stage,
                         ExportError *err)
{
    const MatInfo *mi = total > 0 ? mat_info(view_reveal_cell(b, total - 1).mat) : NULL;
    CellRef lastc = total > 0 ? view_reveal_cell(b, total - 1) : (CellRef){MAT_NONE, 0, 0, 0};
    if (total == 0 || !mi)
        export_fail(err, false, "the '%s' stage computes no cells to pin", stage_info(stage)->key);
    else
        export_fail(err, false,
                    "the '%s' stage has no cell %d,%d: its %s run to row %d, "
                    "column %d (from 0)",
                    stage_info(stage)->key, req->cell_row, req->cell_col, mi->what, lastc.row,
                    lastc.col);
}

// How adding a stage's jobs went: added, out of memory, or an error already in err.
typedef enum { STEP_ADDED, STEP_NO_MEMORY, STEP_FAILED } StepResult;

// The board of the plan's stage (plan->st's) as a slide: a slide has no pointer, so the first
// result cell is pinned (the board shows how it is computed), or the cell asked for (the first
// result matrix of the stage that has it; an error when one stage is exported and it has none);
// then its questions.
static StepResult stage_board_jobs(Jobs *jobs, const ExportPlan *plan, ExportError *err)
{
    const ExportRequest *req = plan->req;
    const ViewState *st = &plan->st;
    bool one_stage = plan->first == plan->last;
    ViewState b = *st;
    int total = view_reveal_total(&b);
    b.pinned = export_slide_cell(&b, (CellRef){MAT_X, b.head, 0, 0});
    bool named = false;
    if (req->cell_row >= 0) {
        named = pin_asked_cell(&b, req, total);
        if (!named && one_stage) {
            fail_no_cell(&b, req, total, view_stage(st), err);
            return STEP_FAILED;
        }
    }
    if (!export_add_board(jobs, plan->prefix, plan->L, &b, named)) return STEP_NO_MEMORY;
    jobs->jobs[jobs->count - 1].parts = req->parts;
    jobs->jobs[jobs->count - 1].pinned_named = named;
    return export_add_questions(jobs, plan->prefix, plan->L, plan->T, st, err) ? STEP_ADDED
                                                                               : STEP_FAILED;
}

// The heatmaps of matrix mat: one per head, and all heads side by side where there are several.
static bool heatmap_jobs(Jobs *jobs, const ExportRequest *req, const char *prefix, const Lesson *L,
                         MatId mat)
{
    bool ok = true;
    for (int h = 0; ok && h < L->params.heads; h++)
        ok = export_add_heatmap(jobs, req, prefix, L, mat, h);
    if (ok && L->params.heads > 1) ok = export_add_heatmap(jobs, req, prefix, L, mat, -1);
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
    ExportPlan plan = {.req = req, .L = L, .T = T};
    ViewState *st = &plan.st;
    ViewDims dims = view_dims_from_params(&L->params);
    view_init(st, &dims);
    st->colormap = req->colormap;
    if (req->head < 0 || req->head >= L->params.heads) {
        export_fail(err, false, "there is no head %d: this lesson has %d head%s (0 to %d)",
                    req->head, L->params.heads, L->params.heads == 1 ? "" : "s",
                    L->params.heads - 1);
        return false;
    }
    st->head = req->head;
    if (!export_stage_range(&plan, err)) return false;
    if (req->name && req->name[0]) export_slug(req->name, plan.prefix, sizeof plan.prefix);
    else export_slug(L->title, plan.prefix, sizeof plan.prefix);
    if (req->what == EXPORT_WHAT_HANDOUT) {
        if (req->handout_page) return export_handout_pages(&plan, out, err);
#ifdef MHA_HAVE_HANDOUT
        return export_handout(&plan, out, err);
#else
        export_fail(err, false,
                    "--what handout: this build has no PDF writer (cairo was not built in: "
                    "-DMHA_HANDOUT=OFF)");
        return false;
#endif
    }
    if (req->what & EXPORT_WHAT_PANELS) {
        // The stage under the panel (the cost table's board; the strip's lit stage): --stage's, the
        // first for all.
        if (req->stage == EXPORT_ALL_STAGES && req->what != EXPORT_WHAT_ALL_HEADS)
            plan.first = plan.last = 0;
        st->stage_index = plan.first;
        return export_panels(&plan, out, err);
    }
    Jobs jobs = {0};
    bool ok = true;
    bool done[MAT_COUNT] = {false}; // the weights are the heatmap of several stages: exported once
    for (int i = plan.first; ok && i <= plan.last; i++) {
        st->stage_index = i;
        Stage stage = view_stage(st);
        if (req->what & EXPORT_WHAT_BOARD) {
            StepResult r = stage_board_jobs(&jobs, &plan, err);
            if (r == STEP_FAILED) {
                free(jobs.jobs);
                return false;
            }
            ok = r == STEP_ADDED;
        }
        MatId mat = export_stage_matrix(stage, L);
        if (ok && (req->what & EXPORT_WHAT_HEATMAPS) && mat != MAT_NONE && !done[mat]) {
            done[mat] = true;
            ok = heatmap_jobs(&jobs, req, plan.prefix, L, mat);
        }
    }
    if (!ok) {
        free(jobs.jobs);
        export_fail(err, true, "out of memory");
        return false;
    }
    ok = run_jobs(&jobs, req, L, T, NULL, out, err);
    free(jobs.jobs);
    return ok;
}

// Shift+E's handout beside the board: the PDF of every stage of the view's head, in memory (no PDF
// writer built in: the board alone).
#ifdef MHA_HAVE_HANDOUT
static bool view_handout(const ExportRequest *req, const ViewState *st, const Lesson *L,
                         const Trace *T, ExportHandoutFile *f, ExportError *err)
{
    ExportRequest hr = *req;
    SceneExtras hx = {0};
    if (req->view) hx = *req->view;
    hx.question = NULL; // the question on screen belongs to the board, not to every page
    hr.view = &hx, hr.progress = NULL;
    hr.what = EXPORT_WHAT_HANDOUT, hr.stage = EXPORT_ALL_STAGES, hr.head = st->head;
    hr.handout_style = EXPORT_HANDOUT_SLIDES;
    ExportPlan plan = {.req = &hr, .L = L, .T = T};
    ViewDims dims = view_dims_from_params(&L->params);
    view_init(&plan.st, &dims);
    plan.st.colormap = st->colormap, plan.st.head = st->head;
    if (req->name && req->name[0]) export_slug(req->name, plan.prefix, sizeof plan.prefix);
    else export_slug(L->title, plan.prefix, sizeof plan.prefix);
    return export_stage_range(&plan, err) && export_handout_pdf(&plan, f, err);
}
#endif

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
    ExportHandoutFile hf;
    memset(&hf, 0, sizeof hf);
#ifdef MHA_HAVE_HANDOUT
    bool with = board && r.with_handout;
    ok = !with || view_handout(&r, st, L, T, &hf, err);
#else
    bool with = false;
#endif
    ok = ok && run_jobs(&jobs, &r, L, T, with ? &hf : NULL, out, err);
    free(hf.data);
    free(jobs.jobs);
    return ok;
}

bool export_heatmap_strip(const StripRequest *rq, char *path, size_t cap, ExportError *err)
{
    const HeatmapSpec *spec = &rq->spec;
    const StripFrame *frames = rq->frames;
    Exporter *x = export_open(rq->font_dir, err);
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
    for (size_t i = 0; ok && i < rq->count; i++) {
        if (!(ok = export_build_heatmap(&part, spec, frames[i].lesson, frames[i].trace, &tm))) {
            export_fail(err, true, "out of memory while laying out the strip");
            break;
        }
        if (i == 0 && strip.count)
            strip.cmds[0].color = part.background,
            ink = part.background.r < 128 ? (Rgba){230, 230, 230, 255} : ink;
        const char *caption = frames[i].caption ? frames[i].caption : "";
        int cw = tm.text_width(tm.user, FONT_BOLD, cap_size, caption);
        scene_push_text(&strip, FONT_BOLD, cap_size, ink,
                        (Box){at + (part.width - cw) / 2, pad, cw, cap_h}, caption);
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
    snprintf(file, sizeof file, "%s.png", rq->name);
    ExportFile f = {file, b.data, b.size};
    if (ok) ok = export_write_files(rq->dir, rq->create_dir, &f, 1, err);
    if (ok && path) snprintf(path, cap, "%s/%s", rq->dir, file);
    export_buffer_free(&b);
    scene_free(&part);
    scene_free(&strip);
    export_close(x);
    return ok;
}
