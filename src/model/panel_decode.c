// The decoding panels as text (panel_text.h): KV-cache decoding (G), step by step from the
// decoder's buffer, and FlashAttention's tiles (B), from the tiles' sheet (tiles_sheet.h); their
// walks are rows of panel_text.c's table.
#include "model/panel_text.h"
#include "model/panel_text_ctx.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cost.h"
#include "core/decode.h"
#include "model/i18n.h"
#include "model/stage_text.h"

#define TIMES "\xc3\x97"
#define EN_DASH "\xe2\x80\x93"

// ---- KV-cache decoding (G) -------------------------------------------------------------------------------

// The matrices the decoder reads (the scene's): with RoPE the rotated query and keys.
static MatId decode_mat(const AttnParams *p, int i)
{
    static const MatId plain[4] = {MAT_Q, MAT_K, MAT_V, MAT_Z},
                       rotated[4] = {MAT_QROT, MAT_KROT, MAT_V, MAT_Z};
    return p->rope != ROPE_NONE ? rotated[i] : plain[i];
}

void panel_text_decode_sentences(const Lesson *L, int t, DecodeSentences *out)
{
    const AttnParams *p = &L->params;
    DecodeBuffer buf = decode_buffer(p, t);
    char a[32], b[32], c1[32], d1[32], e1[32], *intro = out->intro, *slot = out->slot,
                                               *cache = out->cache, *work = out->work;
    size_t intro_cap = sizeof out->intro, cache_cap = sizeof out->cache,
           work_cap = sizeof out->work;
    slot[0] = '\0';
    int cached = buf.cached;
    bool rolling = buf.rows < p->n;
    snprintf(intro, intro_cap,
             TRN("Token %d of %d: \xe2\x80\x9c%s\xe2\x80\x9d \xe2\x80\x94 its k and v join the "
                 "cache, its q reads the %d cached key.",
                 "Token %d of %d: \xe2\x80\x9c%s\xe2\x80\x9d \xe2\x80\x94 its k and v join the "
                 "cache, its q reads the %d cached keys.",
                 cached),
             t + 1, p->n, panel_token(L, t), cached);
    if (rolling && buf.evicted >= 0)
        snprintf(slot, sizeof out->slot,
                 // TRANSLATORS: the decode panel (G) with a sliding window: the key whose slot this
                 // step's k and v take.
                 TR(" Its k and v overwrite slot %d: \xe2\x80\x9c%s\xe2\x80\x9d (position %d) has "
                    "left the window."),
                 buf.slot, panel_token(L, buf.evicted), buf.evicted);
    else if (rolling)
        // TRANSLATORS: the decode panel (G) with a sliding window, before the buffer is full.
        snprintf(slot, sizeof out->slot, TR(" Its k and v go into slot %d of %d."), buf.slot,
                 buf.rows);
    snprintf(intro + strlen(intro), intro_cap - strlen(intro), "%s", slot);
    // TRANSLATORS: the decode panel (G): the keys that step it, after its first sentence (the
    // window and the text view; a slide or a handout page leaves them out).
    snprintf(out->keys, sizeof out->keys, "%s", TR("(\xe2\x86\x92 \xe2\x86\x90 step)"));
    cost_format_int(e1, sizeof e1, (int64_t)2 * p->kv_heads * cached * p->d_k);
    // The counts in words, each with the catalogue's plural form ("1 token", "2 K/V heads").
    char toks[48], kvs[48];
    int in_cache = rolling ? cached : t + 1;
    snprintf(toks, sizeof toks, TRN("%d token", "%d tokens", in_cache), in_cache);
    snprintf(kvs, sizeof kvs, TRN("%d K/V head", "%d K/V heads", p->kv_heads), p->kv_heads);
    if (rolling)
        snprintf(cache, cache_cap,
                 // TRANSLATORS: the decode panel (G) with a sliding window of W: the caches are
                 // rolling buffers of W rows.
                 TR("The cache is a rolling buffer of %d slots per K/V head (position t in slot t "
                    "mod %d): K and V of %s for %s = 2\xc2\xb7%d\xc2\xb7%d\xc2\xb7%d = %s "
                    "numbers; the window keeps it from growing."),
                 buf.rows, buf.rows, toks, kvs, p->kv_heads, cached, p->d_k, e1);
    else
        snprintf(cache, cache_cap,
                 TR("The cache: K and V of %s for %s = "
                    "2\xc2\xb7%d\xc2\xb7%d\xc2\xb7%d = %s numbers, "
                    "kept, never computed again."),
                 toks, kvs, p->kv_heads, t + 1, p->d_k, e1);
    if (p->kv_heads < p->heads) { // grouped-query attention: what sharing saves
        size_t used = strlen(cache);
        cost_format_int(e1, sizeof e1, (int64_t)2 * p->heads * cached * p->d_k);
        snprintf(cache + used, cache_cap - used,
                 TR(" %d query heads share them; one K/V per head would hold %s."), p->heads, e1);
    }
    int64_t with = 0, without = 0;
    for (int i = 0; i <= t; i++) {
        DecodeWork dw = decode_work(p, i);
        with += dw.with_cache, without += dw.without_cache;
    }
    DecodeWork now = decode_work(p, t);
    cost_format_int(a, sizeof a, now.with_cache), cost_format_int(b, sizeof b, now.without_cache);
    cost_format_int(c1, sizeof c1, with), cost_format_int(d1, sizeof d1, without);
    snprintf(work, work_cap,
             TR("This token: %s multiply-adds with the cache, %s without (the layer again over %d "
                "tokens). So far: %s with, "
                "%s without."),
             a, b, t + 1, c1, d1);
}

