// Tests the viewer's state machine headless: every key, stage bounds, the mask stage only for
// causal lessons, head switching, the sub-step reveal, hover/click, zoom limits and lesson reloads.
#include <math.h>
#include <string.h>

#include "model/view.h"
#include "check.h"

static ViewEvent key(ViewKey k)
{
    ViewEvent e;
    memset(&e, 0, sizeof e);
    e.kind = VIEW_EV_KEY;
    e.key = k;
    e.head = -1;
    return e;
}

// As the window does after each event: a stage just reached asks the question due on its first
// part (no scene here: every stage shows in one part).
static bool press(ViewState *s, ViewKey k)
{
    ViewEvent e = key(k);
    bool changed = view_handle(s, &e);
    return view_walk_settle(s) || changed;
}

static bool press_mod(ViewState *s, ViewKey k, unsigned mods)
{
    ViewEvent e = key(k);
    e.mods = mods;
    return view_handle(s, &e);
}

static bool digit(ViewState *s, int d)
{
    ViewEvent e = key(VIEW_KEY_DIGIT);
    e.digit = d;
    return view_handle(s, &e);
}

// The stages only a checkpoint's layer has (--model in the window: AttnParams.stream); no lesson
// has them.
static bool model_only(Stage s)
{
    return s == STAGE_NORM_IN || s == STAGE_RESIDUAL || s == STAGE_NEXT;
}
#define LESSON_STAGES (STAGE_COUNT - 3)

static void test_stages(void)
{
    ViewDims cat = {3, 3, 4, 2, 2, false, false, false, NULL, 0, 0},
             causal = {4, 4, 4, 2, 2, true, false, false, NULL, 0, 0};
    ViewState s;
    view_init(&s, &cat);
    // Every row of the table but the three this lesson lacks (positions, RoPE, the mask).
    CHECK(s.stage_count == LESSON_STAGES - 3, "self-attention without a mask has %d stages, got %d",
          LESSON_STAGES - 3, s.stage_count);
    for (int i = 0; i < s.stage_count; i++)
        CHECK(s.stages[i] != STAGE_MASK, "no mask stage at %d", i);
    CHECK(view_stage(&s) == STAGE_INPUT, "starts on the input");
    CHECK(!press(&s, VIEW_KEY_LEFT), "no stage before the first");
    CHECK(!press(&s, VIEW_KEY_PAGEUP), "PageUp at the first stage changes nothing");
    CHECK(!press(&s, VIEW_KEY_BACKSPACE), "Backspace at the first stage changes nothing");
    CHECK(press(&s, VIEW_KEY_RIGHT) && view_stage(&s) == STAGE_PROJECT, "Right -> projections");
    CHECK(press(&s, VIEW_KEY_SPACE) && view_stage(&s) == STAGE_SCORES, "Space -> scores");
    CHECK(press(&s, VIEW_KEY_PAGEDOWN) && view_stage(&s) == STAGE_SCALE, "PageDown -> scaling");
    CHECK(press(&s, VIEW_KEY_RIGHT) && view_stage(&s) == STAGE_SOFTMAX,
          "scaling -> softmax (no mask)");
    CHECK(press(&s, VIEW_KEY_LEFT) && view_stage(&s) == STAGE_SCALE, "Left -> back to scaling");
    CHECK(press(&s, VIEW_KEY_BACKSPACE) && view_stage(&s) == STAGE_SCORES, "Backspace -> scores");
    CHECK(press(&s, VIEW_KEY_PAGEUP) && view_stage(&s) == STAGE_PROJECT, "PageUp -> projections");
    // End: the last row a lesson has (the model's own rows after it: MODEL_ONLY), which every
    // lesson has.
    Stage last = STAGE_OUTPUT;
    CHECK(!stage_info(last)->present, "the last lesson stage is in every lesson");
    for (int i = last + 1; i < STAGE_COUNT; i++)
        CHECK(model_only((Stage)i), "%s after W^O: a model's own", stage_key((Stage)i));
    CHECK(press(&s, VIEW_KEY_END) && view_stage(&s) == last, "End -> %s", stage_key(last));
    CHECK(!press(&s, VIEW_KEY_RIGHT) && view_stage(&s) == last, "no stage after the last");
    CHECK(!press(&s, VIEW_KEY_END), "End at the end changes nothing");
    CHECK(press(&s, VIEW_KEY_HOME) && view_stage(&s) == STAGE_INPUT, "Home -> input");

    view_init(&s, &causal);
    CHECK(s.stage_count == LESSON_STAGES - 2, "a causal lesson has %d stages, got %d",
          LESSON_STAGES - 2, s.stage_count);
    // Right goes through the table's rows in order, but positions and rotate (the mask included).
    int walked = 0;
    for (int i = 0; i < STAGE_COUNT; i++) {
        if (i == STAGE_POSITIONS || i == STAGE_ROTATE || model_only((Stage)i)) continue;
        CHECK(view_stage(&s) == (Stage)i, "causal stage %d is %s, got %s", walked,
              stage_key((Stage)i), stage_key(view_stage(&s)));
        CHECK(press(&s, VIEW_KEY_RIGHT) == (i < STAGE_OUTPUT), "Right after %s",
              stage_key((Stage)i));
        walked++;
    }
    CHECK(walked == s.stage_count && walked > STAGE_MASK, "every causal stage walked (%d)", walked);
    // Reloading a lesson without a mask while on the mask stage falls back to the stage before it.
    view_init(&s, &causal);
    for (int i = 0; i < 4; i++) press(&s, VIEW_KEY_RIGHT);
    CHECK(view_stage(&s) == STAGE_MASK, "on the mask stage");
    view_set_dims(&s, &cat);
    CHECK(view_stage(&s) == STAGE_SCALE, "mask vanished -> scaling, got %s",
          stage_key(view_stage(&s)));
    press(&s, VIEW_KEY_RIGHT);
    view_set_dims(&s, &causal);
    CHECK(view_stage(&s) == STAGE_SOFTMAX, "reload keeps the softmax stage, got %s",
          stage_key(view_stage(&s)));
}

