// What surrounds a real model's layer in the window: freeing it (hf_model.c fills it).
#include "hf/layer_stream.h"

#include <stdlib.h>
#include <string.h>

void layer_stream_free(LayerStream *s)
{
    if (!s) return;
    int tokens = s->x.rows * s->top; // counted before x is freed (mat_free empties it)
    for (int i = 0; s->top_token && i < tokens; i++) free(s->top_token[i]);
    mat_free(&s->x);
    mat_free(&s->gain);
    mat_free(&s->shift);
    free(s->top_token);
    free(s->top_id);
    free(s->top_p);
    free(s->overview);
    memset(s, 0, sizeof *s);
}
