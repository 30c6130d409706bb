// mha-bench's induction case: the shipped lessons/induction-heads.json (2 layers of 2 heads,
// d_model 16, d_k 8, vocabulary 16, 16 positions) trained on repeats as --train trains it.
#ifndef MHA_BENCH_INDUCTION_H
#define MHA_BENCH_INDUCTION_H

// Trains `steps` Adam steps, measuring the evaluation repeats every 25 steps (not timed); prints
// the steps per second, the seconds for 2000 steps at that rate and the training seconds until the
// repeat accuracy first reached 0.9. Returns 0, or 1 after saying why on stderr.
int bench_induction(int steps);

#endif
