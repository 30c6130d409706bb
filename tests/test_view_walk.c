// Tests the walk with → and ← headless, with an owner that reports parts as the scene would: every
// part of the class's head in order, a question asked before the part that shows its result (on
// its own head, then back to the same place), ← retracing the same parts, a skipped question asked
// again after going back over it or Home.
#include <string.h>

#include "model/view.h"
#include "check.h"

// The scene's plan of a stage in parts: the result each part shows (MAT_NONE: inputs only).
typedef struct {
    Stage stage;
    int count;
    MatId map[3];
} FakePlan;

static const FakePlan PLANS[] = {
    {STAGE_PROJECT, 3, {MAT_Q, MAT_K, MAT_V}},
    {STAGE_SCORES, 2, {MAT_NONE, MAT_SCORES}},
    {STAGE_SOFTMAX, 2, {MAT_NONE, MAT_WEIGHTS}},
};

// What the window does after each event: builds the scene (which reports its parts), and asks the
// question due on a stage just reached, building again.
static void frame(ViewState *s)
{
    static const MatId one[1] = {MAT_NONE};
    int count = 1;
    const MatId *map = one;
    for (size_t i = 0; i < sizeof PLANS / sizeof PLANS[0]; i++)
        if (PLANS[i].stage == view_stage(s)) count = PLANS[i].count, map = PLANS[i].map;
    view_set_parts(s, count, s->substep, map);
    if (view_walk_settle(s)) view_set_parts(s, count, s->substep, map);
}

static bool press(ViewState *s, ViewKey k)
{
    ViewEvent e;
    memset(&e, 0, sizeof e);
    e.kind = VIEW_EV_KEY;
    e.key = k;
    e.head = -1;
    bool changed = view_handle(s, &e);
    frame(s);
    return changed;
}

static void answer(ViewState *s)
{
    CellRef c = {s->quiz_q.mat, s->head, 0, 0};
    view_quiz_judged(s, true, c, c);
    frame(s);
}

static int stage_at(const ViewState *s, Stage st)
{
    for (int i = 0; i < s->stage_count; i++)
        if (s->stages[i] == st) return i;
    return -1;
}

// The class's head shows the same part again, the next one, or the next stage's first.
static bool step_ok(const ViewState *s, int stage, int part)
{
    return (s->stage_index == stage && (s->substep == part || s->substep == part + 1))
           || (s->stage_index == stage + 1 && s->substep == 0);
}

// From Home on head `head` to the end, answering each question: every part of the head shown in
// order, each question asked on its head before its result shows, then back on `head`.
static void walk_forward(ViewState *s, int head, int expect_asked)
{
    press(s, VIEW_KEY_HOME);
    s->head = head;
    frame(s);
    int asked = 0, stage = s->stage_index, part = s->substep, guard = 0;
    while (guard++ < 200) {
        if (!press(s, VIEW_KEY_RIGHT)) break;
        while (s->quiz_phase == QUIZ_ASKING && guard++ < 200) {
            asked++;
            CHECK(s->quiz_q.head == s->head, "asked on its own head %d (on %d)", s->quiz_q.head,
                  s->head);
            CHECK(s->reveal == 0, "its result hidden");
            if (s->head == head) {
                CHECK(step_ok(s, stage, part), "asked after stage %d part %d: stage %d part %d",
                      stage, part, s->stage_index, s->substep);
                stage = s->stage_index, part = s->substep;
            } else {
                CHECK(s->stage_index == stage || s->stage_index == stage + 1,
                      "asked at the stage reached (%d after %d)", s->stage_index, stage);
            }
            answer(s);
            if (s->head == head) {
                CHECK(step_ok(s, stage, part), "answered: stage %d part %d", s->stage_index,
                      s->substep);
                stage = s->stage_index, part = s->substep;
            }
            CHECK(press(s, VIEW_KEY_RIGHT), "→ after the verdict moves");
        }
        CHECK(s->head == head, "back on head %d after the question (on %d)", head, s->head);
        CHECK(step_ok(s, stage, part), "part after stage %d part %d: stage %d part %d", stage, part,
              s->stage_index, s->substep);
        stage = s->stage_index, part = s->substep;
    }
    CHECK(stage == s->stage_count - 1, "the walk ends on the last stage (%d)", stage);
    CHECK(asked == expect_asked, "%d questions asked of %d", asked, expect_asked);
}

// ← from the end to Home: the same parts backwards, on the same head, nothing asked.
static void walk_back(ViewState *s, int head)
{
    int stage = s->stage_index, part = s->substep, guard = 0;
    while (guard++ < 200 && press(s, VIEW_KEY_LEFT)) {
        CHECK(s->quiz_phase == QUIZ_NONE && s->head == head, "← asks nothing, stays on head %d",
              head);
        bool back = (s->stage_index == stage && s->substep == part - 1)
                    || (s->stage_index == stage - 1 && s->substep == s->substep_count - 1);
        CHECK(back, "← from stage %d part %d to stage %d part %d", stage, part, s->stage_index,
              s->substep);
        stage = s->stage_index, part = s->substep;
    }
    CHECK(stage == 0 && part == 0, "← ends at Home (%d, %d)", stage, part);
}

