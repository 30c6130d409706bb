// The interactive window: opens a lesson and lets a teacher step through multi-head attention.
#ifndef MHA_GUI_H
#define MHA_GUI_H

#include <stdbool.h>

typedef struct {
    const char *lesson_path; // NULL: the built-in "The cat sat"
    bool fullscreen;
} GuiOptions;

// Runs the window until the user quits. Returns the process exit status
// (0 normally; 1 when no window could be opened; 2 when the first lesson is invalid).
int gui_run(const GuiOptions *opt);

#endif
