// Training the weights of a lesson on a small task with Adam: the training sequences, their
// targets, one full-batch step at a time, the loss curve and checkpoints (C11 + libm only; no
// threads).
#ifndef MHA_TRAIN_H
#define MHA_TRAIN_H

#include <stdatomic.h>
#include <stdint.h>
#include "core/grad.h"
#include "core/rng.h"

typedef enum {
    TASK_PREVIOUS_TOKEN =
        0, // row i of the output = the embedding of token i-1 (row 0: token 0's own)
    TASK_FIRST_TOKEN, // row i = the embedding of token 0
    TASK_PREVIOUS_AND_FIRST, // row i = [first half of token i-1's embedding | first half of token
                             // 0's]
    TASK_COUNT
} TrainTask;

const char *train_task_key(TrainTask t); // "previous-token", "first-token", "previous-and-first"

#define TRAIN_ADAM_BETA1 0.9
#define TRAIN_ADAM_BETA2 0.999
#define TRAIN_ADAM_EPS 1e-8
#define TRAIN_DEFAULT_SEQUENCES 64
#define TRAIN_DEFAULT_STEPS 1000
#define TRAIN_DEFAULT_LEARNING_RATE 0.01
#define TRAIN_MAX_SEQUENCES 4096
#define TRAIN_MAX_STEPS 1000000
#define TRAIN_CHECKPOINTS 50 // a checkpoint every steps / 50 (rounded up), plus step 0 and the last
// The checkpoints' memory: at most this many bytes of saved weights (but always step 0 and the
// last), so training stays bounded at the weight limit (d_model 1024, 16 heads of 128: 2
// checkpoints of 72 MB). A lesson small enough for TRAIN_CHECKPOINTS + 1 copies keeps them all; a
// bigger one gets fewer, evenly spread.
#define TRAIN_CHECKPOINT_BYTES (128.0 * 1024.0 * 1024.0)
// The most multiply-adds one step may take (about 10 s of one core at 1.6 G a second); train_check
// refuses more. A step is 3 (the forward pass, the backward pass at about twice its cost) x
// sequences x the forward pass's n x (4 x heads x d_model x d_k) + 2 x heads x n x n x d_k. The
// weight limit with one sequence of 256 tokens needs 7.2 G.
#define TRAIN_MAX_STEP_MULTIPLY_ADDS 16e9

typedef struct {
    TrainTask task;
    int sequences; // training sequences, each as long as the lesson's tokens
    uint64_t
        seed; // their draw: numpy.random.default_rng(seed).random((sequences, n)) * V, truncated
    int steps; // Adam steps, each over all the sequences
    double learning_rate; // Adam's step size
} TrainSpec;

// targets (n, d_model) for the sequence ids (n) of the vocabulary embeddings vocab (V, d_model):
// the task's wanted output. TASK_PREVIOUS_AND_FIRST uses h = d_model / 2: columns 0..h-1 are
// columns 0..h-1 of the previous token's embedding, columns h..2h-1 columns 0..h-1 of the first
// token's, an odd last column 0.
void train_targets(Matrix *targets, TrainTask task, const Matrix *vocab, const int *ids, int n);

// ids (count) = floor(u * vocab) for u = rng.random() in order: numpy's
// (np.random.default_rng(seed).random(count) * vocab).astype(int).
void train_draw_ids(int *ids, size_t count, int vocab, uint64_t seed);

typedef struct {
    int step; // the step after which these weights were saved (0: the initial weights)
    AttnParams p; // the weights then, with the lesson's own example as the embeddings
} TrainCheckpoint;

typedef struct {
    TrainSpec spec;
    AttnParams
        p; // the current weights, with the lesson's own tokens as the embeddings (what is shown)
    AttnParams work; // the same weights with one training sequence at a time as the embeddings
    AttnParams grad, m,
        v; // the summed gradient and Adam's two moments (same shapes as the weights)
    Matrix vocab; // (V, d_model) the training vocabulary's token embeddings
    int *ids; // (sequences, n) the training sequences, as vocabulary indices
    Matrix *targets; // [sequences] each (n, d_model)
    int step; // Adam steps done
    double beta1_t, beta2_t; // beta1^step, beta2^step, by repeated multiplication (no pow: the same
                             // bits everywhere)
    double *loss; // [spec.steps + 1]: loss[k] the training loss of the weights after k steps
    int loss_count; // how many are known: loss[0..step-1] (each step's pass gives its weights'
                    // loss), and loss[steps] too once the last step is done
    TrainCheckpoint *checkpoints; // the saved weights, oldest first: checkpoint_cap of them
                                  // allocated at the start
    int checkpoint_count, checkpoint_cap,
        checkpoint_every; // (within TRAIN_CHECKPOINT_BYTES, never moved)
    atomic_bool stop; // set by another thread: a step or an evaluation running ends before its next
                      // sequence, failing with "stopped" (the weights those before the step)
} Trainer;

// The multiply-adds of one step of training p's weights on `sequences` sequences (see
// TRAIN_MAX_STEP_MULTIPLY_ADDS), as a double (it passes 2^63 at no lesson size, and is compared,
// not counted).
double train_step_multiply_adds(const AttnParams *p, int sequences);
// Whether a step of training p with spec fits TRAIN_MAX_STEP_MULTIPLY_ADDS; false with err saying
// the arithmetic and the bound. train_init calls it first, before any memory is taken.
bool train_check(const AttnParams *p, const TrainSpec *spec, TraceError *err);

// Starts training from the weights of `initial` (whose X/E are the lesson's own tokens,
// self-attention only; positions and mask are kept, ablation is not used in training): draws the
// sequences, makes their targets, evaluates the loss of the initial weights (loss[0]) and saves
// checkpoint 0. vocab (V, d_model) is copied. False with err filled on failure (out of memory, or
// the initial weights overflow). Free with train_free.
bool train_init(Trainer *tr, const AttnParams *initial, const TrainSpec *spec, const Matrix *vocab,
                TraceError *err);
void train_free(Trainer *tr);
// One Adam step over all the sequences (their loss gradients summed in order and divided by their
// number) and, when due, a checkpoint; after the last step, the loss of the final weights. False
// when the trace overflowed (err says where) or memory ran out; the weights are then those before
// the step.
bool train_step(Trainer *tr, TraceError *err);
// The mean loss over the training sequences of the weights in `weights` (the sizes of tr->p), into
// *loss.
bool train_evaluate(Trainer *tr, const AttnParams *weights, double *loss, TraceError *err);
// Back to the initial weights (checkpoint 0): step 0, Adam's moments zero, one loss, one
// checkpoint.
void train_reset(Trainer *tr);
// p -= lr * m_hat / (sqrt(v_hat) + eps) for one matrix, with m, v updated from the gradient g
// (p, g, m, v of one size); c1 = 1 - beta1^t, c2 = 1 - beta2^t. Also circuit_train.c's step.
void train_adam_update(Matrix *p, Matrix *m, Matrix *v, const Matrix *g, double lr, double c1,
                       double c2);

#endif
