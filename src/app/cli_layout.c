// --layout: the layout audit. Every screen the window can show for a lesson (each stage and part of
// each head, the all-heads view, the panels G per token, B per tile, K, M, X, the help pages, each
// question asked and answered), built by the scene exactly as the window builds it, printed as one
// JSON object a line: what each matrix shows of itself and at what size, the texts with their
// sizes, what fits at the floor, and whether a banner or the notes moved anything.
// tests/layout_audit.py checks the rules on it.
#include "app/cli_layout.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli.h"
#include "core/decode.h"
#include "model/i18n.h"
#include "model/panel_circuit.h"
#include "model/questions.h"
#include "model/session.h"
#include "model/stages.h"
#include "render/export_png.h"
#include "render/scene.h"

typedef struct {
    FILE *out;
    const Lesson *L;
    const Trace *T;
    Session *doc;
    TextMetrics tm;
    int w, h;
    long screens, matrices;
    Scene scene, other;
} Audit;

static const char *ROLE_NAMES[] = {"chrome", "cell", "number", "label", "title", "mark", "tile"};

static void json_box(FILE *out, int x, int y, int w, int h)
{
    fprintf(out, "[%d,%d,%d,%d]", x, y, w, h);
}

// The boxes of two builds agree (a banner or the notes moved nothing on the board).
static bool same_boxes(const Scene *a, const Scene *b)
{
    if (a->box_count != b->box_count || a->substeps != b->substeps) return false;
    for (size_t i = 0; i < a->box_count; i++) {
        const SceneBox *p = &a->boxes[i], *q = &b->boxes[i];
        if (p->mat != q->mat || p->head != q->head || p->x != q->x || p->y != q->y || p->w != q->w
            || p->h != q->h || p->nr != q->nr || p->nc != q->nc || p->r0 != q->r0 || p->c0 != q->c0
            || p->num_font != q->num_font)
            return false;
    }
    return true;
}

static bool build(Audit *a, Scene *s, const ViewState *st, const SceneExtras *ex,
                  const char *banner)
{
    ViewState v = *st;
    v.width = a->w;
    v.height = a->h;
    Lesson shown = session_shown(a->doc);
    SceneRequest rq = {.st = &v,
                       .lesson = &shown,
                       .trace = &a->doc->trace,
                       .ex = ex,
                       .w = a->w,
                       .h = a->h,
                       .tm = &a->tm,
                       .banner = banner};
    return scene_build_ex(s, &rq);
}

// Box i of s begun as a JSON item (after a comma but for the first): open ("{\"key\":" or "["),
// then its matrix's key. Returns the box.
static const SceneBox *box_begin(FILE *out, const Scene *s, size_t i, const char *open)
{
    const SceneBox *b = &s->boxes[i];
    const MatInfo *mi = mat_info(b->mat);
    fprintf(out, "%s%s", i ? "," : "", open);
    cli_json_string(out, mi && mi->key ? mi->key : "?");
    return b;
}

static void print_matrices(Audit *a, const Scene *s)
{
    FILE *out = a->out;
    fputs("\"matrices\":[", out);
    for (size_t i = 0; i < s->box_count; i++) {
        const SceneBox *b = box_begin(out, s, i, "{\"key\":");
        fputs(",\"title\":", out);
        cli_json_string(out, b->title);
        fprintf(out,
                ",\"head\":%d,\"shape\":[%d,%d],\"rows\":[%d,%d],\"cols\":[%d,%d],\"num_font\":%d,"
                "\"digit_px\":%.1f,\"result\":%s,\"box\":",
                b->head, b->rows, b->cols, b->r0, b->r0 + b->nr, b->c0, b->c0 + b->nc, b->num_font,
                b->num_font * 0.729, b->result ? "true" : "false");
        json_box(out, b->x, b->y, b->w, b->h);
        fputc('}', out);
        a->matrices++;
    }
    fputc(']', out);
}

