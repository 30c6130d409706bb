// Training in the window (see session.h), its work on a worker thread: the job
// a worker runs, what the main thread shows when it ends, and the keys that step through it.
#include "model/session.h"
#include "model/session_ctx.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/platform.h"

typedef enum { JOB_START, JOB_STEPS, JOB_SHOW } JobKind;

// One piece of training work and what it made. The main thread fills what is asked and starts it;
// then only the worker touches the trainer and the fields below `made` until `done`; the main
// thread then joins it and shows what it made (job_finish). Kept between jobs: params (a copy of
// the edited parameters).
struct SessionTrainJob {
    PlatformThread *thread; // the worker (NULL: the job ran on the calling thread, or none runs)
    atomic_bool done; // set by the worker when it has finished
    bool busy; // started and not yet finished by job_finish
    JobKind kind;
    Trainer *tr;
    int steps; // JOB_STEPS: how many
    int checkpoint; // JOB_SHOW: the checkpoint whose weights to show, -1: the newest weights
    int shown; // JOB_SHOW: SessionTrain.shown once they are shown
    bool reset; // JOB_SHOW: back to step 0 first
    TrainSpec spec; // JOB_START: the lesson's settings
    Matrix vocab; //   and its vocabulary
    bool has_params;
    AttnParams params; // the edited parameters with the weights to show (the trainer's start for
                       // JOB_START)
    // made:
    bool ok, traced;
    Trace trace; // of params (traced)
    TraceError err;
    // Asked while a job ran (J, L, a seek, Z): a JOB_SHOW started when it ends.
    bool pending, pending_reset;
    int pending_checkpoint, pending_shown;
};

static int job_run(void *arg)
{
    SessionTrainJob *j = arg;
    memset(&j->err, 0, sizeof j->err);
    j->ok = true;
    j->traced = false;
    if (j->kind == JOB_START) j->ok = train_init(j->tr, &j->params, &j->spec, &j->vocab, &j->err);
    else {
        for (int i = 0;
             j->kind == JOB_STEPS && j->ok && i < j->steps && j->tr->step < j->tr->spec.steps; i++)
            j->ok = train_step(j->tr, &j->err);
        if (j->kind == JOB_SHOW && j->reset) train_reset(j->tr);
        if (j->ok) {
            bool saved = j->kind == JOB_SHOW && j->checkpoint >= 0;
            params_copy_weights(&j->params,
                                saved ? &j->tr->checkpoints[j->checkpoint].p : &j->tr->p);
            j->ok = j->traced = trace_run(&j->trace, &j->params, &j->err);
        }
    }
    atomic_store(&j->done, true);
    return 0;
}

// Starts the job asked in t->job: on a worker with async (on this thread when none starts), else
// here.
static void job_start(SessionTrain *t, JobKind kind)
{
    SessionTrainJob *j = t->job;
    j->kind = kind;
    j->tr = &t->tr;
    j->busy = true;
    atomic_store(&j->done, false);
    j->thread = t->async ? platform_thread_start(job_run, j) : NULL;
    if (!j->thread) job_run(j);
}

// The matrices of the edited parameters besides the weights (the embeddings, positions) and the
// settings a trace reads: job params takes them from edit (small: n x d_model each), or tells
// whether they still agree.
static bool embeddings_sync(AttnParams *dst, const AttnParams *src, bool copy)
{
    Matrix *d[] = {&dst->X, &dst->S, &dst->E, &dst->P, &dst->E_S, &dst->P_S};
    const Matrix *o[] = {&src->X, &src->S, &src->E, &src->P, &src->E_S, &src->P_S};
    bool same = dst->scale == src->scale && dst->ablated == src->ablated;
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++) {
        size_t bytes = (size_t)o[i]->rows * (size_t)o[i]->cols * sizeof(double);
        if (!o[i]->data) continue;
        if (copy) memcpy(d[i]->data, o[i]->data, bytes);
        else same = same && memcmp(d[i]->data, o[i]->data, bytes) == 0;
    }
    if (copy) {
        dst->scale = src->scale;
        dst->ablated = src->ablated;
    }
    return same;
}

