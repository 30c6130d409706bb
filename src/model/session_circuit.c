// A lesson of layers in the window (session.h's SessionCircuit): the layer on the board, the heads
// switched off per layer, what the circuit panel measures (the evaluation repeats' loss and
// accuracy, each head's scores, each head switched off alone, the K-composition), training (T) on
// the induction task with its checkpoints, the whole lesson saved. Steps run on the calling thread:
// a step of the shipped lesson takes a few milliseconds. No SDL.
#include "model/session_ctx.h"
#include "model/circuit_layer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lesson/lesson_circuit_write.h"

static void trace_message(SessionError *err, const char *what, const TraceError *t)
{
    if (err) snprintf(err->message, sizeof err->message, "%s: %s", what, t->message);
}

static int heads_of(const SessionCircuit *c) { return c->cur.layers * c->cur.shape.heads; }

// The evaluation repeats of the lesson's "train" section: seed + 1, as --train and --json draw
// them (cli_circuit_probe), into ids (count, n) and period.
static void draw_eval(const LessonCircuit *lc, int n, int vocab, int *ids, int *period)
{
    Rng rng;
    rng_seed(&rng, lc->train.seed + 1);
    for (int q = 0; q < CIRCUIT_EVAL_SEQUENCES; q++)
        circuit_draw_induction(ids + (size_t)q * (size_t)n, &period[q], n, vocab,
                               lc->train.period_min, lc->train.period_max, &rng);
}

// The scores of w on the evaluation repeats with ablated (NULL: none) into *s (initialised).
static bool measure(const Session *s, const Circuit *w, const uint64_t *ablated, CircuitScores *out)
{
    const LessonCircuit *lc = s->lesson.circuit;
    int n = w->n_ctx, count = CIRCUIT_EVAL_SEQUENCES;
    int *ids = malloc((size_t)count * (size_t)n * sizeof(int)),
        *period = malloc(count * sizeof(int));
    TraceError terr;
    bool ok = ids && period;
    if (ok) draw_eval(lc, n, w->vocab, ids, period);
    ok =
        ok && circuit_measure(out, w, &s->lesson.params.cfg, ids, period, count, n, ablated, &terr);
    free(ids);
    free(period);
    return ok;
}

// What the panel reads of the weights shown: the scores with the heads switched off now, each head
// switched off alone, and the K-composition of every later layer's heads with the layer before.
static void measure_shown(Session *s)
{
    SessionCircuit *c = &s->circuit;
    int H = c->cur.shape.heads, LH = heads_of(c);
    c->measured = false;
    if (!s->lesson.circuit->trains) return;
    CircuitScores one;
    bool ok = measure(s, &c->cur, c->ablated, &c->now) && circuit_scores_init(&one, &c->cur);
    for (int k = 0; ok && k < LH; k++) {
        uint64_t off[CIRCUIT_MAX_LAYERS] = {0};
        off[k / H] = (uint64_t)1 << (k % H);
        ok = measure(s, &c->cur, off, &one);
        c->off_loss[k] = one.repeat_loss;
        c->off_accuracy[k] = one.repeat_accuracy;
    }
    if (one.prev_token) circuit_scores_free(&one);
    c->measured = ok;
    session_beside_measure(s);
}

static void composition(SessionCircuit *c)
{
    int H = c->cur.shape.heads;
    for (int l = 0; l + 1 < c->cur.layers; l++)
        for (int h2 = 0; h2 < H; h2++)
            for (int h1 = 0; h1 < H; h1++)
                c->k_comp[((size_t)l * H + h2) * H + h1] =
                    circuit_composition(&c->cur, COMPOSE_K, l + 1, h2, l, h1);
}

// The layer shown made again from cur and the run: the lesson's params, the edit and the trace.
static bool show_layer(Session *s, int layer, SessionError *err)
{
    SessionCircuit *c = &s->circuit;
    AttnParams p, edit;
    LayerStream stream;
    Trace t;
    TraceError terr;
    if (!circuit_layer_params(&p, &stream, &s->lesson, &c->cur, &c->run, layer,
                              c->ablated[layer])) {
        set_error(err, "out of memory");
        return false;
    }
    if (!trace_run(&t, &p, &terr)) {
        trace_message(err, "the layer's trace", &terr);
        params_free(&p);
        layer_stream_free(&stream);
        return false;
    }
    if (!params_copy(&edit, &p)) {
        set_error(err, "out of memory");
        trace_free(&t);
        params_free(&p);
        layer_stream_free(&stream);
        return false;
    }
    session_drop_comparison(s);
    trace_free(&s->trace);
    params_free(&s->edit);
    params_free(&s->lesson.params);
    layer_stream_free(&c->stream);
    c->stream = stream;
    p.stream = edit.stream = &c->stream;
    s->lesson.params = p;
    s->edit = edit;
    s->trace = t;
    s->edit_count = 0;
    c->layer = layer;
    return true;
}

