// Between session.c and session_retrace.c (not for use outside src/model/session*.c).
#ifndef MHA_SESSION_INTERNAL_H
#define MHA_SESSION_INTERNAL_H

#include "session.h"

void session_error_set(SessionError *err, const char *msg);
// t (the trace of s->edit as it is now) replaces s->trace; the comparisons go, the edit count is taken again.
void session_took_trace(Session *s, Trace t);
// With retrace_async: the edit of cell c (its value was old) traced on the worker; false when it must be traced
// here (not async, no memory, too many edits waiting).
bool session_retrace_edit(Session *s, CellRef c, double old);
// Waits for the worker's trace and frees what it keeps (a lesson of other sizes is loaded, or the session ends).
void session_retrace_free(Session *s);

#endif
