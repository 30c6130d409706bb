// Private to src/model: the view's key table (view_keys.c) and the steps of view.c it calls.
#ifndef MHA_VIEW_KEYS_H
#define MHA_VIEW_KEYS_H

#include "model/view.h"

// Carries out key ev (shift: Shift is held) by the key table: true when the view changed or asked
// for something (s->request). false: not a key of the view's.
bool view_key_act(ViewState *s, const ViewEvent *ev, bool shift);

// view.c's steps, which the keys take: the stage at index (go) or one further (dir -1 or 1), a part
// of the stage, the head, the zoom, a pan, an edit of the hovered weight by delta, and closing a
// question.
bool view_go_stage(ViewState *s, int index);
bool view_step_stage(ViewState *s, int dir);
bool view_sub_step(ViewState *s, int dir);
bool view_set_head(ViewState *s, int head);
bool view_set_zoom(ViewState *s, double z);
bool view_pan(ViewState *s, double dx, double dy);
bool view_request_edit(ViewState *s, double delta);
void view_quiz_close(ViewState *s);

#endif
