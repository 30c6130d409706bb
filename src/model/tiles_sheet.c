// FlashAttention's tiles at one step (tiles_sheet.h): the run up to the tile asked, caught as it
// passes, and the panel's sentences.
#include "model/tiles_sheet.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/decode.h"
#include "core/exactmath.h"
#include "model/i18n.h"

// Sentences are cut to their buffers on purpose (tokens can be long).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

// The run as it passes the tiles: the running m after the tile before (the same block's, for the
// rescale) and the m before the tile asked.
typedef struct {
    TilesSheet *sh;
    int seen, last_r0;
    double last_m[TILES_SHEET_MAX_TOKENS], m_before[TILES_SHEET_MAX_TOKENS];
} TileCatch;

static void catch_tile(void *ctx, const TileStep *s)
{
    TileCatch *k = ctx;
    TilesSheet *sh = k->sh;
    k->seen++;
    int rb = s->r1 - s->r0;
    if (k->seen < sh->want) {
        k->last_r0 = s->r0;
        for (int i = 0; i < rb && i < TILES_SHEET_MAX_TOKENS; i++) k->last_m[i] = s->m->data[i];
        return;
    }
    if (k->seen == sh->want) {
        sh->r0 = s->r0, sh->r1 = s->r1, sh->c0 = s->c0, sh->c1 = s->c1;
        for (int i = 0; i < rb && i < TILES_SHEET_MAX_TOKENS; i++) {
            k->m_before[i] = k->last_r0 == s->r0 && k->seen > 1 ? k->last_m[i] : -INFINITY;
            sh->m[i] = s->m->data[i], sh->l[i] = s->l->data[i];
            for (int j = 0; j < s->O->cols && j < TILES_SHEET_MAX_DK; j++)
                sh->out[i][j] = mat_row(s->O, i)[j];
        }
        sh->block_done = true;
        return;
    }
    if (s->r0 == sh->r0) sh->block_done = false; // another tile of the same block follows
}

// The rows' rescale and, after the block's last tile, Z = O / l in place of O.
static void finish_rows(TilesSheet *sh, const TileCatch *k, int d_k)
{
    for (int i = 0; i < sh->r1 - sh->r0 && i < TILES_SHEET_MAX_TOKENS; i++) {
        sh->fresh[i] = k->m_before[i] == -INFINITY; // the row's first tile: nothing to rescale
        sh->rescale[i] = sh->fresh[i] ? 0.0 : core_exp(k->m_before[i] - sh->m[i]);
        for (int j = 0; sh->block_done && sh->l[i] > 0 && j < d_k; j++) sh->out[i][j] /= sh->l[i];
    }
}

// Runs the tiles to the one wanted and measures the tiles' Z against the trace's.
static bool tiles_replay(TilesSheet *sh, const AttnParams *p, const Trace *T)
{
    TileCatch *k = calloc(1, sizeof *k);
    Matrix z = {0}, m = {0}, l = {0};
    const HeadTrace *ht = &T->head[sh->head];
    bool ok = k && mat_init(&z, p->n, p->d_k) && mat_init(&m, p->n, 1) && mat_init(&l, p->n, 1);
    if (ok) {
        k->sh = sh, k->last_r0 = -1;
        TilesRequest rq = tiles_request(p, ht, sh->block);
        rq.visit = catch_tile, rq.ctx = k;
        tiles_run(p, &rq, &z, &m, &l);
        finish_rows(sh, k, p->d_k);
        for (int i = 0; i < p->n; i++)
            for (int j = 0; j < p->d_k; j++)
                sh->diff = fmax(sh->diff, fabs(mat_row(&z, i)[j] - mat_row(&ht->Z, i)[j]));
    }
    mat_free(&z), mat_free(&m), mat_free(&l);
    free(k);
    return ok;
}

