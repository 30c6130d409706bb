// Writing a lesson of layers (Lesson.circuit) as explicit JSON: the weights a list of layers.
#ifndef MHA_LESSON_CIRCUIT_WRITE_H
#define MHA_LESSON_CIRCUIT_WRITE_H

#include <stddef.h>
#include "lesson/lesson.h"

// l (a lesson of layers) with the weights m (its circuit's shapes) as JSON text: title (with
// title_suffix appended unless it ends with it; NULL: none), notes, language, vocabulary, tokens,
// d_model, heads, d_k, mask, window, scale, token_embeddings, positions (learned: explicit),
// weights (one object a layer; biases that are not all zero), unembedding, and the "train" section
// train (NULL: none). malloc'd and NUL-terminated (its length in *len), or NULL when out of memory.
char *lesson_circuit_write_json(const Lesson *l, const Circuit *m, const CircuitTrainSpec *train,
                                const char *title_suffix, size_t *len);

#endif
