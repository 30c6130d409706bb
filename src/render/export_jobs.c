// The slides of a whole export as jobs, named in lesson order: heatmaps per head and stage, boards
// (with the pinned cell in the name when asked for), the lessons' questions asked and answered, and
// the boards of a stage that comes in parts split into one job per part.
#include "render/export_jobs.h"
#include "render/export_slide.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/compare.h"
#include "core/decode.h"
#include "model/questions.h"

// File names and titles are cut to their buffers on purpose.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

static Job *job_add(Jobs *j)
{
    if (j->count == j->cap) {
        size_t cap = j->cap ? 2 * j->cap : 16;
        Job *p = realloc(j->jobs, cap * sizeof *p);
        if (!p) return NULL;
        j->jobs = p;
        j->cap = cap;
    }
    Job *b = &j->jobs[j->count++];
    memset(b, 0, sizeof *b);
    return b;
}

static const char *lesson_title(const Lesson *L)
{
    return L->title && L->title[0] ? L->title : "mha-tracer";
}

// Digits of the largest head number, so that the files of 12 heads sort in order (head00 ...
// head11).
static int head_digits(int heads)
{
    return heads > 1000 ? 4 : heads > 100 ? 3 : heads > 10 ? 2 : 1;
}

// The number (from 1) of the lesson's first stage that shows mat as its heatmap, as boards count
// them.
static int heatmap_stage_number(const Lesson *L, MatId mat)
{
    ViewDims dims = view_dims_from_params(&L->params);
    ViewState st;
    view_init(&st, &dims);
    for (int i = 0; i < st.stage_count; i++)
        if (model_stage_heatmap(&L->params, st.stages[i]) == mat) return i + 1;
    return 0;
}

// A heatmap's file is named after the first stage that shows it, like the boards, so that the files
// of a lesson sort in its order: NAME-stage03-scores-heatmap-head0, ...
// NAME-stage05-weights-heatmap-heads.
bool export_add_heatmap(Jobs *jobs, const ExportRequest *req, const char *prefix, const Lesson *L,
                        MatId mat, int head)
{
    Job *j = job_add(jobs);
    if (!j) return false;
    int heads = L->params.heads, stage = heatmap_stage_number(L, mat);
    const char *what = mat_info(mat) ? TR(mat_info(mat)->what) : "";
    if (head >= 0) {
        snprintf(j->name, sizeof j->name, "%s-stage%02d-%s-heatmap-head%0*d", prefix, stage,
                 export_matrix_key(mat), head_digits(heads), head);
        snprintf(j->title, sizeof j->title, TR("%s \xe2\x80\x94 head %d: %s"), lesson_title(L),
                 head, what);
    } else {
        snprintf(j->name, sizeof j->name, "%s-stage%02d-%s-heatmap-heads", prefix, stage,
                 export_matrix_key(mat));
        snprintf(j->title, sizeof j->title, TR("%s \xe2\x80\x94 all %d heads: %s"), lesson_title(L),
                 heads, what);
    }
    j->spec = (HeatmapSpec){mat, head, req->scale, req->colormap, req->background};
    return true;
}

// Digits of the largest of count (from 1), so that a panel's slides sort in order (token01 ...
// token12).
static int count_digits(int64_t count)
{
    return count >= 1000 ? 4 : count >= 100 ? 3 : count >= 10 ? 2 : 1;
}

// A panel with one slide: NAME-SUFFIX, its title the lesson's in the (translated) format.
static bool single_panel_name(Job *j, const char *prefix, const char *suffix, const char *format,
                              const char *title)
{
    snprintf(j->name, sizeof j->name, "%s-%s", prefix, suffix);
    snprintf(j->title, sizeof j->title, format, title);
    return true;
}