static void test_heads(void)
{
    ViewDims twelve = {5, 5, 48, 12, 4, false, false, false, NULL, 0, 0},
             two = {3, 3, 4, 2, 2, false, false, false, NULL, 0, 0};
    ViewState s;
    view_init(&s, &twelve);
    CHECK(s.head == 0 && s.view == VIEW_ONE_HEAD, "head 0, one-head view");
    CHECK(digit(&s, 3) && s.head == 2, "key 3 -> head index 2");
    CHECK(!digit(&s, 3), "key 3 again changes nothing");
    CHECK(digit(&s, 9) && s.head == 8, "key 9 -> head index 8");
    CHECK(press(&s, VIEW_KEY_TAB) && s.head == 9, "Tab -> next head");
    press(&s, VIEW_KEY_TAB);
    press(&s, VIEW_KEY_TAB);
    CHECK(s.head == 11, "head 11");
    CHECK(press(&s, VIEW_KEY_TAB) && s.head == 0, "Tab wraps to head 0");
    CHECK(press_mod(&s, VIEW_KEY_TAB, VIEW_MOD_SHIFT) && s.head == 11,
          "Shift+Tab wraps back to 11");
    CHECK(press(&s, VIEW_KEY_A) && s.view == VIEW_ALL_HEADS, "A -> all heads");
    CHECK(press(&s, VIEW_KEY_A) && s.view == VIEW_ONE_HEAD, "A again -> one head");
    press(&s, VIEW_KEY_A);
    CHECK(digit(&s, 2) && s.view == VIEW_ONE_HEAD && s.head == 1,
          "a digit in the grid shows that head alone");

    view_init(&s, &two);
    CHECK(!digit(&s, 3) && s.head == 0, "key 3 with 2 heads does nothing");
    CHECK(digit(&s, 2) && s.head == 1, "key 2 -> head 1");
    view_set_dims(&s, &(ViewDims){3, 3, 4, 1, 4, false, false, false, NULL, 0, 0});
    CHECK(s.head == 0, "a reload with fewer heads resets the head");
    CHECK(!press(&s, VIEW_KEY_TAB), "Tab with one head does nothing");
}

static void test_reveal(void)
{
    ViewDims cat = {3, 3, 4, 2, 2, false, false, false, NULL, 0, 0};
    ViewState s;
    view_init(&s, &cat);
    CHECK(view_reveal_total(&s) == 0 && !press(&s, VIEW_KEY_PERIOD),
          "nothing to reveal on the input stage");
    press(&s, VIEW_KEY_RIGHT);
    CHECK(view_reveal_total(&s) == 3 * 2 * 3, "projections: Q, K, V cells = 18, got %d",
          view_reveal_total(&s));
    press(&s, VIEW_KEY_RIGHT);
    CHECK(view_stage(&s) == STAGE_SCORES && view_reveal_total(&s) == 9, "scores: 9 cells");
    CHECK(s.reveal == -1, "the whole result shows on arrival");
    CHECK(press(&s, VIEW_KEY_PERIOD) && s.reveal == 1, "'.' starts the reveal with one cell");
    CellRef first = view_reveal_cell(&s, 0);
    CHECK(first.mat == MAT_SCORES && first.row == 0 && first.col == 0,
          "first revealed cell is S[0,0]");
    CHECK(view_cell_revealed(&s, first), "S[0,0] shown");
    CHECK(!view_cell_revealed(&s, (CellRef){MAT_SCORES, 0, 0, 1}), "S[0,1] not yet");
    CHECK(view_cell_revealed(&s, (CellRef){MAT_SCORES, 1, 2, 2}),
          "other heads are not being revealed");
    CHECK(view_cell_revealed(&s, (CellRef){MAT_Q, 0, 2, 1}), "inputs always shown");
    CellRef f = view_focus_cell(&s);
    CHECK(f.mat == MAT_SCORES && f.row == 0 && f.col == 0,
          "the newest cell's arithmetic is explained");
    press(&s, VIEW_KEY_PERIOD);
    press(&s, VIEW_KEY_PERIOD);
    press(&s, VIEW_KEY_PERIOD);
    CHECK(s.reveal == 4, "4 cells");
    CellRef c4 = view_reveal_cell(&s, 3);
    CHECK(c4.row == 1 && c4.col == 0, "cell 4 is row 1, col 0 (row by row)");
    CHECK(view_cell_revealed(&s, (CellRef){MAT_SCORES, 0, 1, 0})
              && !view_cell_revealed(&s, (CellRef){MAT_SCORES, 0, 1, 1}),
          "row 1: first cell shown, second not");
    CHECK(press(&s, VIEW_KEY_COMMA) && s.reveal == 3, "',' takes one back");
    for (int i = 0; i < 10; i++) press(&s, VIEW_KEY_COMMA);
    CHECK(s.reveal == 0, "down to an empty result");
    CHECK(!press(&s, VIEW_KEY_COMMA), "not below 0");
    for (int i = 0; i < 9; i++) press(&s, VIEW_KEY_PERIOD);
    CHECK(s.reveal == -1, "after the last cell the whole result shows, got %d", s.reveal);
    press(&s, VIEW_KEY_PERIOD);
    CHECK(press(&s, VIEW_KEY_RIGHT) && s.reveal == -1, "a new stage shows its whole result");
    while (view_stage(&s) != STAGE_OUTPUT && press(&s, VIEW_KEY_RIGHT)) {}
    CHECK(view_stage(&s) == STAGE_OUTPUT && view_reveal_total(&s) == 3 * 4,
          "output: n x d_model cells");
    press(&s, VIEW_KEY_LEFT);
    CHECK(view_stage(&s) == STAGE_CONCAT && view_reveal_total(&s) == 3 * 4,
          "concat: n x h*d_k cells");
    press(&s, VIEW_KEY_PERIOD);
    CHECK(view_cell_revealed(&s, (CellRef){MAT_CONCAT, 1, 0, 0}), "concat cells are not per head");
    CHECK(!view_cell_revealed(&s, (CellRef){MAT_CONCAT, 1, 0, 1}),
          "concat cell 2 hidden for every head");
    // Projections reveal Q, then K, then V.
    view_init(&s, &cat);
    press(&s, VIEW_KEY_RIGHT);
    for (int i = 0; i < 7; i++) press(&s, VIEW_KEY_PERIOD);
    CellRef k0 = view_reveal_cell(&s, 6);
    CHECK(k0.mat == MAT_K && k0.row == 0 && k0.col == 0, "7th projection cell is K[0,0]");
    CHECK(view_cell_revealed(&s, k0) && !view_cell_revealed(&s, (CellRef){MAT_K, 0, 0, 1}),
          "K revealed in order");
    CHECK(view_cell_revealed(&s, (CellRef){MAT_KT, 0, 0, 0})
              && !view_cell_revealed(&s, (CellRef){MAT_V, 0, 0, 0}),
          "K^T follows K; V not yet");
}

