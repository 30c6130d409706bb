// The walk through a lesson with → and ←: every part of every stage of the class's head in order,
// each of the lesson's questions asked just before the part that shows its result (on its own
// head, coming back to the class's head at the same place), and ← retracing the same parts.
#include <string.h>

#include "model/view.h"
#include "model/view_keys.h"
#include "model/view_moves.h"

// Where question q's result is in its stage's list of results (K: the second of Q, K, V); the
// first result when it asks about something else.
static int result_place(const ViewQuestion *q)
{
    const StageInfo *si = stage_info(q->stage);
    for (int i = 0; si && i < 3 && si->results[i] != MAT_NONE; i++)
        if (si->results[i] == q->mat) return i;
    return 0;
}

static int stage_result_index(Stage stage, MatId m)
{
    const StageInfo *si = stage_info(stage);
    for (int i = 0; si && m != MAT_NONE && i < 3 && si->results[i] != MAT_NONE; i++)
        if (si->results[i] == m) return i;
    return -1;
}

// The part of the stage on screen that first shows question q's result: from the scene's map of
// the parts (a part that shows several equations names the last one's result), else with each
// result's equation in an equal share of the parts, clamped to the parts there are.
static int walk_ask_part(const ViewState *s, const ViewQuestion *q)
{
    int place = result_place(q), count = s->substep_count > 0 ? s->substep_count : 1;
    if (s->part_map) {
        for (int k = 0; k < count && k < VIEW_PARTS_MAX; k++)
            if (stage_result_index(q->stage, s->part_result[k]) >= place) return k;
        return count - 1;
    }
    const StageInfo *si = stage_info(q->stage);
    int nres = 0;
    while (si && nres < 3 && si->results[nres] != MAT_NONE) nres++;
    int per = nres > 0 && count >= 2 && count % nres == 0 ? count / nres : 0;
    int k = per ? place * per + per - 1 : place;
    return k < count ? k : count - 1;
}

// The part shown, within the parts there are (a sub-step asked as "the part of result i" that the
// scene has not resolved yet counts as the last).
static int walk_part_now(const ViewState *s)
{
    int count = s->substep_count > 0 ? s->substep_count : 1;
    return s->substep < 0 ? 0 : s->substep >= count ? count - 1 : s->substep;
}

static bool question_on_stage(const ViewState *s, int i)
{
    return i >= 0 && i < s->question_count && s->questions[i].stage == view_stage(s);
}

static int question_head(const ViewState *s, int i, int class_head)
{
    int h = s->questions[i].head;
    return h >= 0 && h < s->dims.heads ? h : class_head;
}

// The question due before part `target` of the stage on screen shows on the class's head: one not
// yet answered or skipped whose result first shows at or before that part. Questions on other
// heads come first (the board comes back after them), then the class's head's own.
static int walk_due(const ViewState *s, int class_head, int target)
{
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < s->question_count; i++) {
            if (s->question_done[i] || !question_on_stage(s, i)) continue;
            bool own = question_head(s, i, class_head) == class_head;
            if (own == (pass == 1) && walk_ask_part(s, &s->questions[i]) <= target) return i;
        }
    return -1;
}

// Asks question i in front of part `target` of the class's head: on another head the board goes
// there and the next → comes back to (class_head, target).
static void walk_ask(ViewState *s, int i, int class_head, int target)
{
    bool own = question_head(s, i, class_head) == class_head;
    int now = walk_part_now(s), at = walk_ask_part(s, &s->questions[i]);
    bool here = own && s->head == class_head && s->part_map && now == at;
    if (!own && s->walk_head < 0) {
        s->walk_head = class_head;
        s->walk_part = target;
        s->walk_parts = s->substep_count;
    } else if (own) {
        s->walk_head = -1;
        s->head = class_head;
    }
    view_quiz_ask(s, &s->questions[i], i);
    // The class already on the result's part (an earlier question of it answered): asked there,
    // not on the inputs' part before it.
    if (here) s->substep = now;
}

