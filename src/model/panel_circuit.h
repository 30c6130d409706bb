// The circuit panel of a lesson of layers (key U) as plain data, made once from the session and
// read by the window's drawing (render/scene_circuit.c) and the page's text view (panel_text.c):
// training's loss and the heads' scores at each checkpoint, every head's attention pattern on the
// lesson's tokens, each head switched off alone, the K-composition of the layers. No SDL.
#ifndef MHA_PANEL_CIRCUIT_H
#define MHA_PANEL_CIRCUIT_H

#include <stdbool.h>

#include "model/session.h"

typedef struct CircuitPanel {
    bool ready; // a lesson of layers is held
    const Lesson *L; // its tokens and vocabulary (borrowed, as everything below)
    int layers, heads, n, vocab;
    double chance; // ln V: the loss of a uniform guess
    int layer; // the layer on the board
    const uint64_t *ablated; // [layers] the heads switched off now
    const Matrix *pattern[CIRCUIT_MAX_LAYERS]; // per layer its heads' attention weights ([heads])
    const HeadTrace *head[CIRCUIT_MAX_LAYERS]; // the same, per layer its trace's heads
    // Training (T): steps, the batch loss of each step taken, the step shown, the checkpoints'
    // scores (point[i].prev_token[l * heads + h] ...).
    bool training;
    int step, steps, loss_count, shown_step;
    const double *loss;
    int points;
    const SessionCircuitPoint *point;
    // The weights shown, on the evaluation repeats (measured: the lesson trains and they are
    // measured; while training runs they are measured when it pauses).
    bool measured;
    double repeat_loss, repeat_accuracy;
    const double *prev_token, *induction; // [layers * heads] with the heads switched off now
    const double *off_loss, *off_accuracy; // [layers * heads] that head alone switched off
    const double *k_comp; // [(layers - 1) * heads * heads] layer l+1's head h2 reading l's h1
    // The lesson trained beside (--beside): its layers and heads, its file's name, the loss of
    // each of its steps (on the same batches), its repeats when measured; why (non-empty) it does
    // not train beside this one.
    bool beside;
    int beside_layers, beside_heads;
    const char *beside_name, *beside_why;
    const double *beside_loss;
    int beside_count;
    bool beside_measured;
    double beside_repeat_loss, beside_repeat_accuracy;
} CircuitPanel;

// The panel of what s holds (ready false for a lesson of one layer). Valid until s changes.
void panel_circuit_make(CircuitPanel *out, const Session *s);
// Its heading: "Induction heads … — the circuit: 2 layers × 2 heads, step 300 of 1000"; without
// the lesson's title (lesson false: the window shows it above the panel) "2 layers × 2 heads, step
// 300 of 1000".
void panel_circuit_title(const CircuitPanel *cp, bool lesson, char *buf, size_t cap);
// The head that scores highest as previous-token head in layer 0 and as induction head in the
// last layer (by the newest checkpoint's scores, else the weights shown's; 0 when unmeasured).
int panel_circuit_best(const CircuitPanel *cp, bool induction);
// The loss plot's legend of a lesson: "2 layers × 2 heads", with its repeat accuracy once
// measured ("2 layers × 2 heads: 96 % right"); beside true for the lesson trained beside.
void panel_circuit_legend(const CircuitPanel *cp, bool beside, char *buf, size_t cap);

#endif
