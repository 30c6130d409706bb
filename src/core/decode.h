// Generation one token at a time with a KV cache, and FlashAttention's online softmax in tiles: the
// two ways today's models compute the same attention as the trace without an (n, n) matrix. C11 +
// libm only.
#ifndef MHA_DECODE_H
#define MHA_DECODE_H

#include <stddef.h>
#include <stdint.h>
#include "core/params.h"
#include "core/trace.h"

// ---- KV-cache decoding -------------------------------------------------------------------------------
// Step t projects token t alone (q_t for every query head, k_t and v_t for every K/V head; with
// RoPE q_t and k_t turned at position t), writes k_t and v_t into the caches and attends from q_t
// over the cached keys. The caches are rolling buffers (Mistral's): per K/V head `cache_rows` rows,
// position t in slot t mod cache_rows; with a sliding window of W, cache_rows = min(W, n), so a
// step overwrites the key the window has just left behind; without one cache_rows = n and nothing
// is overwritten. The kernels are the trace's and sum in the trace's order over the cached keys in
// position order (the keys outside the window weigh exactly 0, as in the trace), so q_t, the
// weights, z_t and the output row are the same bits as row t of trace_run.
typedef struct {
    const AttnParams *p;
    int steps; // steps done: the caches hold positions first_cached .. steps-1
    int cache_rows; // rows of each cache: min(window, n) with a window, else n
    int first_cached; // the oldest position in the caches after the last step
    int slot_written; // the slot the last step wrote (its position mod cache_rows); -1 before the
                      // first step
    int evicted; // the position the last step overwrote (left the window); -1: none
    Matrix *
        k_cache; // [kv_heads] (cache_rows, d_k): slot s = k of position p with p mod cache_rows = s
    Matrix *v_cache; // [kv_heads] (cache_rows, d_k)
    Matrix keys, values; // (cache_rows, d_k) scratch (a rolling buffer only): one K/V head's rows
                         // in position order
    Matrix *q; // [heads] (1, d_k) the last step's query
    Matrix *scores; // [heads] (1, n) the last step's scaled, masked scores over positions 0..t
                    // (first steps)
    Matrix
        *weights; // [heads] (1, n) the softmax of those (first steps entries; 0 outside the cache)
    Matrix *z; // [heads] (1, d_k) = weights V_cache
    Matrix concat; // (1, heads * d_k), the ablated heads' columns zeros
    Matrix output; // (1, d_model) = concat W_O + b_O
} Decoder;

// The rolling buffer at step t (0-based): the one place its arithmetic lives (the decoder, --json
// --decode and the G panel read it).
typedef struct {
    int rows; // slots per K/V head: min(window, n) with a sliding window, else n
    int cached; // the rows held after step t: min(t + 1, rows)
    int first; // the oldest position held after step t: t + 1 - cached
    int slot; // the slot step t writes: t mod rows
    int evicted; // the position step t overwrites (t - rows: it has left the window); -1: none
} DecodeBuffer;
DecodeBuffer decode_buffer(const AttnParams *p, int t);

// NULL when p can be decoded token by token; else why not, naming the lesson's field (a source
// sequence: cross-attention has no order to generate in; no "mask": "causal": each token would see
// later ones).
const char *decode_refusal(const AttnParams *p);
// Allocates the caches (2 · kv_heads · cache_rows · d_k numbers: at most the trace's own K and V).
// False: no memory.
bool decode_init(Decoder *d, const AttnParams *p);
// The rows each cache holds after step t (0-based): min(t + 1, cache_rows).
int decode_cached(const Decoder *d, int t);
// The slot of position `position` (one still cached) in every cache.
static inline int decode_slot(const Decoder *d, int position) { return position % d->cache_rows; }
// Row `slot` of K/V head g's key cache, or its value cache (value: true); a view, no copy.
Matrix decode_cache_row(const Decoder *d, int g, int slot, bool value);
// Step d->steps: token d->steps enters. False when a number overflowed (d's counters are then left
// as they were, its caches not: decode no further).
bool decode_step(Decoder *d);
void decode_free(Decoder *d);

// The multiply-adds of step t (0-based) with the cache (the new token's projections, its scores and
// weighted sum over the keys it sees, its output row) and without (the layer run again over tokens
// 0 .. t, as generating without a cache does: every row's projections, scores, weighted sums and
// outputs).
typedef struct {
    int64_t with_cache, without_cache;
} DecodeWork;
DecodeWork decode_work(const AttnParams *p, int t);

// ---- Tiles (FlashAttention's online softmax) ---------------------------------------------------------
// One head's attention in query blocks and key blocks of B: for each query block, the key blocks in
// order, those the causal mask hides entirely skipped; per tile S = (Q_blk K_blkᵀ) scaled and
// masked, then m_new = max(m, rowmax S), l = l·e^(m − m_new) + rowsum e^(S − m_new), O = O·e^(m −
// m_new) + e^(S − m_new) V_blk. At the end Z = O / l. The (n, n) matrix is never stored: one tile
// of scores at a time.
typedef struct {
    int r0, r1, c0, c1; // the tile: query rows r0 .. r1-1, key columns c0 .. c1-1
    const Matrix
        *m; // (r1 - r0, 1) the running maximum after this tile (-INFINITY: nothing seen yet)
    const Matrix *l; // (r1 - r0, 1) the running sum of e^(s - m)
    const Matrix *O; // (r1 - r0, d_k) the running unnormalised output
} TileStep;

// Called after each tile, in order; the matrices are valid during the call only.
typedef void (*TileVisit)(void *ctx, const TileStep *s);

// What one head's tiled run reads and who watches it.
typedef struct {
    const Matrix *q; // (n, d_k) the trace's Q (rotated when the lesson has RoPE)
    const Matrix *k, *v; // (m, d_k) its K (likewise) and V
    int block; // the tiles' side (>= 1; a block beyond the sizes is one tile)
    TileVisit visit; // called after each tile (NULL: none)
    void *ctx; // visit's
} TilesRequest;

// The request for head ht of p's trace in tiles of block: its Q and K (the rotated ones when the
// lesson has RoPE, as the scores read them) and V; no visit.
TilesRequest tiles_request(const AttnParams *p, const HeadTrace *ht, int block);
// Runs one head of p as req asks, into z (n, d_k) = O / l, m (n, 1) and l (n, 1), all allocated by
// the caller. Returns the number of tiles computed, -1 when out of memory. Memory: one tile's
// scores and one block's m, l, O (never n × m).
int64_t tiles_run(const AttnParams *p, const TilesRequest *req, Matrix *z, Matrix *m, Matrix *l);
// The tiles a run visits and the ones the mask lets it skip.
void tiles_count(const AttnParams *p, int block, int64_t *computed, int64_t *skipped);
// The query rows of the tiles a run visits, summed (each tile's m, l and O have that many rows):
// what a printout of every tile holds is this times d_k + 2 numbers.
int64_t tiles_rows(const AttnParams *p, int block);

#endif
