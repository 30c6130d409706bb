// The viewer's state: its sizes and stages, the reveal, the questions, the moves the keys and
// events make (view_moves.h: the stage, the part, the head, the zoom, the pan) and the edits of the
// parameters. Nothing here draws; the events are view_events.c's, the keys view_keys.c's.
#include "model/view.h"
#include "model/view_moves.h"

#include <math.h>
#include <string.h>

// The lesson's sizes as parameters without values: all the stage table needs to count cells.
static AttnParams sizes_of(const ViewDims *d)
{
    AttnParams p;
    memset(&p, 0, sizeof p);
    p.n = d->n;
    p.m = d->m;
    p.d_model = d->d_model;
    p.heads = d->heads;
    p.d_k = d->d_k;
    p.mask = d->causal ? MASK_CAUSAL : MASK_NONE;
    p.positions =
        d->positions ? POS_SINUSOIDAL : POS_NONE; // which kind does not matter to the stage table
    p.rope = d->rope ? ROPE_HALVES : ROPE_NONE; // nor which pairs
    p.stream = d->stream;
    return p;
}

ViewDims view_dims_from_params(const AttnParams *p)
{
    ViewDims d = {p->n,
                  p->m,
                  p->d_model,
                  p->heads,
                  p->d_k,
                  p->mask == MASK_CAUSAL,
                  p->positions != POS_NONE,
                  p->rope != ROPE_NONE,
                  p->stream,
                  0,
                  0};
    return d;
}

static void build_stages(ViewState *s)
{
    AttnParams p = sizes_of(&s->dims);
    s->stage_count = model_stages(&p, s->stages);
}

void view_init(ViewState *s, const ViewDims *dims)
{
    memset(s, 0, sizeof *s);
    s->dims = *dims;
    build_stages(s);
    s->zoom = 1.0;
    s->pan_x = s->pan_y = 0.5;
    s->pan_follow = true;
    s->substep_count = 1;
    s->part_map = false;
    s->colormap = COLORMAP_VIRIDIS;
    s->reveal = -1;
    s->width = 1280;
    s->height = 720;
    s->quiz = -1;
    s->quiz_choice = -1;
    s->walk_head = -1;
    s->tile = 1;
    s->tiles_block = 2;
}

void view_enter_layer(ViewState *s, const ViewDims *dims, int dir)
{
    view_set_dims(s, dims);
    if (dir == 0) return;
    s->stage_index = dir > 0 ? 0 : s->stage_count - 1;
    s->substep = dir > 0 ? 0 : 1000; // back: the last sub-step (the scene clamps it)
    s->substep_count = 1;
    s->part_map = false;
    s->reveal = -1;
    memset(&s->pinned, 0, sizeof s->pinned);
    s->walk_settle = dir > 0;
}

bool view_walk_layer(ViewState *s, int dir)
{
    int to = s->dims.layer + dir;
    if (s->dims.layers < 2 || to < 0 || to >= s->dims.layers) return false;
    s->request = VIEW_REQ_LAYER;
    s->request_delta = dir;
    s->request_walk = true;
    return true;
}

void view_set_dims(ViewState *s, const ViewDims *dims)
{
    Stage was = view_stage(s);
    s->dims = *dims;
    build_stages(s);
    s->stage_index = 0;
    for (int i = 0; i < s->stage_count; i++)
        if (s->stages[i] <= was)
            s->stage_index = i; // the same stage, or the one before a vanished mask
    if (s->head >= dims->heads) s->head = 0;
    s->shuffle = 0;
    // The decode and tiles panels keep their place where it still exists (an edit reloads the sizes
    // too).
    int most = dims->n > dims->m ? dims->n : dims->m;
    if (s->decode_t >= dims->n) s->decode_t = dims->n > 0 ? dims->n - 1 : 0;
    if (s->rope_t >= dims->n) s->rope_t = dims->n > 0 ? dims->n - 1 : 0;
    if (!dims->rope && s->panel == PANEL_ROPE) s->panel = PANEL_NONE;
    s->decode_part = 0;
    s->pair_part = 0;
    if (s->tiles_block < 1) s->tiles_block = 2;
    if (s->tiles_block > most) s->tiles_block = most > 0 ? most : 1;
    if (s->tile < 1) s->tile = 1;
    s->reveal = -1;
    memset(&s->hover, 0, sizeof s->hover);
    memset(&s->pinned, 0, sizeof s->pinned);
    s->quiz = -1;
    s->quiz_phase = QUIZ_NONE;
    s->walk_head = -1;
    s->walk_settle = false;
}

