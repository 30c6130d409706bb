// Tests live editing: an edit of one weight changes exactly the matrices downstream of it (W_K of head 1 ->
// head 1's K, scores, scaled, weights, Z, then concat and output; head 0 and head 1's Q and V stay
// bit-identical), an embedding edit reaches S too, non-finite values are refused, and the edit keys
// ask for edits only when an editable cell is pinned.
#include <math.h>
#include <string.h>

#include "app/app.h"
#include "check.h"
#include "lesson/lesson.h"

static bool same(const Matrix *a, const Matrix *b)
{
    size_t n = (size_t)a->rows * (size_t)a->cols;
    return a->rows == b->rows && a->cols == b->cols && (n == 0 || memcmp(a->data, b->data, n * sizeof(double)) == 0);
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
    double *ref = app_param_ref(&e, wk);
    CHECK(ref != NULL, "W_K of head 1 is editable");
    CHECK(app_param_set(&e, wk, *ref + 0.5), "edit W_1^K[1, 0] by +0.5");
    CHECK(app_param_edited(&L.params, &e, wk), "the cell is marked edited");
    CHECK(!app_param_edited(&L.params, &e, (CellRef){MAT_WK, 0, 1, 0}), "head 0's same cell is not");
    CHECK(app_param_edit_count(&L.params, &e) == 1, "one edit, got %d", app_param_edit_count(&L.params, &e));
    CHECK(trace_run(&after, &e, &terr), "trace after the edit");
    const HeadTrace *b0 = &before.head[0], *a0 = &after.head[0], *b1 = &before.head[1], *a1 = &after.head[1];
    CHECK(same(&b0->Q, &a0->Q) && same(&b0->K, &a0->K) && same(&b0->V, &a0->V), "head 0's Q, K, V identical");
    CHECK(same(&b0->scores, &a0->scores) && same(&b0->scaled, &a0->scaled) && same(&b0->weights, &a0->weights) &&
              same(&b0->Z, &a0->Z),
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
            bool eq = memcmp(&mat_row(&before.concat, r)[c], &mat_row(&after.concat, r)[c], sizeof(double)) == 0;
            if (c < dk && !eq) left_same = false;
            if (c >= dk && !eq) right_diff = true;
        }
    CHECK(left_same && right_diff, "concat: head 0's block identical, head 1's block changed");
    trace_free(&after);

    // An embedding edit reaches the keys/values side (S is X's copy in self-attention).
    CellRef x = {MAT_X, 0, 2, 3};
    CHECK(app_param_set(&e, x, 2.5) && mat_get(&e.X, 2, 3) == 2.5 && mat_get(&e.S, 2, 3) == 2.5, "X edit made to S too");
    CHECK(app_param_edit_count(&L.params, &e) == 2, "two edits");
    CHECK(!app_param_set(&e, x, NAN) && !app_param_set(&e, x, INFINITY) && mat_get(&e.X, 2, 3) == 2.5,
          "non-finite values refused");
    CHECK(!app_param_set(&e, (CellRef){MAT_Q, 0, 0, 0}, 1.0), "Q is computed, not editable");
    CHECK(!app_param_set(&e, (CellRef){MAT_S, 0, 0, 0}, 1.0), "S of a self-attention lesson is not edited on its own");
    CHECK(!app_param_set(&e, (CellRef){MAT_WQ, 2, 0, 0}, 1.0), "no head 2");
    CHECK(!app_param_set(&e, (CellRef){MAT_WO, 0, 99, 0}, 1.0), "out of range");
    CHECK(app_param_set(&e, (CellRef){MAT_WO, 0, 3, 1}, -1.25) && mat_get(&e.W_O, 3, 1) == -1.25, "W_O editable");
    // A value so large the trace overflows: trace_run reports it (the window then undoes the edit).
    AttnParams big;
    CHECK(params_copy(&big, &L.params), "copy");
    app_param_set(&big, (CellRef){MAT_X, 0, 0, 0}, 1e300);
    app_param_set(&big, (CellRef){MAT_WQ, 0, 0, 0}, 1e300);
    CHECK(!trace_run(&after, &big, &terr) && terr.message[0], "an overflowing edit is refused by the trace: %s",
          terr.message);
    params_free(&big);
    params_free(&e);
    trace_free(&before);
    lesson_free(&L);
}

