// mha-bench's induction case (bench_induction.h): the shipped two-layer lesson built here from its
// seeds exactly as the lesson loader draws it, trained with the core's circuit trainer.
#include "bench_induction.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/circuit_train.h"

static double now_seconds(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

// lessons/induction-heads.json: token_embeddings {"seed": 1, "std": 1}, positions {"seed": 2,
// "std": 0.5}, weights {"seed": 3, "qkv_std": 0.3, "out_std": 0.2}, unembedding {"seed": 4, "std":
// 0.25}.
static void shipped_weights(Circuit *c)
{
    Rng r;
    rng_seed(&r, 1);
    rng_normal_fill(&r, 0, 1.0, c->E.data, 16 * 16);
    rng_seed(&r, 2);
    rng_normal_fill(&r, 0, 0.5, c->P.data, 16 * 16);
    rng_seed(&r, 3);
    for (int l = 0; l < c->layers; l++) {
        for (int h = 0; h < 2; h++) {
            rng_normal_fill(&r, 0, 0.3, c->w[l].W_Q[h].data, 16 * 8);
            rng_normal_fill(&r, 0, 0.3, c->w[l].W_K[h].data, 16 * 8);
            rng_normal_fill(&r, 0, 0.3, c->w[l].W_V[h].data, 16 * 8);
        }
        rng_normal_fill(&r, 0, 0.2, c->w[l].W_O.data, 16 * 16);
    }
    rng_seed(&r, 4);
    rng_normal_fill(&r, 0, 0.25, c->U.data, 16 * 16);
}

int bench_induction(int steps)
{
    Circuit c;
    LayerShape shape = {16, 2, 2, 8};
    if (!circuit_init(&c, 2, shape, 16, 16)) return 1;
    shipped_weights(&c);
    AttnConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.heads = cfg.kv_heads = 2, cfg.d_k = 8, cfg.mask = MASK_CAUSAL;
    CircuitTrainSpec spec = {4, 8, 32, steps, 1, 0.01};
    CircuitTrainer tr;
    CircuitScores s;
    TraceError err;
    bool ok = circuit_train_init(&tr, &c, &cfg, &spec, true, &err) && circuit_scores_init(&s, &c);
    double trained = 0, to_90 = -1;
    while (ok && tr.step < steps) {
        double t0 = now_seconds();
        ok = circuit_train_step(&tr, &err);
        trained += now_seconds() - t0;
        if (ok && to_90 < 0 && tr.step % 25 == 0) {
            ok = circuit_train_measure(&tr, &s, NULL, &err);
            if (ok && s.repeat_accuracy >= 0.9) to_90 = trained;
        }
    }
    if (ok)
        printf("case=induction layers=2 heads=2 d_model=16 sequences=32 tokens=16 steps=%d "
               "steps_per_second=%.1f seconds_per_2000_steps=%.2f seconds_to_90=%s%.2f\n",
               steps, steps / trained, 2000.0 * trained / steps, to_90 < 0 ? "none" : "",
               to_90 < 0 ? 0.0 : to_90);
    else fprintf(stderr, "mha-bench: induction: %s\n", err.message);
    circuit_scores_free(&s);
    circuit_train_free(&tr);
    circuit_free(&c);
    fflush(stdout);
    return ok ? 0 : 1;
}