Stage view_stage(const ViewState *s)
{
    return s->stage_count > 0 ? s->stages[s->stage_index] : STAGE_INPUT;
}

// The part of the stage's result that "." fills: the result of the equation on screen when the
// stage shows its equations one at a time (Q, then K, then V), nothing while a part shows only
// inputs (each equation in as many parts, its result in the last: the scene's plan_parts), else all
// of it. *first: its place in the stage's reveal order.
static int stage_results(const ViewState *s)
{
    const StageInfo *si = stage_info(view_stage(s));
    int nres = 0;
    while (si && nres < 3 && si->results[nres] != MAT_NONE) nres++;
    return nres;
}

// The part `sub` of `count` (VIEW_SUBSTEP_RESULT + i: the part that shows result i, each result's
// equation in count / results parts, its result in the last); *per: the parts of each result (0:
// not so divided).
static int result_index(const ViewState *s, MatId m)
{
    const StageInfo *si = stage_info(view_stage(s));
    for (int i = 0; si && i < 3 && si->results[i] != MAT_NONE; i++)
        if (si->results[i] == m) return i;
    return -1;
}

static int substep_resolve(const ViewState *s, int sub, int count, int *per)
{
    if (s->part_map) {
        *per = 0;
        if (sub < VIEW_SUBSTEP_RESULT) return sub;
        for (int k = 0; k < count && k < VIEW_PARTS_MAX; k++)
            if (s->part_result[k] != MAT_NONE
                && result_index(s, s->part_result[k]) == sub - VIEW_SUBSTEP_RESULT)
                return k;
        return count - 1;
    }
    int nres = stage_results(s);
    *per = nres > 0 && count >= 2 && count % nres == 0 ? count / nres : 0;
    if (sub < VIEW_SUBSTEP_RESULT) return sub;
    return *per ? (sub - VIEW_SUBSTEP_RESULT) * *per + *per - 1 : sub - VIEW_SUBSTEP_RESULT;
}

static void reveal_span(const ViewState *s, const AttnParams *p, int *first, int *count)
{
    Stage stage = view_stage(s);
    const StageInfo *si = stage_info(stage);
    int nres = stage_results(s), per;
    *first = 0;
    *count = model_reveal_total(p, stage);
    int sub = substep_resolve(s, s->substep, s->substep_count, &per);
    if (s->part_map && s->substep_count > 1) {
        int k = sub < 0 ? 0 : sub >= s->substep_count ? s->substep_count - 1 : sub;
        int i = result_index(s, s->part_result[k]);
        // A part of several equations names the last one's result: a question on an earlier one
        // fills (and hides) that one.
        int asked = s->quiz_phase != QUIZ_NONE ? result_index(s, s->quiz_q.mat) : -1;
        if (asked >= 0 && asked < i && (k == 0 || result_index(s, s->part_result[k - 1]) < asked))
            i = asked;
        if (i < 0) {
            *count = 0; // inputs only
            return;
        }
        if (nres > 1) {
            for (int j = 0; j < nres; j++) {
                int r, c;
                model_mat_shape(p, si->results[j], &r, &c);
                if (j < i) *first += r * c;
                if (j == i) *count = r * c;
            }
        }
        return;
    }
    if (per == 0) return;
    if (sub % per != per - 1 && sub < s->substep_count) {
        *count = 0; // inputs only
    } else if (nres > 1) {
        for (int i = 0; i < nres; i++) {
            int r, c;
            model_mat_shape(p, si->results[i], &r, &c);
            if (i < sub / per) *first += r * c;
            if (i == sub / per) *count = r * c;
        }
    }
}

int view_reveal_total(const ViewState *s)
{
    AttnParams p = sizes_of(&s->dims);
    int first, count;
    reveal_span(s, &p, &first, &count);
    return count;
}

CellRef view_reveal_cell(const ViewState *s, int k)
{
    AttnParams p = sizes_of(&s->dims);
    int first, count;
    reveal_span(s, &p, &first, &count);
    if (k < 0 || k >= count) return (CellRef){MAT_NONE, s->head, 0, 0};
    return model_reveal_cell(&p, view_stage(s), s->head, first + k);
}

bool view_cell_revealed(const ViewState *s, CellRef c)
{
    if (s->reveal < 0) return true;
    AttnParams p = sizes_of(&s->dims);
    int first, count;
    reveal_span(s, &p, &first, &count);
    int index = model_reveal_index(&p, view_stage(s), s->head, c);
    if (index < first || index >= first + count) return true; // not what "." is filling
    return index - first < s->reveal;
}

