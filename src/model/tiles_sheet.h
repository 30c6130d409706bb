// FlashAttention's tiles (key B) at one step, as plain data: the tile read, the running m, l and O
// of its block's rows after it, and the panel's two sentences. The model fills it from the trace
// once; the window's panel (render/scene_tiles.c) draws it and the page's text view (panel_text)
// writes it. No SDL.
#ifndef MHA_TILES_SHEET_H
#define MHA_TILES_SHEET_H

#include <stdbool.h>
#include <stdint.h>

#include "core/trace.h"
#include "lesson/lesson.h"

// The largest lesson the panel steps through (beyond it: --json --tiles).
#define TILES_SHEET_MAX_TOKENS 64
#define TILES_SHEET_MAX_DK 16

typedef struct {
    // What it was made for: the trace, the head, the block size and the tile asked (view's tile).
    const Trace *trace;
    int head, block, tile;
    bool fits; // the lesson is within the panel's reach and has a trace (else `line` says why)
    int64_t computed, skipped; // the tiles run and those the mask hides
    int want; // the tile shown, 1 .. computed
    int r0, r1, c0, c1; // its query rows and key columns, [r0, r1) x [c0, c1)
    bool block_done; // it was its block's last tile: out is Z = O / l
    // Row i of the block (query r0 + i) after the tile: the running maximum m, the rescale
    // e^(m before - m) the tile applied (none on the row's first tile: fresh), the running sum l
    // and O (Z after the block's last tile).
    bool fresh[TILES_SHEET_MAX_TOKENS];
    double m[TILES_SHEET_MAX_TOKENS], rescale[TILES_SHEET_MAX_TOKENS], l[TILES_SHEET_MAX_TOKENS];
    double out[TILES_SHEET_MAX_TOKENS][TILES_SHEET_MAX_DK];
    double diff; // the largest difference between the tiles' Z and the trace's
    // The sentence over the scores (which tile, which rows and keys; or why there is no panel) and
    // the note under the table (the legend of m, l and the rescale, or after the last tile the
    // difference from the trace's Z).
    char line[600], last[600];
    char verdict[200]; // after the last tile, the difference said short (a screen without room)
    char brief[200]; // the sentence short, for a screen without room: "Tile 2 of 7: queries 2–3,
                     // keys 0–1."
    char keys[80]; // the keys that step it, "(→ next, ↑ ↓ block size)" ("" without tiles)
} TilesSheet;

// Runs the tiles of head `head` of trace T (of lesson L) with blocks of `block` up to tile `tile`
// (clamped to 1 .. the count) into *out. False when out of memory (*out then says nothing).
bool tiles_sheet_make(TilesSheet *out, const Lesson *L, const Trace *T, int head, int block,
                      int tile);
// The update each tile makes to O, with the rows of V the tile reads: "O ← O·e^(m−m′) +
// P·V[2–3],  P = e^(S−m′)" (symbols only: the same in every language). Returns buf.
const char *tiles_sheet_update(const TilesSheet *k, char *buf, size_t cap);
// Whether *sh was made for these (NULL: no).
bool tiles_sheet_is_for(const TilesSheet *sh, const Trace *T, int head, int block, int tile);

#endif
