// --layout: the layout audit, every screen the window can show as JSON lines (cli_layout.c).
#ifndef MHA_CLI_LAYOUT_H
#define MHA_CLI_LAYOUT_H

#include <stddef.h>
#include <stdio.h>

#include "lesson/lesson.h"

// The screens audited: a w x h window, only head only_head's screens when >= 0 (else every
// head's), of every layer or only_layer's, drawn with the fonts of font_dir.
typedef struct {
    int w, h;
    int only_head;
    int only_layer; // a lesson of layers: that layer's screens alone when >= 0
    const char *font_dir;
} LayoutRequest;

// Prints one JSON object a line for every screen of the lesson at path (NULL: the built-in one)
// that rq asks for, then a summary line. Returns 0, or 1 (I/O: the fonts) or 2 (the lesson) with
// err saying why.
int cli_layout(FILE *out, const char *path, const LayoutRequest *rq, char *err, size_t cap);

// The same for lesson, made elsewhere (a checkpoint's layer, --layout --model) and taken over
// (*lesson is left empty, also on failure); name names it in errors.
int cli_layout_lesson(FILE *out, Lesson *lesson, const char *name, const LayoutRequest *rq,
                      char *err, size_t cap);

#endif