CellRef view_focus_cell(const ViewState *s)
{
    // While a question waits, a hidden result cell explains nothing: its arithmetic would give the
    // answer away.
    bool asking = s->quiz_phase == QUIZ_ASKING || s->quiz_phase == QUIZ_JUDGING;
    if (s->pinned.mat != MAT_NONE && (!asking || view_cell_revealed(s, s->pinned)))
        return s->pinned;
    if (s->hover.mat != MAT_NONE && (!asking || view_cell_revealed(s, s->hover))) return s->hover;
    if (s->reveal > 0) return view_reveal_cell(s, s->reveal - 1);
    CellRef none = {MAT_NONE, 0, 0, 0};
    return none;
}

void view_quiz_close(ViewState *s)
{
    s->quiz = -1;
    s->quiz_phase = QUIZ_NONE;
}

bool view_pan(ViewState *s, double dx, double dy)
{
    if (s->zoom <= 1.0) return false;
    double x = s->pan_x + dx, y = s->pan_y + dy;
    x = x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x;
    y = y < 0.0 ? 0.0 : y > 1.0 ? 1.0 : y;
    if (x == s->pan_x && y == s->pan_y) return false;
    s->pan_x = x;
    s->pan_y = y;
    s->pan_follow = false; // the class looks elsewhere
    return true;
}

void view_set_parts(ViewState *s, int count, int shown, const MatId *part_result)
{
    int per;
    s->substep_count = count > 0 ? count : 1;
    s->part_map = part_result != NULL && s->substep_count <= VIEW_PARTS_MAX;
    for (int k = 0; s->part_map && k < s->substep_count; k++) s->part_result[k] = part_result[k];
    shown = substep_resolve(s, shown, s->substep_count, &per);
    s->substep = shown < 0 ? 0 : shown >= s->substep_count ? s->substep_count - 1 : shown;
}

void view_set_substeps(ViewState *s, int count, int shown)
{
    int per;
    s->part_map = false;
    s->substep_count = count > 0 ? count : 1;
    shown = substep_resolve(s, shown, s->substep_count, &per);
    s->substep = shown < 0 ? 0 : shown >= s->substep_count ? s->substep_count - 1 : shown;
}

void view_set_notes_more(ViewState *s, bool more) { s->notes_more = s->notes && more; }

void view_set_pan_span(ViewState *s, int span_x, int span_y)
{
    s->pan_span_x = span_x > 0 ? span_x : 0;
    s->pan_span_y = span_y > 0 ? span_y : 0;
}

void view_set_pan_used(ViewState *s, double pan_x, double pan_y)
{
    if (!s->pan_follow || s->zoom <= 1.0) return;
    s->pan_x = pan_x < 0.0 ? 0.0 : pan_x > 1.0 ? 1.0 : pan_x;
    s->pan_y = pan_y < 0.0 ? 0.0 : pan_y > 1.0 ? 1.0 : pan_y;
}

bool view_set_head(ViewState *s, int head)
{
    if (head < 0 || head >= s->dims.heads || head == s->head) return false;
    s->head = head;
    s->walk_head = -1; // the class chose this head: a question's detour does not come back
    s->reveal = -1;
    memset(&s->pinned, 0, sizeof s->pinned);
    return true;
}

bool view_set_zoom(ViewState *s, double z)
{
    if (z < VIEW_ZOOM_MIN) z = VIEW_ZOOM_MIN;
    if (z > VIEW_ZOOM_MAX) z = VIEW_ZOOM_MAX;
    if (z == s->zoom) return false;
    s->zoom = z;
    s->pan_follow = true; // around the framed result again
    return true;
}

// '.' fills one more cell; after the last cell the whole result shows again. ',' goes back one
// cell.
bool view_sub_step(ViewState *s, int dir)
{
    int total = view_reveal_total(s);
    if (total == 0) return false;
    int r = s->reveal < 0 ? total : s->reveal;
    if (dir > 0) r = (s->reveal < 0) ? 1 : r + 1;
    else r = r - 1;
    if (r < 0) r = 0;
    if (r >= total) r = -1;
    if (r == s->reveal) return false;
    s->reveal = r;
    memset(&s->pinned, 0, sizeof s->pinned);
    return true;
}

// Asks the owner to change the pinned cell's value, when the pinned cell is editable.
bool view_request_edit(ViewState *s, double delta)
{
    if (s->pinned.mat == MAT_NONE || !view_mat_editable(s->pinned.mat) || delta == 0.0)
        return false;
    s->request = VIEW_REQ_EDIT;
    s->request_delta = delta;
    return true;
}

