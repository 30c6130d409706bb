// RoPE as a picture: what the rotation panel (key W) and `--export --what rotation`
// draw, as numbers — each pair of a token's query before and after its turn, the frequencies, and a
// query and a key moved together keeping their score. The numbers are the trace's (Q, Q_rot,
// scores) and core's (attn_rope_angle, attn_rope_pair); this file only gathers them. No SDL.
#ifndef MHA_ROPE_PICTURE_H
#define MHA_ROPE_PICTURE_H

#include <stdbool.h>
#include "core/trace.h"

// One pair j of a query row: its two coordinates, its frequency and its turn at the row's position.
typedef struct {
    int j; // the pair, 0 .. d_k/2 - 1
    int a, b; // its coordinates: (2j, 2j+1) interleaved, (j, j + d_k/2) halves (attn_rope_pair)
    double theta; // θ_j = base^(-2j/d_k) (attn_rope_angle at position 1)
    double angle; // p·θ_j in radians (attn_rope_angle at position p)
    double x, y; // Q[p][a], Q[p][b]: before the turn (the trace's Q)
    double xr, yr; // Q_rot[p][a], Q_rot[p][b]: after it (the trace's Q_rot)
} RopePair;

// A query and a key, at the lesson's positions and moved together so that the query stands at 0:
// the same distance, the same score.
typedef struct {
    int query, key; // the tokens (rows of Q and K), at positions query and key
    int moved_q,
        moved_k; // the positions they are moved to: 0 and key − query (query 0: query − key and 0)
    double score; // Q_rot[query] · K_rot[key]: the trace's scores[query][key]
    double
        score_moved; // the same Q and K rows turned at moved_q and moved_k, then their dot product
    double angle, angle_moved; // pair 0's angle from the query's arrow to the key's, in radians, at
                               // each placing
    double q_angle,
        q_angle_moved; // pair 0's direction of the turned query, at each placing (for the picture)
} RopeRelative;

#define ROPE_PICTURE_MAX_PAIRS 64 // d_k up to 128 gathered; the panel shows the first that fit

typedef struct {
    int head, token; // the query head and the token (its position)
    int d_k, pairs; // pairs gathered: min(d_k/2, ROPE_PICTURE_MAX_PAIRS)
    double base;
    RopeKind kind;
    RopePair pair[ROPE_PICTURE_MAX_PAIRS];
    RopeRelative rel;
} RopePicture;

// Gathers the picture of query head `head` and token `token` (clamped to the lesson's) of a RoPE
// lesson's trace; the relative view pairs the token with key 0 (with key m−1 when the token is 0)
// and moves both so that the query stands at 0 (the key, when the query already does). False (out
// untouched) without RoPE or without the trace's rotated matrices.
bool model_rope_picture(RopePicture *out, const AttnParams *p, const Trace *t, int head, int token);
// θ_j = base^(-2j/d_k) for j = 0 .. count-1 (core's attn_rope_angle at position 1): the frequency
// plot's points.
void model_rope_thetas(double *out, double base, int d_k, int count);
// The published bases the frequency plot compares with: 10,000 (the RoPE paper, Llama 2) and
// 500,000 (Llama 3).
#define ROPE_BASE_CLASSIC 10000.0
#define ROPE_BASE_LLAMA3 500000.0

#endif