// A panel's slide (G, B, K, M, X open) is named after the panel, not the stage under it:
// NAME-decode-head0-token3, NAME-tiles-block2-head0-tile05, NAME-cost, NAME-compare,
// NAME-shuffle-reversed or NAME-shuffle-swap-0-2 (no head part in a one-head lesson). False when no
// panel is open (the board's own name).
static bool panel_job_name(Job *j, const char *prefix, const Lesson *L, const ViewState *st)
{
    const AttnParams *p = &L->params;
    char head[32] = "";
    if (p->heads > 1) snprintf(head, sizeof head, "-head%0*d", head_digits(p->heads), st->head);
    const char *title = lesson_title(L);
    switch (st->panel) {
    case PANEL_DECODE: {
        int t = st->decode_t < p->n ? st->decode_t : p->n - 1;
        snprintf(j->name, sizeof j->name, "%s-decode%s-token%0*d", prefix, head, count_digits(p->n),
                 t + 1);
        snprintf(j->title, sizeof j->title,
                 // TRANSLATORS: the <title> of an exported slide of the KV-cache panel (key G).
                 TR("%s \xe2\x80\x94 generating with a KV cache: token %d of %d, head %d"), title,
                 t + 1, p->n, st->head);
        return true;
    }
    case PANEL_TILES: {
        int64_t computed = 0, skipped = 0;
        tiles_count(p, st->tiles_block, &computed, &skipped);
        snprintf(j->name, sizeof j->name, "%s-tiles-block%d%s-tile%0*d", prefix, st->tiles_block,
                 head, count_digits(computed), st->tile);
        snprintf(
            j->title, sizeof j->title,
            // TRANSLATORS: the <title> of an exported slide of the FlashAttention panel (key B).
            TR("%s \xe2\x80\x94 FlashAttention: tile %d of %d, blocks of %d, head %d"), title,
            st->tile, (int)computed, st->tiles_block, st->head);
        return true;
    }
    case PANEL_COST:
        return single_panel_name(j, prefix, "cost", TR("%s \xe2\x80\x94 what the heads cost"),
                                 title);
    case PANEL_CACHE: {
        // TRANSLATORS: the <title> of an exported slide of the KV-cache size panel (Shift+K).
        const char *format = TR("%s \xe2\x80\x94 the KV cache's size");
        return single_panel_name(j, prefix, "cache-size", format, title);
    }
    case PANEL_OVERVIEW: {
        // TRANSLATORS: the <title> of an exported slide of a checkpoint's overview (Shift+A).
        const char *format = TR("%s \xe2\x80\x94 every layer's heads");
        return single_panel_name(j, prefix, "overview", format, title);
    }
    case PANEL_ROPE: {
        int t = st->rope_t < p->n ? st->rope_t : p->n - 1;
        snprintf(j->name, sizeof j->name, "%s-rotation%s-token%0*d", prefix, head,
                 count_digits(p->n), t + 1);
        snprintf(j->title, sizeof j->title,
                 // TRANSLATORS: the <title> of an exported slide of the rotation panel (key W):
                 // RoPE as a picture.
                 TR("%s \xe2\x80\x94 RoPE: token %d of %d turned, head %d"), title, t + 1, p->n,
                 st->head);
        return true;
    }
    case PANEL_CIRCUIT: {
        // TRANSLATORS: the <title> of an exported slide of the circuit panel (key U).
        const char *format = TR("%s \xe2\x80\x94 the circuit");
        return single_panel_name(j, prefix, "circuit", format, title);
    }
    case PANEL_COMPARE:
        return single_panel_name(j, prefix, "compare",
                                 TR("%s \xe2\x80\x94 single head vs multi-head"), title);
    case PANEL_SHUFFLE: {
        int n = p->n, a = -1, b = -1;
        int *perm = malloc(sizeof *perm * (size_t)(n > 0 ? n : 1));
        if (!perm) return false;
        view_shuffle_perm(st->shuffle, n, perm);
        bool reversed = true;
        for (int i = 0; i < n; i++) {
            reversed = reversed && perm[i] == n - 1 - i;
            if (perm[i] != i) *(a < 0 ? &a : &b) = i;
        }
        free(perm);
        if (reversed || a < 0 || b < 0)
            snprintf(j->name, sizeof j->name, "%s-shuffle-reversed", prefix);
        else snprintf(j->name, sizeof j->name, "%s-shuffle-swap-%d-%d", prefix, a, b);
        snprintf(j->title, sizeof j->title, TR("%s \xe2\x80\x94 the shuffle test"), title);
        return true;
    }
    default: return false;
    }
}

