// Private to src/model: the moves of the view state (view.c) that the keys (view_keys.c) and the
// events (view_events.c) make. view.c is the bottom of the three: it calls neither.
#ifndef MHA_VIEW_MOVES_H
#define MHA_VIEW_MOVES_H

#include "model/view.h"

// The stage at index (go) or one further (dir -1 or 1), a part of the stage, the head, the zoom, a
// pan, an edit of the hovered weight by delta, and closing a question. Each returns whether the
// view changed.
bool view_go_stage(ViewState *s, int index);
bool view_step_stage(ViewState *s, int dir);
bool view_sub_step(ViewState *s, int dir);
bool view_set_head(ViewState *s, int head);
bool view_set_zoom(ViewState *s, double z);
bool view_pan(ViewState *s, double dx, double dy);
bool view_request_edit(ViewState *s, double delta);
void view_quiz_close(ViewState *s);

// A lesson of layers: past its last stage (dir +1) or before its first (-1), the walk asks its
// owner for the next (previous) layer (VIEW_REQ_LAYER). False when there is none that way.
bool view_walk_layer(ViewState *s, int dir);

#endif
