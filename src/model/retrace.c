// The window's edits traced on a worker thread (an edit of a lesson at the trace's
// limit, 512 tokens of d_model 768, takes 0.4 s: too long for a frame): session_edit changes the
// value at once and starts the trace of a copy of the parameters here; until it is shown the screen
// keeps the previous trace, marked as recomputing. Edits made meanwhile are traced when it ends
// (the latest values, one trace); a trace that fails undoes the edits since the last good one. The
// session (session.c) waits for it before anything else changes it.
#include "model/retrace.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/platform.h"

#define UNDO_MAX                                                                                   \
    256 // edits remembered until their trace is shown (more: the edit is traced at once)

struct Retrace {
    PlatformThread *thread;
    atomic_bool done;
    bool busy; // a trace runs (or ran and is not yet finished)
    bool again; // edited since it started: trace the latest values when it ends
    bool has_p;
    AttnParams p; // the copy traced
    Trace t;
    bool ok;
    TraceError err;
    int undo_count; // the edits since the last trace shown, oldest first, with the values they
                    // replaced
    CellRef undo_cell[UNDO_MAX];
    double undo_old[UNDO_MAX];
};

static int job_run(void *arg)
{
    Retrace *r = arg;
    r->ok = trace_run(&r->t, &r->p, &r->err);
    atomic_store(&r->done, true);
    return 0;
}

// Starts the trace of the edited parameters as they are now.
static bool job_start(Retrace *r, const AttnParams *edit)
{
    if (!r->has_p && !(r->has_p = params_copy(&r->p, edit))) return false;
    params_copy_weights(&r->p, edit);
    r->p.scale = edit->scale;
    r->p.ablated = edit->ablated;
    r->p.rope_shift = edit->rope_shift; // key S: the shift shown is the shift traced
    // (the embeddings too: params_copy_weights copies the weights only)
    const Matrix *src[] = {&edit->X, &edit->S, &edit->E, &edit->P, &edit->E_S, &edit->P_S};
    Matrix *dst[] = {&r->p.X, &r->p.S, &r->p.E, &r->p.P, &r->p.E_S, &r->p.P_S};
    for (size_t i = 0; i < sizeof src / sizeof src[0]; i++)
        if (src[i]->data)
            memcpy(dst[i]->data, src[i]->data,
                   (size_t)src[i]->rows * (size_t)src[i]->cols * sizeof(double));
    r->again = false;
    r->busy = true;
    atomic_store(&r->done, false);
    r->thread = platform_thread_start(job_run, r);
    if (!r->thread) job_run(r);
    return true;
}

bool retrace_edit(Retrace **rp, const AttnParams *edit, CellRef c, double old)
{
    if (!*rp && !(*rp = calloc(1, sizeof **rp))) return false;
    Retrace *r = *rp;
    if (r->undo_count == UNDO_MAX) return false;
    r->undo_cell[r->undo_count] = c;
    r->undo_old[r->undo_count++] = old;
    if (r->busy) {
        r->again = true;
        return true;
    }
    if (!job_start(r, edit)) {
        r->undo_count--;
        return false;
    }
    return true;
}

bool retrace_busy(const Retrace *r) { return r && r->busy; }
bool retrace_ended(const Retrace *r) { return r && r->busy && atomic_load(&r->done); }

static void undo(Retrace *r, AttnParams *edit)
{
    for (int i = r->undo_count - 1; i >= 0; i--)
        view_param_set(edit, r->undo_cell[i], r->undo_old[i]);
    r->undo_count = 0;
}

RetraceResult retrace_finish(Retrace *r, AttnParams *edit, Trace *out, char *msg, size_t cap)
{
    if (cap) msg[0] = '\0';
    platform_thread_join(r->thread);
    r->thread = NULL;
    r->busy = false;
    if (!r->ok) {
        undo(r, edit);
        r->again = false;
        snprintf(msg, cap, "%s", r->err.message);
        return RETRACE_FAILED;
    }
    if (r->again) { // the screen keeps the previous trace until the latest values are traced
        trace_free(&r->t);
        if (job_start(r, edit)) return RETRACE_IDLE;
        snprintf(msg, cap, "%s", "out of memory");
        undo(r, edit);
        return RETRACE_FAILED;
    }
    r->undo_count = 0;
    *out = r->t;
    memset(&r->t, 0, sizeof r->t);
    return RETRACE_DONE;
}

void retrace_free(Retrace **rp)
{
    Retrace *r = *rp;
    if (!r) return;
    if (r->busy) {
        platform_thread_join(r->thread);
        if (r->ok) trace_free(&r->t);
    }
    if (r->has_p) params_free(&r->p);
    free(r);
    *rp = NULL;
}
