// The panels as text (panel_text.h): one walk per panel, in a table from the panel to its walk and
// heading; each reads the numbers the window's panel draws (the trace's rows, decode_buffer,
// tiles_run, the cost figures, the comparison, the shuffled lesson) and rounds them as the board
// does (model_format_value). The decoding panels (G, B) walk in panel_decode.c.
#include "model/panel_text.h"
#include "model/panel_text_ctx.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cost.h"
#include "core/decode.h"
#include "core/exactmath.h"
#include "model/i18n.h"
#include "model/rope_picture.h"
#include "model/stage_text.h"

#define TIMES "\xc3\x97"

static const char *lesson_title(const Lesson *L) { return L->title ? L->title : ""; }

// A table of matrix m of head `head` of lesson src (as the text view gives a stage's: its caption,
// token headers, the board's numbers), its caption after `lead` and a dash when not NULL ("Output,
// one head — Output: attention output, 3 × 4").
static void add_matrix(PanelText *pt, const StageTextSrc *src, MatId m, int head, const char *lead)
{
    StageTable st;
    if (!stage_text_table(src, m, head, &st)) return;
    char caption[600], label[128], v[32];
    snprintf(caption, sizeof caption, "%s%s%s", lead ? lead : "", lead ? " \xe2\x80\x94 " : "",
             st.caption);
    PanelTable *t = panel_add_table(pt, caption, "", st.rows, st.cols);
    for (int c = 0; t && c < st.cols; c++) {
        stage_text_label(src, &st, false, c, label, sizeof label);
        panel_put(pt, &t->col_label[c], label);
    }
    for (int r = 0; t && r < st.rows; r++) {
        stage_text_label(src, &st, true, r, label, sizeof label);
        panel_put(pt, &t->row_label[r], label);
        for (int c = 0; c < st.cols; c++) {
            stage_text_value(src, &st, r, c, v, sizeof v);
            panel_put(pt, &t->cell[r * st.cols + c], v);
        }
    }
}

// ---- the cost (K) ---------------------------------------------------------------------------------------

// Rows of cost figures under a caption, with the panel's columns.
static void cost_table(PanelText *pt, const char *caption, const CostFigures *fig, int n)
{
    static const char *const head[4] = {N_("d_k"), N_("projection weights"),
                                        N_("score multiplications"), N_("attention matrices")};
    PanelTable *t = panel_add_table(pt, caption, "", n, 4);
    char cell[96];
    for (int k = 0; t && k < 4; k++) panel_put(pt, &t->col_label[k], TR(head[k]));
    for (int i = 0; t && i < n; i++) {
        const CostFigures *f = &fig[i];
        snprintf(cell, sizeof cell, "h = %lld", (long long)f->heads);
        if (f->kv_heads != f->heads)
            snprintf(cell + strlen(cell), sizeof cell - strlen(cell), ", G = %lld",
                     (long long)f->kv_heads);
        panel_put(pt, &t->row_label[i], cell);
        snprintf(cell, sizeof cell, "%lld", (long long)f->d_k);
        panel_put(pt, &t->cell[i * 4], cell);
        panel_put(pt, &t->cell[i * 4 + 1],
                  cost_format_int(cell, sizeof cell, f->projection_weights));
        panel_put(pt, &t->cell[i * 4 + 2],
                  cost_format_int(cell, sizeof cell, f->score_multiplications));
        snprintf(cell, sizeof cell, "%lld %s (%lld%s%lld)", (long long)f->attention_matrices, TIMES,
                 (long long)f->matrix_rows, TIMES, (long long)f->matrix_cols);
        panel_put(pt, &t->cell[i * 4 + 3], cell);
    }
}

// What generating one token adds to the KV cache, per layer: K and V of each K/V head (with
// grouped K/V heads beside full multi-head), and what a sliding window bounds it to.
static void cost_kv_text(const AttnParams *p, char *kv, size_t cap)
{
    char kvn[32], full[32];
    cost_format_int(kvn, sizeof kvn, (int64_t)2 * p->kv_heads * p->d_k);
    cost_format_int(full, sizeof full, (int64_t)2 * p->heads * p->d_k);
    if (p->kv_heads < p->heads)
        snprintf(kv, cap,
                 TR("KV cache per token and layer = 2\xc2\xb7G\xc2\xb7"
                    "d_k = %s numbers (%d K/V heads; "
                    "full multi-head, 2\xc2\xb7h\xc2\xb7"
                    "d_k: %s)"),
                 kvn, p->kv_heads, full);
    else
        snprintf(kv, cap,
                 TR("KV cache per token and layer = 2\xc2\xb7h\xc2\xb7"
                    "d_k = %s numbers (K and V of "
                    "every head, kept while generating)"),
                 kvn);
    if (p->mask == MASK_CAUSAL && p->window > 0
        && p->window < p->n) { // a rolling buffer: the window bounds it
        char most[32];
        cost_format_int(most, sizeof most, (int64_t)2 * p->kv_heads * p->d_k * p->window);
        size_t used = strlen(kv);
        snprintf(kv + used, cap - used,
                 // TRANSLATORS: the cost panel (K) of a lesson with a sliding window of W: the
                 // cache keeps W tokens at most.
                 TR("; the window of %d keeps %d tokens at most: %s numbers"), p->window, p->window,
                 most);
    }
}