static void print_texts(Audit *a, const Scene *s)
{
    FILE *out = a->out;
    fputs("\"texts\":[", out);
    bool first = true;
    for (size_t i = 0; i < s->count; i++) {
        const DrawCmd *d = &s->cmds[i];
        if (d->kind != CMD_TEXT || d->role == ROLE_NUMBER) continue; // numbers: per matrix above
        fprintf(out, "%s{\"t\":", first ? "" : ",");
        first = false;
        cli_json_string(out, scene_text(s, d));
        fprintf(out, ",\"size\":%d,\"role\":\"%s\",\"box\":", d->size, ROLE_NAMES[d->role]);
        json_box(out, d->x, d->y, d->w, d->h);
        fputc('}', out);
    }
    fputc(']', out);
}

static void print_fits(Audit *a, const Scene *s, const ViewState *st)
{
    SceneFits f;
    Lesson shown = session_shown(a->doc);
    if (!scene_audit_fits(s, st, &shown, &a->doc->trace, &a->tm, &f)) return;
    fputs(",\"equations\":[", a->out);
    for (int e = 0; e < f.neq; e++) {
        fprintf(a->out, "%s{\"together\":%s,", e ? "," : "", f.eq[e].together ? "true" : "false");
        if (f.eq[e].product)
            fprintf(a->out, "\"operands_together\":%s,",
                    f.eq[e].operands_together ? "true" : "false");
        fputs("\"terms\":[", a->out);
        for (int k = 0; k < f.eq[e].terms; k++) {
            const MatInfo *mi = mat_info(f.eq[e].mat[k]);
            fprintf(a->out, "%s{\"key\":", k ? "," : "");
            cli_json_string(a->out, mi && mi->key ? mi->key : "?");
            fprintf(a->out, ",\"head\":%d,\"result\":%s,\"alone\":%s", f.eq[e].head[k],
                    f.eq[e].result[k] ? "true" : "false", f.eq[e].alone[k] ? "true" : "false");
            const MatInfo *rows = mat_info(model_mat_untransposed(f.eq[e].mat[k]));
            if (rows && rows->key) { // the board may show it by rows: K for K^T
                fputs(",\"by_rows\":", a->out);
                cli_json_string(a->out, rows->key);
            }
            fputc('}', a->out);
        }
        fputs("]}", a->out);
    }
    fputc(']', a->out);
}

// One screen: built plain, then with a banner, a status and the notes to see that they move
// nothing.
// The part of a panel's screen (from 1) or how many it has (parts): the KV cache's token step and
// the compare and shuffle panels' parts, else the stage's.
static int panel_part(const ViewState *st, const Scene *s, bool parts)
{
    if (st->panel == PANEL_DECODE) return parts ? s->decode_parts : st->decode_part + 1;
    if (st->panel == PANEL_COMPARE || st->panel == PANEL_SHUFFLE)
        return parts ? s->pair_parts : st->pair_part + 1;
    return parts ? s->substeps : s->substep + 1;
}

