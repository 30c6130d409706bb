// --train LESSON --out FILE: the lesson's "train" section run on the command line, the trained
// lesson written beside it (never over it) with its loss figures. No SDL.
#ifndef MHA_CLI_TRAIN_H
#define MHA_CLI_TRAIN_H

#include "lesson/lesson.h"

// Trains l (path: its file, NULL for the built-in lesson; steps_arg: --steps as given or NULL; out:
// --out) and writes the result to out. Returns the exit status, having printed any error.
int cli_run_train(Lesson *l, const char *path, const char *steps_arg, const char *out);
// --train's checks of --out (given, not the lesson at path itself, a target that can be written)
// and of --steps (into *steps): EXIT_OK or the exit status, having said why.
int cli_train_check_out(const char *path, const char *steps_arg, int *steps, const char *out);
// Writes json (len bytes of a lesson, NULL when memory ran out) into path and frees it: "wrote
// PATH" and EXIT_OK, else the error and EXIT_IO. Also --train of a lesson of layers and
// --save-lesson.
int cli_write_lesson(const char *path, char *json, size_t len);

#endif