// The cost panel's figures and sentences (panel_text.h).
void panel_text_cost(const AttnParams *p, CostText *cs)
{
    compare_costs(&cs->fig[0], &cs->fig[1], p);
    cs->nfig = 2;
    if (!(p->d_model == 512 && p->n == 10 && p->heads == 8 && p->d_k == 64 && !p->cross)) {
        cs->fig[2] = cost_compute(512, 10, 1, 512);
        cs->fig[3] = cost_compute(512, 10, 8, 64);
        cs->nfig = 4;
    }
    snprintf(cs->title, sizeof cs->title,
             TR("What the heads cost \xe2\x80\x94 this lesson: d_model = %d, n = %d%s"), p->d_model,
             p->n, p->cross ? "" : "");
    if (p->cross)
        snprintf(cs->title + strlen(cs->title), sizeof cs->title - strlen(cs->title),
                 TR(", m = %d source tokens"), p->m);
    snprintf(cs->sub, sizeof cs->sub, "%s",
             TR("The paper's layer: d_model = 512, n = 10 (the document's table)"));
    bool grouped = p->kv_heads < p->heads; // W^K, W^V: one per K/V head
    snprintf(cs->line1, sizeof cs->line1, "%s",
             grouped ? TR("projection weights = h\xc2\xb7"
                          "d_model\xc2\xb7"
                          "d_k + 2\xc2\xb7G\xc2\xb7"
                          "d_model\xc2\xb7"
                          "d_k + h\xc2\xb7"
                          "d_k\xc2\xb7"
                          "d_model   (W^Q per head, W^K, W^V per K/V head + W^O)")
                     : TR("projection weights = h\xc2\xb7"
                          "3\xc2\xb7"
                          "d_model\xc2\xb7"
                          "d_k + h\xc2\xb7"
                          "d_k\xc2\xb7"
                          "d_model   (W^Q, W^K, W^V per head + W^O)"));
    snprintf(cs->line2, sizeof cs->line2,
             TR("score multiplications = h\xc2\xb7n\xc2\xb7%s\xc2\xb7"
                "d_k   (all the Q_i K_i%s)"),
             p->cross ? "m" : "n", "\xe1\xb5\x80");
    if (grouped)
        snprintf(cs->concl, sizeof cs->concl,
                 TR("Each head works in d_k = %d numbers instead of %d: the same multiplications "
                    "and %d attention patterns "
                    "instead of 1; the %d K/V heads need fewer weights than %d would."),
                 p->d_k, p->heads * p->d_k, p->heads, p->kv_heads, p->heads);
    else
        snprintf(cs->concl, sizeof cs->concl,
                 TR("Each head works in d_k = %d numbers instead of %d: the same weights and the "
                    "same multiplications, "
                    "but %d attention patterns instead of 1."),
                 p->d_k, p->heads * p->d_k, p->heads);
    cost_kv_text(p, cs->kv, sizeof cs->kv);
}

static void walk_cost(PanelText *pt, const PanelTextSrc *src)
{
    CostText ct;
    panel_text_cost(&src->L->params, &ct);
    cost_table(pt, ct.title, ct.fig, 2);
    if (ct.nfig == 4) cost_table(pt, ct.sub, ct.fig + 2, 2);
    panel_add_text(pt, PANEL_ITEM_TEXT, ct.line1);
    panel_add_text(pt, PANEL_ITEM_TEXT, ct.line2);
    panel_add_text(pt, PANEL_ITEM_TEXT, ct.kv);
    panel_add_text(pt, PANEL_ITEM_TEXT, ct.concl);
}

// ---- the KV cache's size (Shift+K) ------------------------------------------------------------------------