// Row `row` of matrix m of head `head` as a one-row table captioned "NAME[token]: what".
static void decode_row(PanelText *pt, const PanelTextSrc *src, MatId m, int head, int row)
{
    const AttnParams *p = &src->L->params;
    char name[64], caption[300], label[96];
    int rows, cols;
    model_mat_shape(p, m, &rows, &cols);
    model_mat_name(p, m, head, name, sizeof name);
    snprintf(caption, sizeof caption, "%s[%s]: %s", name, panel_token(src->L, row),
             TR(mat_info(m)->what));
    PanelTable *t = panel_add_table(pt, caption, "", 1, cols);
    panel_dim_labels(pt, src->L, m, t);
    model_axis_label(src->L, mat_info(m)->row_axis, row, label, sizeof label);
    if (t) panel_put(pt, &t->row_label[0], label);
    for (int j = 0; t && j < cols; j++)
        panel_put_value(pt, &t->cell[j], model_cell_value(p, src->T, (CellRef){m, head, row, j}));
}

// The K or V cache of the head's K/V head after step t: its rows in position order, each headed by
// its token and slot (position p in slot p mod rows), with the numbers of K (K rotated) or V.
static void decode_cache(PanelText *pt, const PanelTextSrc *src, MatId m, int head,
                         const DecodeBuffer *buf)
{
    const AttnParams *p = &src->L->params;
    char name[64], caption[300], label[96], row[160];
    model_mat_name(p, m, head, name, sizeof name);
    // TRANSLATORS: the caption of a KV cache's table in the page's text view: "K₀ cache: keys, 3 of
    // 3 rows".
    snprintf(caption, sizeof caption, TR("%s %s: %s, %d of %d rows"), name, TR("cache"),
             TR(mat_info(m)->what), buf->cached, buf->rows);
    PanelTable *t = panel_add_table(pt, caption, "", buf->cached, p->d_k);
    panel_dim_labels(pt, src->L, m, t);
    for (int i = 0; t && i < buf->cached; i++) {
        int pos = buf->first + i;
        model_axis_label(src->L, mat_info(m)->row_axis, pos, label, sizeof label);
        // TRANSLATORS: a cached row's header in the page's text view: the token (with its position)
        // and its slot.
        snprintf(row, sizeof row, TR("%s, slot %d"), label, pos % buf->rows);
        panel_put(pt, &t->row_label[i], row);
        for (int j = 0; j < p->d_k; j++)
            panel_put_value(pt, &t->cell[i * p->d_k + j],
                            model_cell_value(p, src->T, (CellRef){m, head, pos, j}));
    }
}