// A board's file is named after its stage and, when the lesson has several heads, the head it shows
// ("-head1"; "-heads" for the all-heads view), so that the boards of two heads do not overwrite
// each other; with name_cell and a pinned cell, after that cell too ("-weights-row1-col2").
bool export_add_board(Jobs *jobs, const char *prefix, const Lesson *L, const ViewState *st,
                      bool name_cell)
{
    Job *j = job_add(jobs);
    if (!j) return false;
    j->board = true;
    j->st = *st;
    if (panel_job_name(j, prefix, L, st)) return true;
    Stage stage = view_stage(st);
    const StageInfo *si = stage_info(stage);
    int heads = L->params.heads;
    // A stage whose result belongs to no head (the input, the concat, the output) is named for
    // none.
    const MatInfo *ri = si && si->results[0] != MAT_NONE ? mat_info(si->results[0]) : NULL;
    bool per_head = heads > 1 && (st->view == VIEW_ALL_HEADS || (ri && ri->per_head));
    char head[32] = "";
    if (per_head && st->view == VIEW_ALL_HEADS) snprintf(head, sizeof head, "-heads");
    else if (per_head) snprintf(head, sizeof head, "-head%0*d", head_digits(heads), st->head);
    char cell[96] = "";
    const MatInfo *pm = name_cell && st->pinned.mat != MAT_NONE ? mat_info(st->pinned.mat) : NULL;
    if (pm) snprintf(cell, sizeof cell, "-%s-row%d-col%d", pm->key, st->pinned.row, st->pinned.col);
    snprintf(j->name, sizeof j->name, "%s-stage%02d-%s%s%s", prefix, st->stage_index + 1,
             si ? si->key : "stage", head, cell);
    // TRANSLATORS: the <title> of an exported board: the lesson's title, then its stage.
    snprintf(j->title, sizeof j->title, TR("%s \xe2\x80\x94 stage %d of %d: %s"), lesson_title(L),
             st->stage_index + 1, st->stage_count, si ? TR(si->title) : "?");
    if (per_head && st->view != VIEW_ALL_HEADS) {
        size_t n = strlen(j->title);
        snprintf(j->title + n, sizeof j->title - n, TR(", head %d"), st->head);
    }
    if (pm) {
        size_t n = strlen(j->title);
        snprintf(j->title + n, sizeof j->title - n, TR(", %s row %d, column %d"), TR(pm->what),
                 st->pinned.row, st->pinned.col);
    }
    return true;
}

// The questions asked on the stage of st, in the lesson's order within it, each as two slides after
// the stage's board: the question with the result hidden, then the answer with the result filled up
// to it and its arithmetic. Named NAME-stageNN-KEY-questionQ-1-ask and -2-answer, Q the number
// asked (question_number), so they sort after the board, in the order asked.
bool export_add_questions(Jobs *jobs, const char *prefix, const Lesson *L, const Trace *T,
                          const ViewState *st, ExportError *err)
{
    Stage stage = view_stage(st);
    int digits = L->question_count >= 10 ? 2 : 1;
    for (int i = 0; i < L->question_count; i++) {
        const LessonQuestion *q = &L->questions[i];
        int number = question_number(L, i);
        Stage qs;
        if (!model_stage_from_key(q->stage, &qs) || qs != stage) continue;
        QuestionAnswer a;
        LessonError e;
        memset(&e, 0, sizeof e);
        if (!question_answer(L, T, q, i, &a, &e)) {
            export_fail(err, false, "%s: %s (see --check)", e.path, e.message);
            return false;
        }
        ViewQuestion vq = question_view(q, &a);
        ViewState ask = *st;
        ask.view = VIEW_ONE_HEAD;
        view_quiz_ask(&ask, &vq, i);
        ViewState answer = ask;
        CellRef cell, through;
        question_reveal_cells(q, &a, &L->params, &cell, &through);
        view_quiz_judged(&answer, true, cell, through);
        for (int k = 0; k < 2; k++) {
            Job *j = job_add(jobs);
            if (!j) {
                export_fail(err, true, "out of memory");
                return false;
            }
            j->board = true;
            j->st = k == 0 ? ask : answer;
            j->question = q;
            snprintf(j->name, sizeof j->name, "%s-stage%02d-%s-question%0*d-%s", prefix,
                     st->stage_index + 1, stage_info(stage)->key, digits, number,
                     k == 0 ? "1-ask" : "2-answer");
            snprintf(j->title, sizeof j->title, TR("%s \xe2\x80\x94 question %d of %d%s: %s"),
                     lesson_title(L), number, L->question_count, k == 0 ? "" : TR(" (answer)"),
                     q->text);
        }
    }
    return true;
}