// The rows of a KV cache's shape (panel_text.h).
int panel_text_cache_rows(int64_t heads, int64_t kv, int64_t window, CacheRow *out)
{
    int n = 0;
    out[n++] = (CacheRow){"MHA", heads, 0};
    if (kv > 1 && kv < heads) out[n++] = (CacheRow){"GQA", kv, 0};
    if (heads > 1) out[n++] = (CacheRow){"MQA", 1, 0};
    if (window > 0) {
        char w[32];
        cost_format_int(w, sizeof w, window);
        out[n] = (CacheRow){"", kv, window};
        snprintf(out[n].name, sizeof out[n].name, TR("window %s"), w);
        n++;
    }
    return n;
}

static void cache_table(PanelText *pt, const char *caption, const CacheShape *s,
                        const CacheRow *rows, int count, int64_t tokens)
{
    PanelTable *t = panel_add_table(pt, caption, "", count, 3);
    char cell[64], tok[32];
    if (!t) return;
    cost_format_int(tok, sizeof tok, tokens);
    panel_put(pt, &t->col_label[0], TR("K/V heads"));
    panel_put(pt, &t->col_label[1], TR("per token"));
    snprintf(cell, sizeof cell, TRN("%s token", "%s tokens", tokens), tok);
    panel_put(pt, &t->col_label[2], cell);
    for (int i = 0; i < count; i++) {
        panel_put(pt, &t->row_label[i], rows[i].name);
        snprintf(cell, sizeof cell, "%lld", (long long)rows[i].kv_heads);
        panel_put(pt, &t->cell[i * 3], cell);
        cost_format_bytes(cell, sizeof cell,
                          cost_kv_cache_bytes(s->layers, rows[i].kv_heads, s->d_k, s->bytes, 1, 0));
        panel_put(pt, &t->cell[i * 3 + 1], cell);
        cost_format_bytes(cell, sizeof cell,
                          cost_kv_cache_bytes(s->layers, rows[i].kv_heads, s->d_k, s->bytes, tokens,
                                              rows[i].window));
        panel_put(pt, &t->cell[i * 3 + 2], cell);
    }
}

// The cache-size panel's shapes, rows and headings (panel_text.h).
void panel_text_cache_sheet(const Lesson *L, CacheSheet *out)
{
    const AttnParams *p = &L->params;
    int count = 0;
    const CacheShape *shapes = cost_cache_shapes(&count);
    out->pub = shapes[0];
    int64_t window = 0;
    for (int i = 0; i < count; i++)
        if (shapes[i].window > 0) window = shapes[i].window;
    out->pn = panel_text_cache_rows(out->pub.heads, out->pub.kv_heads, window, out->prow);
    out->mine = (CacheShape){lesson_title(L),
                             1,
                             p->heads,
                             p->kv_heads > 0 ? p->kv_heads : p->heads,
                             p->d_k,
                             2,
                             p->mask == MASK_CAUSAL ? p->window : 0};
    out->ln =
        panel_text_cache_rows(out->mine.heads, out->mine.kv_heads, out->mine.window, out->lrow);
    out->context = 8192; // Llama-3-8B's context length (max_position_embeddings)
    snprintf(out->t1, sizeof out->t1,
             // TRANSLATORS: the KV-cache size panel (Shift+K): the published shape's heading.
             TR("%s and %s: %lld layers, %lld query heads, d_k = %lld, 16-bit numbers"),
             shapes[0].name, count > 1 ? shapes[1].name : shapes[0].name,
             (long long)out->pub.layers, (long long)out->pub.heads, (long long)out->pub.d_k);
    snprintf(out->t2, sizeof out->t2,
             // TRANSLATORS: the KV-cache size panel (Shift+K): the lesson's heading (its layer
             // stored in 16-bit numbers).
             TR("This lesson: 1 layer, %d query heads, d_k = %d, 16-bit numbers"), p->heads,
             p->d_k);
}

static void walk_cache(PanelText *pt, const PanelTextSrc *src)
{
    CacheSheet cs;
    panel_text_cache_sheet(src->L, &cs);
    cache_table(pt, cs.t1, &cs.pub, cs.prow, cs.pn, cs.context); // as the chart
    cache_table(pt, cs.t2, &cs.mine, cs.lrow, cs.ln, src->L->params.n);
}

// ---- RoPE as a picture (W) -------------------------------------------------------------------------------