// cur (or the heads switched off, or the settings) changed: the run, the layer shown and the
// panel's figures made again.
static bool refresh(Session *s, SessionError *err)
{
    SessionCircuit *c = &s->circuit;
    CircuitRun r;
    TraceError terr;
    if (!circuit_run(&r, &c->cur, &s->lesson.params.cfg, s->lesson.circuit->ids, s->lesson.params.n,
                     c->ablated, &terr)) {
        trace_message(err, "the layers' run", &terr);
        return false;
    }
    if (c->has_run) circuit_run_free(&c->run);
    c->run = r;
    c->has_run = true;
    if (!show_layer(s, c->layer, err)) return false;
    composition(c);
    measure_shown(s);
    return true;
}

void session_circuit_drop(Session *s)
{
    SessionCircuit *c = &s->circuit;
    if (!c->on) return;
    if (c->has_run) circuit_run_free(&c->run);
    if (c->training) circuit_train_free(&c->tr);
    session_beside_stop(s);
    for (int i = 0; c->checkpoint && i <= TRAIN_CHECKPOINTS; i++) circuit_free(&c->checkpoint[i]);
    free(c->checkpoint);
    free(c->point);
    circuit_scores_free(&c->now);
    free(c->off_loss);
    free(c->off_accuracy);
    free(c->k_comp);
    circuit_free(&c->cur);
    // (the stream goes with the params that borrow it: freed last by the caller's lesson_free)
    layer_stream_free(&c->stream);
    memset(c, 0, sizeof *c);
}

bool session_circuit_adopt(Session *s, SessionError *err)
{
    SessionCircuit *c = &s->circuit;
    session_circuit_drop(s);
    if (!s->lesson.circuit) return true;
    const Circuit *file = &s->lesson.circuit->model;
    size_t LH = (size_t)file->layers * (size_t)file->shape.heads, H = (size_t)file->shape.heads;
    memset(c, 0, sizeof *c);
    c->on = true;
    c->off_loss = calloc(LH, sizeof(double));
    c->off_accuracy = calloc(LH, sizeof(double));
    c->k_comp = calloc(H * H * (size_t)(file->layers > 1 ? file->layers - 1 : 1), sizeof(double));
    c->checkpoint = calloc(TRAIN_CHECKPOINTS + 1, sizeof *c->checkpoint);
    c->point = calloc(TRAIN_CHECKPOINTS + 2, sizeof *c->point);
    if (!c->off_loss || !c->off_accuracy || !c->k_comp || !c->checkpoint || !c->point
        || !circuit_copy(&c->cur, file) || !circuit_scores_init(&c->now, file)) {
        session_circuit_drop(s);
        set_error(err, "out of memory");
        return false;
    }
    if (refresh(s, err)) return true;
    session_circuit_drop(s);
    return false;
}

bool session_circuit_layer(Session *s, int layer, SessionError *err)
{
    set_error(err, "");
    SessionCircuit *c = &s->circuit;
    if (!s->loaded || !c->on) return false;
    if (layer < 0) layer = 0;
    if (layer >= c->cur.layers) layer = c->cur.layers - 1;
    if (layer == c->layer) return false;
    return show_layer(s, layer, err);
}

int session_circuit_layers(const Session *s) { return s->circuit.on ? s->circuit.cur.layers : 1; }
int session_circuit_shown(const Session *s) { return s->circuit.on ? s->circuit.layer : 0; }

bool session_circuit_toggle(Session *s, int h, SessionError *err)
{
    SessionCircuit *c = &s->circuit;
    if (h < 0 || h >= c->cur.shape.heads) return false;
    uint64_t was = c->ablated[c->layer];
    c->ablated[c->layer] ^= (uint64_t)1 << h;
    if (refresh(s, err)) return true;
    c->ablated[c->layer] = was;
    refresh(s, NULL);
    return false;
}

bool session_circuit_rescale(Session *s, double scale, SessionError *err)
{
    double was = s->lesson.params.scale;
    s->lesson.params.scale = scale;
    if (refresh(s, err)) return true;
    s->lesson.params.scale = was;
    refresh(s, NULL);
    return false;
}