// The trainer as the screen shows it: the main thread's copy, taken while no job runs.
static void publish(SessionTrain *t)
{
    const Trainer *tr = &t->tr;
    int from =
        t->loss_count < tr->loss_count ? t->loss_count : tr->loss_count; // the others never change
    memcpy(t->loss + from, tr->loss + from, (size_t)(tr->loss_count - from) * sizeof(double));
    t->loss_count = tr->loss_count;
    t->step = tr->step;
    t->steps = tr->spec.steps;
    t->checkpoint_count = tr->checkpoint_count;
    for (int i = 0; i < tr->checkpoint_count; i++) t->checkpoint_steps[i] = tr->checkpoints[i].step;
}

// The weights of src shown: copied into the edited parameters and traced (the previous weights back
// on failure).
static bool show_weights(Session *s, const AttnParams *src, SessionError *err)
{
    AttnParams keep;
    if (!params_copy(&keep, &s->edit)) {
        set_error(err, "out of memory");
        return false;
    }
    params_copy_weights(&s->edit, src);
    bool ok = session_retrace(s, err);
    if (!ok) params_copy_weights(&s->edit, &keep);
    params_free(&keep);
    return ok;
}

// The job's trace shown, its weights in the edited parameters; traced again here only when the
// embeddings were edited while it ran.
static bool show_job(Session *s, SessionError *err)
{
    SessionTrainJob *j = s->train.job;
    j->traced = false;
    SessionError ignored; // (an edit undone here was the user's; the training's weights are shown
                          // either way)
    (void)session_settle(s, &ignored);
    if (!embeddings_sync(&j->params, &s->edit, false)) {
        trace_free(&j->trace);
        return show_weights(s, &j->params, err);
    }
    // The weights taken by exchanging the storage, not copied: the job's copy is written whole by
    // its next run (job_run) before anything reads it. A copy was 40 ms of the frame at the
    // heaviest training lesson.
    params_swap_weights(&s->edit, &j->params);
    trace_free(&s->trace);
    s->trace = j->trace;
    session_drop_comparison(s);
    session_recount(s);
    return true;
}

static void job_start_show(Session *s, int checkpoint, int shown, bool reset)
{
    SessionTrain *t = &s->train;
    SessionTrainJob *j = t->job;
    if (checkpoint >= (reset ? 1 : t->tr.checkpoint_count))
        checkpoint = shown = -1; // asked before a reset that dropped it: the newest weights
    embeddings_sync(&j->params, &s->edit, true);
    j->checkpoint = checkpoint;
    j->shown = shown;
    j->reset = reset;
    job_start(t, JOB_SHOW);
}

// Joins the job and shows what it made; then starts what was asked meanwhile.
static SessionTrainPoll job_finish(Session *s, SessionError *err)
{
    SessionTrain *t = &s->train;
    SessionTrainJob *j = t->job;
    platform_thread_join(j->thread);
    j->thread = NULL;
    j->busy = false;
    SessionTrainPoll r = SESSION_TRAIN_SHOWN;
    if (j->kind == JOB_START) {
        mat_free(&j->vocab);
        if (j->ok && !(t->loss = calloc((size_t)t->tr.spec.steps + 1, sizeof *t->loss))) {
            train_free(&t->tr);
            snprintf(j->err.message, sizeof j->err.message, "out of memory");
            j->ok = false;
        }
        if (!j->ok) {
            t->running = j->pending = j->pending_reset = false;
            set_error(err, j->err.message);
            return SESSION_TRAIN_FAILED;
        }
        t->active = true;
        t->shown = -1;
        t->loss_count = 0;
        publish(t);
        if (!j->pending) return r;
    } else {
        publish(t);
        if (!j->ok) {
            if (j->kind == JOB_STEPS) t->running = false;
            if (j->traced) trace_free(&j->trace);
            set_error(err, j->err.message);
            r = SESSION_TRAIN_FAILED;
        } else {
            if (j->kind == JOB_STEPS && t->tr.step >= t->tr.spec.steps) t->running = false;
            t->shown = j->kind == JOB_SHOW ? j->shown : -1;
            if (!show_job(s, err)) r = SESSION_TRAIN_FAILED;
        }
    }
    if (j->pending) {
        j->pending = false;
        job_start_show(s, j->pending_checkpoint, j->pending_shown, j->pending_reset);
        j->pending_reset = false;
        if (!t->async) return job_finish(s, err);
    }
    return r;
}