// The token's pairs before and after their turn, then the query and key moved together (the same
// score): the rotation panel's numbers (model_rope_picture, as the canvas reads them). Its labels
// are symbols (no words).
static void walk_rope(PanelText *pt, const PanelTextSrc *src)
{
    RopePicture r;
    if (!src->T || !model_rope_picture(&r, &src->L->params, src->T, src->st->head, src->st->rope_t))
        return;
    char cap[160], a[64], b[64], cell[160];
    snprintf(cap, sizeof cap, "Q%d \xe2\x86\x92 Q%d\xe1\xb4\xbf: %s, p = %d", r.head, r.head,
             panel_token(src->L, r.token), r.token);
    PanelTable *t = panel_add_table(pt, cap, "", r.pairs, 5);
    if (!t) return;
    static const char *const cols[] = {"\xce\xb8", "p\xc2\xb7\xce\xb8", "\xc2\xb0", "(q_a, q_b)",
                                       "(q_a, q_b)\xe1\xb4\xbf"};
    for (int c = 0; c < 5; c++) panel_put(pt, &t->col_label[c], cols[c]);
    for (int i = 0; i < r.pairs; i++) {
        const RopePair *q = &r.pair[i];
        snprintf(cell, sizeof cell, "%d: (%d, %d)", q->j, q->a, q->b);
        panel_put(pt, &t->row_label[i], cell);
        panel_put_value(pt, &t->cell[i * 5], q->theta);
        panel_put_value(pt, &t->cell[i * 5 + 1], q->angle);
        panel_put_value(pt, &t->cell[i * 5 + 2], q->angle * 180.0 / 3.141592653589793);
        model_format_value(q->x, a, sizeof a), model_format_value(q->y, b, sizeof b);
        snprintf(cell, sizeof cell, "(%s, %s)", a, b);
        panel_put(pt, &t->cell[i * 5 + 3], cell);
        model_format_value(q->xr, a, sizeof a), model_format_value(q->yr, b, sizeof b);
        snprintf(cell, sizeof cell, "(%s, %s)", a, b);
        panel_put(pt, &t->cell[i * 5 + 4], cell);
    }
    const RopeRelative *rel = &r.rel;
    PanelTable *m = panel_add_table(pt, "q\xc2\xb7k", "", 2, 1);
    if (!m) return;
    panel_put(pt, &m->col_label[0], "q\xc2\xb7k");
    snprintf(cell, sizeof cell, "q %d, k %d", rel->query, rel->key);
    panel_put(pt, &m->row_label[0], cell);
    snprintf(cell, sizeof cell, "q %d, k %d", rel->moved_q, rel->moved_k);
    panel_put(pt, &m->row_label[1], cell);
    panel_put_value(pt, &m->cell[0], rel->score);
    panel_put_value(pt, &m->cell[1], rel->score_moved);
}

// ---- single head vs multi-head (M) ------------------------------------------------------------------------

void panel_text_compare_cost(const Comparison *cmp, int heads, char *buf, size_t cap)
{
    char a[64], b[64], d[64], e[64];
    cost_format_int(a, sizeof a, cmp->cost_one.projection_weights);
    cost_format_int(b, sizeof b, cmp->cost_multi.projection_weights);
    cost_format_int(d, sizeof d, cmp->cost_one.score_multiplications);
    cost_format_int(e, sizeof e, cmp->cost_multi.score_multiplications);
    // With grouped K/V heads the heads' W_K and W_V are smaller than the single head's:
    // not the same cost.
    if (cmp->cost_one.projection_weights == cmp->cost_multi.projection_weights
        && cmp->cost_one.score_multiplications == cmp->cost_multi.score_multiplications)
        snprintf(buf, cap,
                 TR("Same cost: %s vs %s projection weights, %s vs %s score multiplications "
                    "\xe2\x80\x94 but 1 "
                    "pattern vs %d"),
                 a, b, d, e, heads);
    else
        snprintf(buf, cap,
                 // TRANSLATORS: the single-head comparison (key M) of a lesson with grouped K/V
                 // heads (fewer K/V heads than query heads): the heads' projection weights are
                 // fewer than the single head's.
                 TRN("Cost: %s vs %s projection weights (%d K/V head, not %d), %s vs %s score "
                     "multiplications \xe2\x80\x94 and 1 pattern vs %d",
                     "Cost: %s vs %s projection weights (%d K/V heads, not %d), %s vs %s score "
                     "multiplications \xe2\x80\x94 and 1 pattern vs %d",
                     cmp->cost_multi.kv_heads),
                 a, b, (int)cmp->cost_multi.kv_heads, heads, d, e, heads);
}

