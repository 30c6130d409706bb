// How a cell was computed, as a few lines of text (UTF-8; '^' raises the letter after it), from the
// trace's own numbers. No SDL.
#ifndef MHA_EXPLAIN_H
#define MHA_EXPLAIN_H

#include <stdbool.h>
#include "model/matrices.h"

// What an explanation of cell c starts from, filled by model_explain for the matrix's explain
// function: the cell, its value, its matrix's name, its row and column labels (isolated when right
// to left) and head.
#define CELL_TEXT_LINES 3
typedef struct CellText {
    const Lesson *L;
    const AttnParams *p;
    const Trace *T;
    CellRef c;
    double v; // the cell's value (the trace's own number)
    char name[64]; // "Q₀"
    char rl[96], cl[96]; // the row's and the column's labels: "cat", "3"
    char vs[32]; // v formatted: "0.6111"
    char hn[16]; // the head as a subscript: "₀"
    char kvn[16]; // its K/V head's (model_mat_head): what K, V, W^K and W^V carry; hn but with
                  // grouped heads
    int h; // the head
    const HeadTrace *ht; // the head's trace for a computed per-head matrix, else NULL
    double root; // sqrt(d_k)
    bool hints; // the last line of an editable cell may say how to change it
} CellText;

// Writes up to max_lines lines (each 256 bytes) explaining cell c; returns how many. hints: the
// last line of an editable cell says how to change it (the window, not slides). 0 when c is no
// cell.
int model_explain(const Lesson *L, const Trace *T, CellRef c, char lines[][256], int max_lines,
                  bool hints);

// X's cell of a checkpoint's layer with a norm, worked from the stream h and the norm's weights
// (explain_stream.c).
int explain_normed(const CellText *ct, char lines[][256]);

#endif