static void test_other_keys(void)
{
    ViewDims cat = {3, 3, 4, 2, 2, false, false, false, NULL, 0, 0};
    ViewState s;
    view_init(&s, &cat);
    CHECK(press(&s, VIEW_KEY_F11) && s.fullscreen, "F11 -> fullscreen");
    CHECK(press(&s, VIEW_KEY_F) && !s.fullscreen, "F -> windowed");
    CHECK(press(&s, VIEW_KEY_PLUS) && s.zoom > 1.0, "+ zooms in");
    for (int i = 0; i < 20; i++) press(&s, VIEW_KEY_PLUS);
    CHECK(s.zoom == VIEW_ZOOM_MAX && !press(&s, VIEW_KEY_PLUS), "zoom stops at the maximum");
    CHECK(press(&s, VIEW_KEY_0) && s.zoom == 1.0, "0 resets the zoom");
    CHECK(press(&s, VIEW_KEY_MINUS) && s.zoom < 1.0, "- zooms out");
    for (int i = 0; i < 20; i++) press(&s, VIEW_KEY_MINUS);
    CHECK(s.zoom == VIEW_ZOOM_MIN, "zoom stops at the minimum");
    press(&s, VIEW_KEY_0);
    ViewEvent wheel = {.kind = VIEW_EV_WHEEL, .wheel = 1, .mods = VIEW_MOD_CTRL, .head = -1};
    CHECK(view_handle(&s, &wheel) && s.zoom > 1.0, "Ctrl+wheel zooms");
    press(&s, VIEW_KEY_0);
    CHECK(s.colormap == COLORMAP_VIRIDIS, "viridis by default");
    CHECK(press(&s, VIEW_KEY_C) && s.colormap == COLORMAP_CIVIDIS, "C -> cividis");
    CHECK(press(&s, VIEW_KEY_C) && s.colormap == COLORMAP_GREY, "C -> greyscale");
    CHECK(press(&s, VIEW_KEY_C) && s.colormap == COLORMAP_VIRIDIS, "C -> viridis again");
    CHECK(press(&s, VIEW_KEY_H) && s.help, "H opens the help");
    CHECK(press(&s, VIEW_KEY_H) && !s.help, "H closes it");
    CHECK(press(&s, VIEW_KEY_F1) && s.help, "F1 opens the help");
    CHECK(press(&s, VIEW_KEY_ESCAPE) && !s.help && !s.quit, "Esc closes the help first");
    CHECK(press(&s, VIEW_KEY_F1) && press(&s, VIEW_KEY_RIGHT) && s.help && s.help_page == 1
              && view_stage(&s) == STAGE_INPUT,
          "in the help, the next-stage key turns its page, the stage stays");
    CHECK(press(&s, VIEW_KEY_TAB) && !s.help && view_stage(&s) == STAGE_INPUT,
          "another key closes the help and acts");
    CHECK(press(&s, VIEW_KEY_RIGHT) && view_stage(&s) == STAGE_PROJECT,
          "then the key steps the stage");
    CHECK(press(&s, VIEW_KEY_ESCAPE) && !s.quit && s.request == VIEW_REQ_QUIT_HINT,
          "Esc with nothing open does not quit: it asks the owner to say how (Q)");
    view_init(&s, &cat);
    CHECK(press(&s, VIEW_KEY_Q) && s.quit, "Q quits");
    view_init(&s, &cat);
    CHECK(!press(&s, VIEW_KEY_NONE), "unknown keys change nothing");

    // Hover and click.
    ViewEvent hover = {.kind = VIEW_EV_HOVER, .cell = {MAT_X, 0, 1, 2}, .head = -1};
    CHECK(view_handle(&s, &hover), "hover on a cell changes the screen");
    CHECK(!view_handle(&s, &hover), "the same cell again does not");
    CellRef f = view_focus_cell(&s);
    CHECK(f.mat == MAT_X && f.row == 1 && f.col == 2, "hovered cell is the focus");
    ViewEvent click = {.kind = VIEW_EV_CLICK, .cell = {MAT_X, 0, 0, 0}, .head = -1};
    CHECK(view_handle(&s, &click) && s.pinned.mat == MAT_X, "click pins");
    f = view_focus_cell(&s);
    CHECK(f.row == 0 && f.col == 0, "the pinned cell wins over hover");
    CHECK(view_handle(&s, &click) && s.pinned.mat == MAT_NONE, "clicking it again unpins");
    view_handle(&s, &click);
    CHECK(press(&s, VIEW_KEY_ESCAPE) && !s.quit && s.pinned.mat == MAT_NONE,
          "Esc unpins before quitting");
    ViewEvent leave = {.kind = VIEW_EV_HOVER, .head = -1};
    CHECK(view_handle(&s, &leave) && view_focus_cell(&s).mat == MAT_NONE,
          "leaving clears the focus");
    // A click on a head's panel in the grid shows that head.
    press(&s, VIEW_KEY_A);
    ViewEvent pick = {.kind = VIEW_EV_CLICK, .head = 1};
    CHECK(view_handle(&s, &pick) && s.head == 1 && s.view == VIEW_ONE_HEAD,
          "click on head 2's panel");
    // E and Shift+E ask the owner for slides; they close the help first, like any key.
    CHECK(press(&s, VIEW_KEY_E) && s.request == VIEW_REQ_EXPORT, "E asks for the heatmap export");
    CHECK(press_mod(&s, VIEW_KEY_E, VIEW_MOD_SHIFT) && s.request == VIEW_REQ_EXPORT_BOARD,
          "Shift+E asks for the board");
    press(&s, VIEW_KEY_H);
    CHECK(press(&s, VIEW_KEY_E) && !s.help && s.request == VIEW_REQ_EXPORT,
          "E closes the help and exports");
    press(&s, VIEW_KEY_RIGHT);
    CHECK(s.request == VIEW_REQ_NONE, "a request lasts one event");
    ViewEvent resize = {.kind = VIEW_EV_RESIZE, .x = 1920, .y = 1080, .head = -1};
    CHECK(view_handle(&s, &resize) && s.width == 1920 && s.height == 1080, "resize");
    CHECK(!view_handle(&s, &resize), "same size again");
}