static void walk_compare(PanelText *pt, const PanelTextSrc *src)
{
    const AttnParams *p = &src->L->params;
    const Comparison *cmp = src->compare;
    if (!cmp) {
        panel_add_text(pt, PANEL_ITEM_TEXT,
                       TR("The single-head version could not be computed (see the banner)."));
        return;
    }
    ViewState st = *src->st; // whole patterns, whatever is being revealed
    st.reveal = -1;
    Lesson one = *src->L;
    one.params = cmp->single;
    StageTextSrc multi = {&st, src->L, src->T}, single = {&st, &one, &cmp->trace};
    char buf[400];
    snprintf(buf, sizeof buf, TR("One head \xc2\xb7 d_k = %d"), cmp->single.d_k);
    add_matrix(pt, &single, MAT_WEIGHTS, 0, buf);
    snprintf(
        buf, sizeof buf,
        TR("%d heads \xc2\xb7 d_k = %d each: each head is a full scaled dot-product attention"),
        p->heads, p->d_k);
    panel_add_text(pt, PANEL_ITEM_TEXT, buf);
    for (int h = 0; h < p->heads; h++) add_matrix(pt, &multi, MAT_WEIGHTS, h, NULL);
    panel_text_compare_cost(cmp, p->heads, buf, sizeof buf);
    panel_add_text(pt, PANEL_ITEM_TEXT, buf);
    add_matrix(pt, &single, MAT_OUTPUT, 0, TR("Output, one head"));
    snprintf(buf, sizeof buf, TR("Output, %d heads"), p->heads);
    add_matrix(pt, &multi, MAT_OUTPUT, 0, buf);
}

// ---- the shuffle test (X) ---------------------------------------------------------------------------------

// The shuffle panel's (X) two lines (panel_text.h).
void panel_text_shuffle_lines(const Lesson *L, const SessionShuffle *sh, char *order,
                              size_t order_cap, char *verdict, size_t verdict_cap)
{
    const AttnParams *p = &L->params;
    char num[64];
    bool reversed = true;
    int a = -1, b = -1;
    for (int i = 0; i < p->n; i++) {
        reversed = reversed && sh->perm[i] == p->n - 1 - i;
        if (sh->perm[i] != i) *(a < 0 ? &a : &b) = i;
    }
    size_t used;
    if (reversed || a < 0 || b < 0)
        used = (size_t)snprintf(order, order_cap, "%s", TR("The tokens reversed:  "));
    else
        used = (size_t)snprintf(order, order_cap, TR("\"%s\" and \"%s\" swapped:  "),
                                panel_token(L, a), panel_token(L, b));
    for (int i = 0; i < p->n && used < order_cap; i++)
        used += (size_t)snprintf(order + used, order_cap - used, "%s%s", i ? " " : "",
                                 panel_token(L, i));
    if (used < order_cap)
        used += (size_t)snprintf(order + used, order_cap - used, "  \xe2\x86\x92  ");
    for (int i = 0; i < p->n && used < order_cap; i++)
        used += (size_t)snprintf(order + used, order_cap - used, "%s%s", i ? " " : "",
                                 panel_token(&sh->lesson, i));
    model_format_value(sh->difference, num, sizeof num);
    if (sh->same)
        snprintf(
            verdict, verdict_cap,
            TR("%s: each token's row is the same, only moved \xe2\x80\x94 largest difference %s"),
            p->positions == POS_NONE ? TR("Without positions") : TR("The rows only moved"), num);
    else
        snprintf(
            verdict, verdict_cap,
            TR("%s: the rows change \xe2\x80\x94 largest difference between a token's two rows %s"),
            p->positions != POS_NONE ? TR("With positions")
            : p->mask == MASK_CAUSAL ? TR("With the causal mask")
                                     : TR("Changed"),
            num);
}

static void walk_shuffle(PanelText *pt, const PanelTextSrc *src)
{
    const SessionShuffle *sh = src->shuffle;
    if (!sh) {
        panel_add_text(pt, PANEL_ITEM_TEXT,
                       TR("The shuffled lesson could not be computed (see the banner)."));
        return;
    }
    char order[1200], verdict[400];
    panel_text_shuffle_lines(src->L, sh, order, sizeof order, verdict, sizeof verdict);
    panel_add_text(pt, PANEL_ITEM_TEXT, order);
    panel_add_text(pt, PANEL_ITEM_TEXT, verdict);
    ViewState st = *src->st;
    st.reveal = -1;
    StageTextSrc orig = {&st, src->L, src->T}, shuf = {&st, &sh->lesson, &sh->trace};
    add_matrix(pt, &orig, MAT_OUTPUT, 0, NULL);
    add_matrix(pt, &shuf, MAT_OUTPUT, 0, TR("Output, tokens reordered"));
}

// ---- every head (A) and the training strip -----------------------------------------------------------------