static AppEvent ev_key(AppKey k, unsigned mods)
{
    AppEvent e;
    memset(&e, 0, sizeof e);
    e.kind = APP_EV_KEY;
    e.key = k;
    e.mods = mods;
    e.head = -1;
    return e;
}

static void test_requests(void)
{
    AppDims cat = {3, 3, 4, 2, 2, false};
    AppState s;
    app_init(&s, &cat);
    app_handle(&s, &(AppEvent){.kind = APP_EV_KEY, .key = APP_KEY_RIGHT, .head = -1});
    AppEvent up = ev_key(APP_KEY_UP, 0), down = ev_key(APP_KEY_DOWN, 0);
    CHECK(app_handle(&s, &up) && app_stage(&s) == STAGE_INPUT && s.request == APP_REQ_NONE, "Up without a pin: previous stage");
    CHECK(app_handle(&s, &down) && app_stage(&s) == STAGE_PROJECT, "Down without a pin: next stage");
    AppEvent click = {.kind = APP_EV_CLICK, .cell = {MAT_WK, 1, 1, 0}, .head = -1};
    app_handle(&s, &click);
    CHECK(app_handle(&s, &up) && s.request == APP_REQ_EDIT && s.request_delta == APP_EDIT_STEP, "Up on a pinned weight: +0.1");
    CHECK(app_stage(&s) == STAGE_PROJECT, "and the stage stays");
    AppEvent fine = ev_key(APP_KEY_DOWN, APP_MOD_SHIFT);
    CHECK(app_handle(&s, &fine) && s.request == APP_REQ_EDIT && s.request_delta == -APP_EDIT_FINE, "Shift+Down: -0.01");
    AppEvent wheel = {.kind = APP_EV_WHEEL, .wheel = -2, .head = -1};
    CHECK(app_handle(&s, &wheel) && s.request == APP_REQ_EDIT && fabs(s.request_delta + 0.2) < 1e-12, "wheel: 2 notches down");
    AppEvent drag = {.kind = APP_EV_DRAG, .y = -30, .head = -1};
    CHECK(app_handle(&s, &drag) && s.request == APP_REQ_EDIT && fabs(s.request_delta - 0.3) < 1e-12, "drag up 30 px: +0.3");
    AppEvent hover = {.kind = APP_EV_HOVER, .cell = {MAT_X, 0, 0, 0}, .head = -1};
    app_handle(&s, &hover);
    CHECK(s.request == APP_REQ_NONE, "a request lives for one event");
    AppEvent pin_q = {.kind = APP_EV_CLICK, .cell = {MAT_Q, 0, 0, 0}, .head = -1};
    app_handle(&s, &pin_q);
    CHECK(app_handle(&s, &up) && s.request == APP_REQ_NONE && app_stage(&s) == STAGE_INPUT,
          "Up on a computed cell moves the stage");
    AppEvent r = ev_key(APP_KEY_R, 0), save = ev_key(APP_KEY_S, APP_MOD_CTRL), plain_s = ev_key(APP_KEY_S, 0);
    CHECK(app_handle(&s, &r) && s.request == APP_REQ_REVERT, "R: revert");
    CHECK(app_handle(&s, &save) && s.request == APP_REQ_SAVE, "Ctrl+S: save");
    CHECK(!app_handle(&s, &plain_s) && s.request == APP_REQ_NONE, "S alone does nothing");
    AppEvent k = ev_key(APP_KEY_K, 0), m = ev_key(APP_KEY_M, 0), esc = ev_key(APP_KEY_ESCAPE, 0);
    CHECK(app_handle(&s, &k) && s.panel == PANEL_COST, "K: cost panel");
    CHECK(app_handle(&s, &k) && s.panel == PANEL_NONE, "K again closes it");
    app_handle(&s, &k);
    CHECK(app_handle(&s, &down) && s.panel == PANEL_NONE && app_stage(&s) == STAGE_PROJECT, "another key closes it and acts");
    CHECK(app_handle(&s, &m) && s.panel == PANEL_COMPARE, "M: single vs multi-head");
    CHECK(app_handle(&s, &down) && s.panel == PANEL_COMPARE, "the comparison stays while stepping");
    CHECK(app_handle(&s, &esc) && s.panel == PANEL_NONE && !s.quit, "Esc closes the comparison before quitting");
}

int main(void)
{
    test_downstream();
    test_requests();
    return check_report("test_edit");
}