// Sub-steps: the scene reports how many equations the stage shows one at a time; the keys go
// through them before the next stage, and back from the next stage lands on the last one. Issue 25:
// Esc never quits. Pressed five times on every stage, whatever is open (the help, a panel, a pinned
// cell, the zoom, a question), it closes one thing per press and leaves the program running.
static void test_escape_never_quits(void)
{
    ViewDims dims = {5, 5, 4, 2, 2, true, true, false, NULL, 0, 0};
    ViewQuestion qs[2] = {{STAGE_SOFTMAX, 1, QUIZ_CLICK, MAT_WEIGHTS, 0},
                          {STAGE_SCORES, 0, QUIZ_KEYS, MAT_SCORES, 3}};
    static const ViewKey OPEN[] = {VIEW_KEY_NONE, VIEW_KEY_H, VIEW_KEY_K,
                                   VIEW_KEY_M,    VIEW_KEY_X, VIEW_KEY_PLUS};
    ViewState s;
    view_init(&s, &dims);
    int checked = 0;
    for (int i = 0; i < s.stage_count; i++)
        for (size_t o = 0; o < sizeof OPEN / sizeof OPEN[0]; o++) {
            view_init(&s, &dims);
            view_set_questions(&s, qs, 2);
            ViewEvent st = {.kind = VIEW_EV_STAGE, .value = i, .head = -1};
            view_handle(&s, &st);
            if (OPEN[o] != VIEW_KEY_NONE) press(&s, OPEN[o]);
            ViewEvent click = {.kind = VIEW_EV_CLICK, .cell = {MAT_X, 0, 0, 0}, .head = -1};
            if (o == 0) view_handle(&s, &click);
            bool hinted = false;
            for (int k = 0; k < 5; k++) {
                CHECK(press(&s, VIEW_KEY_ESCAPE) && !s.quit,
                      "stage %d, open %zu: Esc %d does not quit", i, o, k + 1);
                hinted |= s.request == VIEW_REQ_QUIT_HINT;
                checked++;
            }
            CHECK(hinted && !s.help && s.panel == PANEL_NONE && s.zoom == 1.0
                      && s.quiz_phase == QUIZ_NONE && s.pinned.mat == MAT_NONE,
                  "stage %d, open %zu: five Esc close everything and then say how to quit", i, o);
        }
    view_init(&s, &dims);
    press(&s, VIEW_KEY_PLUS);
    press(&s, VIEW_KEY_PLUS);
    s.pan_x = 0.9;
    CHECK(press(&s, VIEW_KEY_ESCAPE) && s.zoom == 1.0 && s.pan_x == 0.5
              && s.request == VIEW_REQ_NONE,
          "Esc resets the zoom (one thing per press)");
    CHECK(press(&s, VIEW_KEY_Q) && s.quit,
          "Q quits (the owner asks first when edits would be lost)");
    CHECK(checked == 5 * 6 * s.stage_count && s.stage_count == LESSON_STAGES - 1,
          "every stage checked (%d presses)", checked);
}

static void test_substeps(void)
{
    ViewDims cat = {3, 3, 4, 2, 2, false, false, false, NULL, 0, 0};
    ViewState s;
    view_init(&s, &cat);
    press(&s, VIEW_KEY_RIGHT);
    CHECK(view_stage(&s) == STAGE_PROJECT && s.substep == 0, "projections, first sub-step");
    view_set_substeps(&s, 3, s.substep); // the scene showed Q alone: one of three
    CHECK(press(&s, VIEW_KEY_PAGEDOWN) && view_stage(&s) == STAGE_PROJECT && s.substep == 1,
          "PageDown -> K (%d)", s.substep);
    CHECK(press(&s, VIEW_KEY_RIGHT) && view_stage(&s) == STAGE_PROJECT && s.substep == 2,
          "Right -> V");
    CHECK(press(&s, VIEW_KEY_SPACE) && view_stage(&s) == STAGE_SCORES && s.substep == 0,
          "Space -> scores");
    CHECK(press(&s, VIEW_KEY_LEFT) && view_stage(&s) == STAGE_PROJECT, "Left -> projections again");
    view_set_substeps(&s, 3, s.substep); // the scene clamps "the last" to 2
    CHECK(s.substep == 2, "back from the next stage: the last sub-step, got %d", s.substep);
    CHECK(press(&s, VIEW_KEY_PAGEUP) && s.substep == 1, "PageUp -> K");
    // "." fills the result on screen: K's 3 x 2 cells on the second sub-step, not Q's.
    press(&s, VIEW_KEY_RIGHT); // V
    press(&s, VIEW_KEY_LEFT); // K
    CHECK(s.substep == 1 && view_reveal_total(&s) == 6, "K's 6 cells to fill, got %d",
          view_reveal_total(&s));
    press(&s, VIEW_KEY_PERIOD);
    CellRef k0 = view_reveal_cell(&s, 0);
    CHECK(k0.mat == MAT_K && k0.row == 0 && k0.col == 0,
          "the first cell filled is K[0][0] (mat %d)", k0.mat);
    CHECK(view_cell_revealed(&s, k0) && !view_cell_revealed(&s, (CellRef){MAT_K, 0, 0, 1}),
          "one K cell filled");
    CHECK(view_cell_revealed(&s, (CellRef){MAT_Q, 0, 2, 1}),
          "Q, from the sub-step before, stays whole");
    view_set_substeps(&s, 1, 5); // a larger window shows all three at once
    CHECK(view_reveal_total(&s) == 18, "all at once: Q, K and V's 18 cells to fill, got %d",
          view_reveal_total(&s));
    CHECK(s.substep == 0 && s.substep_count == 1, "one sub-step when everything fits");
    CHECK(press(&s, VIEW_KEY_RIGHT) && view_stage(&s) == STAGE_SCORES,
          "then Right goes straight on");
    // A stage shown as its inputs, then "= result": nothing to fill until the result is on screen.
    view_set_substeps(&s, 2, 0);
    CHECK(view_reveal_total(&s) == 0 && !press(&s, VIEW_KEY_PERIOD),
          "no cells to fill while only the inputs show");
    press(&s, VIEW_KEY_RIGHT);
    CHECK(s.substep == 1 && view_reveal_total(&s) == 9,
          "the scores' 9 cells once the result shows");
}