static void screen(Audit *a, const char *kind, const char *name, const ViewState *st,
                   const SceneExtras *ex)
{
    Scene *s = &a->scene;
    if (!build(a, s, st, ex, NULL)) return;
    a->screens++;
    FILE *out = a->out;
    fputs("{\"screen\":", out);
    cli_json_string(out, kind);
    fputs(",\"name\":", out);
    cli_json_string(out, name);
    Stage stage = view_stage(st);
    const StageInfo *si = stage_info(stage);
    fputs(",\"stage\":", out);
    cli_json_string(out, si ? si->key : "");
    fprintf(out,
            ",\"layer\":%d,\"head\":%d,\"part\":%d,\"parts\":%d,\"size\":[%d,%d],\"floor_font\":%d,"
            "\"floor_"
            "digit_px\":%.2f,",
            st->dims.layer, st->head, panel_part(st, s, false), panel_part(st, s, true), a->w, a->h,
            scene_number_floor(a->h), a->h * 0.026);
    fprintf(out, "\"board\":");
    json_box(out, s->board_x, s->board_y, s->board_w, s->board_h);
    fputs(",\"part_results\":[", out);
    for (int k = 0; k < s->substeps && k < SCENE_PARTS_MAX; k++) {
        const MatInfo *mi = mat_info(s->part_result[k]);
        if (k) fputc(',', out);
        if (s->part_result[k] == MAT_NONE || !mi) fputs("null", out);
        else cli_json_string(out, mi->key);
    }
    fputs("],", out);
    if (s->panel_fits >= 0) fprintf(out, "\"panel_fits\":%s,", s->panel_fits ? "true" : "false");
    if (st->panel == PANEL_TILES)
        fprintf(out, "\"block\":%d,\"tile\":%d,\"tiles\":%d,", st->tiles_block, st->tile,
                s->tile_count);
    print_matrices(a, s);
    fputc(',', out);
    print_texts(a, s);
    bool board = st->panel == PANEL_NONE && st->view == VIEW_ONE_HEAD && !st->help;
    if (board) print_fits(a, s, st);
    // A banner and the notes must not move what the board shows.
    bool stable = true;
    if (board
        && build(a, &a->other, st, ex, "A banner: the question moved to another head (Esc: close)"))
        stable = stable && same_boxes(s, &a->other);
    SceneExtras said = *ex; // a save's word or an edit count must not move it either
    said.status =
        "Saved as the-cat-sat-edited.json (3 values edited): the lesson itself is untouched";
    if (board && build(a, &a->other, st, &said, NULL)) stable = stable && same_boxes(s, &a->other);
    ViewState notes = *st;
    notes.notes = !notes.notes;
    if (board && build(a, &a->other, &notes, ex, NULL)) stable = stable && same_boxes(s, &a->other);
    // Light and dark (key D) draw the same screen: only the colours differ.
    ViewState dark = *st;
    dark.dark = !dark.dark;
    bool themes = !build(a, &a->other, &dark, ex, NULL) || same_boxes(s, &a->other);
    fprintf(out, ",\"stable\":%s,\"themes_alike\":%s}\n", stable ? "true" : "false",
            themes ? "true" : "false");
}

static void stage_screens(Audit *a, ViewState *st, const SceneExtras *ex)
{
    char name[96];
    st->substep = 0;
    if (!build(a, &a->scene, st, ex, NULL)) return;
    int parts = a->scene.substeps;
    MatId map[SCENE_PARTS_MAX];
    memcpy(map, a->scene.part_result, sizeof map);
    for (int k = 0; k < parts; k++) {
        view_set_parts(st, parts, k, map);
        snprintf(name, sizeof name, "%s head %d part %d/%d", stage_info(view_stage(st))->key,
                 st->head, k + 1, parts);
        screen(a, "stage", name, st, ex);
    }
}

// The compare or shuffle panel as → walks it from its first part: each part it reaches, until →
// leaves the panel's parts (the audit holds every output whole on one of them).
static void pair_walk(Audit *a, const char *kind, ViewState *st, const SceneExtras *ex)
{
    char name[96];
    st->pair_part = 0;
    for (int step = 0; step < SCENE_PARTS_MAX; step++) {
        if (!build(a, &a->scene, st, ex, NULL)) return;
        view_set_pair_parts(st, a->scene.pair_parts);
        if (st->pair_parts > 1)
            snprintf(name, sizeof name, "%s head %d part %d/%d", kind, st->head, st->pair_part + 1,
                     st->pair_parts);
        else snprintf(name, sizeof name, "%s head %d", kind, st->head);
        screen(a, kind, name, st, ex);
        ViewEvent right = {.kind = VIEW_EV_KEY, .key = VIEW_KEY_RIGHT, .head = -1};
        ViewState next = *st;
        view_handle(&next, &right);
        if (next.panel != st->panel || next.pair_part == st->pair_part) return;
        *st = next;
    }
}

