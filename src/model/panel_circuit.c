// The circuit panel of a lesson of layers (panel_circuit.h): made from the session, and as the
// page's text: training's loss and cliff, the heads' scores at each checkpoint, each head switched
// off alone, the K-composition and the key each position attends to most in every head.
#include "model/panel_circuit.h"
#include "model/panel_text_ctx.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/i18n.h"

void panel_circuit_make(CircuitPanel *out, const Session *s)
{
    memset(out, 0, sizeof *out);
    const SessionCircuit *c = &s->circuit;
    if (!s->loaded || !c->on || !c->has_run) return;
    out->ready = true;
    out->L = &s->lesson;
    out->layers = c->cur.layers;
    out->heads = c->cur.shape.heads;
    out->n = c->run.n;
    out->vocab = c->cur.vocab;
    out->chance = log((double)c->cur.vocab);
    out->layer = c->layer;
    out->ablated = c->ablated;
    for (int l = 0; l < out->layers && l < CIRCUIT_MAX_LAYERS; l++) {
        out->head[l] = c->run.trace[l].head;
        out->pattern[l] = &c->run.trace[l].head[0].weights;
    }
    const SessionTrain *t = &s->train;
    out->training = c->training && t->active;
    out->step = t->step;
    out->steps = t->steps;
    out->loss_count = t->loss_count;
    out->loss = t->loss;
    out->shown_step =
        out->training ? (t->shown >= 0 ? t->checkpoint_steps[t->shown] : t->step) : -1;
    out->points = out->training ? c->point_count : 0;
    out->point = c->point;
    out->measured = c->measured;
    out->repeat_loss = c->now.repeat_loss;
    out->repeat_accuracy = c->now.repeat_accuracy;
    out->prev_token = c->now.prev_token;
    out->induction = c->now.induction;
    out->off_loss = c->off_loss;
    out->off_accuracy = c->off_accuracy;
    out->k_comp = c->k_comp;
    const SessionBeside *b = &s->beside;
    if (!b->on) return;
    out->beside = true;
    out->beside_layers = b->lesson.circuit->model.layers;
    out->beside_heads = b->lesson.circuit->model.shape.heads;
    out->beside_name = b->name;
    out->beside_why = b->why;
    out->beside_loss = b->loss;
    out->beside_count = b->training ? b->loss_count : 0;
    out->beside_measured = b->training && b->measured_step == b->tr.step && b->tr.step > 0;
    out->beside_repeat_loss = b->repeat_loss;
    out->beside_repeat_accuracy = b->repeat_accuracy;
}

void panel_circuit_legend(const CircuitPanel *cp, bool beside, char *buf, size_t cap)
{
    int layers = beside ? cp->beside_layers : cp->layers;
    int heads = beside ? cp->beside_heads : cp->heads;
    bool measured = beside ? cp->beside_measured : cp->measured && cp->training;
    double acc = beside ? cp->beside_repeat_accuracy : cp->repeat_accuracy;
    // TRANSLATORS: a lesson in the loss plot's legend: its layers and heads per layer.
    int n =
        snprintf(buf, cap, TRN("%d layer \xc3\x97 %d heads", "%d layers \xc3\x97 %d heads", layers),
                 layers, heads);
    if (measured && n > 0 && (size_t)n < cap)
        // TRANSLATORS: after a lesson's name in the loss plot's legend: its repeat accuracy.
        snprintf(buf + n, cap - (size_t)n, TR(": %.0f %% right"), 100.0 * acc);
}

void panel_circuit_title(const CircuitPanel *cp, bool lesson, char *buf, size_t cap)
{
    const char *title = cp->L && cp->L->title ? cp->L->title : "";
    if (!lesson && cp->training)
        // TRANSLATORS: the circuit panel's heading under the lesson's title: the step shown.
        snprintf(buf, cap, TR("%d layers \xc3\x97 %d heads, step %d of %d"), cp->layers, cp->heads,
                 cp->shown_step, cp->steps);
    else if (!lesson) snprintf(buf, cap, TR("%d layers \xc3\x97 %d heads"), cp->layers, cp->heads);
    else if (cp->training)
        // TRANSLATORS: the circuit panel's heading: the lesson, layers, heads, the step shown.
        snprintf(buf, cap,
                 TR("%s \xe2\x80\x94 the circuit: %d layers \xc3\x97 %d heads, step %d of %d"),
                 title, cp->layers, cp->heads, cp->shown_step, cp->steps);
    else
        snprintf(buf, cap, TR("%s \xe2\x80\x94 the circuit: %d layers \xc3\x97 %d heads"), title,
                 cp->layers, cp->heads);
}