static void test_walk_heads(void)
{
    ViewDims dims = {3, 3, 4, 2, 2, false, false, false, NULL, 0, 0};
    ViewState s;
    view_init(&s, &dims);
    ViewQuestion qs[3] = {
        {STAGE_PROJECT, 1, QUIZ_TYPE, MAT_K, 0}, // head 1's K: part 2 of 3
        {STAGE_SOFTMAX, 0, QUIZ_CLICK, MAT_WEIGHTS, 0}, // head 0's A: part 2 of 2
        {STAGE_SCORES, 1, QUIZ_TYPE, MAT_SCORES, 0},
    };
    view_set_questions(&s, qs, 3);
    frame(&s);
    for (int head = 0; head < 2; head++) {
        view_set_questions(&s, qs, 3);
        walk_forward(&s, head, 3);
        walk_back(&s, head);
    }
    // Head 0 in detail: Q₀ shown, then the question on head 1's K, then K₀ on head 0.
    view_set_questions(&s, qs, 3);
    press(&s, VIEW_KEY_HOME);
    s.head = 0;
    press(&s, VIEW_KEY_RIGHT);
    CHECK(s.stage_index == stage_at(&s, STAGE_PROJECT) && s.substep == 0 && s.head == 0
              && s.quiz_phase == QUIZ_NONE,
          "→ from the input: Q₀ (part %d, head %d)", s.substep, s.head);
    press(&s, VIEW_KEY_RIGHT);
    CHECK(s.quiz == 0 && s.head == 1 && s.substep == 1 && s.walk_head == 0,
          "then the question on K₁ (head %d, part %d)", s.head, s.substep);
    answer(&s);
    press(&s, VIEW_KEY_RIGHT);
    CHECK(s.head == 0 && s.substep == 1 && s.quiz_phase == QUIZ_NONE,
          "back on head 0 at K₀ (head %d, part %d)", s.head, s.substep);
    // ← while a question on another head waits: back on the class's head, the part before.
    view_set_questions(&s, qs, 3);
    press(&s, VIEW_KEY_HOME);
    press(&s, VIEW_KEY_RIGHT);
    press(&s, VIEW_KEY_RIGHT);
    CHECK(s.quiz == 0 && s.head == 1, "asked on head 1");
    press(&s, VIEW_KEY_LEFT);
    CHECK(s.head == 0 && s.substep == 0 && s.quiz_phase == QUIZ_NONE,
          "← goes back to Q₀ on head 0 (head %d, part %d)", s.head, s.substep);
    press(&s, VIEW_KEY_RIGHT);
    CHECK(s.quiz == 0 && s.quiz_phase == QUIZ_ASKING, "→ asks it again");
}

// A skipped question is asked again after ← back over it and →, or after Home and →; an answered
// one is not.
static void test_walk_skipped(void)
{
    ViewDims dims = {3, 3, 4, 2, 2, false, false, false, NULL, 0, 0};
    ViewState s;
    view_init(&s, &dims);
    ViewQuestion qs[2] = {
        {STAGE_SOFTMAX, 0, QUIZ_CLICK, MAT_WEIGHTS, 0},
        {STAGE_SCORES, 0, QUIZ_TYPE, MAT_SCORES, 0},
    };
    view_set_questions(&s, qs, 2);
    frame(&s);
    int softmax = stage_at(&s, STAGE_SOFTMAX);
    for (int i = 0; i < 40 && s.quiz != 0; i++) {
        if (s.quiz_phase == QUIZ_ASKING) answer(&s); // the scores' question: answered
        press(&s, VIEW_KEY_RIGHT);
    }
    CHECK(s.quiz == 0 && s.stage_index == softmax && s.substep == 1,
          "the softmax's question on its result's part (%d)", s.substep);
    press(&s, VIEW_KEY_RIGHT); // skipped: the result shows
    CHECK(s.quiz_phase == QUIZ_NONE && s.question_done[0], "skipped");
    press(&s, VIEW_KEY_RIGHT);
    press(&s, VIEW_KEY_LEFT);
    press(&s, VIEW_KEY_LEFT);
    CHECK(s.stage_index == softmax - 1 || s.substep == 0, "back over it");
    for (int i = 0; i < 6 && s.quiz != 0; i++) press(&s, VIEW_KEY_RIGHT);
    CHECK(s.quiz == 0 && s.quiz_phase == QUIZ_ASKING, "asked again after ← and →");
    press(&s, VIEW_KEY_ESCAPE);
    CHECK(s.question_done[0], "skipped again");
    press(&s, VIEW_KEY_HOME);
    int scores_asked = 0;
    for (int i = 0; i < 40 && s.quiz != 0; i++) {
        press(&s, VIEW_KEY_RIGHT);
        if (s.quiz == 1) scores_asked++;
    }
    CHECK(s.quiz == 0 && s.quiz_phase == QUIZ_ASKING, "asked again after Home and →");
    CHECK(scores_asked == 0, "the answered question is not asked again");
}

int main(void)
{
    test_walk_heads();
    test_walk_skipped();
    return check_report("test_view_walk");
}
