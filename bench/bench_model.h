// mha-bench --model DIR: a checkpoint's --json from start to output, its open and forward pass, the
// memory beyond the mapped file, and NumPy's forward of the same ids beside it.
#ifndef MHA_BENCH_MODEL_H
#define MHA_BENCH_MODEL_H

typedef struct {
    const char *dir,
        *text; // the checkpoint, the text (default "The cat sat": 12 tokens with a byte tokenizer)
    int layer, reps; // the layer kept; the forward's repetitions (the minimum counts)
    const char *tracer; // the mha-tracer timed as a process
    const char *python; // a python3 with NumPy, or NULL: no NumPy case
    const char *numpy_script; // bench/numpy_bench.py
    int numpy_reps;
} BenchModelSpec;

// Prints case=model… lines; 0, or 1 when a run failed (said on stderr), 2 on a bad folder name.
int bench_model(const BenchModelSpec *s);

#endif