// every_block: the tiles at every block size (the first head's), else at the window's default.
static void panel_screens(Audit *a, ViewState base, const SceneExtras *ex, bool every_block)
{
    char name[96];
    const AttnParams *p = &a->doc->edit;
    ViewState st = base;
    st.stage_index = st.stage_count - 1;
    if (!decode_refusal(p)) {
        st.panel = PANEL_DECODE;
        for (int t = 0; t < p->n; t++) {
            st.decode_t = t;
            st.decode_part = 0;
            if (!build(a, &a->scene, &st, ex, NULL)) continue;
            int parts = a->scene.decode_parts > 1 ? a->scene.decode_parts : 1;
            for (int k = 0; k < parts; k++) {
                st.decode_part = k;
                if (parts > 1)
                    snprintf(name, sizeof name, "decode head %d token %d part %d/%d", st.head, t,
                             k + 1, parts);
                else snprintf(name, sizeof name, "decode head %d token %d", st.head, t);
                screen(a, "decode", name, &st, ex);
            }
        }
    }
    // The tiles at every block size ↑ and ↓ reach (1 to the tokens), each tile → steps to.
    int most = p->n > p->m ? p->n : p->m;
    int first = every_block ? 1 : base.tiles_block, last = every_block ? most : base.tiles_block;
    for (int block = first; block <= last; block++) {
        st = base;
        st.panel = PANEL_TILES;
        st.tiles_block = block;
        st.tile = 1;
        if (!build(a, &a->scene, &st, ex, NULL) || a->scene.tile_count <= 0) continue;
        int tiles = a->scene.tile_count;
        for (int t = 1; t <= tiles; t++) {
            st.tile = t;
            st.tile_count = tiles;
            snprintf(name, sizeof name, "tiles head %d block %d tile %d/%d", st.head, block, t,
                     tiles);
            screen(a, "tiles", name, &st, ex);
        }
    }
    static const struct {
        ViewPanel panel;
        const char *kind;
    } PANELS[] = {{PANEL_COST, "cost"},       {PANEL_COMPARE, "compare"},
                  {PANEL_SHUFFLE, "shuffle"}, {PANEL_CACHE, "cache-size"},
                  {PANEL_ROPE, "rotation"},   {PANEL_OVERVIEW, "overview"},
                  {PANEL_CIRCUIT, "circuit"}};
    for (size_t i = 0; i < sizeof PANELS / sizeof PANELS[0]; i++) {
        st = base;
        st.panel = PANELS[i].panel;
        if (st.panel == PANEL_COMPARE && !ex->compare) continue;
        if (st.panel == PANEL_SHUFFLE && !ex->shuffle) continue;
        if (st.panel == PANEL_ROPE && !st.dims.rope) continue;
        if (st.panel == PANEL_OVERVIEW && !st.dims.stream) continue; // a checkpoint's (Shift+A)
        if (st.panel == PANEL_CIRCUIT && st.dims.layers < 2) continue; // a lesson of layers (U)
        if (st.panel == PANEL_COMPARE || st.panel == PANEL_SHUFFLE) {
            pair_walk(a, PANELS[i].kind, &st, ex);
            continue;
        }
        snprintf(name, sizeof name, "%s head %d", PANELS[i].kind, st.head);
        if (st.panel
            == PANEL_ROPE) { // the last token (as W opens it) and the first, where nothing turns
            for (int t = st.dims.n - 1; t >= 0; t = t > 0 ? 0 : -1) {
                st.rope_t = t;
                snprintf(name, sizeof name, "rotation head %d token %d", st.head, t);
                screen(a, PANELS[i].kind, name, &st, ex);
            }
            continue;
        }
        screen(a, PANELS[i].kind, name, &st, ex);
    }
}

// A question's two screens, asked and answered (what: "question" or "automatic question", number:
// from 1). The part the window would settle on: the scene resolves "the part of the result" on the
// first build.
static void question_pair(Audit *a, ViewState st, const SceneExtras *ex, const QuestionAnswer *ans,
                          const char *what, int number)
{
    char name[96];
    if (!build(a, &a->scene, &st, ex, NULL)) return;
    view_set_parts(&st, a->scene.substeps, a->scene.substep, a->scene.part_result);
    snprintf(name, sizeof name, "%s %d asked", what, number);
    screen(a, "question-asked", name, &st, ex);
    view_quiz_judged(&st, true, ans->cell, ans->cell);
    snprintf(name, sizeof name, "%s %d answered", what, number);
    screen(a, "question-answered", name, &st, ex);
}

