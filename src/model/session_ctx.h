// Private to the session's rooms (session.c: the document; session_train.c: training on a worker;
// session_trace.c: the trace of the edits, below both): what one room calls in another. Not an API:
// session.h is.
#ifndef MHA_SESSION_CTX_H
#define MHA_SESSION_CTX_H

#include <stdio.h>

#include "model/session.h"

// err's message (err may be NULL).
static inline void set_error(SessionError *err, const char *message)
{
    if (err) snprintf(err->message, sizeof err->message, "%s", message);
}

// --- session_trace.c ---
// The shuffle test's lesson and trace freed (it is made again for another shuffle).
void session_drop_shuffle(Session *s);
// The parameters changed: what was computed from the old ones goes.
void session_drop_comparison(Session *s);
// The count of edited values taken again (after every change of s->edit).
void session_recount(Session *s);
// Traces s->edit again into s->trace (after an edit's trace on the worker); false (s->trace kept)
// when the trace fails.
bool session_retrace(Session *s, SessionError *err);

// --- session_train.c ---
// The training goes with its lesson: the job (joined when it runs) and the trainer freed.
void session_drop_training(Session *s);

#endif
