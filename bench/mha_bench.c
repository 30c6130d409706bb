// mha-bench: prints the speed of the numeric core (one full trace) for classroom to BERT sizes, one
// Adam step of the shipped training lessons' sizes (case train: 64 sequences of 6 tokens, d_model
// 12, 2 heads), the induction circuit's training (case induction: reps x 100 steps, the speed and
// the seconds to 90 % repeat accuracy), and with the window built, of a full 1920x1080 redraw, the
// cat lesson's PNG export and start to first frame. Usage: mha-bench [--reps N] [--case NAME]
// (default 20; CI runs --reps 1 as a smoke run, never timed)
//        mha-bench --limits                     (time and peak memory of every mode at the size
//        limits) mha-bench --model DIR [--text T] [--reps N]   (a checkpoint: --json start to
//        output, the forward pass,
//            the memory beyond the mapped file, NumPy's forward beside it; bench/make_checkpoint.py
//            makes one)
//        mha-bench --versus-numpy [--rounds R] [--reps N] [--case NAME]
//            (the trace cases here and in bench/numpy_bench.py, alternately, R rounds; each case's
//            ratio last)
// Built for WebAssembly (build-web-cli/mha-bench.js under Node, MHA_BENCH_TRACE_ONLY) it has the
// trace and train cases only: tests/bench_web.sh runs it beside the native one.
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "core/rng.h"
#include "core/trace.h"
#include "core/train.h"
#include "core/matrix.h"
#include "platform/platform.h"
#include "bench_induction.h"
#ifndef MHA_BENCH_TRACE_ONLY
#include "bench_limits.h"
#include "bench_model.h"
#endif
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

static const BenchCase CASES[] = {
    {"classroom", 3, 4, 2},
    {"paper", 10, 512, 8},
    {"bert-base", 128, 768, 12},
    {"bert-long", 512, 768, 12},
};
#define CASE_COUNT (sizeof CASES / sizeof CASES[0])

// The fastest of the case's traces (few repetitions for the big cases so a run stays short; the
// minimum is what counts), in seconds; false on no memory or a failed trace (said on stderr).
static bool bench_trace_case(const BenchCase *c, int reps, double *best)
{
    AttnParams p;
    if (!make_params(&p, c)) {
        fprintf(stderr, "mha-bench: out of memory for case %s\n", c->name);
        return false;
    }
    int case_reps = c->n >= 512 ? (reps + 3) / 4 : reps;
    *best = 1e30;
    for (int r = 0; r < case_reps; r++) {
        Trace t;
        TraceError err;
        double t0 = now_seconds();
        bool ok = trace_run(&t, &p, &err);
        double dt = now_seconds() - t0;
        if (!ok) {
            fprintf(stderr, "mha-bench: %s: %s\n", c->name, err.message);
            params_free(&p);
            return false;
        }
        trace_free(&t);
        if (dt < *best) *best = dt;
    }
    params_free(&p);
    return true;
}

#ifndef MHA_BENCH_TRACE_ONLY
// The first python3 that imports NumPy: $MHA_PYTHON, python3 on the PATH, /usr/bin/python3. NULL if
// none.
static const char *numpy_python(void)
{
    static const char *const candidates[] = {NULL, "python3", "/usr/bin/python3"};
    const char *env = getenv("MHA_PYTHON");
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
        const char *py = i == 0 ? env : candidates[i];
        if (!py || !py[0] || strchr(py, '\'')) continue;
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "'%s' -c 'import numpy' >/dev/null 2>&1", py);
        if (system(cmd) == 0) return py;
    }
    return NULL;
}

// One run of bench/numpy_bench.py (OpenBLAS left to choose its own kernel and caches, as a
// teacher's NumPy would): seconds[k] for each case of CASES it printed (left negative otherwise).
static bool numpy_run(const char *python, int reps, const char *only, double seconds[CASE_COUNT])
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE '%s' '%s' --reps %d%s%s", python,
             MHA_NUMPY_BENCH, reps, only ? " --case " : "", only ? only : "");
    FILE *f = popen(cmd, "r");
    if (!f) return false;
    for (size_t k = 0; k < CASE_COUNT; k++) seconds[k] = -1;
    char line[2048], name[64];
    double secs;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "numpy=", 6) == 0)
            printf("# %s", line); // which BLAS ran: the reference one is ~10x slower
        const char *at = strstr(line, "seconds_per_trace=");
        if (!at || sscanf(line, "case=%63s", name) != 1
            || sscanf(at, "seconds_per_trace=%lf", &secs) != 1)
            continue;
        for (size_t k = 0; k < CASE_COUNT; k++)
            if (strcmp(CASES[k].name, name) == 0) seconds[k] = secs;
    }
    return pclose(f) == 0;
}