// The step's weights over the cached keys: the trace's row t of A at the cached positions (the
// others are 0).
static void decode_weights(PanelText *pt, const PanelTextSrc *src, int head, int t,
                           const DecodeBuffer *buf)
{
    const AttnParams *p = &src->L->params;
    char name[64], caption[300], label[96];
    model_mat_name(p, MAT_WEIGHTS, head, name, sizeof name);
    snprintf(caption, sizeof caption, "%s[%s]: %s", name, panel_token(src->L, t),
             TR(mat_info(MAT_WEIGHTS)->what));
    PanelTable *t_ = panel_add_table(pt, caption, "", 1, buf->cached);
    model_axis_label(src->L, mat_info(MAT_WEIGHTS)->row_axis, t, label, sizeof label);
    if (t_) panel_put(pt, &t_->row_label[0], label);
    for (int i = 0; t_ && i < buf->cached; i++) {
        int pos = buf->first + i;
        model_axis_label(src->L, mat_info(MAT_WEIGHTS)->col_axis, pos, label, sizeof label);
        panel_put(pt, &t_->col_label[i], label);
        panel_put_value(pt, &t_->cell[i],
                        model_cell_value(p, src->T, (CellRef){MAT_WEIGHTS, head, t, pos}));
    }
}

void panel_walk_decode(PanelText *pt, const PanelTextSrc *src)
{
    const AttnParams *p = &src->L->params;
    if (decode_refusal(p) || !src->T) {
        char msg[400];
        snprintf(msg, sizeof msg, "%s %s",
                 TR("This lesson cannot be generated one token at a time:"),
                 p->cross ? TR("its keys and values come from another sequence.")
                          : TR("it has no causal mask, so each token sees the tokens after it."));
        panel_add_text(pt, PANEL_ITEM_TEXT, msg);
        return;
    }
    int t = src->st->decode_t < p->n ? src->st->decode_t : p->n - 1, head = src->st->head;
    DecodeBuffer buf = decode_buffer(p, t);
    DecodeSentences said;
    panel_text_decode_sentences(src->L, t, &said);
    snprintf(said.intro + strlen(said.intro), sizeof said.intro - strlen(said.intro), "  %s",
             said.keys);
    panel_add_text(pt, PANEL_ITEM_TEXT, said.intro);
    panel_add_text(pt, PANEL_ITEM_TEXT, said.cache);
    panel_add_text(pt, PANEL_ITEM_TEXT, said.work);
    decode_row(pt, src, decode_mat(p, 0), head, t);
    decode_cache(pt, src, decode_mat(p, 1), head, &buf);
    decode_weights(pt, src, head, t, &buf);
    decode_cache(pt, src, decode_mat(p, 2), head, &buf);
    decode_row(pt, src, decode_mat(p, 3), head, t);
}

// ---- FlashAttention's tiles (B) ---------------------------------------------------------------------------

// The block's rows after the tile: the token, m, the rescale this tile applied, l, and O (Z = O / l
// after the block's last tile), as the panel's table.
static void tile_table(PanelText *pt, const Lesson *L, const TilesSheet *k, int d_k)
{
    char caption[300], label[96], num[32];
    if (k->block_done)
        // TRANSLATORS: the caption of the tiles panel's table (B) in the page's text view, after a
        // block's last tile.
        snprintf(caption, sizeof caption, TR("After tile %d: m, l and Z = O / l of its queries"),
                 k->want);
    else
        snprintf(caption, sizeof caption,
                 // TRANSLATORS: the caption of the tiles panel's table (B) in the page's text view.
                 TR("After tile %d: the running m, l and O of its queries"), k->want);
    int rows = k->r1 - k->r0;
    PanelTable *t = panel_add_table(pt, caption, "", rows, 3 + d_k);
    if (!t) return;
    panel_put(pt, &t->col_label[0], "m");
    panel_put(pt, &t->col_label[1], TR("rescale"));
    panel_put(pt, &t->col_label[2], "l");
    for (int j = 0; j < d_k; j++) {
        snprintf(num, sizeof num, k->block_done ? "Z[%d]" : "O[%d]", j);
        panel_put(pt, &t->col_label[3 + j], num);
    }
    for (int i = 0; i < rows; i++) {
        char **cell = &t->cell[i * t->cols];
        model_axis_label(L, mat_info(MAT_MASKED)->row_axis, k->r0 + i, label, sizeof label);
        panel_put(pt, &t->row_label[i], label);
        panel_put_value(pt, &cell[0], k->m[i]);
        if (k->fresh[i]) panel_put(pt, &cell[1], "\xe2\x80\x94"); // nothing to rescale
        else panel_put_value(pt, &cell[1], k->rescale[i]);
        panel_put_value(pt, &cell[2], k->l[i]);
        for (int j = 0; j < d_k; j++) panel_put_value(pt, &cell[3 + j], k->out[i][j]);
    }
}

