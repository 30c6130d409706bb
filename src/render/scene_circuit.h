// The circuit panel of a lesson of layers (key U, scene_circuit.c): training's loss with its
// cliff, the heads' scores over the checkpoints, every head's pattern of both layers side by side,
// each head switched off alone and the K-composition, from the plain data of model/panel_circuit.h.
#ifndef MHA_SCENE_CIRCUIT_H
#define MHA_SCENE_CIRCUIT_H

#include "render/scene_ctx.h"

// The panel in (x, y, w, h), from c->ex->circuit (a sentence when there is none).
void draw_circuit(Ctx *c, int x, int y, int w, int h);

#endif