static void drop_job(SessionTrain *t)
{
    SessionTrainJob *j = t->job;
    if (!j) return;
    if (j->busy) {
        if (j->kind != JOB_START)
            atomic_store(&t->tr.stop, true); // a step ends at its next sequence
        platform_thread_join(j->thread);
        if (j->kind == JOB_START && j->ok) t->active = true; // (train_free'd by the caller)
        if (j->traced) trace_free(&j->trace);
    }
    mat_free(&j->vocab);
    if (j->has_params) params_free(&j->params);
    free(j);
    t->job = NULL;
}

// The training goes with its lesson: the job (joined when it runs) and the trainer freed.
void session_drop_training(Session *s)
{
    bool async = s->train.async;
    drop_job(&s->train);
    if (s->train.active && !s->circuit.on) train_free(&s->train.tr); // (a circuit's: its own)
    free(s->train.loss);
    memset(&s->train, 0, sizeof s->train);
    s->train.async = async; // the window's choice outlives the lesson
}

// J, L, a seek, Z, a resume: the weights of checkpoint (-1: the newest) shown, then shown is
// `shown`; after the job running now when there is one.
static bool ask_show(Session *s, int checkpoint, int shown, bool reset, SessionError *err)
{
    SessionTrainJob *j = s->train.job;
    if (j->busy) {
        j->pending = true;
        j->pending_checkpoint = checkpoint;
        j->pending_shown = shown;
        j->pending_reset = j->pending_reset || reset;
        return true;
    }
    job_start_show(s, checkpoint, shown, reset);
    return s->train.async || job_finish(s, err) == SESSION_TRAIN_SHOWN;
}

// The checkpoint shown, or the one asked for when a show waits for the job running now.
static int shown_now(const SessionTrain *t)
{
    return t->job && t->job->pending ? t->job->pending_shown : t->shown;
}

// The first T: the trainer started on the worker from the weights shown (the file's embeddings; the
// trainer draws its own sequences). Refused here, at once, when a step would take too long.
static bool train_begin(Session *s, SessionError *err)
{
    SessionTrain *t = &s->train;
    TraceError terr;
    if (!train_check(&s->edit, &s->lesson.train, &terr)) {
        set_error(err, terr.message);
        return false;
    }
    if (!t->job && !(t->job = calloc(1, sizeof *t->job))) {
        set_error(err, "out of memory");
        return false;
    }
    SessionTrainJob *j = t->job;
    if (j->has_params) params_free(&j->params);
    int *ids = malloc((size_t)s->edit.n * sizeof(int));
    j->has_params = ids && lesson_train_vocabulary(&s->lesson, &j->vocab, ids)
                    && params_copy(&j->params, &s->edit);
    free(ids);
    if (!j->has_params) {
        mat_free(&j->vocab);
        set_error(err, "out of memory");
        return false;
    }
    j->spec = s->lesson.train;
    t->running = true;
    job_start(t, JOB_START);
    return t->async || job_finish(s, err) == SESSION_TRAIN_SHOWN;
}

bool session_train_toggle(Session *s, SessionError *err)
{
    set_error(err, "");
    if (!s->loaded) return false;
    SessionTrain *t = &s->train;
    if (s->circuit.on) return session_circuit_train_toggle(s, err);
    if (!s->lesson.trains) {
        set_error(err, "this lesson has no \"train\" section: try "
                       "lessons/learn-previous-token.json (README: Heads that learn)");
        return false;
    }
    if (!t->active && !(t->job && t->job->busy)) return train_begin(s, err);
    if (!t->active) { // T while the trainer starts: it runs (or not) once started
        t->running = !t->running;
        return true;
    }
    if (!t->running && t->step >= t->steps) {
        set_error(err, "training is done: Z starts again from step 0");
        return false;
    }
    t->running = !t->running;
    if (t->running && shown_now(t) >= 0)
        return ask_show(s, -1, -1, false, err); // resumes from the newest weights
    return true;
}