int panel_circuit_best(const CircuitPanel *cp, bool induction)
{
    int l = induction ? cp->layers - 1 : 0, best = 0;
    const double *v = NULL;
    double tmp[SESSION_CIRCUIT_MAX_HEADS];
    if (cp->measured) v = induction ? cp->induction : cp->prev_token;
    else if (cp->points > 0 && cp->layers * cp->heads <= SESSION_CIRCUIT_MAX_HEADS) {
        const SessionCircuitPoint *p = &cp->point[cp->points - 1];
        memcpy(tmp, induction ? p->induction : p->prev_token, sizeof tmp);
        v = tmp;
    }
    for (int h = 1; v && h < cp->heads; h++)
        if (v[l * cp->heads + h] > v[l * cp->heads + best]) best = h;
    return best;
}

// The step at which the batch loss first fell below frac * ln V (-1: never).
static int first_below(const CircuitPanel *cp, double frac)
{
    for (int k = 0; k < cp->loss_count; k++)
        if (cp->loss[k] < frac * cp->chance) return k;
    return -1;
}

// The lesson trained beside: its loss over the same batches and its repeats, beside this one's.
static void walk_beside(PanelText *pt, const CircuitPanel *cp)
{
    char line[600], mine[160], its[160];
    if (!cp->beside) return;
    if (cp->beside_why && cp->beside_why[0]) {
        panel_add_text(pt, PANEL_ITEM_TEXT, cp->beside_why);
        return;
    }
    if (cp->beside_count == 0) return;
    panel_circuit_legend(cp, false, mine, sizeof mine);
    panel_circuit_legend(cp, true, its, sizeof its);
    snprintf(line, sizeof line,
             // TRANSLATORS: the lesson trained beside (--beside) in the circuit panel's text: its
             // file, its layers and heads (and accuracy), then its loss; the lesson shown's last.
             TR("Trained beside on the same sequences: %s, %s; its batch loss went from %.3f to "
                "%.3f (this lesson, %s: %.3f)."),
             cp->beside_name, its, cp->beside_loss[0], cp->beside_loss[cp->beside_count - 1], mine,
             cp->loss[cp->loss_count - 1]);
    panel_add_text(pt, PANEL_ITEM_TEXT, line);
}

static void walk_training(PanelText *pt, const CircuitPanel *cp)
{
    char line[600];
    if (!cp->training || cp->loss_count == 0) {
        panel_add_text(pt, PANEL_ITEM_TEXT,
                       TR("Not trained in the window yet: T trains the two layers on the repeats; "
                          "the loss, the cliff and the heads' scores appear as it goes."));
        return;
    }
    int a = first_below(cp, 0.75), b = first_below(cp, 0.25);
    snprintf(line, sizeof line,
             TR("Training: step %d of %d; the batch loss went from %.3f to %.3f (chance: ln %d = "
                "%.3f)."),
             cp->step, cp->steps, cp->loss[0], cp->loss[cp->loss_count - 1], cp->vocab, cp->chance);
    panel_add_text(pt, PANEL_ITEM_TEXT, line);
    if (a >= 0 && b >= 0)
        snprintf(
            line, sizeof line,
            TR("The cliff: the loss fell from 0.75 ln V to 0.25 ln V between steps %d and %d."), a,
            b);
    else
        snprintf(line, sizeof line, "%s",
                 TR("No cliff yet: the loss has not fallen from 0.75 ln V to 0.25 ln V."));
    panel_add_text(pt, PANEL_ITEM_TEXT, line);
    walk_beside(pt, cp);
    int LH = cp->layers * cp->heads;
    if (LH > SESSION_CIRCUIT_MAX_HEADS) return;
    PanelTable *t =
        panel_add_table(pt, TR("The heads' scores at each checkpoint (evaluation repeats)"),
                        TR("step"), cp->points, 2 * LH + 1);
    if (!t) return;
    for (int k = 0; k < LH; k++) {
        snprintf(line, sizeof line, TR("L%d H%d previous-token"), k / cp->heads, k % cp->heads);
        panel_put(pt, &t->col_label[2 * k], line);
        snprintf(line, sizeof line, TR("L%d H%d induction"), k / cp->heads, k % cp->heads);
        panel_put(pt, &t->col_label[2 * k + 1], line);
    }
    panel_put(pt, &t->col_label[2 * LH], TR("repeat accuracy"));
    for (int r = 0; r < cp->points; r++) {
        const SessionCircuitPoint *p = &cp->point[r];
        snprintf(line, sizeof line, "%d", p->step);
        panel_put(pt, &t->row_label[r], line);
        for (int k = 0; k < LH; k++) {
            panel_put_value(pt, &t->cell[r * t->cols + 2 * k], p->prev_token[k]);
            panel_put_value(pt, &t->cell[r * t->cols + 2 * k + 1], p->induction[k]);
        }
        panel_put_value(pt, &t->cell[r * t->cols + 2 * LH], p->repeat_accuracy);
    }
}