// Builds, encodes and writes every job, one image at a time. (Encoding PNGs on several threads
// would save a third of the time on two processors, but IMG_SavePNG_RW touches SDL_image's global
// init flags.) A stage that does not fit a slide at once shows its equations one at a time (Q, then
// K, then V), or its inputs, then "= result": a board of the whole stage becomes one slide per
// part, NAME-part1, NAME-part2 … (so they sort in order), each with its part's first result cell
// pinned. Laid out here, before any file is named, so the writer still checks every target before
// anything is drawn. Jobs are copied to out. Whether the board shows matrix `name` itself (its
// title "A₁  (5×5)"), not only as the heatmap beside it.
static bool board_shows(const Scene *s, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; i < s->count; i++) {
        const char *t = scene_text(s, &s->cmds[i]);
        if (s->cmds[i].kind == CMD_TEXT && !strncmp(t, name, n) && !strncmp(t + n, "  (", 3))
            return true;
    }
    return false;
}

// The part of a stage shown in parts that holds the cell asked for (--cell): a board named for a
// cell shows it.
static bool part_of_cell(Job *j, const SlideSource *src, Scene *scene)
{
    if (!export_board_scene(scene, src, &j->st, NULL)) return false;
    char name[64];
    model_mat_name(&src->L->params, j->st.pinned.mat, j->st.pinned.head, name, sizeof name);
    int parts = scene->substeps;
    if (parts <= 1 || board_shows(scene, name)) return true;
    ViewState st = j->st;
    MatId map[SCENE_PARTS_MAX];
    memcpy(map, scene->part_result, sizeof map);
    for (int part = 0; part < parts; part++) {
        view_set_parts(&st, parts, part, map);
        if (!export_board_scene(scene, src, &st, NULL)) return false;
        if (board_shows(scene, name)) {
            j->st = st;
            return true;
        }
    }
    return true;
}

// Whether the board drew matrix m (of any head) as a box of its own.
static bool board_has(const Scene *s, MatId m)
{
    for (size_t i = 0; i < s->box_count; i++)
        if (s->boxes[i].mat == m) return true;
    return false;
}

// Whether the scene shows matrix m of head h (a transposed one shown by rows counts: K for K^T).
static bool board_shows_mat(const Scene *s, MatId m, int h)
{
    MatId plain = model_mat_untransposed(m);
    for (size_t i = 0; i < s->box_count; i++)
        if ((s->boxes[i].mat == m || (plain != MAT_NONE && s->boxes[i].mat == plain))
            && (!mat_info(m)->per_head || s->boxes[i].head == h))
            return true;
    return false;
}

// Whether the scene shows cell c or everything it is computed from (its arithmetic line cites
// only what is on the slide).
static bool board_explains(const Scene *s, const AttnParams *p, CellRef c)
{
    if (board_shows_mat(s, c.mat, c.head)) return true;
    CellRef in[16];
    int n = model_mat_inputs(p, c, in, 16);
    for (int k = 0; k < n; k++)
        if (!board_shows_mat(s, in[k].mat, in[k].head)) return false;
    return n > 0;
}

// A part of operands alone (Z₂ | Z₃ of Concat's): the first cell of the pinned cell's matrix made
// from them, when the pinned cell is made from another part's.
static bool pin_on_part(ViewState *st, const SlideSource *src, Scene *scene)
{
    const AttnParams *p = &src->L->params;
    CellRef c = st->pinned;
    if (c.mat == MAT_NONE) return true;
    if (!export_board_scene(scene, src, st, NULL)) return false;
    if (board_explains(scene, p, c)) return true;
    int rows, cols;
    model_mat_shape(p, c.mat, &rows, &cols);
    for (c.row = 0; c.row < rows; c.row++)
        for (c.col = 0; c.col < cols; c.col++)
            if (!isnan(model_cell_value(p, src->T, c)) && board_explains(scene, p, c)) {
                st->pinned = c;
                return true;
            }
    return true;
}

