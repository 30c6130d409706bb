// Naming the input that made a trace overflow (C11 + libm, no SDL).
#ifndef MHA_OVERFLOW_H
#define MHA_OVERFLOW_H

#include "trace.h"

// err is a failed trace_run's error (a value overflowed at err->stage, in head err->head). Recomputes what is
// needed from p and appends, in parentheses, the first cell that became infinite or NaN and the product that
// made it with the lesson's field paths, e.g. "(head 1: Q[0][1] is +inf, from embeddings[0][2] = 1e+200
// times weights.W_Q[1][2][1] = 1e+200)". Leaves err alone when nothing more can be said.
void trace_overflow_detail(const AttnParams *p, TraceError *err);

#endif
