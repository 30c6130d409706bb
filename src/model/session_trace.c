// The session's trace of its edited parameters (see session.h): taken again here or on the worker
// (retrace.h), and what was computed from the old parameters dropped. Below the document
// (session.c) and its training (session_train.c), which both call it.
#include "model/retrace.h"
#include "model/session.h"
#include "model/session_ctx.h"

#include <stdlib.h>
#include <string.h>

void session_drop_shuffle(Session *s)
{
    if (s->shuf_state == SESSION_CMP_READY) {
        lesson_free(&s->shuf.lesson);
        trace_free(&s->shuf.trace);
        free(s->shuf.perm);
    }
    memset(&s->shuf, 0, sizeof s->shuf);
    s->shuf_state = SESSION_CMP_NONE;
}

// The parameters changed: what was computed from the old ones goes.
void session_drop_comparison(Session *s)
{
    if (s->cmp_state == SESSION_CMP_READY) compare_free(&s->cmp);
    s->cmp_state = SESSION_CMP_NONE;
    session_drop_shuffle(s);
    s->tiles_ready = false;
}

// The count of edited values, kept with every change of s->edit (each is traced again, or shown
// with the trace the worker made): counting them compares every weight (2.4 M at BERT's shape), too
// slow for every frame.
void session_recount(Session *s)
{
    s->edit_count = s->loaded ? view_param_edit_count(&s->lesson.params, &s->edit) : 0;
}

// t (the trace of s->edit as it is now) replaces s->trace; the comparisons go, the edit count is
// taken again.
static void took_trace(Session *s, Trace t)
{
    trace_free(&s->trace);
    s->trace = t;
    session_drop_comparison(s);
    session_recount(s);
}

// The worker's trace of the edits taken: shown, started again on the latest values, or the edits
// undone.
static SessionRetracePoll take_retrace(Session *s, SessionError *err)
{
    Trace t;
    char msg[sizeof err->message];
    RetraceResult r = retrace_finish(s->rt, &s->edit, &t, msg, sizeof msg);
    if (r == RETRACE_FAILED) {
        set_error(err, msg);
        session_recount(s);
        return SESSION_RETRACE_FAILED;
    }
    if (r == RETRACE_IDLE) return SESSION_RETRACE_IDLE;
    took_trace(s, t);
    return SESSION_RETRACE_SHOWN;
}

SessionRetracePoll session_retrace_poll(Session *s, SessionError *err)
{
    set_error(err, "");
    return retrace_ended(s->rt) ? take_retrace(s, err) : SESSION_RETRACE_IDLE;
}

bool session_retrace_busy(const Session *s) { return retrace_busy(s->rt); }

SessionRetracePoll session_settle(Session *s, SessionError *err)
{
    SessionRetracePoll p = SESSION_RETRACE_IDLE;
    set_error(err, "");
    while (retrace_busy(s->rt)) {
        p = take_retrace(s, err);
        if (p == SESSION_RETRACE_FAILED) break;
    }
    return p;
}

// Traces s->edit again into s->trace (after an edit's trace on the worker); false (s->trace kept)
// when the trace fails.
bool session_retrace(Session *s, SessionError *err)
{
    if (session_settle(s, err) == SESSION_RETRACE_FAILED) return false;
    Trace t;
    TraceError terr;
    if (!trace_run(&t, &s->edit, &terr)) {
        set_error(err, terr.message);
        return false;
    }
    took_trace(s, t);
    return true;
}
