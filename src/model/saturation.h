// The warning --check gives from the numbers: softmax rows of the trace that saturate to one-hot at
// 4 decimals.
#ifndef MHA_SATURATION_H
#define MHA_SATURATION_H

#include "core/trace.h"
#include "lesson/lesson.h"

// Appends to rep one warning when some softmax rows of t (with two keys or more) saturate to
// one-hot at 4 decimals, positioned at the lesson's "weights" key with filename as the file;
// returns how many were added.
int saturation_warn(const Lesson *l, const Trace *t, const char *filename, LessonReport *rep);

#endif