// Going back before a skipped question forgets that it was skipped: the next pass asks it again.
// Answered questions stay answered (Home, like any step back, passes over them too).
static void walk_forget_skipped(ViewState *s)
{
    int part = walk_part_now(s);
    for (int i = 0; i < s->question_count; i++) {
        if (!s->question_skipped[i]) continue;
        int at = -1;
        for (int k = 0; k < s->stage_count; k++)
            if (s->stages[k] == s->questions[i].stage) at = k;
        bool ahead = at > s->stage_index
                     || (at == s->stage_index && walk_ask_part(s, &s->questions[i]) > part);
        if (ahead) s->question_done[i] = s->question_skipped[i] = false;
    }
}

// The part `target` of the stage on screen (the class's head, the result shown).
static bool walk_show_part(ViewState *s, int target)
{
    if (s->quiz_phase == QUIZ_REVEALED) view_quiz_close(s); // the verdict stays with its part
    s->substep = target;
    s->reveal = -1;
    memset(&s->pinned, 0, sizeof s->pinned);
    return true;
}

bool view_go_stage(ViewState *s, int index)
{
    if (index < 0) index = 0;
    if (index >= s->stage_count) index = s->stage_count - 1;
    if (index == s->stage_index) return false;
    bool back = index < s->stage_index;
    if (s->walk_head >= 0) s->head = s->walk_head; // leaving a question's head for the class's
    s->walk_head = -1;
    s->substep = back ? 1000 : 0; // back: the last sub-step (the scene clamps it)
    s->substep_count = 1;
    s->part_map = false;
    s->stage_index = index;
    s->reveal = -1;
    memset(&s->pinned, 0, sizeof s->pinned);
    view_quiz_close(s); // leaving a stage leaves its question (asked again when it comes back)
    if (back) walk_forget_skipped(s);
    s->walk_settle = !back; // forward: a question due on the first part, once its parts are known
    return true;
}

static bool walk_forward(ViewState *s)
{
    bool away = s->walk_head >= 0;
    int class_head = away ? s->walk_head : s->head;
    int target = away ? s->walk_part : walk_part_now(s) + 1;
    int due = walk_due(s, class_head, target);
    if (due >= 0) {
        walk_ask(s, due, class_head, target);
        return true;
    }
    if (away) { // back from the question's head, in front of the part it stood before
        s->head = class_head;
        s->walk_head = -1;
        view_quiz_close(s);
        if (target < s->walk_parts) {
            s->substep_count = s->walk_parts;
            s->part_map = false; // the class's head's map comes with the next frame
            return walk_show_part(s, target);
        }
    } else if (target < s->substep_count) {
        return walk_show_part(s, target);
    }
    return view_go_stage(s, s->stage_index + 1) || view_walk_layer(s, +1);
}

static bool walk_back(ViewState *s)
{
    bool away = s->walk_head >= 0;
    int target = away ? s->walk_part - 1 : walk_part_now(s) - 1;
    if (away) {
        s->head = s->walk_head;
        s->substep_count = s->walk_parts;
        s->part_map = false; // the class's head's map comes with the next frame
    }
    s->walk_head = -1;
    bool asked = s->quiz_phase != QUIZ_NONE;
    view_quiz_close(s); // a question left unanswered is asked again on the way forward
    if (target >= 0 && target < s->substep_count) {
        walk_show_part(s, target);
        walk_forget_skipped(s);
        return true;
    }
    if (view_go_stage(s, s->stage_index - 1)) return true;
    return view_walk_layer(s, -1) || away || asked;
}

// Next / previous: through the stage's parts first, then to the next stage; questions on the way.
bool view_step_stage(ViewState *s, int dir) { return dir > 0 ? walk_forward(s) : walk_back(s); }

bool view_walk_settle(ViewState *s)
{
    if (!s->walk_settle) return false;
    s->walk_settle = false;
    if (s->quiz_phase != QUIZ_NONE || s->panel != PANEL_NONE) return false;
    int part = walk_part_now(s), due = walk_due(s, s->head, part);
    if (due < 0) return false;
    walk_ask(s, due, s->head, part);
    return true;
}
