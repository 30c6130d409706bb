// Training a circuit (circuit.h) on the induction task with Adam: sequences that repeat a pattern
// of distinct tokens, fresh ones every step from a seeded stream; what it measures: the repeats'
// loss and accuracy, and per head the previous-token and induction scores (C11 + libm; the
// sequences of a step split over the platform's workers, the same bits on any number of them).
#ifndef MHA_CIRCUIT_TRAIN_H
#define MHA_CIRCUIT_TRAIN_H

#include "core/circuit.h"
#include "core/rng.h"

#define CIRCUIT_EVAL_SEQUENCES 256 // the evaluation set: drawn from seed + 1, the same every step
#define CIRCUIT_MAX_SEQUENCES 4096
#define CIRCUIT_MAX_STEPS 1000000

typedef struct {
    int period_min, period_max; // the period P of each sequence, uniform in [min, max]
    int sequences; // per step
    int steps;
    uint64_t seed;
    double learning_rate;
} CircuitTrainSpec;

// One induction sequence of n tokens from rng: P = period_min + floor(u * (max - min + 1)), then P
// distinct tokens, each floor(u * vocab) drawn again while it is already in the pattern, then
// ids[i] = pattern[i mod P]. In NumPy: u = rng.random() for each draw, in that order. *period = P.
void circuit_draw_induction(int *ids, int *period, int n, int vocab, int period_min, int period_max,
                            Rng *rng);

// What a set of sequences says about a circuit: the mean next-token loss over every position,
// the loss and the accuracy (argmax) of the predictions of repeated tokens (position i predicting
// ids[i+1] with i + 1 >= P), and per layer and head (scores[l * heads + h]) the previous-token
// score (the mean of A[i][i-1], i >= 1) and the induction score (the mean over the repeated
// positions i
// >= P of the attention to the positions just after the token's earlier copies, A[i][i-kP+1] summed
// over k >= 1).
typedef struct {
    double loss, repeat_loss, repeat_accuracy;
    double *prev_token, *induction; // [layers * heads]
} CircuitScores;

bool circuit_scores_init(CircuitScores *s, const Circuit *c);
void circuit_scores_free(CircuitScores *s);
// Measures c on count sequences ids (count, n) of periods period[count]; ablated: NULL or per layer
// the heads switched off. False with err on overflow or no memory.
bool circuit_measure(CircuitScores *s, const Circuit *c, const AttnConfig *settings, const int *ids,
                     const int *period, int count, int n, const uint64_t *ablated, TraceError *err);

typedef struct {
    CircuitTrainSpec spec;
    AttnConfig settings;
    bool learn_positions; // P trained too (the lesson's positions are its own numbers)
    int n; // tokens per sequence (the circuit's n_ctx)
    Circuit c, m, v, total; // the weights, Adam's moments, the step's summed gradient
    Circuit *each; // [spec.sequences] each sequence's gradient, summed in order afterwards
    int *ids, *period; // (sequences, n), [sequences]: the step's batch
    int *eval_ids, *eval_period; // the evaluation set
    double *seq_loss; // [sequences]
    Rng rng; // the batches' stream
    int step;
    double beta1_t, beta2_t;
    double last_loss; // the mean loss of the last step's batch (before its update)
} CircuitTrainer;

// Starts from a copy of `initial`. False when out of memory (err says so).
bool circuit_train_init(CircuitTrainer *tr, const Circuit *initial, const AttnConfig *settings,
                        const CircuitTrainSpec *spec, bool learn_positions, TraceError *err);
void circuit_train_free(CircuitTrainer *tr);
// One Adam step on a fresh batch: every sequence's gradient (of its loss / sequences), summed in
// sequence order. False on overflow or no memory (the weights those before the step).
bool circuit_train_step(CircuitTrainer *tr, TraceError *err);
// The scores of the current weights on the evaluation set.
bool circuit_train_measure(CircuitTrainer *tr, CircuitScores *s, const uint64_t *ablated,
                           TraceError *err);

#endif