static void walk_all_heads(PanelText *pt, const PanelTextSrc *src)
{
    const AttnParams *p = &src->L->params;
    MatId m = model_stage_heatmap(p, view_stage(src->st));
    if (m == MAT_NONE) {
        panel_add_text(pt, PANEL_ITEM_TEXT,
                       TR("The heads' attention patterns appear from the Scores stage on (press "
                          "\xe2\x86\x92)."));
        return;
    }
    ViewState st = *src->st;
    st.reveal = -1;
    StageTextSrc s = {&st, src->L, src->T};
    for (int h = 0; h < p->heads; h++) {
        char lead[96] = "";
        if (p->kv_heads < p->heads)
            snprintf(lead, sizeof lead, TR("K/V head %d"), model_mat_head(p, MAT_K, h));
        add_matrix(pt, &s, m, h, lead[0] ? lead : NULL);
    }
}

// The loss as the strip writes it: the board's format, small ones with an exponent.
static void loss_text(double v, char *buf, size_t cap)
{
    model_format_value(v, buf, cap);
    if (v < 0.001) snprintf(buf, cap, "%.2e", v);
}

static void walk_training(PanelText *pt, const PanelTextSrc *src)
{
    const SessionTrain *t = src->train;
    int rows = 0;
    for (int i = 0; i < t->checkpoint_count; i++) rows += t->checkpoint_steps[i] < t->loss_count;
    // TRANSLATORS: the caption of the training's table in the page's text view (J and L move
    // between checkpoints).
    const char *caption = TR("The loss at each saved checkpoint (J L move between them)");
    PanelTable *tb = panel_add_table(pt, caption, TR("step"), rows, 1);
    if (!tb) return;
    panel_put(pt, &tb->col_label[0], TR("loss"));
    char num[32];
    for (int i = 0, r = 0; i < t->checkpoint_count; i++) {
        int step = t->checkpoint_steps[i];
        if (step >= t->loss_count) continue;
        snprintf(num, sizeof num, "%d", step);
        panel_put(pt, &tb->row_label[r], num);
        loss_text(t->loss[step], num, sizeof num);
        panel_put(pt, &tb->cell[r++], num);
    }
}

// ---- the table of panels ----------------------------------------------------------------------------------

static void title_decode(const PanelTextSrc *src, char *buf, size_t cap)
{
    const AttnParams *p = &src->L->params;
    int t = src->st->decode_t < p->n ? src->st->decode_t : p->n - 1;
    snprintf(buf, cap, TR("%s \xe2\x80\x94 generating with a KV cache: token %d of %d, head %d"),
             lesson_title(src->L), t + 1, p->n, src->st->head);
    size_t used = strlen(buf);
    if (src->st->decode_parts > 1
        && used < cap) // the board shows the step in parts: → goes to the next, said too
        snprintf(buf + used, cap - used, TR(", part %d of %d"), src->st->decode_part + 1,
                 src->st->decode_parts);
}

static void title_tiles(const PanelTextSrc *src, char *buf, size_t cap)
{
    int64_t computed = 0, skipped = 0;
    tiles_count(&src->L->params, src->st->tiles_block, &computed, &skipped);
    int tile = src->st->tile < 1 ? 1 : src->st->tile > computed ? (int)computed : src->st->tile;
    snprintf(buf, cap, TR("%s \xe2\x80\x94 FlashAttention: tile %d of %d, blocks of %d, head %d"),
             lesson_title(src->L), tile, (int)computed, src->st->tiles_block, src->st->head);
}

// The panels of two outputs (M, X) in parts: which one is shown, said after the heading (the
// window's strip shows it in a tab).
static void title_pair_part(const PanelTextSrc *src, char *buf, size_t cap)
{
    size_t used = strlen(buf);
    const ViewState *st = src->st;
    if (st->pair_parts > 1 && used < cap)
        snprintf(buf + used, cap - used, TR(", part %d of %d"),
                 (st->pair_part < st->pair_parts ? st->pair_part : st->pair_parts - 1) + 1,
                 st->pair_parts);
}

static void title_shuffle(const PanelTextSrc *src, char *buf, size_t cap)
{
    snprintf(buf, cap, TR("%s \xe2\x80\x94 the shuffle test"), lesson_title(src->L));
    size_t used = strlen(buf);
    if (src->shuffle && used < cap) // which order: the announcement changes with Shift+X
        for (int i = 0; i < src->L->params.n && used < cap; i++)
            used += (size_t)snprintf(buf + used, cap - used, "%s%s", i ? " " : ": ",
                                     panel_token(&src->shuffle->lesson, i));
    title_pair_part(src, buf, cap);
}

