// RoPE as a picture (rope_picture.h): a token's query pairs before and after their turn, the
// frequencies, and a query and a key moved together. Every number is the trace's or core's own;
// nothing is rotated here except the moved pair of the relative view, which goes through core's
// attn_rope_blocks as the trace's rows do.
#include "model/rope_picture.h"

#include <math.h>
#include <string.h>

void model_rope_thetas(double *out, double base, int d_k, int count)
{
    for (int j = 0; j < count; j++) out[j] = attn_rope_angle(base, d_k, 1, j); // 1·θ_j: θ_j itself
}

// One row x (1, d_k) turned as if it stood at position pos: out (1, d_k). False without memory.
static bool turn_row(Matrix *out, const Matrix *from, int row, const AttnParams *p, int pos)
{
    Matrix x;
    if (!mat_init(&x, 1, from->cols)) return false;
    memcpy(x.data, mat_row(from, row), sizeof(double) * (size_t)from->cols);
    bool ok = mat_init(out, 1, from->cols);
    if (ok)
        attn_rope_blocks(out, &x, p->rope, p->rope_base, &p->rope_scale, +1, pos, p->rope_block);
    mat_free(&x);
    return ok;
}

// Pair 0's angle from the query's arrow (qa, qb) to the key's (ka, kb), in (-π, π].
static double pair_angle(double qa, double qb, double ka, double kb)
{
    return remainder(atan2(kb, ka) - atan2(qb, qa), 6.283185307179586);
}

// The query `query` and the key `key` at their positions (the trace's score) and moved so the query
// stands at 0.
static bool relative(RopeRelative *r, const AttnParams *p, const HeadTrace *ht, int query, int key)
{
    int a, b;
    attn_rope_pair(p->rope, p->d_k, 0, &a, &b);
    r->query = query, r->key = key;
    int shift = query > 0 ? -query : -key; // the query to 0; when it stands there already, the key
    r->moved_q = query + shift, r->moved_k = key + shift;
    r->score = mat_get(&ht->scores, query, key);
    r->q_angle = atan2(mat_get(&ht->Q_rot, query, b), mat_get(&ht->Q_rot, query, a));
    r->angle = pair_angle(mat_get(&ht->Q_rot, query, a), mat_get(&ht->Q_rot, query, b),
                          mat_get(&ht->K_rot, key, a), mat_get(&ht->K_rot, key, b));
    Matrix q, k;
    if (!turn_row(&q, &ht->Q, query, p, r->moved_q)) return false;
    if (!turn_row(&k, &ht->K, key, p, r->moved_k)) {
        mat_free(&q);
        return false;
    }
    double s = 0.0;
    for (int d = 0; d < p->d_k; d++) s += q.data[d] * k.data[d];
    r->score_moved = s;
    r->q_angle_moved = atan2(q.data[b], q.data[a]);
    r->angle_moved = pair_angle(q.data[a], q.data[b], k.data[a], k.data[b]);
    mat_free(&q);
    mat_free(&k);
    return true;
}

bool model_rope_picture(RopePicture *out, const AttnParams *p, const Trace *t, int head, int token)
{
    if (p->rope == ROPE_NONE || !t || head < 0 || head >= t->heads || p->n < 1 || p->d_k < 2)
        return false;
    const HeadTrace *ht = &t->head[head];
    if (!ht->Q_rot.data || !ht->K_rot.data || !ht->scores.data) return false;
    RopePicture r;
    memset(&r, 0, sizeof r);
    r.head = head;
    r.token = token < 0 ? 0 : token >= p->n ? p->n - 1 : token;
    r.d_k = p->d_k, r.base = p->rope_base, r.kind = p->rope;
    int d_k = p->rope_block > 0 && p->rope_block < p->d_k ? p->rope_block
                                                          : p->d_k; // as the trace turns them
    r.pairs = d_k / 2 < ROPE_PICTURE_MAX_PAIRS ? d_k / 2 : ROPE_PICTURE_MAX_PAIRS;
    for (int j = 0; j < r.pairs; j++) {
        RopePair *q = &r.pair[j];
        q->j = j;
        attn_rope_pair(p->rope, d_k, j, &q->a, &q->b);
        q->theta = attn_rope_theta(p->rope_base, &p->rope_scale, d_k, j);
        q->angle = (double)r.token * attn_rope_theta(p->rope_base, &p->rope_scale, d_k, j);
        q->x = mat_get(&ht->Q, r.token, q->a), q->y = mat_get(&ht->Q, r.token, q->b);
        q->xr = mat_get(&ht->Q_rot, r.token, q->a), q->yr = mat_get(&ht->Q_rot, r.token, q->b);
    }
    int key = r.token > 0 ? 0 : p->m - 1;
    if (!relative(&r.rel, p, ht, r.token, key)) return false;
    *out = r;
    return true;
}