static void question_screens(Audit *a, ViewState base, SceneExtras ex)
{
    Lesson shown = session_shown(a->doc);
    for (int i = 0; i < shown.question_count && i < VIEW_MAX_QUESTIONS; i++) {
        QuestionAnswer ans;
        LessonError err;
        if (!question_answer(&shown, &a->doc->trace, &shown.questions[i], i, &ans, &err)) continue;
        ViewQuestion vq = question_view(&shown.questions[i], &ans);
        ViewState st = base;
        view_set_questions(&st, &vq, 1);
        view_quiz_ask(&st, &vq, 0);
        st.quiz = i;
        ex.question = &shown.questions[i];
        question_pair(a, st, &ex, &ans, "question", i + 1);
    }
    // P's automatic questions (the softmax weights of the head shown), as the window asks them: a
    // few rows.
    for (unsigned k = 0; k < 4 && k < (unsigned)shown.params.n; k++) {
        LessonQuestion q;
        QuestionAnswer ans;
        LessonError err;
        if (!question_auto(&q, &shown, &a->doc->trace, base.head, k)) break;
        if (question_answer(&shown, &a->doc->trace, &q, 0, &ans, &err)) {
            ViewQuestion vq = question_view(&q, &ans);
            ViewState st = base;
            view_quiz_ask(&st, &vq, VIEW_QUIZ_AUTO);
            ex.question = &q;
            question_pair(a, st, &ex, &ans, "automatic question", (int)k + 1);
        }
        lesson_question_free(&q);
    }
}

// The screens of the first head only: the all-heads view of each stage that has a heatmap, the help
// pages.
static void head_screens(Audit *a, ViewState st, const SceneExtras *ex)
{
    const AttnParams *p = &a->doc->edit;
    ViewState all = st;
    all.view = VIEW_ALL_HEADS;
    for (int i = 0; i < all.stage_count; i++) {
        all.stage_index = i;
        if (model_stage_heatmap(p, view_stage(&all)) == MAT_NONE) continue;
        char name[64];
        snprintf(name, sizeof name, "all heads %s", stage_info(view_stage(&all))->key);
        screen(a, "all-heads", name, &all, ex);
    }
    ViewState help = st;
    help.help = true;
    for (int page = 0; page < 3; page++) {
        help.help_page = page;
        char name[32];
        snprintf(name, sizeof name, "help page %d", page + 1);
        screen(a, "help", name, &help, ex);
    }
}

// The walk, as the window takes it: the scene built for the state, its parts reported, and on a
// stage just reached the question due there asked (built again). Returns false when nothing built.
static bool walk_frame(Audit *a, ViewState *st, SceneExtras *ex, const Lesson *shown)
{
    for (int pass = 0; pass < 2; pass++) {
        ex->question =
            st->quiz >= 0 && st->quiz < shown->question_count ? &shown->questions[st->quiz] : NULL;
        if (!build(a, &a->scene, st, ex, NULL)) return false;
        view_set_parts(st, a->scene.substeps, a->scene.substep, a->scene.part_result);
        if (pass == 1 || !view_walk_settle(st)) break;
    }
    return true;
}

