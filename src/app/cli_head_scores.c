// --head-scores: the probe is BOS (where the tokenizer puts one first) then HEAD_SCORES_REPEAT
// distinct random token ids, then the same ids again, as TransformerLens' head detector builds it;
// each layer is run on it (hf_model_run_ids) and traced, and each head's attention weights A give,
// with o the BOS tokens and k the repeat: previous-token = mean of A[i][i-1] over i >= 1;
// duplicate-token = mean of A[i][i-k] over the second copy (i from o + k); induction = mean of
// A[i][i-k+1] over the second copy: attention to the token after the earlier copy.
#include "app/cli_head_scores.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli.h"
#include "app/options.h"
#include "core/rng.h"

typedef struct {
    double prev, dup, ind;
} HeadScore;

// ids (o + 2k) = the BOS ids, then k distinct ids floor(u * vocab) (drawn again while taken),
// twice.
static int probe_ids(int *ids, const HfModel *m)
{
    int o = m->tok.nprefix, k = HEAD_SCORES_REPEAT, vocab = m->cfg.vocab;
    for (int i = 0; i < o; i++) ids[i] = m->tok.prefix[i];
    Rng rng;
    rng_seed(&rng, HEAD_SCORES_SEED);
    for (int j = 0; j < k; j++) {
        bool taken;
        do {
            int t = (int)(rng_next_double(&rng) * (double)vocab);
            ids[o + j] = t < vocab ? t : vocab - 1;
            taken = false;
            for (int q = 0; q < j && vocab >= k; q++) taken = taken || ids[o + q] == ids[o + j];
        } while (taken);
        ids[o + k + j] = ids[o + j];
    }
    return o + 2 * k;
}

static void score_head(HeadScore *s, const Matrix *A, int o, int k)
{
    int n = A->rows;
    double prev = 0, dup = 0, ind = 0;
    for (int i = 1; i < n; i++) prev += mat_row(A, i)[i - 1];
    for (int i = o + k; i < n; i++) {
        dup += mat_row(A, i)[i - k];
        ind += mat_row(A, i)[i - k + 1];
    }
    s->prev = prev / (n - 1);
    s->dup = dup / k;
    s->ind = ind / k;
}

// Every layer's heads into scores (layers * heads). false after saying why.
static bool score_layers(HeadScore *scores, int *heads, const HfModel *m, const int *ids, int n)
{
    int o = m->tok.nprefix, k = HEAD_SCORES_REPEAT;
    for (int l = 0; l < m->cfg.layers; l++) {
        HfRun r;
        LessonError err;
        if (!hf_model_run_ids(&r, m, ids, n, l, &err)) {
            char buf[1400];
            cli_line(stderr, "%s\n", lesson_error_format(&err, buf, sizeof buf));
            return false;
        }
        Trace t;
        TraceError terr;
        bool ok = trace_run(&t, &r.lesson.params, &terr);
        if (ok) {
            *heads = t.heads;
            for (int h = 0; h < t.heads; h++)
                score_head(&scores[(size_t)l * (size_t)t.heads + (size_t)h], &t.head[h].weights, o,
                           k);
            trace_free(&t);
        } else cli_line(stderr, "%s: error: layer %d: %s\n", m->dir, l, terr.message);
        hf_run_free(&r);
        if (!ok) return false;
    }
    return true;
}

static void print_json(const HfModel *m, const HeadScore *s, int heads, const int *ids, int n)
{
    printf("{\n  \"model\": ");
    cli_json_string(stdout, m->dir);
    printf(",\n  \"seed\": %d,\n  \"repeat\": %d,\n  \"bos\": %d,\n  \"token_ids\": [",
           HEAD_SCORES_SEED, HEAD_SCORES_REPEAT, m->tok.nprefix);
    for (int i = 0; i < n; i++) printf("%s%d", i ? ", " : "", ids[i]);
    printf("],\n  \"heads\": [");
    for (int l = 0, first = 1; l < m->cfg.layers; l++)
        for (int h = 0; h < heads; h++, first = 0) {
            const HeadScore *x = &s[(size_t)l * (size_t)heads + (size_t)h];
            printf("%s\n    {\"layer\": %d, \"head\": %d, \"previous_token\": ", first ? "" : ",",
                   l, h);
            cli_json_number(stdout, x->prev);
            printf(", \"duplicate_token\": ");
            cli_json_number(stdout, x->dup);
            printf(", \"induction\": ");
            cli_json_number(stdout, x->ind);
            printf("}");
        }
    printf("\n  ],\n  \"induction_heads\": [");
    for (int l = 0, first = 1; l < m->cfg.layers; l++)
        for (int h = 0; h < heads; h++)
            if (s[(size_t)l * (size_t)heads + (size_t)h].ind >= HEAD_SCORES_INDUCTION)
                printf("%s[%d, %d]", first ? "" : ", ", l, h), first = 0;
    printf("]\n}\n");
}

static void print_text(const HfModel *m, const HeadScore *s, int heads, const int *ids, int n)
{
    cli_line(stdout,
             "%s: each head on %d random tokens seen twice (seed %d%s): previous-token, "
             "duplicate-token and induction scores\n",
             m->dir, HEAD_SCORES_REPEAT, HEAD_SCORES_SEED,
             m->tok.nprefix ? ", after the BOS token" : "");
    printf("token ids:");
    for (int i = 0; i < n; i++) printf(" %d", ids[i]);
    printf("\n");
    int found = 0;
    for (int l = 0; l < m->cfg.layers; l++)
        for (int h = 0; h < heads; h++) {
            const HeadScore *x = &s[(size_t)l * (size_t)heads + (size_t)h];
            bool ind = x->ind >= HEAD_SCORES_INDUCTION;
            found += ind;
            printf("layer %2d head %2d: previous-token %.4f  duplicate-token %.4f  induction "
                   "%.4f%s\n",
                   l, h, x->prev, x->dup, x->ind, ind ? "  <- induction head" : "");
        }
    printf("%d induction head%s (induction score at least %.1f)\n", found, found == 1 ? "" : "s",
           HEAD_SCORES_INDUCTION);
}

int cli_head_scores(const HfModel *m, bool json)
{
    int ids[HF_MAX_SPECIAL + 2 * HEAD_SCORES_REPEAT], heads = 0;
    int n = probe_ids(ids, m);
    HeadScore *scores = calloc((size_t)m->cfg.layers * (size_t)m->cfg.heads, sizeof *scores);
    if (!scores) {
        cli_line(stderr, "mha-tracer: error: out of memory\n");
        return EXIT_IO;
    }
    int status = EXIT_USAGE;
    if (score_layers(scores, &heads, m, ids, n)) {
        if (json) print_json(m, scores, heads, ids, n);
        else print_text(m, scores, heads, ids, n);
        status = cli_finish_stdout();
    }
    free(scores);
    return status;
}