void view_set_decode_parts(ViewState *s, int count)
{
    s->decode_parts = count > 1 ? count : 1;
    if (s->decode_part >= s->decode_parts) s->decode_part = s->decode_parts - 1;
    if (s->decode_part < 0) s->decode_part = 0;
}

void view_set_pair_parts(ViewState *s, int count)
{
    s->pair_parts = count > 1 ? count : 1;
    if (s->pair_part >= s->pair_parts) s->pair_part = s->pair_parts - 1;
    if (s->pair_part < 0) s->pair_part = 0;
}

void view_set_tiles(ViewState *s, int count)
{
    s->tile_count = count > 0 ? count : 0;
    if (s->tile > s->tile_count) s->tile = s->tile_count;
    if (s->tile < 1) s->tile = 1;
}

int view_shuffle_count(int n) { return n > 1 ? 1 + n * (n - 1) / 2 : 1; }

void view_shuffle_perm(int k, int n, int *perm)
{
    k = n > 0 ? k % view_shuffle_count(n) : 0;
    for (int i = 0; i < n; i++) perm[i] = k == 0 ? n - 1 - i : i;
    if (k == 0) return;
    for (int i = 0, m = 1; i < n; i++) // the k-th pair (i, j), i < j
        for (int j = i + 1; j < n; j++, m++)
            if (m == k) {
                perm[i] = j;
                perm[j] = i;
                return;
            }
}

double view_scale_min(int d_k) { return 1.0 / (4.0 * (d_k > 0 ? d_k : 1)); }

void view_scale_stops(int d_k, double stops[VIEW_SCALE_STOPS])
{
    if (d_k < 1) d_k = 1;
    stops[0] = 1.0 / d_k;
    stops[1] = 1.0 / sqrt((double)d_k);
    stops[2] = 1.0;
}

double view_scale_step(double scale, int d_k, double dir, bool fine)
{
    if (d_k < 1) d_k = 1;
    double lo = view_scale_min(d_k), hi = VIEW_SCALE_MAX, stops[VIEW_SCALE_STOPS];
    view_scale_stops(d_k, stops);
    double next = scale * pow(2.0, dir * (fine ? 1.0 / 16.0 : 0.25));
    // A stop past here and up to there (or a rounding away from it) is where the step ends: the
    // nearest one.
    for (int i = 0; i < VIEW_SCALE_STOPS; i++) {
        double st = dir > 0 ? stops[i] : stops[VIEW_SCALE_STOPS - 1 - i];
        if ((dir > 0 && st > scale * (1 + 1e-12) && st <= next * (1 + 1e-9))
            || (dir < 0 && st < scale * (1 - 1e-12) && st >= next * (1 - 1e-9))) {
            next = st;
            break;
        }
    }
    return next < lo ? lo : next > hi ? hi : next;
}

// ---------------------------------------------------------------------------------------------------
// Questions

void view_set_questions(ViewState *s, const ViewQuestion *qs, int count)
{
    if (count < 0) count = 0;
    if (count > VIEW_MAX_QUESTIONS) count = VIEW_MAX_QUESTIONS;
    s->question_count = count;
    if (count) memcpy(s->questions, qs, (size_t)count * sizeof *qs);
    memset(s->question_done, 0, sizeof s->question_done);
    memset(s->question_skipped, 0, sizeof s->question_skipped);
    s->walk_head = -1;
    view_quiz_close(s);
}

void view_quiz_ask(ViewState *s, const ViewQuestion *q, int index)
{
    int at = -1;
    for (int i = 0; i < s->stage_count; i++)
        if (s->stages[i] == q->stage) at = i;
    if (at < 0) return; // not a stage of this lesson (--check says so)
    if (at != s->stage_index) {
        s->stage_index = at;
        s->substep_count = 1;
        s->part_map = false;
    }
    // The sub-step that shows the matrix asked about: its place among the stage's results (K: the
    // second of Q, K, V), or the first one of a single result: a stage that shows its inputs alone
    // first is asked where the class sees what it predicts from (the answer then shows on the
    // result's part). The scene clamps it to the sub-steps it draws (one, when everything fits at
    // once).
    const StageInfo *si = stage_info(q->stage);
    int nres = 0, place = 0;
    while (si && nres < 3 && si->results[nres] != MAT_NONE) {
        if (si->results[nres] == q->mat) place = nres;
        nres++;
    }
    // Asked on the part that shows the result (hidden) beside the inputs it is made from.
    s->substep = VIEW_SUBSTEP_RESULT + place;
    if (q->head >= 0 && q->head < s->dims.heads) s->head = q->head;
    s->view = VIEW_ONE_HEAD;
    s->panel = PANEL_NONE;
    memset(&s->pinned, 0, sizeof s->pinned);
    s->reveal = 0; // the result hidden
    s->quiz = index;
    s->quiz_q = *q;
    s->quiz_phase = QUIZ_ASKING;
    s->quiz_input[0] = '\0';
    memset(&s->quiz_cell, 0, sizeof s->quiz_cell);
    s->quiz_value = NAN;
    s->quiz_choice = -1;
    s->quiz_right = false;
}

