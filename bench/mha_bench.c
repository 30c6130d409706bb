// mha-bench: prints the speed of the numeric core (one full trace) for classroom to BERT sizes, one Adam step
// of the shipped training lessons' sizes (case train: 64 sequences of 6 tokens, d_model 12, 2 heads), and with
// the window built, of a full 1920x1080 redraw, the cat lesson's PNG export and start to first frame.
// Usage: mha-bench [--reps N] [--case NAME]   (default 20; CI runs --reps 1 as a smoke run, never timed)
//        mha-bench --limits                     (time and peak memory of every mode at the size limits)
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "core/rng.h"
#include "core/trace.h"
#include "core/train.h"
#include "bench_limits.h"
#ifdef MHA_BENCH_GUI
#include "bench_gui.h"
#endif

typedef struct {
    const char *name;
    int n, d_model, heads;
} BenchCase;

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

// Seeded like a lesson with random embeddings and random weights (out_std 0.5).
static bool make_params(AttnParams *p, const BenchCase *c)
{
    int d_k = c->d_model / c->heads;
    if (!params_init(p, c->n, c->n, c->d_model, c->heads, d_k)) return false;
    Rng r;
    rng_seed(&r, 42);
    rng_normal_fill(&r, 0, 1, p->X.data, (size_t)c->n * (size_t)c->d_model);
    memcpy(p->S.data, p->X.data, sizeof(double) * (size_t)c->n * (size_t)c->d_model);
    rng_seed(&r, 7);
    size_t w = (size_t)c->d_model * (size_t)d_k;
    for (int h = 0; h < c->heads; h++) {
        rng_normal_fill(&r, 0, 1, p->W_Q[h].data, w);
        rng_normal_fill(&r, 0, 1, p->W_K[h].data, w);
        rng_normal_fill(&r, 0, 1, p->W_V[h].data, w);
    }
    rng_normal_fill(&r, 0, 0.5, p->W_O.data, (size_t)c->heads * w);
    return true;
}

int main(int argc, char **argv)
{
    int reps = 20;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--case") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--limits") == 0) {
            const char *tracer = getenv("MHA_TRACER");
            bool training = i + 1 < argc && strcmp(argv[i + 1], "train") == 0; // only --train and the window's T
            return bench_limits(tracer && tracer[0] ? tracer : MHA_TRACER_PATH, training);
        } else {
            fprintf(stderr, "usage: mha-bench [--reps N] [--case NAME] | --limits [train]\n");
            return 2;
        }
    }
    if (reps < 1) reps = 1;
    static const BenchCase cases[] = {
        {"classroom", 3, 4, 2},
        {"paper", 10, 512, 8},
        {"bert-base", 128, 768, 12},
        {"bert-long", 512, 768, 12},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const BenchCase *c = &cases[k];
        if (only && strcmp(only, c->name) != 0) continue;
        AttnParams p;
        if (!make_params(&p, c)) {
            fprintf(stderr, "mha-bench: out of memory for case %s\n", c->name);
            return 1;
        }
        // Few repetitions for the big cases so a full run stays short; the minimum is what counts.
        int case_reps = c->n >= 512 ? (reps + 3) / 4 : reps;
        double best = 1e30;
        for (int r = 0; r < case_reps; r++) {
            Trace t;
            TraceError err;
            double t0 = now_seconds();
            bool ok = trace_run(&t, &p, &err);
            double dt = now_seconds() - t0;
            if (!ok) {
                fprintf(stderr, "mha-bench: %s: %s\n", c->name, err.message);
                return 1;
            }
            trace_free(&t);
            if (dt < best) best = dt;
        }
        printf("case=%s tokens=%d d_model=%d heads=%d seconds_per_trace=%.6f\n", c->name, c->n, c->d_model,
               c->heads, best);
        params_free(&p);
        if (k == 0) { // the classroom sizes: the whole process so far (peak resident set, MB)
            struct rusage ru;
            if (getrusage(RUSAGE_SELF, &ru) == 0) printf("case=memory peak_rss_mb=%.1f\n", (double)ru.ru_maxrss / 1024.0);
        }
        fflush(stdout);
    }
    if (!only || strcmp(only, "train") == 0) { // the two-heads lesson's sizes: one-hot tokens and positions
        AttnParams p;
        Matrix vocab;
        if (!params_init(&p, 6, 6, 12, 2, 6) || !mat_init(&vocab, 5, 12)) return 1;
        p.mask = MASK_CAUSAL;
        Rng r;
        rng_seed(&r, 3);
        for (int h = 0; h < 2; h++) {
            rng_normal_fill(&r, 0, 0.3, p.W_Q[h].data, 72);
            rng_normal_fill(&r, 0, 0.3, p.W_K[h].data, 72);
            rng_normal_fill(&r, 0, 0.3, p.W_V[h].data, 72);
        }
        rng_normal_fill(&r, 0, 0.3, p.W_O.data, 144);
        for (int i = 0; i < 5; i++) mat_set(&vocab, i, i, 1.0);
        for (int i = 0; i < 6; i++) mat_set(&p.X, i, i % 5, 1.0);
        params_set_positions(&p, POS_EXPLICIT);
        for (int i = 0; i < 6; i++) mat_set(&p.P, i, 6 + i, 1.0);
        params_apply_positions(&p);
        TrainSpec spec = {TASK_PREVIOUS_AND_FIRST, 64, 1, reps * 10, 0.01};
        Trainer tr;
        TraceError err;
        if (!train_init(&tr, &p, &spec, &vocab, &err)) {
            fprintf(stderr, "mha-bench: train: %s\n", err.message);
            return 1;
        }
        double best = 1e30;
        while (tr.step < spec.steps) {
            double t0 = now_seconds();
            if (!train_step(&tr, &err)) {
                fprintf(stderr, "mha-bench: train: %s\n", err.message);
                return 1;
            }
            double dt = now_seconds() - t0;
            if (dt < best) best = dt;
        }
        printf("case=train sequences=64 tokens=6 d_model=12 heads=2 seconds_per_adam_step=%.6f\n", best);
        train_free(&tr);
        params_free(&p);
        mat_free(&vocab);
        fflush(stdout);
    }
#ifdef MHA_BENCH_GUI
    const char *tracer = getenv("MHA_TRACER"); // another mha-tracer to start (default: the one built beside)
    return bench_gui(reps, only, MHA_SOURCE_ASSETS, tracer && tracer[0] ? tracer : MHA_TRACER_PATH);
#else
    return 0;
#endif
}