// Zoom: + makes the board larger, arrows pan it while zoomed (not the stage), 0 fits it again.
static void test_zoom_pan(void)
{
    ViewDims cat = {3, 3, 4, 2, 2, false, false, false, NULL, 0, 0};
    ViewState s;
    view_init(&s, &cat);
    press(&s, VIEW_KEY_RIGHT);
    CHECK(press(&s, VIEW_KEY_UP) && view_stage(&s) == STAGE_INPUT, "unzoomed, Up is a stage key");
    view_init(&s, &cat);
    press(&s, VIEW_KEY_PLUS);
    press(&s, VIEW_KEY_PLUS);
    CHECK(s.zoom > 1.5 && s.zoom < 1.6, "two presses of + zoom 1.5625, got %g", s.zoom);
    CHECK(press(&s, VIEW_KEY_RIGHT) && view_stage(&s) == STAGE_INPUT && s.pan_x > 0.5,
          "zoomed, Right pans");
    CHECK(press(&s, VIEW_KEY_DOWN) && s.pan_y > 0.5 && view_stage(&s) == STAGE_INPUT,
          "zoomed, Down pans");
    for (int i = 0; i < 10; i++) press(&s, VIEW_KEY_RIGHT);
    CHECK(s.pan_x == 1.0 && !press(&s, VIEW_KEY_RIGHT), "the pan stops at the edge");
    CHECK(press(&s, VIEW_KEY_PAGEDOWN) && view_stage(&s) == STAGE_PROJECT,
          "zoomed, PageDown still steps");
    CHECK(press(&s, VIEW_KEY_0) && s.zoom == 1.0 && s.pan_x == 0.5 && s.pan_y == 0.5,
          "0 fits and centres");
    ViewEvent drag;
    memset(&drag, 0, sizeof drag);
    drag.kind = VIEW_EV_PAN;
    drag.x = -100;
    view_set_pan_span(&s, 400, 200);
    CHECK(!view_handle(&s, &drag), "unzoomed, a drag on no cell moves nothing");
    press(&s, VIEW_KEY_PLUS);
    CHECK(view_handle(&s, &drag) && s.pan_x == 0.75 && s.pan_y == 0.5,
          "zoomed, dragging left by 100 of 400 px "
          "shows more of the right: pan %g",
          s.pan_x);
    drag.x = 0;
    drag.y = 1000;
    CHECK(view_handle(&s, &drag) && s.pan_y == 0.0, "a long drag down stops at the top: pan %g",
          s.pan_y);
    CHECK(press(&s, VIEW_KEY_N) && s.notes && press(&s, VIEW_KEY_N) && !s.notes,
          "N shows and hides the notes");
}

// The stage table: the stages of a lesson, the heatmaps, the reveal order, keys.
static void test_stage_table(void)
{
    AttnParams p;
    memset(&p, 0, sizeof p);
    p.n = p.m = 3;
    p.d_model = 4;
    p.heads = 2;
    p.d_k = 2;
    Stage st[STAGE_COUNT];
    CHECK(model_stages(&p, st) == LESSON_STAGES - 3,
          "every stage but positions, rotate and the mask");
    p.mask = MASK_CAUSAL;
    CHECK(model_stages(&p, st) == LESSON_STAGES - 2 && st[4] == STAGE_MASK,
          "the mask stage for causal lessons");
    CHECK(model_stage_heatmap(&p, STAGE_PROJECT) == MAT_NONE, "no heatmap before the scores");
    CHECK(model_stage_heatmap(&p, STAGE_SCALE) == MAT_SCALED, "the scaled scores' heatmap");
    CHECK(model_stage_heatmap(&p, STAGE_OUTPUT) == MAT_WEIGHTS, "the weights after the softmax");
    CHECK(model_reveal_total(&p, STAGE_PROJECT) == 3 * 6, "Q, K and V are revealed: %d",
          model_reveal_total(&p, STAGE_PROJECT));
    CellRef c = model_reveal_cell(&p, STAGE_PROJECT, 1, 7);
    CHECK(c.mat == MAT_K && c.head == 1 && c.row == 0 && c.col == 1,
          "cell 7 of the projections is K[0][1]");
    CHECK(model_reveal_index(&p, STAGE_PROJECT, 1, c) == 7, "and back");
    CHECK(model_reveal_index(&p, STAGE_SCORES, 0, (CellRef){MAT_SCORES, 1, 0, 0}) == -1,
          "another head's cell is not revealed");
    Stage k;
    for (int i = 0; i < STAGE_COUNT; i++) {
        const StageInfo *si = stage_info((Stage)i);
        CHECK(si && si->stage == (Stage)i && si->equations && si->formula && si->explain,
              "stage %d has a full row", i);
        CHECK(model_stage_from_key(si->key, &k) && k == (Stage)i, "stage key %s", si->key);
        CHECK(strcmp(si->key, stage_key((Stage)i)) == 0, "the table's key is the core's: %s",
              si->key);
    }
    for (int m = MAT_X; m < MAT_COUNT; m++) {
        const MatInfo *mi = mat_info((MatId)m);
        CHECK(mi && mi->id == (MatId)m && mi->value, "matrix %d has a row", m);
        CHECK(!mi->editable || mi->param, "editable matrix %s says where it lives", mi->key);
    }
    char name[64];
    model_mat_name(NULL, MAT_WQ, 1, name, sizeof name);
    CHECK(strcmp(name, "W\xe2\x82\x81^Q") == 0, "W_1^Q is written W₁^Q, got %s", name);
    model_mat_name(NULL, MAT_MASKED, 0, name, sizeof name);
    CHECK(strcmp(name, "S\xe2\x80\xb2\xe2\x82\x80 + M") == 0, "S'_0 + M, got %s", name);
    model_format_value(1.0, name, sizeof name);
    CHECK(strcmp(name, "1") == 0, "exact integers without decimals: %s", name);
    model_format_value(-0.61111, name, sizeof name);
    CHECK(strcmp(name, "\xe2\x88\x92"
                       "0.6111")
              == 0,
          "4 decimals with a minus sign: %s", name);
}

static bool click(ViewState *s, CellRef c)
{
    ViewEvent e;
    memset(&e, 0, sizeof e);
    e.kind = VIEW_EV_CLICK;
    e.cell = c;
    e.head = -1;
    return view_handle(s, &e);
}

static void go_to(ViewState *s, Stage st)
{
    for (int i = 0; i < 20 && view_stage(s) != st; i++) press(s, VIEW_KEY_RIGHT);
}