// The sentence over S' (which tile, which rows and keys) and the note under the table.
static void tiles_sentences(TilesSheet *sh)
{
    snprintf(sh->line, sizeof sh->line,
             TR("Tile %d of %d (%dx%d blocks; %lld skipped: the mask hides them): queries "
                "%d\xe2\x80\x93%d, keys %d\xe2\x80\x93%d. "
                "Only this tile's scores exist."),
             sh->want, (int)sh->computed, sh->block, sh->block, (long long)sh->skipped, sh->r0,
             sh->r1 - 1, sh->c0, sh->c1 - 1);
    // TRANSLATORS: the tiles panel's sentence when the screen has no room for the long one.
    snprintf(sh->brief, sizeof sh->brief,
             TR("Tile %d of %d: queries %d\xe2\x80\x93%d, keys %d\xe2\x80\x93%d."), sh->want,
             (int)sh->computed, sh->r0, sh->r1 - 1, sh->c0, sh->c1 - 1);
    // TRANSLATORS: the tiles panel (B): the keys that step it and change the block size, after
    // its sentence (the window and the text view; a slide or a handout page leaves them out).
    snprintf(sh->keys, sizeof sh->keys, "%s",
             TR("(\xe2\x86\x92 next, \xe2\x86\x91 \xe2\x86\x93 block size)"));
    // TRANSLATORS: after the tiles panel's last tile, when the screen has no room for the long one.
    snprintf(sh->verdict, sizeof sh->verdict,
             TR("Same Z as the softmax stage: the largest difference is %.3g."), sh->diff);
    if (sh->want == sh->computed)
        snprintf(sh->last, sizeof sh->last,
                 TR("Same Z as the softmax stage: the largest difference is %.3g (rounding; the "
                    "sums run in another order)."),
                 sh->diff);
    else
        snprintf(sh->last, sizeof sh->last, "%s",
                 TR("m: the largest score so far; l: the sum of e^(s \xe2\x88\x92 m); when m "
                    "grows, l and O are multiplied by the "
                    "rescale e^(m before \xe2\x88\x92 m) so that every term stays relative to the "
                    "new maximum."));
}

const char *tiles_sheet_update(const TilesSheet *k, char *buf, size_t cap)
{
    snprintf(buf, cap,
             "O \xe2\x86\x90 O\xc2\xb7"
             "e^(m\xe2\x88\x92m\xe2\x80\xb2) + P\xc2\xb7V[%d\xe2\x80\x93%d],  "
             "P = e^(S\xe2\x88\x92m\xe2\x80\xb2)",
             k->c0, k->c1 - 1);
    return buf;
}

bool tiles_sheet_make(TilesSheet *out, const Lesson *L, const Trace *T, int head, int block,
                      int tile)
{
    const AttnParams *p = &L->params;
    memset(out, 0, sizeof *out);
    out->trace = T, out->head = head, out->block = block, out->tile = tile;
    if (!T || p->n > TILES_SHEET_MAX_TOKENS || p->m > TILES_SHEET_MAX_TOKENS
        || p->d_k > TILES_SHEET_MAX_DK) {
        snprintf(out->line, sizeof out->line,
                 TR("The tiles panel steps through lessons of up to %d tokens and d_k up to %d; "
                    "mha-tracer --json --tiles B prints every tile of this one."),
                 TILES_SHEET_MAX_TOKENS, TILES_SHEET_MAX_DK);
        return true;
    }
    tiles_count(p, block, &out->computed, &out->skipped);
    out->want = tile < 1 ? 1 : tile > out->computed ? (int)out->computed : tile;
    if (!tiles_replay(out, p, T)) {
        memset(out, 0, sizeof *out);
        return false;
    }
    out->fits = true;
    tiles_sentences(out);
    return true;
}

bool tiles_sheet_is_for(const TilesSheet *sh, const Trace *T, int head, int block, int tile)
{
    return sh && sh->trace == T && sh->head == head && sh->block == block && sh->tile == tile;
}
