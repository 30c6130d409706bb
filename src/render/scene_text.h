// Notation text (scene_text.c): text cut to a width, word-wrapped, and the board's notation ('^'
// raises, '_' lowers) measured and drawn.
#ifndef MHA_SCENE_TEXT_H
#define MHA_SCENE_TEXT_H

#include "render/scene_ctx.h"

// Copies t into buf, cut (with "…") so it measures at most max_w.
void fit_text(const Ctx *c, FontRole f, int size, const char *t, int max_w, char *buf, size_t cap);
// A token label cut to max_w keeps its subscript index ("was…₁₁"): two cut "was" must stay apart.
void fit_label(const Ctx *c, FontRole f, int size, const char *t, int max_w, char *buf, size_t cap);
// Word-wraps t (in the board's notation: '^' raises) into lines no wider than w from (x, y);
// returns the height used (at most max_lines); draws when `draw`.
int wrap_text(Ctx *c, FontRole f, int size, Rgba color, int x, int y, int w, int max_lines,
              const char *t, bool draw);
// A sentence of a panel, with its numbers at the board's number size (the class reads them),
// wrapped in w over at most 3 lines; returns its height.
int panel_say(Ctx *c, FontRole f, Rgba color, int x, int y, int w, const char *text);
// A page of a wrapped text: its font, size and colour, where its lines go and which of them.
typedef struct {
    FontRole font;
    int size;
    Rgba color;
    int x, y, w; // the first line's top-left, and the width the lines wrap in
    int skip; // the lines from this one on (-1: from the first, the last line shown cut with "…")
    int max_lines; // at most this many (a page: nothing cut)
} WrapRequest;
// Word-wraps t as asked; returns the height used; draws when `draw`. *more (when not NULL) says
// whether lines follow the page.
int wrap_text_page(Ctx *c, const WrapRequest *rq, const char *t, bool draw, bool *more);
// The width of t in the board's notation, and t drawn with its top-left at (x, y) (returns the
// width).
int math_w(const Ctx *c, FontRole f, int size, const char *t);
int math_at(Ctx *c, FontRole f, int size, Rgba color, int x, int y, const char *t);

#endif