static void title_plain(const PanelTextSrc *src, const char *fmt, char *buf, size_t cap)
{
    snprintf(buf, cap, TR(fmt), lesson_title(src->L));
}
static void title_cost(const PanelTextSrc *s, char *b, size_t c)
{
    title_plain(s, N_("%s \xe2\x80\x94 what the heads cost"), b, c);
}
static void title_cache(const PanelTextSrc *s, char *b, size_t c)
{
    title_plain(s, N_("%s \xe2\x80\x94 the KV cache's size"), b, c);
}
static void title_compare(const PanelTextSrc *s, char *b, size_t c)
{
    title_plain(s, N_("%s \xe2\x80\x94 single head vs multi-head"), b, c);
    title_pair_part(s, b, c);
}

static void title_rope(const PanelTextSrc *src, char *buf, size_t cap)
{
    const AttnParams *p = &src->L->params;
    int t = src->st->rope_t < p->n ? src->st->rope_t : p->n - 1;
    snprintf(buf, cap, TR("%s \xe2\x80\x94 RoPE: token %d of %d turned, head %d"),
             lesson_title(src->L), t + 1, p->n, src->st->head);
}

// ---- a step of a panel that steps (→ ←): what changed, for the live line ----------------------
// Its heading names the lesson too; a step says only where it went, and whether that is the last.

// ", part P of Q" after buf when the step is shown in parts; *last stays true only on the last
// part.
static void step_part(char *buf, size_t cap, int part, int parts, bool *last)
{
    size_t used = strlen(buf);
    if (parts < 2 || used >= cap) return;
    snprintf(buf + used, cap - used, used ? TR(", part %d of %d") : TR("part %d of %d"), part + 1,
             parts);
    *last = *last && part == parts - 1;
}

static void step_last(char *buf, size_t cap, bool last)
{
    if (!last || !buf[0]) return;
    char said[400];
    snprintf(said, sizeof said, "%s", buf);
    snprintf(buf, cap, TR("%s \xe2\x80\x94 the last"), said);
}

static void step_decode(const PanelTextSrc *src, char *buf, size_t cap)
{
    const ViewState *st = src->st;
    int n = src->L->params.n, t = st->decode_t < n ? st->decode_t : n - 1;
    bool last = t == n - 1;
    snprintf(buf, cap, TR("token %d of %d"), t + 1, n);
    step_part(buf, cap, st->decode_part, st->decode_parts, &last);
    step_last(buf, cap, last);
}

static void step_rope(const PanelTextSrc *src, char *buf, size_t cap)
{
    int n = src->L->params.n, t = src->st->rope_t < n ? src->st->rope_t : n - 1;
    snprintf(buf, cap, TR("token %d of %d"), t + 1, n);
    step_last(buf, cap, t == n - 1);
}

static void step_tiles(const PanelTextSrc *src, char *buf, size_t cap)
{
    int64_t computed = 0, skipped = 0;
    tiles_count(&src->L->params, src->st->tiles_block, &computed, &skipped);
    int tile = src->st->tile < 1 ? 1 : src->st->tile > computed ? (int)computed : src->st->tile;
    snprintf(buf, cap, TR("tile %d of %d, blocks of %d"), tile, (int)computed,
             src->st->tiles_block);
    step_last(buf, cap, tile == (int)computed);
}

static void step_pair(const PanelTextSrc *src, char *buf, size_t cap)
{
    const ViewState *st = src->st;
    bool last = true;
    int part = st->pair_part < st->pair_parts ? st->pair_part : st->pair_parts - 1;
    step_part(buf, cap, part, st->pair_parts, &last);
    step_last(buf, cap, last && st->pair_parts > 1);
}

static void step_compare(const PanelTextSrc *src, char *buf, size_t cap)
{
    if (cap) buf[0] = '\0';
    step_pair(src, buf, cap);
}

static void step_shuffle(const PanelTextSrc *src, char *buf, size_t cap)
{
    char order[300] = "";
    size_t used = 0;
    for (int i = 0; src->shuffle && i < src->L->params.n && used < sizeof order; i++)
        used += (size_t)snprintf(order + used, sizeof order - used, "%s%s", i ? " " : "",
                                 panel_token(&src->shuffle->lesson, i));
    if (order[0]) snprintf(buf, cap, TR("the order: %s"), order);
    else if (cap) buf[0] = '\0';
    step_pair(src, buf, cap);
}

