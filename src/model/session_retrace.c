// The window's edits traced on a worker thread (issue 27: an edit of the trace-limit lesson, 512 tokens of
// d_model 768, froze the window for 0.4 s): session_edit changes the value at once and starts the trace of a
// copy of the parameters here; until it is shown the screen keeps the previous trace, marked as recomputing.
// Edits made meanwhile are traced when it ends (the latest values, one trace); a trace that fails undoes the
// edits since the last good one. Everything else that changes the session waits for it first (session_settle).
#include "session.h"
#include "session_internal.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "platform/platform.h"

#define UNDO_MAX 256 // edits remembered until their trace is shown (more: the edit is traced at once)

struct SessionRetrace {
    PlatformThread *thread;
    atomic_bool done;
    bool busy;           // a trace runs (or ran and is not yet shown)
    bool again;          // edited since it started: trace the latest values when it ends
    bool has_p;
    AttnParams p;        // the copy traced
    Trace t;
    bool ok;
    TraceError err;
    int undo_count;      // the edits since the last trace shown, oldest first, with the values they replaced
    CellRef undo_cell[UNDO_MAX];
    double undo_old[UNDO_MAX];
};

static int job_run(void *arg)
{
    SessionRetrace *r = arg;
    r->ok = trace_run(&r->t, &r->p, &r->err);
    atomic_store(&r->done, true);
    return 0;
}

// Starts the trace of the edited parameters as they are now.
static bool job_start(Session *s)
{
    SessionRetrace *r = s->rt;
    if (!r->has_p && !(r->has_p = params_copy(&r->p, &s->edit))) return false;
    params_copy_weights(&r->p, &s->edit);
    r->p.scale = s->edit.scale;
    r->p.ablated = s->edit.ablated;
    r->p.rope_shift = s->edit.rope_shift; // key S: the shift shown is the shift traced
    // (the embeddings too: params_copy_weights copies the weights only)
    const Matrix *src[] = {&s->edit.X, &s->edit.S, &s->edit.E, &s->edit.P, &s->edit.E_S, &s->edit.P_S};
    Matrix *dst[] = {&r->p.X, &r->p.S, &r->p.E, &r->p.P, &r->p.E_S, &r->p.P_S};
    for (size_t i = 0; i < sizeof src / sizeof src[0]; i++)
        if (src[i]->data) memcpy(dst[i]->data, src[i]->data, (size_t)src[i]->rows * (size_t)src[i]->cols * sizeof(double));
    r->again = false;
    r->busy = true;
    atomic_store(&r->done, false);
    r->thread = platform_thread_start(job_run, r);
    if (!r->thread) job_run(r);
    return true;
}

bool session_retrace_edit(Session *s, CellRef c, double old)
{
    if (!s->retrace_async) return false;
    if (!s->rt && !(s->rt = calloc(1, sizeof *s->rt))) return false;
    SessionRetrace *r = s->rt;
    if (r->undo_count == UNDO_MAX) return false;
    r->undo_cell[r->undo_count] = c;
    r->undo_old[r->undo_count++] = old;
    if (r->busy) {
        r->again = true;
        return true;
    }
    if (!job_start(s)) {
        r->undo_count--;
        return false;
    }
    return true;
}

// Joins the ended trace: shown when the values did not change since it started, else the latest traced;
// a failure undoes the edits since the last trace shown. Returns false with err on a failure.
static SessionRetracePoll finish(Session *s, SessionError *err)
{
    SessionRetrace *r = s->rt;
    platform_thread_join(r->thread);
    r->thread = NULL;
    r->busy = false;
    if (!r->ok) {
        for (int i = r->undo_count - 1; i >= 0; i--) view_param_set(&s->edit, r->undo_cell[i], r->undo_old[i]);
        r->undo_count = 0;
        r->again = false;
        session_error_set(err, r->err.message);
        return SESSION_RETRACE_FAILED;
    }
    if (r->again) { // the screen keeps the previous trace until the latest values are traced
        trace_free(&r->t);
        if (job_start(s)) return SESSION_RETRACE_IDLE;
        session_error_set(err, "out of memory");
        for (int i = r->undo_count - 1; i >= 0; i--) view_param_set(&s->edit, r->undo_cell[i], r->undo_old[i]);
        r->undo_count = 0;
        return SESSION_RETRACE_FAILED;
    }
    r->undo_count = 0;
    session_took_trace(s, r->t);
    return SESSION_RETRACE_SHOWN;
}

SessionRetracePoll session_retrace_poll(Session *s, SessionError *err)
{
    session_error_set(err, "");
    if (!s->rt || !s->rt->busy || !atomic_load(&s->rt->done)) return SESSION_RETRACE_IDLE;
    return finish(s, err);
}

bool session_retrace_busy(const Session *s) { return s->rt && s->rt->busy; }

SessionRetracePoll session_settle(Session *s, SessionError *err)
{
    SessionRetracePoll p = SESSION_RETRACE_IDLE;
    session_error_set(err, "");
    while (s->rt && s->rt->busy) {
        p = finish(s, err);
        if (p == SESSION_RETRACE_FAILED) break;
    }
    return p;
}

void session_retrace_free(Session *s)
{
    if (!s->rt) return;
    if (s->rt->busy) {
        platform_thread_join(s->rt->thread);
        if (s->rt->ok) trace_free(&s->rt->t);
    }
    if (s->rt->has_p) params_free(&s->rt->p);
    free(s->rt);
    s->rt = NULL;
}
