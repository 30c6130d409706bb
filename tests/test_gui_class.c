// Tests the window's questions before edits are lost (issue 25) without a window: a lesson dropped
// on unsaved edits is asked about first (opened at once otherwise), and the keys answer each
// question as it says: before quitting Q quits, before opening a dropped lesson Enter opens it;
// Ctrl+S saves first; Esc keeps the edits; any other key or a click changes nothing.
#include <string.h>

#include "app/gui_private.h"
#include "check.h"

static ViewEvent key(ViewKey k, unsigned mods)
{
    ViewEvent e;
    memset(&e, 0, sizeof e);
    e.kind = VIEW_EV_KEY;
    e.key = k;
    e.mods = mods;
    e.head = -1;
    return e;
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    CHECK(gui_drop_opens(false), "a drop with nothing unsaved opens the lesson at once");
    CHECK(!gui_drop_opens(true), "a drop on unsaved edits asks first");
    ViewEvent e = key(VIEW_KEY_ENTER, 0);
    CHECK(gui_confirm_decide(GUI_ASK_OPEN, &e) == GUI_ANSWER_GO, "Enter opens the dropped lesson");
    CHECK(gui_confirm_decide(GUI_ASK_QUIT, &e) == GUI_ANSWER_NONE, "Enter does not quit");
    CHECK(gui_confirm_decide(GUI_ASK_NONE, &e) == GUI_ANSWER_NONE,
          "no question: the key is the board's");
    e = key(VIEW_KEY_Q, 0);
    CHECK(gui_confirm_decide(GUI_ASK_QUIT, &e) == GUI_ANSWER_GO, "Q quits");
    CHECK(gui_confirm_decide(GUI_ASK_OPEN, &e) == GUI_ANSWER_NONE,
          "Q does not open the dropped lesson");
    e = key(VIEW_KEY_ESCAPE, 0);
    CHECK(gui_confirm_decide(GUI_ASK_OPEN, &e) == GUI_ANSWER_STAY
              && gui_confirm_decide(GUI_ASK_QUIT, &e) == GUI_ANSWER_STAY,
          "Esc keeps the edits");
    e = key(VIEW_KEY_S, VIEW_MOD_CTRL);
    CHECK(gui_confirm_decide(GUI_ASK_OPEN, &e) == GUI_ANSWER_SAVE_GO
              && gui_confirm_decide(GUI_ASK_QUIT, &e) == GUI_ANSWER_SAVE_GO,
          "Ctrl+S saves, then opens or quits");
    e = key(VIEW_KEY_S, 0);
    CHECK(gui_confirm_decide(GUI_ASK_OPEN, &e) == GUI_ANSWER_NONE, "S alone is not Ctrl+S");
    static const ViewKey OTHERS[] = {VIEW_KEY_RIGHT, VIEW_KEY_SPACE, VIEW_KEY_H,
                                     VIEW_KEY_R,     VIEW_KEY_A,     VIEW_KEY_DIGIT};
    for (size_t i = 0; i < sizeof OTHERS / sizeof OTHERS[0]; i++) {
        e = key(OTHERS[i], 0);
        CHECK(gui_confirm_decide(GUI_ASK_OPEN, &e) == GUI_ANSWER_NONE
                  && gui_confirm_decide(GUI_ASK_QUIT, &e) == GUI_ANSWER_NONE,
              "key %d answers neither question", (int)OTHERS[i]);
    }
    memset(&e, 0, sizeof e);
    e.kind = VIEW_EV_CLICK;
    CHECK(gui_confirm_decide(GUI_ASK_OPEN, &e) == GUI_ANSWER_NONE, "a click answers nothing");
    return check_report("test_gui_class");
}
