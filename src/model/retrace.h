// A trace of edited parameters on a worker thread, and the edits it answers for (model/retrace.c):
// the window's edits of a large lesson traced off the frame. Knows parameters, traces
// and cells only; the session (session.c) decides when a finished trace is shown.
#ifndef MHA_RETRACE_H
#define MHA_RETRACE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/params.h"
#include "core/trace.h"
#include "model/view.h"

typedef struct Retrace Retrace;
typedef enum { RETRACE_IDLE = 0, RETRACE_DONE, RETRACE_FAILED } RetraceResult;

// The edit of cell c of edit (its value was old, edit holds the new one) traced on the worker: a
// copy of edit's values is traced (or, while a trace runs, the latest values when it ends). *rp is
// made on first use. False when the edit must be traced at once instead (no memory, too many edits
// waiting).
bool retrace_edit(Retrace **rp, const AttnParams *edit, CellRef c, double old);
// A trace runs or ran and is not yet finished with retrace_finish; retrace_ended: it has ended
// (finishing waits not).
bool retrace_busy(const Retrace *r);
bool retrace_ended(const Retrace *r);
// Waits for the trace and takes it: DONE with *out the trace of edit's latest values (the caller's
// to free); IDLE when the values changed while it ran (the latest are being traced now); FAILED
// with msg (what failed) and the edits since the last DONE undone in edit. Call only while
// retrace_busy.
RetraceResult retrace_finish(Retrace *r, AttnParams *edit, Trace *out, char *msg, size_t cap);
// Waits for a running trace and frees it all; *rp becomes NULL.
void retrace_free(Retrace **rp);

#endif
