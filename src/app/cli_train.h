// --train LESSON --out FILE: the lesson's "train" section run on the command line, the trained
// lesson written beside it (never over it) with its loss figures. No SDL.
#ifndef MHA_CLI_TRAIN_H
#define MHA_CLI_TRAIN_H

#include "lesson/lesson.h"

// Trains l (path: its file, NULL for the built-in lesson; steps_arg: --steps as given or NULL; out:
// --out) and writes the result to out. Returns the exit status, having printed any error.
int cli_run_train(Lesson *l, const char *path, const char *steps_arg, const char *out);

#endif