static void walk_heads_off(PanelText *pt, const CircuitPanel *cp)
{
    char line[600];
    if (!cp->measured) {
        panel_add_text(pt, PANEL_ITEM_TEXT,
                       TR("Each head switched off is measured when training pauses (T)."));
        return;
    }
    snprintf(line, sizeof line,
             TR("On the evaluation repeats, as shown (O switches heads off): repeat loss %.3f, "
                "accuracy %.1f %%."),
             cp->repeat_loss, 100.0 * cp->repeat_accuracy);
    panel_add_text(pt, PANEL_ITEM_TEXT, line);
    int LH = cp->layers * cp->heads;
    PanelTable *t = panel_add_table(pt, TR("Each head switched off alone"), TR("head"), LH, 4);
    if (!t) return;
    panel_put(pt, &t->col_label[0], TR("previous-token"));
    panel_put(pt, &t->col_label[1], TR("induction"));
    panel_put(pt, &t->col_label[2], TR("repeat loss, head off"));
    panel_put(pt, &t->col_label[3], TR("repeat accuracy, head off"));
    for (int k = 0; k < LH; k++) {
        snprintf(line, sizeof line, TR("layer %d head %d"), k / cp->heads, k % cp->heads);
        panel_put(pt, &t->row_label[k], line);
        panel_put_value(pt, &t->cell[k * 4], cp->prev_token[k]);
        panel_put_value(pt, &t->cell[k * 4 + 1], cp->induction[k]);
        panel_put_value(pt, &t->cell[k * 4 + 2], cp->off_loss[k]);
        panel_put_value(pt, &t->cell[k * 4 + 3], cp->off_accuracy[k]);
    }
}

static void walk_composition(PanelText *pt, const CircuitPanel *cp)
{
    char cap[200], label[64];
    int H = cp->heads;
    for (int l = 0; l + 1 < cp->layers; l++) {
        snprintf(cap, sizeof cap,
                 TR("K-composition: how much layer %d's keys read layer %d's heads "
                    "(\xe2\x80\x96W_QK W_OV\xe2\x80\x96 / \xe2\x80\x96W_QK\xe2\x80\x96 "
                    "\xe2\x80\x96W_OV\xe2\x80\x96)"),
                 l + 1, l);
        PanelTable *t = panel_add_table(pt, cap, "", H, H);
        if (!t) return;
        for (int h = 0; h < H; h++) {
            snprintf(label, sizeof label, TR("layer %d head %d"), l, h);
            panel_put(pt, &t->col_label[h], label);
            snprintf(label, sizeof label, TR("layer %d head %d"), l + 1, h);
            panel_put(pt, &t->row_label[h], label);
        }
        for (int k = 0; k < H * H; k++)
            panel_put_value(pt, &t->cell[k], cp->k_comp[(size_t)l * H * H + k]);
    }
}

// Per position, the key each head attends to most: the offset diagonals in words.
static void walk_patterns(PanelText *pt, const CircuitPanel *cp)
{
    char cap[200], label[128];
    int H = cp->heads, n = cp->n;
    PanelTable *t = panel_add_table(pt,
                                    TR("The key each position attends to most, every head of "
                                       "every layer (the lesson's tokens)"),
                                    TR("query"), n, cp->layers * H);
    if (!t) return;
    for (int k = 0; k < cp->layers * H; k++) {
        snprintf(cap, sizeof cap, TR("layer %d head %d"), k / H, k % H);
        panel_put(pt, &t->col_label[k], cap);
    }
    for (int i = 0; i < n; i++) {
        snprintf(label, sizeof label, "%d %s", i, panel_token(cp->L, i));
        panel_put(pt, &t->row_label[i], label);
        for (int k = 0; k < cp->layers * H; k++) {
            const Matrix *w = &cp->head[k / H][k % H].weights;
            int best = 0;
            for (int j = 1; j < w->cols; j++)
                if (mat_get(w, i, j) > mat_get(w, i, best)) best = j;
            snprintf(label, sizeof label, "%d %s (%.2f)", best, panel_token(cp->L, best),
                     mat_get(w, i, best));
            panel_put(pt, &t->cell[i * t->cols + k], label);
        }
    }
}

void panel_title_circuit(const PanelTextSrc *src, char *buf, size_t cap)
{
    if (src->circuit && src->circuit->ready) panel_circuit_title(src->circuit, true, buf, cap);
    else snprintf(buf, cap, "%s", TR("The circuit panel is for a lesson of layers"));
}

void panel_walk_circuit(PanelText *pt, const PanelTextSrc *src)
{
    const CircuitPanel *cp = src->circuit;
    if (!cp || !cp->ready) return;
    walk_training(pt, cp);
    walk_patterns(pt, cp);
    walk_heads_off(pt, cp);
    walk_composition(pt, cp);
}