// Predict, then reveal: a question is asked when its stage is reached (head and one-head view set,
// the result hidden); the keys answer it, not the view; the owner judges (VIEW_REQ_ANSWER) and the
// reveal runs.
static void test_questions(void)
{
    ViewDims cat = {3, 3, 4, 2, 2, false, false, false, NULL, 0, 0};
    ViewState s;
    view_init(&s, &cat);
    ViewQuestion qs[3] = {
        {STAGE_SOFTMAX, 1, QUIZ_CLICK, MAT_WEIGHTS, 0},
        {STAGE_SOFTMAX, 0, QUIZ_TYPE, MAT_WEIGHTS, 0},
        {STAGE_SCORES, 0, QUIZ_KEYS, MAT_SCORES, 3},
    };
    view_set_questions(&s, qs, 3);
    CHECK(s.quiz == -1 && s.quiz_phase == QUIZ_NONE, "nothing asked on the input stage");
    press(&s, VIEW_KEY_A); // the all-heads view: a question goes back to one head
    go_to(&s, STAGE_SCORES);
    CHECK(view_stage(&s) == STAGE_SCORES && s.quiz == 2 && s.quiz_phase == QUIZ_ASKING,
          "scores asks question 3: %d", s.quiz);
    CHECK(s.reveal == 0 && s.view == VIEW_ONE_HEAD && s.head == 0,
          "result hidden, one head (reveal %d)", s.reveal);
    CellRef c00 = {MAT_SCORES, 0, 0, 0};
    CHECK(!view_cell_revealed(&s, c00), "the scores are hidden");
    // Keys that would show the result or another head are held back; a choice key out of range does
    // nothing.
    CHECK(!press(&s, VIEW_KEY_PERIOD) && s.reveal == 0, "'.' does not fill the hidden result");
    CHECK(!press(&s, VIEW_KEY_TAB) && s.head == 0, "Tab does not change the head");
    CHECK(!press(&s, VIEW_KEY_A) && s.view == VIEW_ONE_HEAD, "A does not show every head");
    CHECK(!press(&s, VIEW_KEY_M) && s.panel == PANEL_NONE, "M does not open the comparison");
    CHECK(!digit(&s, 4) && s.quiz_phase == QUIZ_ASKING, "key 4 of 3 choices does nothing");
    // A hovered hidden cell explains nothing (its arithmetic would be the answer).
    ViewEvent hov = {.kind = VIEW_EV_HOVER, .cell = {MAT_SCORES, 0, 1, 2}, .head = -1};
    view_handle(&s, &hov);
    CHECK(view_focus_cell(&s).mat == MAT_NONE, "no focus on a hidden cell while asking");
    CHECK(digit(&s, 3) && s.quiz_phase == QUIZ_JUDGING && s.quiz_choice == 2
              && s.request == VIEW_REQ_ANSWER,
          "key 3 answers choice 2 and asks the owner to judge");
    view_quiz_judged(&s, true, (CellRef){MAT_SCORES, 0, 1, 2}, (CellRef){MAT_SCORES, 0, 1, 2});
    CHECK(s.quiz_phase == QUIZ_REVEALED && s.quiz_right && s.question_done[2],
          "judged right, done");
    CHECK(s.reveal == 6 && view_cell_revealed(&s, c00)
              && !view_cell_revealed(&s, (CellRef){MAT_SCORES, 0, 2, 0}),
          "revealed up to the answer (6 cells of 9): %d", s.reveal);
    CHECK(view_focus_cell(&s).row == 1 && view_focus_cell(&s).col == 2,
          "the answer's arithmetic is pinned");
    CHECK(press(&s, VIEW_KEY_PERIOD) && s.reveal == 7, "'.' goes on from there");
    CHECK(press(&s, VIEW_KEY_ESCAPE) && s.quiz_phase == QUIZ_NONE && !s.quit,
          "Esc closes the verdict first");
    // Back and forth: an answered question is not asked again.
    press(&s, VIEW_KEY_LEFT);
    press(&s, VIEW_KEY_RIGHT);
    CHECK(view_stage(&s) == STAGE_SCORES && s.quiz_phase == QUIZ_NONE && s.reveal == -1,
          "scores again: no question");

    // The softmax asks question 1 on head 1; a click on a cell of another head or matrix does not
    // answer.
    go_to(&s, STAGE_SOFTMAX);
    CHECK(s.quiz == 0 && s.head == 1 && s.quiz_phase == QUIZ_ASKING,
          "softmax asks question 1 on head 1");
    click(&s, (CellRef){MAT_WEIGHTS, 0, 1, 1});
    click(&s, (CellRef){MAT_SCORES, 1, 1, 1});
    CHECK(s.quiz_phase == QUIZ_ASKING && s.request == VIEW_REQ_NONE,
          "head 0's weights, head 1's scores: no answer");
    CHECK(click(&s, (CellRef){MAT_WEIGHTS, 1, 1, 2}) && s.quiz_phase == QUIZ_JUDGING
              && s.request == VIEW_REQ_ANSWER && s.quiz_cell.row == 1 && s.quiz_cell.col == 2,
          "a click on head 1's weights answers");
    view_quiz_judged(&s, false, (CellRef){MAT_WEIGHTS, 1, 1, 1}, (CellRef){MAT_WEIGHTS, 1, 1, 2});
    CHECK(!s.quiz_right && s.reveal == 6 && s.pinned.col == 1,
          "wrong: row 1 revealed to its end, the answer pinned");
    // "Next" asks the stage's next question before it moves on: question 2 (a value, head 0).
    CHECK(press(&s, VIEW_KEY_RIGHT) && view_stage(&s) == STAGE_SOFTMAX && s.quiz == 1 && s.head == 0
              && s.quiz_phase == QUIZ_ASKING && s.reveal == 0,
          "Right asks question 2 first");
    // Typing: digits, one point, a leading minus, Backspace; Enter submits only a number.
    CHECK(!press(&s, VIEW_KEY_ENTER) && s.quiz_phase == QUIZ_ASKING,
          "Enter with nothing typed submits nothing");
    press(&s, VIEW_KEY_MINUS);
    digit(&s, 7);
    press(&s, VIEW_KEY_BACKSPACE);
    press(&s, VIEW_KEY_BACKSPACE);
    CHECK(s.quiz_input[0] == '\0' && s.zoom == 1.0,
          "minus and Backspace edit the number, not the zoom");
    press(&s, VIEW_KEY_0);
    press(&s, VIEW_KEY_PERIOD);
    press(&s, VIEW_KEY_COMMA); // a second point is ignored
    digit(&s, 6);
    CHECK(strcmp(s.quiz_input, "0.6") == 0 && s.head == 0,
          "typed 0.6 (digits are not heads now): '%s'", s.quiz_input);
    CHECK(press(&s, VIEW_KEY_ENTER) && s.quiz_phase == QUIZ_JUDGING && s.quiz_value == 0.6,
          "Enter submits 0.6");
    view_quiz_judged(&s, true, (CellRef){MAT_WEIGHTS, 0, 0, 0}, (CellRef){MAT_WEIGHTS, 0, 0, 0});
    CHECK(s.reveal == 1, "a value question reveals up to its cell: %d", s.reveal);
    CHECK(press(&s, VIEW_KEY_RIGHT) && view_stage(&s) == STAGE_WEIGHTED_SUM
              && s.quiz_phase == QUIZ_NONE,
          "no question left: Right moves on");

    // Esc skips a question: the result shows and the question is done.
    view_set_questions(&s, qs, 3);
    go_to(&s, STAGE_OUTPUT);
    press(&s, VIEW_KEY_HOME);
    go_to(&s, STAGE_SCORES);
    CHECK(s.quiz == 2 && s.quiz_phase == QUIZ_ASKING, "asked again after new questions");
    CHECK(press(&s, VIEW_KEY_ESCAPE) && s.quiz_phase == QUIZ_NONE && s.reveal == -1
              && s.question_done[2] && !s.quit,
          "Esc skips");
    // Leaving a stage leaves its question, which comes back with the stage.
    go_to(&s, STAGE_SOFTMAX);
    CHECK(s.quiz == 0, "softmax asks");
    press(&s, VIEW_KEY_LEFT);
    CHECK(view_stage(&s) == STAGE_SCALE && s.quiz_phase == QUIZ_NONE && s.reveal == -1,
          "left the question behind");
    press(&s, VIEW_KEY_RIGHT);
    CHECK(s.quiz == 0 && s.quiz_phase == QUIZ_ASKING, "and it is asked again");

    // P: an automatic question; the owner asks it with view_quiz_ask; the counter makes the next
    // one differ.
    press(&s, VIEW_KEY_ESCAPE);
    CHECK(press(&s, VIEW_KEY_P) && s.request == VIEW_REQ_AUTO_QUESTION && s.quiz_auto_count == 1,
          "P asks the owner");
    ViewQuestion auto_q = {STAGE_SOFTMAX, 1, QUIZ_CLICK, MAT_WEIGHTS, 0};
    press(&s, VIEW_KEY_HOME);
    view_quiz_ask(&s, &auto_q, VIEW_QUIZ_AUTO);
    CHECK(view_stage(&s) == STAGE_SOFTMAX && s.head == 1 && s.quiz == VIEW_QUIZ_AUTO
              && s.reveal == 0,
          "the automatic question goes to the softmax of its head");
    CHECK(!press(&s, VIEW_KEY_P) && s.quiz_auto_count == 1,
          "no second automatic question while one waits");
    view_set_dims(&s, &cat);
    CHECK(s.quiz_phase == QUIZ_NONE, "a reloaded lesson drops the question on screen");

    // A question on K goes to the sub-step that shows K when the projections come one at a time;
    // the reveal then runs through K's cells (the second of three sub-steps).
    ViewQuestion on_k = {STAGE_PROJECT, 0, QUIZ_TYPE, MAT_K, 0};
    view_set_questions(&s, &on_k, 1);
    press(&s, VIEW_KEY_HOME);
    press(&s, VIEW_KEY_RIGHT);
    CHECK(view_stage(&s) == STAGE_PROJECT && s.quiz == 0 && s.substep == VIEW_SUBSTEP_RESULT + 1,
          "K's sub-step asked for: %d", s.substep);
    view_set_substeps(&s, 3, s.substep); // what the scene reports: Q, K and V one at a time
    CHECK(s.substep == 1 && s.reveal == 0 && view_reveal_total(&s) == 6, "K (3x2) hidden: %d cells",
          view_reveal_total(&s));
    { // Each equation in two parts (its inputs, then "= result"): K's result is the fourth of six.
        ViewState six = s;
        six.substep = VIEW_SUBSTEP_RESULT + 1;
        view_set_substeps(&six, 6, six.substep);
        CHECK(six.substep == 3 && view_reveal_total(&six) == 6, "K's part of six: %d (%d cells)",
              six.substep, view_reveal_total(&six));
        view_set_substeps(&six, 6, 2);
        CHECK(view_reveal_total(&six) == 0, "K's inputs: nothing to reveal (%d)",
              view_reveal_total(&six));
    }
    view_quiz_judged(&s, true, (CellRef){MAT_K, 0, 1, 0}, (CellRef){MAT_K, 0, 1, 0});
    CHECK(s.reveal == 3, "K revealed through [1, 0]: %d", s.reveal);
    // Issue 36: a single-result stage in parts is asked on the part that shows its result (hidden)
    // beside the inputs it is made from ("A" alone, then "· V = Z": asked over V and the hidden Z),
    // and answered there.
    ViewQuestion on_z = {STAGE_WEIGHTED_SUM, 0, QUIZ_TYPE, MAT_Z, 0};
    view_quiz_ask(&s, &on_z, VIEW_QUIZ_AUTO);
    CHECK(view_stage(&s) == STAGE_WEIGHTED_SUM && s.substep == VIEW_SUBSTEP_RESULT,
          "Z's part asked for: %d", s.substep);
    const MatId parts_az[2] = {MAT_NONE, MAT_Z};
    view_set_parts(&s, 2, s.substep, parts_az);
    CHECK(s.substep == 1 && view_reveal_total(&s) == 6 && s.reveal == 0,
          "V beside Z, Z hidden (%d cells, reveal %d)", view_reveal_total(&s), s.reveal);
    view_set_parts(&s, 2, 0, parts_az);
    CHECK(view_reveal_total(&s) == 0, "the part of A alone reveals nothing (%d)",
          view_reveal_total(&s));
    view_set_parts(&s, 2, 1, parts_az);
    view_quiz_judged(&s, true, (CellRef){MAT_Z, 0, 1, 0}, (CellRef){MAT_Z, 0, 1, 0});
    view_set_parts(&s, 2, s.substep, parts_az);
    CHECK(s.substep == 1 && view_reveal_total(&s) == 6 && s.reveal == 3,
          "judged: Z's part, filled through [1, 0]: "
          "sub-step %d, reveal %d",
          s.substep, s.reveal);
}