// One screen of the walk: its stage, part, head, the question on it, and every matrix drawn with
// whether its numbers show (a result hidden while a question waits does not).
static void walk_step(Audit *a, const ViewState *st, bool first)
{
    FILE *out = a->out;
    const Scene *s = &a->scene;
    const StageInfo *si = stage_info(view_stage(st));
    const char *quiz = st->quiz_phase == QUIZ_NONE       ? NULL
                       : st->quiz_phase == QUIZ_REVEALED ? "answered"
                                                         : "asked";
    fprintf(out, "%s{\"stage\":", first ? "" : ",");
    cli_json_string(out, si ? si->key : "");
    fprintf(out, ",\"part\":%d,\"parts\":%d,\"head\":%d,\"quiz\":", s->substep + 1, s->substeps,
            st->head);
    if (quiz) cli_json_string(out, quiz);
    else fputs("null", out);
    const MatInfo *qm = quiz ? mat_info(st->quiz_q.mat) : NULL;
    fprintf(out, ",\"question\":%d,\"question_matrix\":", quiz ? st->quiz : -1);
    cli_json_string(out, qm && qm->key ? qm->key : "");
    fputs(",\"shown\":[", out);
    for (size_t i = 0; i < s->box_count; i++) {
        const SceneBox *b = box_begin(out, s, i, "[");
        fprintf(out, ",%d,%s]", b->head, b->result && st->reveal == 0 ? "false" : "true");
    }
    fputs("]}", out);
}

// The walk from Home on `head`: → to the end, each question answered (right) where it is asked,
// then ← back to Home. One line: {"walk": true, "head", "questions", "forward": [...], "back"}.
static void walk_screens(Audit *a, const ViewDims *dims, int head, SceneExtras ex)
{
    Lesson shown = session_shown(a->doc);
    ViewQuestion vq[VIEW_MAX_QUESTIONS];
    int n = shown.question_count < VIEW_MAX_QUESTIONS ? shown.question_count : VIEW_MAX_QUESTIONS;
    int asked = 0;
    QuestionAnswer ans[VIEW_MAX_QUESTIONS];
    for (int i = 0; i < n; i++) {
        LessonError err;
        if (question_answer(&shown, &a->doc->trace, &shown.questions[i], i, &ans[i], &err)) {
            vq[i] = question_view(&shown.questions[i], &ans[i]);
            asked++;
        } else vq[i] = (ViewQuestion){.stage = STAGE_COUNT};
    }
    ViewState st;
    view_init(&st, dims);
    st.width = a->w;
    st.height = a->h;
    view_set_questions(&st, vq, n);
    st.head = head;
    fprintf(a->out,
            "{\"walk\":true,\"layer\":%d,\"head\":%d,\"questions\":%d,\"size\":[%d,%d],"
            "\"forward\":[",
            dims->layer, head, asked, a->w, a->h);
    ViewEvent right = {.kind = VIEW_EV_KEY, .key = VIEW_KEY_RIGHT, .head = -1};
    ViewEvent left = right;
    left.key = VIEW_KEY_LEFT;
    bool first = true;
    for (int guard = 0; guard < 4000 && walk_frame(a, &st, &ex, &shown); guard++) {
        walk_step(a, &st, first);
        first = false;
        if (st.quiz_phase == QUIZ_ASKING && st.quiz >= 0 && st.quiz < n) {
            CellRef answer, through;
            question_reveal_cells(&shown.questions[st.quiz], &ans[st.quiz], &shown.params, &answer,
                                  &through);
            view_quiz_judged(&st, true, answer, through);
            continue;
        }
        if (!view_handle(&st, &right)) break;
    }
    fputs("],\"back\":[", a->out);
    first = true;
    for (int guard = 0; guard < 4000 && view_handle(&st, &left); guard++) {
        if (!walk_frame(a, &st, &ex, &shown)) break;
        walk_step(a, &st, first);
        first = false;
    }
    fputs("]}\n", a->out);
}

