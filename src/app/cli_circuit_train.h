// --train on a lesson of layers (the induction task), and what --json and --trace of such a lesson
// share with it: the heads switched off (--ablate L:H) and the scores on the evaluation repeats.
#ifndef MHA_CLI_CIRCUIT_TRAIN_H
#define MHA_CLI_CIRCUIT_TRAIN_H

#include <stdio.h>
#include "lesson/lesson.h"

// "L:H[,L:H...]" -> ablated[l] bit h, for a circuit of `layers` layers of `heads` heads. false with
// msg when it is not that.
bool cli_circuit_ablation(const char *arg, int layers, int heads, uint64_t *ablated, char *msg,
                          size_t cap);
// The scores of the weights m on the evaluation repeats of the lesson's "train" section (seed + 1,
// CIRCUIT_EVAL_SEQUENCES sequences of n_ctx tokens): s initialised here (free with
// circuit_scores_free). false with err when the trace fails.
bool cli_circuit_probe(const Lesson *l, const Circuit *m, const uint64_t *ablated, CircuitScores *s,
                       TraceError *err);
// Per layer and head: "layer 0 head 1: previous-token 0.9312, induction 0.0123".
void cli_circuit_print_heads(FILE *out, const Circuit *m, const CircuitScores *s);
// --train LESSON --out FILE for a lesson of layers: the exit status, any error printed.
int cli_circuit_train(Lesson *l, const char *path, const char *steps_arg, const char *out);

#endif
