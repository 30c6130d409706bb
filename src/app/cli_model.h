// --model DIR with --json or --trace: a Hugging Face checkpoint's layer traced on a text (lesson/hf_model.h).
#ifndef MHA_CLI_MODEL_H
#define MHA_CLI_MODEL_H

#include "options.h"

// Opens the checkpoint a->value[OPT_MODEL], runs the text through it and prints layer L's trace (--json adds
// "token_ids" and "next_token"). Returns the exit status: 2 for a bad checkpoint, text or layer (the message names
// the file and the field or tensor), 1 when standard output cannot be written.
int cli_run_model(const Args *a);

#endif