// The tile's own scores: S′ of the head at its query rows and key columns (the only scores that
// exist).
static void tile_scores(PanelText *pt, const PanelTextSrc *src, const TilesSheet *k, int head)
{
    const AttnParams *p = &src->L->params;
    char name[64], caption[300], label[96];
    model_mat_name(p, MAT_MASKED, head, name, sizeof name);
    snprintf(caption, sizeof caption, "%s: %s, %d" EN_DASH "%d " TIMES " %d" EN_DASH "%d", name,
             TR(mat_info(MAT_MASKED)->what), k->r0, k->r1 - 1, k->c0, k->c1 - 1);
    PanelTable *t = panel_add_table(pt, caption, "", k->r1 - k->r0, k->c1 - k->c0);
    for (int j = 0; t && j < t->cols; j++) {
        model_axis_label(src->L, mat_info(MAT_MASKED)->col_axis, k->c0 + j, label, sizeof label);
        panel_put(pt, &t->col_label[j], label);
    }
    for (int i = 0; t && i < t->rows; i++) {
        model_axis_label(src->L, mat_info(MAT_MASKED)->row_axis, k->r0 + i, label, sizeof label);
        panel_put(pt, &t->row_label[i], label);
        for (int j = 0; j < t->cols; j++)
            panel_put_value(
                pt, &t->cell[i * t->cols + j],
                model_cell_value(p, src->T, (CellRef){MAT_MASKED, head, k->r0 + i, k->c0 + j}));
    }
}

// The rows of V the tile reads (its keys): what P·V adds to O, under the update that says so.
static void tile_values(PanelText *pt, const PanelTextSrc *src, const TilesSheet *k, int head)
{
    const AttnParams *p = &src->L->params;
    char name[64], caption[300], label[96], num[32];
    tiles_sheet_update(k, caption, sizeof caption);
    panel_add_text(pt, PANEL_ITEM_TEXT, caption);
    model_mat_name(p, MAT_V, head, name, sizeof name);
    snprintf(caption, sizeof caption, "%s: %s, %d" EN_DASH "%d", name, TR(mat_info(MAT_V)->what),
             k->c0, k->c1 - 1);
    PanelTable *t = panel_add_table(pt, caption, "", k->c1 - k->c0, p->d_k);
    for (int j = 0; t && j < t->cols; j++) {
        snprintf(num, sizeof num, "%d", j);
        panel_put(pt, &t->col_label[j], num);
    }
    for (int i = 0; t && i < t->rows; i++) {
        model_axis_label(src->L, mat_info(MAT_V)->row_axis, k->c0 + i, label, sizeof label);
        panel_put(pt, &t->row_label[i], label);
        for (int j = 0; j < t->cols; j++)
            panel_put_value(pt, &t->cell[i * t->cols + j],
                            model_cell_value(p, src->T, (CellRef){MAT_V, head, k->c0 + i, j}));
    }
}

void panel_walk_tiles(PanelText *pt, const PanelTextSrc *src)
{
    const ViewState *st = src->st;
    const TilesSheet *k = src->tiles;
    TilesSheet *own = NULL;
    if (!tiles_sheet_is_for(k, src->T, st->head, st->tiles_block, st->tile)) {
        own = malloc(sizeof *own);
        if (!own || !tiles_sheet_make(own, src->L, src->T, st->head, st->tiles_block, st->tile)) {
            pt->oom = true;
            free(own);
            return;
        }
        k = own;
    }
    char line[sizeof k->line + sizeof k->keys + 2];
    snprintf(line, sizeof line, "%s%s%s", k->line, k->keys[0] ? "  " : "", k->keys);
    panel_add_text(pt, PANEL_ITEM_TEXT, line);
    if (k->fits && k->r1 > k->r0 && k->c1 > k->c0) {
        tile_scores(pt, src, k, st->head);
        tile_values(pt, src, k, st->head);
        tile_table(pt, src->L, k, src->L->params.d_k);
    }
    if (k->fits) panel_add_text(pt, PANEL_ITEM_TEXT, k->last);
    free(own);
}