bool session_train_steps(Session *s, int steps, SessionError *err)
{
    set_error(err, "");
    SessionTrain *t = &s->train;
    if (s->circuit.on) return session_circuit_train_steps(s, steps, err);
    if (!t->active || !t->running || t->job->busy || t->job->pending) return false;
    embeddings_sync(&t->job->params, &s->edit, true);
    t->job->steps = steps;
    job_start(t, JOB_STEPS);
    return t->async || job_finish(s, err) == SESSION_TRAIN_SHOWN;
}

SessionTrainPoll session_train_poll(Session *s, SessionError *err)
{
    set_error(err, "");
    if (s->circuit.on)
        return session_circuit_train_poll(s) ? SESSION_TRAIN_SHOWN : SESSION_TRAIN_IDLE;
    SessionTrainJob *j = s->train.job;
    if (!j || !j->busy || !atomic_load(&j->done)) return SESSION_TRAIN_IDLE;
    return job_finish(s, err);
}

bool session_train_busy(const Session *s)
{
    return s->train.job && (s->train.job->busy || s->train.job->pending);
}

SessionTrainPoll session_train_wait(Session *s, SessionError *err)
{
    set_error(err, "");
    SessionTrainPoll r = SESSION_TRAIN_IDLE;
    while (s->train.job && s->train.job->busy)
        r = job_finish(s, err); // (a pending show starts, and is waited for)
    return r;
}

bool session_train_show(Session *s, int dir, SessionError *err)
{
    set_error(err, "");
    SessionTrain *t = &s->train;
    if (s->circuit.on) return session_circuit_train_show(s, dir, err);
    if (!t->active) return false;
    int count = t->checkpoint_count;
    // The newest weights are the last checkpoint when the run saved them there, else one beyond it.
    bool newest_saved = t->checkpoint_steps[count - 1] == t->step;
    int last =
        newest_saved ? count - 1 : count; // count: the newest weights, not saved as a checkpoint
    int at = shown_now(t) < 0 ? last : shown_now(t);
    int to = at + (dir < 0 ? -1 : 1);
    if (to < 0 || to > last) return false;
    t->running = false;
    if (to == count) return ask_show(s, -1, -1, false, err);
    return ask_show(s, to, to == count - 1 && newest_saved ? -1 : to, false, err);
}

bool session_train_reset(Session *s, SessionError *err)
{
    set_error(err, "");
    SessionTrain *t = &s->train;
    if (s->circuit.on) return session_circuit_train_reset(s, err);
    if (!t->active && !session_train_busy(s))
        return false; // (while the trainer starts: once it has)
    t->running = false;
    return ask_show(s, -1, -1, true, err);
}

int session_train_shown_step(const Session *s)
{
    const SessionTrain *t = &s->train;
    if (!t->active) return -1;
    return t->shown >= 0 ? t->checkpoint_steps[t->shown] : t->step;
}

bool session_train_seek(Session *s, int step, SessionError *err)
{
    set_error(err, "");
    SessionTrain *t = &s->train;
    if (s->circuit.on) return session_circuit_train_seek(s, step, err);
    if (!t->active) return false;
    int best = -1, best_d = abs(t->step - step); // -1: the newest weights
    for (int i = 0; i < t->checkpoint_count; i++) {
        int d = abs(t->checkpoint_steps[i] - step);
        if (d < best_d) best = i, best_d = d;
    }
    if (best >= 0 && t->checkpoint_steps[best] == t->step) best = -1; // the newest, saved
    bool was_running = t->running;
    t->running = false;
    if (best == shown_now(t)) return was_running;
    return ask_show(s, best, best, false, err);
}