// Issue 14's keys: O asks to switch the head off, [ and ] move the scale (Shift: finer), X opens
// the shuffle panel; the slider's steps land on its stops and stay between its ends.
static void test_teaching_keys(void)
{
    ViewDims dims = {3, 3, 4, 2, 2, false, true, false, NULL, 0, 0};
    ViewState s;
    view_init(&s, &dims);
    CHECK(s.stage_count == LESSON_STAGES - 2 && s.stages[1] == STAGE_POSITIONS,
          "with positions the Positions stage is second");
    CHECK(press(&s, VIEW_KEY_O) && s.request == VIEW_REQ_ABLATE, "O asks to switch the head off");
    CHECK(press(&s, VIEW_KEY_RIGHTBRACKET) && s.request == VIEW_REQ_SCALE && s.request_delta == 1.0,
          "] scale up");
    CHECK(press_mod(&s, VIEW_KEY_LEFTBRACKET, VIEW_MOD_SHIFT) && s.request == VIEW_REQ_SCALE
              && s.request_delta == -0.25,
          "Shift+[ a fine step down");
    CHECK(press(&s, VIEW_KEY_X) && s.panel == PANEL_SHUFFLE, "X opens the shuffle panel");
    CHECK(press(&s, VIEW_KEY_X) && s.panel == PANEL_NONE, "X closes it");
    press(&s, VIEW_KEY_X);
    CHECK(press(&s, VIEW_KEY_ESCAPE) && s.panel == PANEL_NONE && !s.quit,
          "Esc closes the shuffle panel first");
    CHECK(press_mod(&s, VIEW_KEY_X, VIEW_MOD_SHIFT) && s.panel == PANEL_SHUFFLE && s.shuffle == 0,
          "Shift+X opens it");
    for (int k = 1; k <= 3; k++) press_mod(&s, VIEW_KEY_X, VIEW_MOD_SHIFT);
    CHECK(s.shuffle == 3, "Shift+X steps through the reorderings: %d", s.shuffle);
    press_mod(&s, VIEW_KEY_X, VIEW_MOD_SHIFT); // 3 tokens: reversal + 3 swaps, then around
    CHECK(s.shuffle == 0 && view_shuffle_count(3) == 4, "around again after %d",
          view_shuffle_count(3));
    int perm[5];
    view_shuffle_perm(0, 5, perm);
    CHECK(perm[0] == 4 && perm[2] == 2 && perm[4] == 0, "0: reversed");
    view_shuffle_perm(7, 5, perm);
    CHECK(perm[0] == 0 && perm[1] == 4 && perm[4] == 1 && perm[2] == 2,
          "7: tokens 1 and 4 swapped");
    view_shuffle_perm(11, 5, perm);
    CHECK(perm[0] == 4 && perm[4] == 0, "11 = 0 again (1 + 10 reorderings)");
    // The slider: d_k = 64 (paper-base). Up from 1/64 by quarter octaves reaches 1/8 exactly, then
    // 1, then 4.
    double v = 1.0 / 64;
    int steps = 0;
    bool hit_root = false, hit_one = false;
    while (v < VIEW_SCALE_MAX && steps < 100) {
        v = view_scale_step(v, 64, 1, false);
        hit_root = hit_root || v == 1.0 / 8;
        hit_one = hit_one || v == 1.0;
        steps++;
    }
    CHECK(hit_root && hit_one && v == VIEW_SCALE_MAX,
          "up the slider: stops 1/8 and 1 landed on, ends at 4 (%g)", v);
    CHECK(view_scale_step(VIEW_SCALE_MAX, 64, 1, false) == VIEW_SCALE_MAX, "no further than 4");
    CHECK(view_scale_step(view_scale_min(64), 64, -1, false) == view_scale_min(64),
          "no lower than 1/(4 d_k)");
    CHECK(view_scale_step(0.14, 64, -1, false) == 0.125,
          "down from 0.14: the stop 1/8 (not 0.1177)");
    CHECK(view_scale_step(0.9, 2, 1, false) == 1.0, "d_k 2: up from 0.9 lands on 1 (not 1.07)");
    CHECK(view_scale_step(0.65, 2, 1, false) == 1.0 / sqrt(2.0),
          "d_k 2: up from 0.65 lands on 1/sqrt 2 (not 0.77)");
    ViewEvent slide = {.kind = VIEW_EV_SCALE, .value = 0.3, .head = -1};
    CHECK(view_handle(&s, &slide) && s.request == VIEW_REQ_SCALE_SET && s.request_delta == 0.3,
          "the slider sets 0.3");
    slide.value = -1;
    CHECK(!view_handle(&s, &slide) && s.request == VIEW_REQ_NONE,
          "no negative scale from the slider");
    double fine = view_scale_step(1.0, 2, 1, true);
    CHECK(fabs(fine - pow(2.0, 1.0 / 16)) < 1e-15, "a fine step is 2^(1/16): %g", fine);
}

