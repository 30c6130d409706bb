// RoPE's point on the board: every position shifted by k and the scores stay the same,
// because a rotated query and key meet at the angle of p − p′ only. The shifts the key S steps
// through, the difference the board reports, and its sentence. No SDL.
#ifndef MHA_ROPE_SHIFT_H
#define MHA_ROPE_SHIFT_H

#include <stdbool.h>
#include <stddef.h>
#include "core/trace.h"

// The shift a step of the key away from k: dir +1 the next stop of 0, 1, 2, 3, 5, 10, 100, 1000
// (after 1000 back to 0), -1 the one before (from 0 to 1000). A k between stops goes to the stop
// next to it that way.
int model_rope_shift_step(int k, int dir);
// Largest |S^(k)[i][j] − S[i][j]| of head h: the shifted scores against the scores (0 with no shift
// computed).
double model_rope_shift_difference(const Trace *t, int head);
// The board's sentence for head h of a lesson with the shift on, at the stages that show it (rotate
// and scores): "Every position shifted by k = 3 ... Largest difference from k = 0: 1.1e-16
// (rounding)." False (buf empty) at another stage, or when p has no RoPE or no shift.
bool model_rope_shift_note(const AttnParams *p, const Trace *t, Stage stage, int head, char *buf,
                           size_t cap);

#endif
