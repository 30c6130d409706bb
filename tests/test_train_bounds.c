// Training within stated bounds (issue 27): the checkpoints of a big lesson fit
// TRAIN_CHECKPOINT_BYTES (fewer of them, evenly spread, step 0 and the last kept) while a small
// lesson keeps all 52, and a lesson whose step would pass TRAIN_MAX_STEP_MULTIPLY_ADDS is refused
// before any work, with the arithmetic.
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "core/train.h"

// Seeded weights and n distinct tokens (the vocabulary: their embeddings).
static bool make(AttnParams *p, Matrix *vocab, int n, int d_model, int heads, int d_k)
{
    if (!params_init(p, n, n, d_model, heads, d_k)) return false;
    Rng r;
    rng_seed(&r, 3);
    Matrix *w[6 * 64 + 2];
    int count = params_trainable(w, p);
    for (int i = 0; i < count; i++)
        rng_normal_fill(&r, 0, 0.05, w[i]->data, (size_t)w[i]->rows * (size_t)w[i]->cols);
    rng_normal_fill(&r, 0, 0.5, p->X.data, (size_t)n * (size_t)d_model);
    memcpy(p->S.data, p->X.data, (size_t)n * (size_t)d_model * sizeof(double));
    return mat_copy(vocab, &p->X);
}

// The bytes one checkpoint holds (its weights and embeddings, as params_copy allocates them).
static double checkpoint_bytes(const AttnParams *p)
{
    double v = 2.0 * p->n * p->d_model + 4.0 * p->heads * p->d_model * p->d_k
               + 3.0 * p->heads * p->d_k + p->d_model;
    return v * sizeof(double);
}

static void test_checkpoints(int d_model, int heads, int d_k, int steps, bool all)
{
    AttnParams p;
    Matrix vocab;
    CHECK(make(&p, &vocab, 4, d_model, heads, d_k), "lesson made");
    TrainSpec spec = {TASK_PREVIOUS_TOKEN, 1, 0, steps, 0.01};
    Trainer tr;
    TraceError err;
    bool ok = train_init(&tr, &p, &spec, &vocab, &err);
    CHECK(ok, "d_model %d: training starts: %s", d_model, err.message);
    while (ok && tr.step < steps) ok = train_step(&tr, &err);
    CHECK(ok, "d_model %d: %d steps: %s", d_model, steps, err.message);
    double bytes = checkpoint_bytes(&p) * tr.checkpoint_count;
    printf("d_model %d, %d heads of %d: %d checkpoints every %d steps, %.1f MB\n", d_model, heads,
           d_k, tr.checkpoint_count, tr.checkpoint_every, bytes / 1e6);
    if (all)
        CHECK(tr.checkpoint_count == TRAIN_CHECKPOINTS + 1,
              "a small lesson keeps every checkpoint: %d", tr.checkpoint_count);
    else
        CHECK(bytes <= TRAIN_CHECKPOINT_BYTES,
              "the checkpoints hold %.0f bytes, above the bound %.0f", bytes,
              TRAIN_CHECKPOINT_BYTES);
    CHECK(tr.checkpoint_count >= 2 && tr.checkpoints[0].step == 0
              && tr.checkpoints[tr.checkpoint_count - 1].step == steps,
          "step 0 and the last are kept");
    for (int i = 1; i + 1 < tr.checkpoint_count; i++)
        CHECK(tr.checkpoints[i].step == i * tr.checkpoint_every, "checkpoint %d at step %d", i,
              tr.checkpoints[i].step);
    train_reset(&tr);
    CHECK(tr.checkpoint_count == 1 && tr.step == 0, "reset keeps step 0 only");
    train_free(&tr);
    params_free(&p);
    mat_free(&vocab);
}

// 100 tokens, d_model 128, 64 heads of 256, 8 sequences: 28 G multiply-adds a step (54 s with no
// frame before issue 27). Refused at once, the message with the arithmetic and the bound.
static void test_refused(void)
{
    AttnParams p;
    Matrix vocab;
    CHECK(make(&p, &vocab, 100, 128, 64, 256), "lesson made");
    TrainSpec spec = {TASK_PREVIOUS_TOKEN, 8, 0, 20, 0.01};
    double macs = train_step_multiply_adds(&p, 8);
    CHECK(fabs(macs - 3.0 * 8 * (100.0 * 4 * 64 * 128 * 256 + 2.0 * 64 * 100 * 100 * 256)) < 1,
          "the arithmetic: %.0f", macs);
    Trainer tr;
    TraceError err;
    memset(&err, 0, sizeof err);
    clock_t t0 = clock();
    bool ok = train_init(&tr, &p, &spec, &vocab, &err);
    double seconds = (double)(clock() - t0) / CLOCKS_PER_SEC;
    CHECK(!ok, "refused");
    if (ok) train_free(&tr);
    printf("refused in %.3f s: %s\n", seconds, err.message);
    CHECK(strstr(err.message, "2.8e+10 multiply-adds")
              && strstr(err.message, "8 sequences x (100 tokens")
              && strstr(err.message, "the bound is 1.6e+10"),
          "the message says the arithmetic and the bound: %s", err.message);
    spec.sequences = 4; // 14 G: allowed
    CHECK(train_check(&p, &spec, &err), "4 sequences fit the bound: %s", err.message);
    params_free(&p);
    mat_free(&vocab);
}

int main(void)
{
    test_checkpoints(8, 2, 4, 100, true); // 52 copies of a few hundred numbers
    test_checkpoints(512, 4, 64, 100, false); // 4.2 MB each: 52 would be 218 MB
    test_checkpoints(1024, 8, 128, 7, false); // 33.6 MB each: 3 fit
    test_refused();
    return check_report("test_train_bounds");
}
