// A lesson's "train" section (the task and the trainer's settings), and what training reads from a
// lesson: its vocabulary of distinct tokens and its targets.
#include "lesson/lesson_ctx.h"

#include <stdlib.h>
#include <string.h>

// "train": {"task": ..., "sequences": N, "seed": S, "steps": K, "learning_rate": R} (all but the
// task optional). Needs self-attention, and the same embedding wherever a token repeats (the
// vocabulary is the lesson's distinct tokens).
bool lesson_read_train(Ctx *c, const cJSON *t, Build *b)
{
    static const char *const keys[] = {"task", "sequences", "seed", "steps", "learning_rate", NULL};
    if (!cJSON_IsObject(t))
        return lesson_fail(
            c, "expected an object {\"task\": \"previous-token\", \"steps\": ...}, got %s",
            lesson_type_name(t));
    if (!lesson_check_keys(c, t, keys, "task, sequences, seed, steps, learning_rate")) return false;
    TrainSpec s = {TASK_PREVIOUS_TOKEN, TRAIN_DEFAULT_SEQUENCES, 0, TRAIN_DEFAULT_STEPS,
                   TRAIN_DEFAULT_LEARNING_RATE};
    const cJSON *v =
        lesson_need_hint(c, t, "task", "previous-token, first-token or previous-and-first");
    if (!v) return false;
    char shown[80];
    if (!cJSON_IsString(v))
        return lesson_fail(
            c, "expected \"previous-token\", \"first-token\" or \"previous-and-first\", got %s",
            lesson_type_name(v));
    int task = 0;
    while (task < TASK_COUNT && strcmp(v->valuestring, train_task_key((TrainTask)task)) != 0)
        task++;
    if (task == TASK_COUNT)
        return lesson_fail(
            c, "expected \"previous-token\", \"first-token\" or \"previous-and-first\", got \"%s\"",
            lesson_show_key(v->valuestring, shown, sizeof shown));
    s.task = (TrainTask)task;
    if (s.task == TASK_PREVIOUS_AND_FIRST && b->l.params.d_model < 2)
        return lesson_fail(
            c, "\"previous-and-first\" needs d_model of at least 2 (half for each token), got %d",
            b->l.params.d_model);
    lesson_pop(c);
    if (!lesson_optional_int(c, t, "sequences", 1, TRAIN_MAX_SEQUENCES, &s.sequences)
        || !lesson_optional_seed(c, t, "seed", &s.seed)
        || !lesson_optional_int(c, t, "steps", 1, TRAIN_MAX_STEPS, &s.steps))
        return false;
    if ((v = lesson_enter(c, t, "learning_rate"))) {
        char num[40];
        if (!lesson_get_number(c, v, &s.learning_rate)) return false;
        if (!(s.learning_rate > 0 && s.learning_rate <= 1))
            return lesson_fail(c, "must be a number above 0 and at most 1, got %s",
                               lesson_fmt_num(s.learning_rate, num, sizeof num));
        lesson_pop(c);
    }
    if (b->l.params.cross)
        return lesson_fail(c, "training is for self-attention only; this lesson has a \"source\"");
    double held = (double)s.sequences * b->n * b->l.params.d_model; // the targets the trainer keeps
    if (held > LESSON_MAX_TRACE_VALUES)
        return lesson_fail(c,
                           "the training targets would hold %.0f numbers (sequences * n * d_model "
                           "= %d * %d * %d); the limit "
                           "is %.0f: use fewer sequences",
                           held, s.sequences, b->n, b->l.params.d_model, LESSON_MAX_TRACE_VALUES);
    const Matrix *e = b->l.params.positions != POS_NONE ? &b->l.params.E : &b->l.params.X;
    for (int i = 0; i < b->n; i++)
        for (int j = 0; j < i; j++)
            if (strcmp(b->l.tokens[i], b->l.tokens[j]) == 0
                && memcmp(mat_row(e, i), mat_row(e, j), (size_t)e->cols * sizeof(double)) != 0)
                return lesson_fail(
                    c,
                    "the token \"%s\" has two different embeddings (tokens %d and %d); training "
                    "draws its "
                    "sequences from the lesson's distinct tokens, so each needs one embedding",
                    lesson_show_key(b->l.tokens[i], shown, sizeof shown), j, i);
    b->l.trains = true;
    b->l.train = s;
    return true;
}

bool lesson_train_vocabulary(const Lesson *l, Matrix *vocab, int *ids)
{
    const AttnParams *p = &l->params;
    const Matrix *e = p->positions != POS_NONE ? &p->E : &p->X;
    int count = 0;
    for (int i = 0; i < p->n; i++) {
        int j = 0;
        while (j < i && strcmp(l->tokens[i], l->tokens[j]) != 0) j++;
        ids[i] = j < i ? ids[j] : count++;
    }
    if (!mat_init(vocab, count, p->d_model)) return false;
    for (int i = 0; i < p->n; i++)
        memcpy(mat_row(vocab, ids[i]), mat_row(e, i), (size_t)p->d_model * sizeof(double));
    return true;
}

bool lesson_targets(const Lesson *l, Matrix *targets, bool *missing)
{
    memset(targets, 0, sizeof *targets);
    *missing = false;
    if (l->targets.data) return mat_copy(targets, &l->targets);
    if (!l->trains) {
        *missing = true;
        return false;
    }
    Matrix vocab = {0};
    int *ids = malloc((size_t)l->params.n * sizeof(int));
    bool ok = ids && lesson_train_vocabulary(l, &vocab, ids)
              && mat_init(targets, l->params.n, l->params.d_model);
    if (ok) train_targets(targets, l->train.task, &vocab, ids, l->params.n);
    free(ids);
    mat_free(&vocab);
    return ok;
}
