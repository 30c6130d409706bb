// How a cell was computed, as a few lines of text (UTF-8; '^' raises the letter after it), from the
// trace's own numbers. No SDL.
#ifndef MHA_EXPLAIN_H
#define MHA_EXPLAIN_H

#include <stdbool.h>
#include "matrices.h"

// Writes up to max_lines lines (each 256 bytes) explaining cell c; returns how many. hints: the last line
// of an editable cell says how to change it (the window, not slides). 0 when c is no cell.
int model_explain(const Lesson *L, const Trace *T, CellRef c, char lines[][256], int max_lines, bool hints);

#endif
