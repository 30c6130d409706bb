// --model DIR --head-scores [--json]: every layer's heads scored on a seeded probe of repeated
// random tokens (the previous-token, duplicate-token and induction scores).
#ifndef MHA_CLI_HEAD_SCORES_H
#define MHA_CLI_HEAD_SCORES_H

#include <stdbool.h>
#include "hf/hf_model.h"

#define HEAD_SCORES_REPEAT 20 // the random tokens, seen twice
#define HEAD_SCORES_SEED 0
#define HEAD_SCORES_INDUCTION 0.4 // an induction head: a score at least this

// Runs the probe through m and prints the scores (json: as JSON). The exit status, any error
// printed.
int cli_head_scores(const HfModel *m, bool json);

#endif