// A press on the header's strip: that stage at its first part, from either side; the stage on
// screen steps through its parts and back to the first; overlays close; nonsense indices change
// nothing.
static void test_strip_press(void)
{
    ViewDims d = {4, 4, 4, 2, 2, true, false, false, NULL, 0, 0}; // causal: 9 stages
    ViewState s;
    view_init(&s, &d);
    ViewEvent e;
    memset(&e, 0, sizeof e);
    e.kind = VIEW_EV_STAGE;
    e.head = -1;
    int softmax = -1, project = -1;
    for (int i = 0; i < s.stage_count; i++) {
        if (s.stages[i] == STAGE_SOFTMAX) softmax = i;
        if (s.stages[i] == STAGE_PROJECT) project = i;
    }
    e.value = softmax;
    CHECK(view_handle(&s, &e) && view_stage(&s) == STAGE_SOFTMAX && s.substep == 0,
          "a press on softmax goes there");
    e.value = project;
    CHECK(view_handle(&s, &e) && view_stage(&s) == STAGE_PROJECT && s.substep == 0,
          "back to the projections: its first part (%d), not its last", s.substep);
    view_set_substeps(&s, 3, 0);
    CHECK(view_handle(&s, &e) && s.substep == 1, "the stage on screen: its next part (%d)",
          s.substep);
    CHECK(view_handle(&s, &e) && s.substep == 2, "and the next (%d)", s.substep);
    CHECK(view_handle(&s, &e) && s.substep == 0 && view_stage(&s) == STAGE_PROJECT,
          "after the last, its first (%d)", s.substep);
    s.help = true;
    e.value = softmax;
    CHECK(view_handle(&s, &e) && !s.help && view_stage(&s) == STAGE_SOFTMAX,
          "the help closes and the stage changes");
    const double BAD[] = {-1, (double)s.stage_count, 1e300, NAN};
    for (int i = 0; i < 4; i++) {
        e.value = BAD[i];
        CHECK(!view_handle(&s, &e) && view_stage(&s) == STAGE_SOFTMAX, "index %g changes nothing",
              BAD[i]);
    }
}

int main(void)
{
    test_substeps();
    test_escape_never_quits();
    test_strip_press();
    test_zoom_pan();
    test_stage_table();
    test_stages();
    test_heads();
    test_reveal();
    test_other_keys();
    test_questions();
    test_teaching_keys();
    return check_report("test_view");
}
