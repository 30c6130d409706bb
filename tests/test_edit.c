// Tests live editing: an edit of one weight changes exactly the matrices downstream of it (W_K of
// head 1 -> head 1's K, scores, scaled, weights, Z, then concat and output; head 0 and head 1's Q
// and V stay bit-identical), an embedding edit reaches S too, non-finite values are refused, and
// the edit keys ask for edits only when an editable cell is pinned.
#include <math.h>
#include <string.h>

#include "model/view.h"
#include "check.h"
#include "lesson/lesson.h"

static bool same(const Matrix *a, const Matrix *b)
{
    size_t n = (size_t)a->rows * (size_t)a->cols;
    return a->rows == b->rows && a->cols == b->cols
           && (n == 0 || memcmp(a->data, b->data, n * sizeof(double)) == 0);
}

static void test_downstream(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/lessons/the-cat-sat-on-the-mat.json", MHA_SOURCE_DIR);
    Lesson L;
    LessonError err;
    if (!lesson_load(&L, path, &err)) {
        CHECK(false, "the mat lesson loads: %s", err.message);
        return;
    }
    CHECK(L.params.heads == 2, "two heads");
    Trace before, after;
    TraceError terr;
    CHECK(trace_run(&before, &L.params, &terr), "trace");
    AttnParams e;
    CHECK(params_copy(&e, &L.params), "editable copy");
    CellRef wk = {MAT_WK, 1, 1, 0};
    double *ref = view_param_ref(&e, wk);
    CHECK(ref != NULL, "W_K of head 1 is editable");
    CHECK(view_param_set(&e, wk, *ref + 0.5), "edit W_1^K[1, 0] by +0.5");
    CHECK(view_param_edited(&L.params, &e, wk), "the cell is marked edited");
    CHECK(!view_param_edited(&L.params, &e, (CellRef){MAT_WK, 0, 1, 0}),
          "head 0's same cell is not");
    CHECK(view_param_edit_count(&L.params, &e) == 1, "one edit, got %d",
          view_param_edit_count(&L.params, &e));
    CHECK(trace_run(&after, &e, &terr), "trace after the edit");
    const HeadTrace *b0 = &before.head[0], *a0 = &after.head[0], *b1 = &before.head[1],
                    *a1 = &after.head[1];
    CHECK(same(&b0->Q, &a0->Q) && same(&b0->K, &a0->K) && same(&b0->V, &a0->V),
          "head 0's Q, K, V identical");
    CHECK(same(&b0->scores, &a0->scores) && same(&b0->scaled, &a0->scaled)
              && same(&b0->weights, &a0->weights) && same(&b0->Z, &a0->Z),
          "head 0's scores, scaled, weights and Z identical");
    CHECK(same(&b1->Q, &a1->Q), "head 1's Q identical");
    CHECK(same(&b1->V, &a1->V), "head 1's V identical");
    CHECK(!same(&b1->K, &a1->K), "head 1's K changed");
    CHECK(!same(&b1->scores, &a1->scores), "head 1's scores changed");
    CHECK(!same(&b1->scaled, &a1->scaled), "head 1's scaled scores changed");
    CHECK(!same(&b1->weights, &a1->weights), "head 1's weights changed");
    CHECK(!same(&b1->Z, &a1->Z), "head 1's Z changed");
    CHECK(!same(&before.concat, &after.concat), "concat changed");
    CHECK(!same(&before.output, &after.output), "output changed");
    // Concat: head 0's columns identical, head 1's changed.
    int dk = L.params.d_k;
    bool left_same = true, right_diff = false;
    for (int r = 0; r < L.params.n; r++)
        for (int c = 0; c < 2 * dk; c++) {
            bool eq = memcmp(&mat_row(&before.concat, r)[c], &mat_row(&after.concat, r)[c],
                             sizeof(double))
                      == 0;
            if (c < dk && !eq) left_same = false;
            if (c >= dk && !eq) right_diff = true;
        }
    CHECK(left_same && right_diff, "concat: head 0's block identical, head 1's block changed");
    trace_free(&after);

    // An embedding edit reaches the keys/values side (S is X's copy in self-attention).
    CellRef x = {MAT_X, 0, 2, 3};
    CHECK(view_param_set(&e, x, 2.5) && mat_get(&e.X, 2, 3) == 2.5 && mat_get(&e.S, 2, 3) == 2.5,
          "X edit made to S too");
    CHECK(view_param_edit_count(&L.params, &e) == 2, "two edits");
    CHECK(!view_param_set(&e, x, NAN) && !view_param_set(&e, x, INFINITY)
              && mat_get(&e.X, 2, 3) == 2.5,
          "non-finite values refused");
    CHECK(!view_param_set(&e, (CellRef){MAT_Q, 0, 0, 0}, 1.0), "Q is computed, not editable");
    CHECK(!view_param_set(&e, (CellRef){MAT_S, 0, 0, 0}, 1.0),
          "S of a self-attention lesson is not edited on its own");
    CHECK(!view_param_set(&e, (CellRef){MAT_WQ, 2, 0, 0}, 1.0), "no head 2");
    CHECK(!view_param_set(&e, (CellRef){MAT_WO, 0, 99, 0}, 1.0), "out of range");
    CHECK(view_param_set(&e, (CellRef){MAT_WO, 0, 3, 1}, -1.25) && mat_get(&e.W_O, 3, 1) == -1.25,
          "W_O editable");
    // A value so large the trace overflows: trace_run reports it (the window then undoes the edit).
    AttnParams big;
    CHECK(params_copy(&big, &L.params), "copy");
    view_param_set(&big, (CellRef){MAT_X, 0, 0, 0}, 1e300);
    view_param_set(&big, (CellRef){MAT_WQ, 0, 0, 0}, 1e300);
    CHECK(!trace_run(&after, &big, &terr) && terr.message[0],
          "an overflowing edit is refused by the trace: %s", terr.message);
    params_free(&big);
    params_free(&e);
    trace_free(&before);
    lesson_free(&L);
}

