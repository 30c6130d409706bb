// --model DIR with --json or --trace: a Hugging Face checkpoint's layer traced on a text
// (hf/hf_model.h).
#ifndef MHA_CLI_MODEL_H
#define MHA_CLI_MODEL_H

#include "app/options.h"
#include "core/trace.h"
#include "lesson/lesson.h"

// Opens the checkpoint a->value[OPT_MODEL], runs the text through it and prints layer L's trace
// (--json adds "token_ids" and "next_token"). Returns the exit status: 2 for a bad checkpoint, text
// or layer (the message names the file and the field or tensor), 1 when standard output cannot be
// written. Without --json, --trace or --save-lesson the window opens on the layer: window (NULL in
// a build without one) takes the lesson over and opens on head `head` (-1: the first), returning
// the exit status. With --export DIR --what overview: export (NULL in a build without the exporter)
// writes the layer's slides with every layer's heads kept (--what overview only; any other --what
// is refused), returning the exit status.
typedef int (*CliModelWindow)(const Args *a, Lesson *lesson, int head);
typedef int (*CliModelExport)(const Args *a, const Lesson *lesson, const Trace *trace);
int cli_run_model(const Args *a, CliModelWindow window, CliModelExport export_fn);

#endif