static const struct {
    ViewPanel panel;
    void (*title)(const PanelTextSrc *src, char *buf, size_t cap);
    void (*walk)(PanelText *pt, const PanelTextSrc *src);
    const char *footer; // what the panel is for, under it (NULL: none)
    void (*step)(const PanelTextSrc *src, char *buf, size_t cap); // NULL: it does not step
} PANELS[] = {
    {PANEL_DECODE, title_decode, panel_walk_decode,
     N_("Generating, a model adds one token at a time; the keys and values before it never change, "
        "so they "
        "are kept (the KV cache): each token costs work in proportion to its position, not its "
        "square."),
     step_decode},
    {PANEL_TILES, title_tiles, panel_walk_tiles,
     N_("FlashAttention computes exactly this softmax without storing the n\xc3\x97n scores: keys "
        "in blocks, and "
        "per query the largest score m, the sum l and the output O, rescaled when m grows: memory "
        "n, not n\xc2\xb2."),
     step_tiles},
    {PANEL_COST, title_cost, walk_cost, NULL, NULL},
    {PANEL_CACHE, title_cache, walk_cache,
     N_("Each generated token adds its K and V, d_k numbers per K/V head and layer: sharing K/V "
        "heads (GQA, "
        "MQA) divides the cache, a sliding window stops its growth at W tokens. Bytes, as the "
        "model stores them."),
     NULL},
    {PANEL_ROPE, title_rope, walk_rope,
     N_("Each pair of a query's numbers turns by its position times the pair's frequency; its "
        "length stays. A key "
        "turns the same way, so a score depends only on how far apart the two are: move both, the "
        "same score."),
     step_rope},
    {PANEL_COMPARE, title_compare, walk_compare, NULL, step_compare},
    {PANEL_SHUFFLE, title_shuffle, walk_shuffle, NULL, step_shuffle},
    {PANEL_CIRCUIT, panel_title_circuit, panel_walk_circuit,
     N_("A layer-0 head that looks at the previous token writes it into the stream; a layer-1 "
        "head's keys read it and find the position after the earlier copy of the current token: "
        "an induction head. Switch the previous-token head off and the repeats fall to chance."),
     NULL},
};
enum { PANEL_ROWS = sizeof PANELS / sizeof PANELS[0] };

static int panel_row(ViewPanel panel)
{
    for (int i = 0; i < PANEL_ROWS; i++)
        if (PANELS[i].panel == panel) return i;
    return -1;
}

const char *panel_text_footer(ViewPanel panel)
{
    int i = panel_row(panel);
    return i >= 0 ? PANELS[i].footer : NULL;
}

void panel_text_status(const PanelTextSrc *src, char *buf, size_t cap)
{
    int i = panel_row(src->st->panel);
    if (cap) buf[0] = '\0';
    if (i >= 0 && cap) PANELS[i].title(src, buf, cap);
}

void panel_text_step(const PanelTextSrc *src, char *buf, size_t cap)
{
    int i = panel_row(src->st->panel);
    if (cap) buf[0] = '\0';
    if (i >= 0 && cap && PANELS[i].step && src->L) PANELS[i].step(src, buf, cap);
}

void panel_text_free(PanelText *pt)
{
    for (int i = 0; i < pt->count; i++) {
        PanelItem *it = &pt->items[i];
        free(it->text);
        PanelTable *t = &it->table;
        for (int c = 0; t->col_label && c < t->cols; c++) free(t->col_label[c]);
        for (int r = 0; t->row_label && r < t->rows; r++) free(t->row_label[r]);
        for (int k = 0; t->cell && k < t->rows * t->cols; k++) free(t->cell[k]);
        free(t->caption), free(t->corner), free(t->col_label), free(t->row_label), free(t->cell);
    }
    free(pt->items);
    memset(pt, 0, sizeof *pt);
}

bool panel_text_build(PanelText *out, const PanelTextSrc *src)
{
    panel_text_free(out);
    const ViewState *st = src->st;
    char title[600];
    int i = panel_row(st->panel);
    if (i >= 0 && src->L && src->T) {
        PANELS[i].title(src, title, sizeof title);
        panel_add_text(out, PANEL_ITEM_TITLE, title);
        PANELS[i].walk(out, src);
        if (PANELS[i].footer) panel_add_text(out, PANEL_ITEM_TEXT, TR(PANELS[i].footer));
    } else if (st->panel == PANEL_NONE && st->view == VIEW_ALL_HEADS && src->T
               && src->L->params.heads > 1) {
        MatId m = model_stage_heatmap(&src->L->params, view_stage(st));
        const MatInfo *mi = mat_info(m == MAT_NONE ? MAT_WEIGHTS : m);
        snprintf(title, sizeof title, TR("All %d heads \xc2\xb7 %s %s"), src->L->params.heads,
                 TR(mi->what), mi->symbol);
        panel_add_text(out, PANEL_ITEM_TITLE, title);
        walk_all_heads(out, src);
    }
    if (st->panel == PANEL_NONE && src->train && src->train->active && src->train->loss_count > 0)
        walk_training(out, src);
    return !out->oom;
}