static ViewEvent ev_key(ViewKey k, unsigned mods)
{
    ViewEvent e;
    memset(&e, 0, sizeof e);
    e.kind = VIEW_EV_KEY;
    e.key = k;
    e.mods = mods;
    e.head = -1;
    return e;
}

static void test_requests(void)
{
    ViewDims cat = {3, 3, 4, 2, 2, false, false, false, NULL, 0, 0};
    ViewState s;
    view_init(&s, &cat);
    view_handle(&s, &(ViewEvent){.kind = VIEW_EV_KEY, .key = VIEW_KEY_RIGHT, .head = -1});
    ViewEvent up = ev_key(VIEW_KEY_UP, 0), down = ev_key(VIEW_KEY_DOWN, 0);
    CHECK(view_handle(&s, &up) && view_stage(&s) == STAGE_INPUT && s.request == VIEW_REQ_NONE,
          "Up without a pin: previous stage");
    CHECK(view_handle(&s, &down) && view_stage(&s) == STAGE_PROJECT,
          "Down without a pin: next stage");
    ViewEvent click = {.kind = VIEW_EV_CLICK, .cell = {MAT_WK, 1, 1, 0}, .head = -1};
    view_handle(&s, &click);
    CHECK(view_handle(&s, &up) && s.request == VIEW_REQ_EDIT && s.request_delta == VIEW_EDIT_STEP,
          "Up on a pinned weight: +0.1");
    CHECK(view_stage(&s) == STAGE_PROJECT, "and the stage stays");
    ViewEvent fine = ev_key(VIEW_KEY_DOWN, VIEW_MOD_SHIFT);
    CHECK(view_handle(&s, &fine) && s.request == VIEW_REQ_EDIT
              && s.request_delta == -VIEW_EDIT_FINE,
          "Shift+Down: -0.01");
    ViewEvent wheel = {.kind = VIEW_EV_WHEEL, .wheel = -2, .head = -1};
    CHECK(view_handle(&s, &wheel) && s.request == VIEW_REQ_EDIT
              && fabs(s.request_delta + 0.2) < 1e-12,
          "wheel: 2 notches down");
    ViewEvent drag = {.kind = VIEW_EV_DRAG, .y = -30, .head = -1};
    CHECK(view_handle(&s, &drag) && s.request == VIEW_REQ_EDIT
              && fabs(s.request_delta - 0.3) < 1e-12,
          "drag up 30 px: +0.3");
    ViewEvent hover = {.kind = VIEW_EV_HOVER, .cell = {MAT_X, 0, 0, 0}, .head = -1};
    view_handle(&s, &hover);
    CHECK(s.request == VIEW_REQ_NONE, "a request lives for one event");
    ViewEvent pin_q = {.kind = VIEW_EV_CLICK, .cell = {MAT_Q, 0, 0, 0}, .head = -1};
    view_handle(&s, &pin_q);
    CHECK(view_handle(&s, &up) && s.request == VIEW_REQ_NONE && view_stage(&s) == STAGE_INPUT,
          "Up on a computed cell moves the stage");
    ViewEvent r = ev_key(VIEW_KEY_R, 0), save = ev_key(VIEW_KEY_S, VIEW_MOD_CTRL),
              plain_s = ev_key(VIEW_KEY_S, 0);
    CHECK(view_handle(&s, &r) && s.request == VIEW_REQ_REVERT, "R: revert");
    CHECK(view_handle(&s, &save) && s.request == VIEW_REQ_SAVE, "Ctrl+S: save");
    CHECK(!view_handle(&s, &plain_s) && s.request == VIEW_REQ_NONE, "S alone does nothing");
    ViewEvent k = ev_key(VIEW_KEY_K, 0), m = ev_key(VIEW_KEY_M, 0),
              esc = ev_key(VIEW_KEY_ESCAPE, 0);
    CHECK(view_handle(&s, &k) && s.panel == PANEL_COST, "K: cost panel");
    CHECK(view_handle(&s, &k) && s.panel == PANEL_NONE, "K again closes it");
    view_handle(&s, &k);
    CHECK(view_handle(&s, &down) && s.panel == PANEL_NONE && view_stage(&s) == STAGE_PROJECT,
          "another key closes it and acts");
    CHECK(view_handle(&s, &m) && s.panel == PANEL_COMPARE, "M: single vs multi-head");
    CHECK(view_handle(&s, &down) && s.panel == PANEL_COMPARE,
          "the comparison stays while stepping");
    CHECK(view_handle(&s, &esc) && s.panel == PANEL_NONE && !s.quit,
          "Esc closes the comparison before quitting");
}

int main(void)
{
    test_downstream();
    test_requests();
    return check_report("test_edit");
}