// Every screen of every head (only_head's when >= 0) of the layer the session shows.
static void layer_screens(Audit *a, int only_head)
{
    const AttnParams *p = &a->doc->edit;
    ViewDims dims = view_dims_from_params(p);
    dims.layers = session_circuit_layers(a->doc);
    dims.layer = session_circuit_shown(a->doc);
    CircuitPanel circuit;
    panel_circuit_make(&circuit, a->doc);
    SceneExtras ex = {.original = &a->doc->lesson.params, .circuit = &circuit};
    SessionError serr;
    if (session_compare(a->doc, &serr)) ex.compare = session_comparison(a->doc);
    if (session_shuffle(a->doc, 0, &serr)) ex.shuffle = session_shuffled(a->doc);
    for (int head = 0; head < p->heads; head++) {
        if (only_head >= 0 && head != only_head) continue;
        ViewState st;
        view_init(&st, &dims);
        st.head = head;
        for (int i = 0; i < st.stage_count; i++) {
            st.stage_index = i;
            st.substep_count = 1;
            st.part_map = false;
            stage_screens(a, &st, &ex);
        }
        if (head == (only_head >= 0 ? only_head : 0)) head_screens(a, st, &ex);
        view_init(&st, &dims);
        st.head = head;
        panel_screens(a, st, &ex, head == (only_head >= 0 ? only_head : 0));
        if (head == (only_head >= 0 ? only_head : 0)) question_screens(a, st, ex);
        walk_screens(a, &dims, head, ex);
    }
}

// Every layer of a lesson of layers (one for any other lesson; only_layer's alone when >= 0), then
// the summary. A layer that cannot be shown stops the audit: false, err saying which and why
// (the window could not show it either).
static bool audit_screens(Audit *a, int only_head, int only_layer, char *err, size_t cap)
{
    int layers = session_circuit_layers(a->doc);
    if (only_layer >= layers) {
        snprintf(err, cap, "--layer %d: the lesson has %d layer%s (0 to %d)", only_layer, layers,
                 layers == 1 ? "" : "s", layers - 1);
        return false;
    }
    for (int layer = 0; layer < layers; layer++) {
        if (only_layer >= 0 && layer != only_layer) continue;
        SessionError serr = {""};
        if (layer != session_circuit_shown(a->doc)
            && !session_circuit_layer(a->doc, layer, &serr)) {
            snprintf(err, cap,
                     "layer %d of %d could not be shown, so its screens are not audited: %s", layer,
                     layers, serr.message[0] ? serr.message : "the layer was not switched to");
            return false;
        }
        layer_screens(a, only_head);
    }
    fprintf(a->out, "{\"summary\":true,\"screens\":%ld,\"matrices\":%ld}\n", a->screens,
            a->matrices);
    return true;
}

// The audit of a lesson: from the file at path (NULL: the built-in one), or lesson taken over (a
// checkpoint's layer, named name) when not NULL.
static int layout_run(FILE *out, const char *path, Lesson *lesson, const char *name,
                      const LayoutRequest *rq, char *err, size_t cap)
{
    Audit a = {.out = out, .w = rq->w, .h = rq->h};
    ExportError xerr = {0};
    Exporter *x = export_open(rq->font_dir, &xerr);
    if (!x) {
        if (lesson) lesson_free(lesson);
        snprintf(err, cap, "%s", xerr.message);
        return 1;
    }
    a.tm = export_metrics(x);
    Session *doc = calloc(1, sizeof *doc);
    if (!doc) {
        if (lesson) lesson_free(lesson);
        export_close(x);
        snprintf(err, cap, "out of memory");
        return 1;
    }
    session_init(doc);
    SessionError serr;
    if (lesson ? !session_take_lesson(doc, lesson, name, &serr) : !session_load(doc, path, &serr)) {
        snprintf(err, cap, "%s", serr.message);
        session_free(doc);
        free(doc);
        export_close(x);
        return 2;
    }
    a.doc = doc;
    scene_init(&a.scene);
    scene_init(&a.other);
    bool ok = audit_screens(&a, rq->only_head, rq->only_layer, err, cap);
    scene_free(&a.scene);
    scene_free(&a.other);
    session_free(doc);
    free(doc);
    export_close(x);
    return ok ? 0 : 2;
}

int cli_layout(FILE *out, const char *path, const LayoutRequest *rq, char *err, size_t cap)
{
    return layout_run(out, path, NULL, NULL, rq, err, cap);
}

int cli_layout_lesson(FILE *out, Lesson *lesson, const char *name, const LayoutRequest *rq,
                      char *err, size_t cap)
{
    return layout_run(out, NULL, lesson, name, rq, err, cap);
}