void view_quiz_judged(ViewState *s, bool right, CellRef answer, CellRef through)
{
    if (s->quiz_phase != QUIZ_JUDGING && s->quiz_phase != QUIZ_ASKING) return;
    s->quiz_phase = QUIZ_REVEALED;
    s->quiz_right = right;
    if (s->quiz >= 0 && s->quiz < s->question_count) {
        s->question_done[s->quiz] = true;
        s->question_skipped[s->quiz] = false;
    }
    // The reveal runs up to `through`: the cells before it filled, the answer's arithmetic pinned.
    AttnParams p = sizes_of(&s->dims);
    int first, count;
    reveal_span(s, &p, &first, &count);
    const StageInfo *si = stage_info(view_stage(s));
    (void)si;
    // Asked on the inputs' part (the result alone on the next): the answer shows on the result's
    // part.
    if (s->part_map && s->substep < s->substep_count && s->substep + 1 < s->substep_count
        && s->part_result[s->substep] == MAT_NONE && s->part_result[s->substep + 1] != MAT_NONE) {
        s->substep++;
        reveal_span(s, &p, &first, &count);
    }
    int k = through.mat != MAT_NONE ? model_reveal_index(&p, view_stage(s), s->head, through) : -1;
    s->reveal = (k >= first && k < first + count && k - first + 1 < count) ? k - first + 1 : -1;
    s->pinned = answer;
}

// ---------------------------------------------------------------------------------------------------
// Live editing of the lesson's parameters

bool view_mat_editable(MatId m)
{
    const MatInfo *mi = mat_info(m);
    return mi && mi->editable;
}

static Matrix *param_matrix(AttnParams *p, CellRef c)
{
    const MatInfo *mi = mat_info(c.mat);
    if (!mi || !mi->param) return NULL;
    if (mi->per_head && (c.head < 0 || c.head >= p->heads)) return NULL;
    return mi->param(p, c.head);
}

double *view_param_ref(AttnParams *p, CellRef c)
{
    Matrix *m = param_matrix(p, c);
    if (!m || c.row < 0 || c.col < 0 || c.row >= m->rows || c.col >= m->cols) return NULL;
    return mat_row(m, c.row) + c.col;
}

bool view_param_set(AttnParams *p, CellRef c, double v)
{
    double *ref = view_param_ref(p, c);
    if (!ref || !isfinite(v)) return false;
    *ref = v;
    if (c.mat == MAT_X && !p->cross)
        mat_set(&p->S, c.row, c.col, v); // keys and values read the same X
    params_apply_positions(p); // an edit of E (or E^Y): X = E + P follows
    return true;
}

bool view_param_edited(const AttnParams *orig, const AttnParams *cur, CellRef c)
{
    // The lookups do not write; the casts only reuse view_param_ref.
    const double *a = view_param_ref((AttnParams *)orig, c),
                 *b = view_param_ref((AttnParams *)cur, c);
    return a && b && memcmp(a, b, sizeof *a) != 0;
}

static int count_diff(const Matrix *a, const Matrix *b)
{
    int n = 0;
    size_t k = (size_t)a->rows * (size_t)a->cols;
    for (size_t i = 0; i < k; i++) n += memcmp(&a->data[i], &b->data[i], sizeof(double)) != 0;
    return n;
}

int view_param_edit_count(const AttnParams *orig, const AttnParams *cur)
{
    int n = count_diff(&orig->X, &cur->X) + count_diff(&orig->W_O, &cur->W_O);
    if (cur->cross) n += count_diff(&orig->S, &cur->S);
    for (int h = 0; h < cur->heads; h++)
        n += count_diff(&orig->W_Q[h], &cur->W_Q[h]) + count_diff(&orig->W_K[h], &cur->W_K[h])
             + count_diff(&orig->W_V[h], &cur->W_V[h]);
    return n;
}