// --versus-numpy: each round times every case here, then runs NumPy on the same cases (A B A B
// ...), and prints both and their ratio; at the end each case's ratio of the two minima, with the
// spread of the rounds.
static int bench_versus_numpy(int rounds, int reps, const char *only)
{
    const char *python = numpy_python();
    if (!python) {
        fprintf(stderr, "mha-bench: no python3 with NumPy (set MHA_PYTHON to one)\n");
        return 1;
    }
    double ours[CASE_COUNT], theirs[CASE_COUNT], lo[CASE_COUNT], hi[CASE_COUNT];
    for (size_t k = 0; k < CASE_COUNT; k++) ours[k] = theirs[k] = 1e30, lo[k] = 1e30, hi[k] = 0;
    for (int round = 1; round <= rounds; round++) {
        double mine[CASE_COUNT], np[CASE_COUNT];
        for (size_t k = 0; k < CASE_COUNT; k++) {
            mine[k] = -1;
            if (only && strcmp(only, CASES[k].name) != 0) continue;
            if (!bench_trace_case(&CASES[k], reps, &mine[k])) return 1;
        }
        if (!numpy_run(python, reps, only, np)) {
            fprintf(stderr, "mha-bench: %s %s failed\n", python, MHA_NUMPY_BENCH);
            return 1;
        }
        for (size_t k = 0; k < CASE_COUNT; k++) {
            if (mine[k] < 0 || np[k] <= 0) continue;
            double ratio = mine[k] / np[k];
            printf("round=%d case=%s mha_seconds=%.6f numpy_seconds=%.6f ratio=%.2f\n", round,
                   CASES[k].name, mine[k], np[k], ratio);
            if (mine[k] < ours[k]) ours[k] = mine[k];
            if (np[k] < theirs[k]) theirs[k] = np[k];
            if (ratio < lo[k]) lo[k] = ratio;
            if (ratio > hi[k]) hi[k] = ratio;
        }
        fflush(stdout);
    }
    for (size_t k = 0; k < CASE_COUNT; k++) {
        if (hi[k] == 0) continue;
        printf("case=%s ratio=%.2f rounds=%d round_ratios=%.2f-%.2f mha_seconds=%.6f "
               "numpy_seconds=%.6f\n",
               CASES[k].name, ours[k] / theirs[k], rounds, lo[k], hi[k], ours[k], theirs[k]);
    }
    return 0;
}

#endif

int main(int argc, char **argv)
{
    platform_tune_allocator(); // as the program's main does
    int reps = 20, rounds = 3;
    bool versus = false;
    const char *only = NULL;
#ifndef MHA_BENCH_TRACE_ONLY
    const char *model = NULL,
               *text = "The cat sat"; // --model: the native build's (the page's has no files)
#endif
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) rounds = atoi(argv[++i]);
        else if (strcmp(argv[i], "--versus-numpy") == 0) versus = true;
        else if (strcmp(argv[i], "--case") == 0 && i + 1 < argc) only = argv[++i];
#ifndef MHA_BENCH_TRACE_ONLY
        else if (strcmp(argv[i], "--model") == 0 && i + 1 < argc) model = argv[++i];
        else if (strcmp(argv[i], "--text") == 0 && i + 1 < argc) text = argv[++i];
        else if (strcmp(argv[i], "--limits") == 0) {
            const char *tracer = getenv("MHA_TRACER");
            bool training = i + 1 < argc
                            && strcmp(argv[i + 1], "train") == 0; // only --train and the window's T
            return bench_limits(tracer && tracer[0] ? tracer : MHA_TRACER_PATH, training);
        }
#endif
        else {
            fprintf(stderr, "usage: mha-bench [--reps N] [--case NAME] | --limits [train] | "
                            "--versus-numpy [--rounds R] "
                            "[--reps N] [--case NAME] | --model DIR [--text T] [--reps N]\n");
            return 2;
        }
    }
    if (reps < 1) reps = 1;
    if (rounds < 1) rounds = 1;
    printf("# matmul kernel: %s\n", mat_kernel_name(mat_kernel_best()));
    printf("# threads: %d\n",
           platform_cpu_count()); // the cores a large trace splits over (at most 8 of them)
#ifndef MHA_BENCH_TRACE_ONLY
    if (model) {
        const char *tracer = getenv("MHA_TRACER");
        BenchModelSpec spec = {model,
                               text,
                               0,
                               reps > 5 ? 5 : reps,
                               tracer && tracer[0] ? tracer : MHA_TRACER_PATH,
                               numpy_python(),
                               MHA_NUMPY_BENCH,
                               reps > 3 ? 3 : reps};
        return bench_model(&spec);
    }
    if (versus) return bench_versus_numpy(rounds, reps, only);
#else
    if (versus) {
        fprintf(stderr, "mha-bench: --versus-numpy is not in this build\n");
        return 2;
    }
#endif
    for (size_t k = 0; k < CASE_COUNT; k++) {
        const BenchCase *c = &CASES[k];
        if (only && strcmp(only, c->name) != 0) continue;
        double best;
        if (!bench_trace_case(c, reps, &best)) return 1;
        printf("case=%s tokens=%d d_model=%d heads=%d seconds_per_trace=%.6f\n", c->name, c->n,
               c->d_model, c->heads, best);
        if (k == 0) { // the classroom sizes: the whole process so far (peak resident set, MB)
            struct rusage ru;
            if (getrusage(RUSAGE_SELF, &ru) == 0)
                printf("case=memory peak_rss_mb=%.1f\n", (double)ru.ru_maxrss / 1024.0);
        }
        fflush(stdout);
    }
    if (!only
        || strcmp(only, "train")
               == 0) { // the two-heads lesson's sizes: one-hot tokens and positions
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
        printf("case=train sequences=64 tokens=6 d_model=12 heads=2 seconds_per_adam_step=%.6f\n",
               best);
        train_free(&tr);
        params_free(&p);
        mat_free(&vocab);
        fflush(stdout);
    }
    // The induction circuit of lessons/induction-heads.json: 2000 steps at the default --reps 20.
    if ((!only || strcmp(only, "induction") == 0) && bench_induction(reps * 100) != 0) return 1;
#ifdef MHA_BENCH_GUI
    const char *tracer =
        getenv("MHA_TRACER"); // another mha-tracer to start (default: the one built beside)
    return bench_gui(reps, only, MHA_SOURCE_ASSETS, tracer && tracer[0] ? tracer : MHA_TRACER_PATH);
#else
    return 0;
#endif
}
