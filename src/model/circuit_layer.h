// One layer of a lesson of layers as the board shows it (circuit_layer.c): the layer's parameters
// over the residual stream that enters it, and what surrounds it (that stream, the residual add,
// after the last layer the next token). The window's session and --layout both build it. No SDL.
#ifndef MHA_CIRCUIT_LAYER_H
#define MHA_CIRCUIT_LAYER_H

#include <stdbool.h>
#include <stdint.h>

#include "core/circuit.h"
#include "core/trace.h"
#include "hf/layer_stream.h"
#include "lesson/lesson.h"

#define CIRCUIT_LAYER_TOP 5 // the next tokens shown per position after the last layer

// p (allocated here; free with params_free) = layer `layer` of the weights c (l->circuit's shapes)
// on l's tokens, r = circuit_run of c on them: layer 0 with its positions (X = E[tokens] + P, as
// the lesson reads it), a later layer with X = r->x[layer] (the stream the layers before it
// wrote); the settings of l, the weights c->w[layer], `ablated` the heads switched off there.
// stream (free with layer_stream_free) = the stream entering the layer (x = X, no norm), and after
// the last layer the CIRCUIT_LAYER_TOP most probable next tokens (softmax of r->logits); its
// overview every layer's attention weights (r). p->stream points at stream. False when out of
// memory (both left empty).
bool circuit_layer_params(AttnParams *p, LayerStream *stream, const Lesson *l, const Circuit *c,
                          const CircuitRun *r, int layer, uint64_t ablated);

// The formula (circuit_layer_formula) and the explanation (circuit_layer_explain) of stage s
// around a layer of a lesson of layers (p->stream->attention_only): its residual add
// x_{l+1} = x_l + MHA_l(x_l) and, after the last layer, the next token, logits = x_L U. There is
// no norm and no MLP. False (buf untouched) for another stage or a layer of a real model.
bool circuit_layer_formula(const AttnParams *p, Stage s, char *buf, size_t cap);
bool circuit_layer_explain(const AttnParams *p, Stage s, char *buf, size_t cap);

#endif
