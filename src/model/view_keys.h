// Private to src/model: what each key of keys.def does to the view (view_keys.c), which the events
// (view_events.c) hand their keys to.
#ifndef MHA_VIEW_KEYS_H
#define MHA_VIEW_KEYS_H

#include "model/view.h"

// Carries out key ev (shift: Shift is held) by the key table: true when the view changed or asked
// for something (s->request). false: not a key of the view's.
bool view_key_act(ViewState *s, const ViewEvent *ev, bool shift);

#endif
