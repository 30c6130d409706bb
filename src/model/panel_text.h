// What a panel over the board shows (G decoding, B tiles, K cost, Shift+K the KV cache's size, M
// compare, X shuffle), the all-heads view (A) and the training strip, as plain data: headings,
// sentences and captioned tables with row and column headers, the numbers rounded as the board
// rounds them. The page's text view writes it as HTML (src/app/gui_web.inc); tests read it. The
// numbers are the program's own: the trace, the decoder's buffer, the tiles' run, the cost figures,
// the comparison and the shuffled lesson the window draws. No SDL.
#ifndef MHA_PANEL_TEXT_H
#define MHA_PANEL_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/compare.h"
#include "model/panel_circuit.h"
#include "model/session.h"
#include "model/tiles_sheet.h"
#include "model/view.h"

// A table: its caption, the header of its row-header column (corner, "" for none), a label per
// column and per row, and rows x cols cells, row by row. Every string is the table's own
// (panel_text_free frees them).
typedef struct {
    char *caption;
    char *corner;
    int rows, cols;
    char **col_label; // [cols]
    char **row_label; // [rows]
    char **cell; // [rows * cols]
} PanelTable;

typedef enum {
    PANEL_ITEM_TITLE, // the panel's heading: "The cat sat — generating with a KV cache: token 3 of
                      // 6, head 0"
    PANEL_ITEM_TEXT, // a sentence in the board's notation ('^' raises what follows it)
    PANEL_ITEM_TABLE,
} PanelItemKind;

typedef struct {
    PanelItemKind kind;
    char *text; // TITLE, TEXT
    PanelTable table; // TABLE
} PanelItem;

// The pieces in order. Free with panel_text_free.
typedef struct {
    PanelItem *items;
    int count, cap;
    bool oom;
} PanelText;

// What the text is made from: the view (panel, its step, head, view mode), the lesson shown and its
// trace, and what the window computed for its panels (each may be NULL: the panel then says it
// could not be computed).
typedef struct {
    const ViewState *st;
    const Lesson *L;
    const Trace *T;
    const Comparison *compare; // PANEL_COMPARE
    const SessionShuffle *shuffle; // PANEL_SHUFFLE
    const SessionTrain *train; // the training strip (shown while active, with no panel open)
    const TilesSheet *tiles; // PANEL_TILES (NULL, or made for another step: made here)
    const CircuitPanel *circuit; // PANEL_CIRCUIT (NULL: none)
} PanelTextSrc;

// The open panel, else the all-heads view, and the training strip, into out (emptied first).
// Nothing when the board shows one head with no panel and no training. False when out of memory.
bool panel_text_build(PanelText *out, const PanelTextSrc *src);
void panel_text_free(PanelText *pt);
// One line naming the open panel and its step (its heading: "… — FlashAttention: tile 2 of 6,
// blocks of 2, head 0"), "" when none is open: the page's live line says it when it opens, steps or
// closes.
void panel_text_status(const PanelTextSrc *src, char *buf, size_t cap);
// What a step of the open panel changed, without the lesson's title ("tile 3 of 4, blocks of 2";
// "token 4 of 4 — the last"), "" for a panel that does not step: the page's live line says it
// when → ← step the panel (its heading when it opens).
void panel_text_step(const PanelTextSrc *src, char *buf, size_t cap);
// The decode panel's sentences for step t (the window's and the text view's): the token entering
// with its slot (intro; slot alone, "" without a window, for the step's parts), what the cache
// holds, the work with and without it.
typedef struct {
    char intro[700], slot[300], cache[400], work[400];
    char keys[80]; // the keys that step the panel, "(→ ← step)": not on a slide
} DecodeSentences;
void panel_text_decode_sentences(const Lesson *L, int t, DecodeSentences *out);
// The cost panel's (K) figures and sentences, the window's and the text view's: this lesson's
// figures with h = 1 and with its h, and the paper's (d_model 512, n 10, h = 1 and 8) when the
// lesson is not the paper's; the title, the paper's heading, the two formulas, the KV cache, the
// conclusion.
typedef struct {
    CostFigures fig[4];
    int nfig; // 2: this lesson's figures; 4: and the paper's
    char title[400], sub[200], line1[200], line2[200], kv[400], concl[400];
} CostText;
void panel_text_cost(const AttnParams *p, CostText *out);
// One way of keeping K and V (Shift+K): a line of the chart and a row of a table.
typedef struct {
    char name[64]; // "GQA", "MHA", "window 4,096"
    int64_t kv_heads; // the K/V heads it keeps
    int64_t window; // 0: none
} CacheRow;
// The rows of a shape: MHA (kv = heads), its own grouping when it has one (GQA, or MQA for one K/V
// head), MQA when that is not its own, and its window (with its grouping) when it has one. Returns
// how many (<= 4).
int panel_text_cache_rows(int64_t heads, int64_t kv, int64_t window, CacheRow *out);
// The cache-size panel (Shift+K), the window's and the text view's: the published shape
// (Llama-3-8B's, with Mistral-7B's window as its window's row) over a context of `context` tokens,
// and the lesson's one layer stored as a model stores it (16-bit numbers), with their rows and
// headings.
typedef struct {
    CacheShape pub, mine;
    CacheRow prow[4], lrow[4];
    int pn, ln;
    int64_t context;
    char t1[200], t2[200];
} CacheSheet;
void panel_text_cache_sheet(const Lesson *L, CacheSheet *out);
// The shuffle panel's (X) two lines, the window's and the text view's: the two orders ("…
// swapped:  a b c  →  c b a") and the verdict with the largest difference between a token's two
// output rows.
void panel_text_shuffle_lines(const Lesson *L, const SessionShuffle *sh, char *order,
                              size_t order_cap, char *verdict, size_t verdict_cap);
// The comparison's (M) cost line, the window's and the text view's: the single head's projection
// weights and score multiplications against the `heads` heads', and 1 pattern against `heads`.
void panel_text_compare_cost(const Comparison *cmp, int heads, char *buf, size_t cap);
// What a panel is for (the footer under the decode, tiles and cache-size panels), NULL for the
// others.
const char *panel_text_footer(ViewPanel panel);

#endif