bool session_circuit_edited(const Session *s)
{
    const Circuit *a = &s->circuit.cur, *b = &s->lesson.circuit->model;
    Matrix *ma[4 * CIRCUIT_MAX_LAYERS * 64 + 3], *mb[4 * CIRCUIT_MAX_LAYERS * 64 + 3];
    if (circuit_matrix_cap(a) > (int)(sizeof ma / sizeof ma[0])) return true;
    int n = circuit_matrices(ma, (Circuit *)a, true);
    circuit_matrices(mb, (Circuit *)b, true);
    for (int i = 0; i < n; i++)
        if (memcmp(ma[i]->data, mb[i]->data,
                   (size_t)ma[i]->rows * (size_t)ma[i]->cols * sizeof(double)))
            return true;
    return false;
}

int session_circuit_revert(Session *s, SessionError *err)
{
    if (!session_circuit_edited(s)) return 0;
    circuit_copy_values(&s->circuit.cur, &s->lesson.circuit->model);
    return refresh(s, err) ? 1 : -1;
}

char *session_circuit_json(const Session *s, size_t *len)
{
    const LessonCircuit *lc = s->lesson.circuit;
    return lesson_circuit_write_json(&s->lesson, &s->circuit.cur, lc->trains ? &lc->train : NULL,
                                     " (edited)", len);
}

// --- Training (T) on the induction task, its checkpoints and what is measured at each ---

// A checkpoint every this many steps: at most TRAIN_CHECKPOINTS + 1 with step 0 and the last.
static int every_of(int steps)
{
    int k = TRAIN_CHECKPOINTS - 1, e = (steps + k - 1) / k;
    return e > 0 ? e : 1;
}

// The trainer's weights kept as the next checkpoint, with their scores.
static void keep_checkpoint(Session *s)
{
    SessionCircuit *c = &s->circuit;
    SessionTrain *t = &s->train;
    int i = t->checkpoint_count;
    if (i > TRAIN_CHECKPOINTS) return;
    if (!c->checkpoint[i].w && !circuit_copy(&c->checkpoint[i], &c->tr.c)) return;
    circuit_copy_values(&c->checkpoint[i], &c->tr.c);
    t->checkpoint_steps[i] = c->tr.step;
    SessionCircuitPoint *pt = &c->point[i];
    memset(pt, 0, sizeof *pt);
    pt->step = c->tr.step;
    CircuitScores sc;
    if (circuit_scores_init(&sc, &c->tr.c) && measure(s, &c->tr.c, NULL, &sc)) {
        pt->repeat_loss = sc.repeat_loss;
        pt->repeat_accuracy = sc.repeat_accuracy;
        for (int k = 0; k < heads_of(c) && k < SESSION_CIRCUIT_MAX_HEADS; k++) {
            pt->prev_token[k] = sc.prev_token[k];
            pt->induction[k] = sc.induction[k];
        }
    }
    circuit_scores_free(&sc);
    t->checkpoint_count = i + 1;
    c->point_count = i + 1;
}

static bool train_begin(Session *s, SessionError *err)
{
    SessionCircuit *c = &s->circuit;
    SessionTrain *t = &s->train;
    const LessonCircuit *lc = s->lesson.circuit;
    TraceError terr;
    if (!circuit_train_init(&c->tr, &c->cur, &s->lesson.params.cfg, &lc->train,
                            lc->positions == POS_EXPLICIT, &terr)) {
        trace_message(err, "training", &terr);
        return false;
    }
    c->training = true;
    free(t->loss);
    t->loss = calloc((size_t)lc->train.steps + 1, sizeof(double));
    if (!t->loss) {
        circuit_train_free(&c->tr);
        c->training = false;
        set_error(err, "out of memory");
        return false;
    }
    t->active = t->running = true;
    t->shown = -1;
    t->step = t->loss_count = t->checkpoint_count = 0;
    t->steps = lc->train.steps;
    session_beside_begin(s);
    keep_checkpoint(s);
    c->fresh = true;
    return true;
}

bool session_circuit_train_toggle(Session *s, SessionError *err)
{
    SessionTrain *t = &s->train;
    if (!s->lesson.circuit->trains) {
        set_error(err, "this lesson of layers has no \"train\" section: try "
                       "lessons/induction-heads.json");
        return false;
    }
    if (!s->circuit.training) return train_begin(s, err);
    if (!t->running && t->step >= t->steps) {
        set_error(err, "training is done: Z starts again from step 0");
        return false;
    }
    t->running = !t->running;
    if (t->running && t->shown >= 0) { // resumes from the newest weights
        circuit_copy_values(&s->circuit.cur, &s->circuit.tr.c);
        t->shown = -1;
        return refresh(s, err);
    }
    if (!t->running) measure_shown(s); // paused: the panel's figures of the weights shown
    return true;
}

