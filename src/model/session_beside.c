// A lesson of layers trained beside the one shown (session.h's SessionBeside, --beside): the
// one-layer lesson beside the two-layer one, both on the same batches, so that the class sees
// both loss curves on one slide. Its trainer takes the shown lesson's "train" section (task,
// periods, sequences, steps, learning rate, seed): the same sequences at every step. No SDL.
#include "model/session_ctx.h"

#include <stdlib.h>
#include <string.h>

bool session_beside_load(Session *s, const char *path, SessionError *err)
{
    SessionBeside *b = &s->beside;
    session_beside_free(s);
    Lesson l;
    LessonError lerr;
    memset(&lerr, 0, sizeof lerr);
    if (!lesson_load(&l, path, &lerr)) {
        char msg[sizeof err->message];
        set_error(err, lesson_error_format(&lerr, msg, sizeof msg));
        return false;
    }
    if (!l.circuit) {
        if (err)
            snprintf(err->message, sizeof err->message,
                     "%s: --beside needs a lesson of layers (a \"vocabulary\"), trained beside "
                     "the one shown",
                     path);
        lesson_free(&l);
        return false;
    }
    b->lesson = l;
    b->on = true;
    b->measured_step = -1;
    const char *slash = strrchr(path, '/');
    snprintf(b->name, sizeof b->name, "%s", slash ? slash + 1 : path);
    return true;
}

void session_beside_stop(Session *s)
{
    SessionBeside *b = &s->beside;
    if (b->training) circuit_train_free(&b->tr);
    b->training = false;
    free(b->loss);
    b->loss = NULL;
    b->loss_count = 0;
    b->measured_step = -1;
}

void session_beside_free(Session *s)
{
    SessionBeside *b = &s->beside;
    session_beside_stop(s);
    if (b->on) lesson_free(&b->lesson);
    memset(b, 0, sizeof *b);
}

void session_beside_begin(Session *s)
{
    SessionBeside *b = &s->beside;
    if (!b->on) return;
    session_beside_stop(s);
    b->why[0] = '\0';
    const LessonCircuit *mine = s->lesson.circuit, *its = b->lesson.circuit;
    if (!mine || !mine->trains) return;
    if (its->vocab != mine->vocab || its->model.n_ctx != mine->model.n_ctx) {
        snprintf(b->why, sizeof b->why,
                 "%s: not trained beside: it has %d words and %d positions, the lesson shown %d "
                 "and %d (the same sequences need both the same)",
                 b->name, its->vocab, its->model.n_ctx, mine->vocab, mine->model.n_ctx);
        return;
    }
    TraceError terr;
    b->loss = calloc((size_t)mine->train.steps + 1, sizeof(double));
    if (!b->loss
        || !circuit_train_init(&b->tr, &its->model, &b->lesson.params.cfg, &mine->train,
                               its->positions == POS_EXPLICIT, &terr)) {
        snprintf(b->why, sizeof b->why, "%s: not trained beside: %s", b->name,
                 b->loss ? terr.message : "out of memory");
        free(b->loss);
        b->loss = NULL;
        return;
    }
    b->training = true;
}

bool session_beside_steps(Session *s, int step)
{
    SessionBeside *b = &s->beside;
    if (!b->training) return true;
    while (b->tr.step < step && b->tr.step < b->tr.spec.steps) {
        TraceError terr;
        if (!circuit_train_step(&b->tr, &terr)) {
            snprintf(b->why, sizeof b->why, "%s: a training step: %s", b->name, terr.message);
            circuit_train_free(&b->tr);
            b->training = false;
            return false;
        }
        b->loss[b->tr.step - 1] = b->tr.last_loss;
        b->loss_count = b->tr.step;
    }
    return true;
}

void session_beside_measure(Session *s)
{
    SessionBeside *b = &s->beside;
    if (!b->training || b->measured_step == b->tr.step) return;
    CircuitScores sc;
    TraceError terr;
    if (circuit_scores_init(&sc, &b->tr.c) && circuit_train_measure(&b->tr, &sc, NULL, &terr)) {
        b->repeat_loss = sc.repeat_loss;
        b->repeat_accuracy = sc.repeat_accuracy;
        b->measured_step = b->tr.step;
    }
    circuit_scores_free(&sc);
}