// The cell a slide with no pointer works out: its first result cell in the stage's slide row or
// below (model_stage_slide_row: at the rotation a position > 0), else its first; `fallback` when it
// computes none.
CellRef export_slide_cell(const ViewState *st, CellRef fallback)
{
    int total = view_reveal_total(st), row = model_stage_slide_row(view_stage(st));
    for (int k = 0; k < total; k++) {
        CellRef c = view_reveal_cell(st, k);
        if (c.row >= row) return c;
    }
    return total > 0 ? view_reveal_cell(st, 0) : fallback;
}

// A stage's one slide (--parts first) of a stage in parts: the part that shows what the stage
// brings (model_stage_slide_mat: the mask M), with that part's first result cell pinned; else its
// first part.
static bool part_of_point(Job *j, const SlideSource *src, Scene *scene)
{
    MatId want = model_stage_slide_mat(view_stage(&j->st));
    if (want == MAT_NONE) return true;
    if (!export_board_scene(scene, src, &j->st, NULL)) return false;
    int parts = scene->substeps;
    if (parts <= 1 || board_has(scene, want)) return true;
    MatId map[SCENE_PARTS_MAX];
    memcpy(map, scene->part_result, sizeof map);
    for (int part = 0; part < parts; part++) {
        ViewState st = j->st;
        view_set_parts(&st, parts, part, map);
        if (!export_board_scene(scene, src, &st, NULL)) return false;
        if (board_has(scene, want)) {
            if (view_reveal_total(&st) > 0) st.pinned = export_slide_cell(&st, st.pinned);
            j->st = st;
            return true;
        }
    }
    return true;
}

bool export_expand_parts(const Jobs *in, Jobs *out, const SlideSource *src, Scene *scene)
{
    for (size_t i = 0; i < in->count; i++) {
        const Job *j = &in->jobs[i];
        int parts = 1;
        if (j->board && !j->parts && j->pinned_named && !j->question) {
            Job *o = job_add(out);
            if (!o) return false;
            *o = *j;
            if (!part_of_cell(o, src, scene)) return false;
            continue;
        }
        if (j->board && !j->parts && !j->question && j->st.panel == PANEL_NONE) {
            Job *o = job_add(out);
            if (!o) return false;
            *o = *j;
            if (!part_of_point(o, src, scene)) return false;
            continue;
        }
        MatId map[SCENE_PARTS_MAX];
        // A token's step in two parts (q·K, A·V), the compare or shuffle panel's outputs on parts
        // of their own: a slide each.
        ViewPanel pn = j->st.panel;
        if (j->board && (pn == PANEL_DECODE || pn == PANEL_COMPARE || pn == PANEL_SHUFFLE)) {
            if (!export_board_scene(scene, src, &j->st, NULL)) return false;
            int dparts = pn == PANEL_DECODE ? scene->decode_parts : scene->pair_parts;
            if (dparts < 1) dparts = 1;
            for (int part = 0; part < dparts; part++) {
                Job *o = job_add(out);
                if (!o) return false;
                *o = *j;
                if (pn == PANEL_DECODE) o->st.decode_part = part;
                else o->st.pair_part = part, o->st.pair_parts = dparts;
                if (dparts == 1) continue;
                size_t n = strlen(o->name);
                snprintf(o->name + n, sizeof o->name - n, "-part%d", part + 1);
                n = strlen(o->title);
                snprintf(o->title + n, sizeof o->title - n, TR(", part %d of %d"), part + 1,
                         dparts);
            }
            continue;
        }
        if (j->board && j->parts && !j->question) {
            if (!export_board_scene(scene, src, &j->st, NULL)) return false;
            parts = scene->substeps > 1 ? scene->substeps : 1;
            memcpy(map, scene->part_result, sizeof map);
        }
        for (int part = 0; part < parts; part++) {
            Job *o = job_add(out);
            if (!o) return false;
            *o = *j;
            if (parts == 1) continue;
            view_set_parts(&o->st, parts, part, map);
            if (!j->pinned_named && view_reveal_total(&o->st) > 0)
                o->st.pinned = export_slide_cell(&o->st, o->st.pinned);
            if (!j->pinned_named && !pin_on_part(&o->st, src, scene)) return false;
            size_t n = strlen(o->name);
            snprintf(o->name + n, sizeof o->name - n, "-part%d", part + 1);
            n = strlen(o->title);
            snprintf(o->title + n, sizeof o->title - n, TR(", part %d of %d"), part + 1, parts);
        }
    }
    return true;
}
