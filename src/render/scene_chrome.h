// The text around the board (scene_chrome.c): the header, the explanation of a cell, the footer,
// the help overlay, the question before quitting and the error banner.
#ifndef MHA_SCENE_CHROME_H
#define MHA_SCENE_CHROME_H

#include "render/scene_ctx.h"

// Header: the stage's name, formula and head, the strip of stages, the status line; *height its
// height.
void draw_header(Ctx *c, int x, int y, int w, int *height);
// The room of draw_explain on a w wide board.
int explain_height(const Ctx *c, int w);
void draw_explain(Ctx *c, int x, int y, int w, int h);
// The footer (the stage's explanation, the notes, a question); returns its height, draws when
// `draw`.
int draw_footer(Ctx *c, int x, int y, int w, bool draw);
// The footer's room whatever it shows (the explanation, the stage's questions asked, and answered
// with revealed_extra more for the arithmetic line above them): its height.
int footer_reserve(Ctx *c, int w, int revealed_extra);
void draw_help(Ctx *c, int w, int h);
void draw_confirm(Ctx *c, int w, int h, const char *msg);
// A red message over the header (*height: the room it may take in, the height it took out).
void draw_banner(Ctx *c, int w, const char *msg, int *height);

#endif
