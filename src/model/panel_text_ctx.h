// Private to the panels' text (panel_text.c: the pieces, the table of panels and most walks;
// panel_decode.c: the decoding panels G and B): the pieces a walk builds with, and the walks one
// room gives the other. Not an API: panel_text.h is.
#ifndef MHA_PANEL_TEXT_CTX_H
#define MHA_PANEL_TEXT_CTX_H

#include "model/panel_text.h"

// Sentences and captions are cut to their buffers on purpose (tokens can be long).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

// --- the pieces (panel_pieces.c); out of memory sets pt->oom ---
// A copy of text as an item of kind (nothing for "" or NULL).
void panel_add_text(PanelText *pt, PanelItemKind kind, const char *text);
// A table of rows x cols empty cells under its caption; NULL when out of memory.
PanelTable *panel_add_table(PanelText *pt, const char *caption, const char *corner, int rows,
                            int cols);
// Sets a string of a table (a label or a cell) to text.
void panel_put(PanelText *pt, char **slot, const char *text);
// Sets it to v as the board rounds it.
void panel_put_value(PanelText *pt, char **slot, double v);
// Token i of L ("" when it has none).
const char *panel_token(const Lesson *L, int i);
// The d_k columns' labels of matrix m (its column axis) into t.
void panel_dim_labels(PanelText *pt, const Lesson *L, MatId m, PanelTable *t);

// --- the walks of panel_decode.c (rows of the table of panels) ---
void panel_walk_decode(PanelText *pt, const PanelTextSrc *src);
void panel_walk_tiles(PanelText *pt, const PanelTextSrc *src);
// --- panel_circuit.c: the circuit panel (key U) ---
void panel_title_circuit(const PanelTextSrc *src, char *buf, size_t cap);
void panel_walk_circuit(PanelText *pt, const PanelTextSrc *src);

#endif