bool session_circuit_train_steps(Session *s, int steps, SessionError *err)
{
    SessionCircuit *c = &s->circuit;
    SessionTrain *t = &s->train;
    if (!c->training || !t->running) return false;
    int every = every_of(t->steps);
    for (int k = 0; k < steps && t->step < t->steps; k++) {
        TraceError terr;
        if (!circuit_train_step(&c->tr, &terr)) {
            t->running = false;
            trace_message(err, "a training step", &terr);
            return false;
        }
        t->loss[t->step] = c->tr.last_loss;
        t->step = c->tr.step;
        t->loss_count = t->step;
        if (t->step % every == 0 || t->step == t->steps) keep_checkpoint(s);
    }
    session_beside_steps(s, t->step);
    if (t->step >= t->steps) t->running = false;
    circuit_copy_values(&c->cur, &c->tr.c);
    t->shown = -1;
    c->fresh = true;
    // While it runs, only the run and the layer shown are made again (each head switched off is
    // measured when it stops): a frame's steps stay within the frame.
    bool ok;
    if (t->running) {
        CircuitRun r;
        TraceError terr;
        ok = circuit_run(&r, &c->cur, &s->lesson.params.cfg, s->lesson.circuit->ids,
                         s->lesson.params.n, c->ablated, &terr);
        if (ok) {
            circuit_run_free(&c->run);
            c->run = r;
            ok = show_layer(s, c->layer, err);
            composition(c);
        } else trace_message(err, "the layers' run", &terr);
        c->measured = false;
    } else ok = refresh(s, err);
    return ok;
}

bool session_circuit_train_poll(Session *s)
{
    bool fresh = s->circuit.fresh;
    s->circuit.fresh = false;
    return fresh;
}

// The weights of checkpoint i shown (-1: the newest), paused.
static bool show_checkpoint(Session *s, int i, SessionError *err)
{
    SessionCircuit *c = &s->circuit;
    SessionTrain *t = &s->train;
    t->running = false;
    circuit_copy_values(&c->cur, i < 0 ? &c->tr.c : &c->checkpoint[i]);
    t->shown = i >= 0 && t->checkpoint_steps[i] == t->step ? -1 : i;
    c->fresh = true;
    return refresh(s, err);
}

bool session_circuit_train_show(Session *s, int dir, SessionError *err)
{
    SessionTrain *t = &s->train;
    if (!s->circuit.training) return false;
    int count = t->checkpoint_count;
    bool newest_saved = t->checkpoint_steps[count - 1] == t->step;
    int last = newest_saved ? count - 1 : count;
    int at = t->shown < 0 ? last : t->shown;
    int to = at + (dir < 0 ? -1 : 1);
    if (to < 0 || to > last) return false;
    return show_checkpoint(s, to == count ? -1 : to, err);
}

bool session_circuit_train_seek(Session *s, int step, SessionError *err)
{
    SessionTrain *t = &s->train;
    if (!s->circuit.training) return false;
    int best = -1, best_d = abs(t->step - step);
    for (int i = 0; i < t->checkpoint_count; i++) {
        int d = abs(t->checkpoint_steps[i] - step);
        if (d < best_d) best = i, best_d = d;
    }
    if (best >= 0 && t->checkpoint_steps[best] == t->step) best = -1;
    bool was_running = t->running;
    if (best == t->shown) {
        t->running = false;
        return was_running;
    }
    return show_checkpoint(s, best, err);
}

bool session_circuit_train_reset(Session *s, SessionError *err)
{
    SessionCircuit *c = &s->circuit;
    SessionTrain *t = &s->train;
    if (!c->training) return false;
    circuit_copy_values(&c->cur, &c->checkpoint[0]);
    circuit_train_free(&c->tr);
    c->training = false;
    TraceError terr;
    const LessonCircuit *lc = s->lesson.circuit;
    if (!circuit_train_init(&c->tr, &c->cur, &s->lesson.params.cfg, &lc->train,
                            lc->positions == POS_EXPLICIT, &terr)) {
        t->active = t->running = false;
        trace_message(err, "training", &terr);
        return false;
    }
    c->training = true;
    t->running = false;
    t->shown = -1;
    t->step = t->loss_count = t->checkpoint_count = 0;
    session_beside_begin(s);
    keep_checkpoint(s);
    c->fresh = true;
    return refresh(s, err);
}
