// A lesson of layers (Lesson.circuit) on the command line: --json, --grad, --trace and --train.
#ifndef MHA_CLI_CIRCUIT_H
#define MHA_CLI_CIRCUIT_H

#include <stdbool.h>
#include "lesson/lesson.h"

// Whether cli_circuit_run answers this mode (MODE_JSON, MODE_GRAD, MODE_TRACE, MODE_TRAIN).
bool cli_circuit_mode(int mode);
// Runs mode on l (a lesson of layers; path its file), --ablate LAYER:HEAD,... as given (or NULL),
// --steps and --out for --train. Returns the exit status, having printed any error.
int cli_circuit_run(int mode, Lesson *l, const char *path, const char *ablate,
                    const char *steps_arg, const char *out);

#endif
