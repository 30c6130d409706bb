// Tests the panels as text (src/model/panel_text.c, issue 38) without SDL: the KV cache's tables
// hold the core decoder's own cached rows (another path than the trace's) with their positions and
// slots, a rolling buffer holds min(t + 1, W) of them; the tiles' last table is the trace's Z; the
// cost, the KV cache's size (Llama-3-8B's published shape worked out here), the comparison, the
// shuffle test, every head and the training's checkpoints have their captioned tables; the status
// line names the panel and its step; no panel, no text.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lesson_trace.h"
#include "core/decode.h"
#include "model/panel_text.h"

// The first table whose caption contains `part`, NULL when none.
static const PanelTable *table_with(const PanelText *pt, const char *part)
{
    for (int i = 0; i < pt->count; i++)
        if (pt->items[i].kind == PANEL_ITEM_TABLE && strstr(pt->items[i].table.caption, part))
            return &pt->items[i].table;
    return NULL;
}

static bool has_text(const PanelText *pt, const char *part)
{
    for (int i = 0; i < pt->count; i++)
        if (pt->items[i].text && strstr(pt->items[i].text, part)) return true;
    return false;
}

static bool same_number(const char *cell, double v)
{
    char want[32];
    model_format_value(v, want, sizeof want);
    return cell && strcmp(cell, want) == 0;
}

// Step t of the lesson decoded by the core's decoder beside the panel's text of the same step: the
// K and V caches' rows (position order, each its slot), the weights over them, all in the board's
// rounding.
static void test_decode(const char *rel, int t, int head)
{
    Lesson L;
    Trace T;
    if (!load(rel, &L, &T)) return;
    const AttnParams *p = &L.params;
    ViewState st;
    view_init(&st,
              &(ViewDims){.n = p->n, .m = p->m, .heads = p->heads, .d_k = p->d_k, .causal = true});
    st.panel = PANEL_DECODE, st.decode_t = t, st.head = head;
    PanelTextSrc src = {&st, &L, &T, NULL, NULL, NULL, NULL, NULL};
    PanelText pt = {0};
    CHECK(panel_text_build(&pt, &src), "%s: the decode panel's text builds", rel);
    Decoder d;
    CHECK(decode_init(&d, p), "%s: the decoder starts", rel);
    for (int i = 0; i <= t; i++) CHECK(decode_step(&d), "%s: step %d", rel, i);
    DecodeBuffer buf = decode_buffer(p, t);
    int g = params_kv_head(p, head), checked = 0;
    const PanelTable *tables[5] = {
        NULL}; // q, the K cache, the weights, the V cache, z: in the panel's order
    for (int i = 0, n = 0; i < pt.count && n < 5; i++)
        if (pt.items[i].kind == PANEL_ITEM_TABLE) tables[n++] = &pt.items[i].table;
    const PanelTable *k = tables[1], *w = tables[2], *v = tables[3];
    CHECK(k && strstr(k->caption, " cache: ") && v && strstr(v->caption, " cache: ") && tables[4],
          "%s: five tables", rel);
    CHECK(k && v && w, "%s: K cache, weights and V cache tables", rel);
    if (k && v && w) {
        CHECK(k->rows == buf.cached && k->rows == decode_cached(&d, t) && k->cols == p->d_k,
              "%s: K cache %d x %d, %d cached", rel, k->rows, k->cols, buf.cached);
        for (int r = 0; r < k->rows; r++) {
            int pos = buf.first + r, slot = decode_slot(&d, pos);
            char want[32];
            snprintf(want, sizeof want, ", slot %d", slot);
            CHECK(strstr(k->row_label[r], want) != NULL,
                  "%s: row %d is position %d in slot %d: '%s'", rel, r, pos, slot, k->row_label[r]);
            Matrix kr = decode_cache_row(&d, g, slot, false),
                   vr = decode_cache_row(&d, g, slot, true);
            for (int j = 0; j < p->d_k; j++) {
                CHECK(same_number(k->cell[r * k->cols + j], kr.data[j]),
                      "%s: K cache [%d][%d] '%s'", rel, r, j, k->cell[r * k->cols + j]);
                CHECK(same_number(v->cell[r * v->cols + j], vr.data[j]),
                      "%s: V cache [%d][%d] '%s'", rel, r, j, v->cell[r * v->cols + j]);
                checked += 2;
            }
            CHECK(same_number(w->cell[r], d.weights[head].data[pos]),
                  "%s: weight of position %d '%s'", rel, pos, w->cell[r]);
            checked++;
        }
    }
    char status[600];
    panel_text_status(&src, status, sizeof status);
    char want[200];
    snprintf(want, sizeof want, "generating with a KV cache: token %d of %d, head %d", t + 1, p->n,
             head);
    CHECK(strstr(status, want) != NULL && pt.count && pt.items[0].kind == PANEL_ITEM_TITLE
              && !strcmp(pt.items[0].text, status),
          "%s: status and heading '%s'", rel, status);
    st.decode_parts = 2,
    st.decode_part = 1; // the board shows the step in two parts: the second said
    panel_text_status(&src, status, sizeof status);
    CHECK(strstr(status, ", part 2 of 2") != NULL, "%s: the part in the status '%s'", rel, status);
    printf("%s, token %d, head %d: %d numbers of the caches and weights equal the decoder's (%d "
           "cached of %d slots)\n",
           rel, t + 1, head, checked, buf.cached, buf.rows);
    decode_free(&d);
    panel_text_free(&pt);
    trace_free(&T);
    lesson_free(&L);
}

// The last tile: its block's Z = O / l, which is the trace's Z (rounded as the board rounds it).
static void test_tiles(void)
{
    Lesson L;
    Trace T;
    if (!load("lessons/flash-tiles.json", &L, &T)) return;
    const AttnParams *p = &L.params;
    ViewState st;
    view_init(&st, &(ViewDims){.n = p->n,
                               .m = p->m,
                               .heads = p->heads,
                               .d_k = p->d_k,
                               .causal = p->mask == MASK_CAUSAL});
    int64_t computed = 0, skipped = 0;
    st.panel = PANEL_TILES, st.tiles_block = 3, st.tile = 1000; // past the end: the last
    tiles_count(p, 3, &computed, &skipped);
    PanelTextSrc src = {&st, &L, &T, NULL, NULL, NULL, NULL, NULL};
    PanelText pt = {0};
    CHECK(panel_text_build(&pt, &src), "tiles: builds");
    const PanelTable *z = table_with(&pt, "Z = O / l");
    int checked = 0;
    CHECK(z && z->cols == 3 + p->d_k && !strcmp(z->col_label[0], "m")
              && !strcmp(z->col_label[2], "l") && !strcmp(z->col_label[3], "Z[0]"),
          "tiles: the last tile's table of m, l and Z");
    for (int i = 0; z && i < z->rows; i++) {
        int row = p->n - z->rows + i; // the last block's queries
        for (int j = 0; j < p->d_k; j++, checked++)
            CHECK(same_number(z->cell[i * z->cols + 3 + j], mat_row(&T.head[0].Z, row)[j]),
                  "tiles: Z[%d][%d] '%s'", row, j, z->cell[i * z->cols + 3 + j]);
    }
    char status[600], want[120];
    panel_text_status(&src, status, sizeof status);
    snprintf(want, sizeof want, "FlashAttention: tile %d of %d, blocks of 3", (int)computed,
             (int)computed);
    CHECK(strstr(status, want) != NULL, "tiles: status '%s'", status);
    CHECK(has_text(&pt, "Same Z as the softmax stage"),
          "tiles: the last tile says Z is the softmax stage's");
    // The rows of V the last tile reads (its keys, the last block's), under the update.
    const PanelTable *v = table_with(&pt, "values");
    int keys = p->m - 3 * ((p->m - 1) / 3);
    CHECK(v && v->rows == keys && v->cols == p->d_k && has_text(&pt, "P\xc2\xb7V["),
          "tiles: the last tile's rows of V (%d of them) and the update", keys);
    for (int i = 0; v && i < v->rows; i++)
        for (int j = 0; j < p->d_k; j++, checked++)
            CHECK(same_number(v->cell[i * v->cols + j], mat_row(&T.head[0].V, p->m - keys + i)[j]),
                  "tiles: V[%d][%d] '%s'", p->m - keys + i, j, v->cell[i * v->cols + j]);
    printf("tiles: %d numbers of the last tile's Z and V equal the trace's (%s)\n", checked,
           status);
    panel_text_free(&pt);
    st.tile = 2; // the second block's first tile (the first block, causal, is one tile)
    CHECK(panel_text_build(&pt, &src) && table_with(&pt, "the running m, l and O")
              && table_with(&pt, "masked scores"),
          "tiles: the second tile's running m, l, O and its scores (%s)",
          pt.count > 2 && pt.items[2].kind == PANEL_ITEM_TABLE ? pt.items[2].table.caption : "?");
    panel_text_free(&pt);
    trace_free(&T);
    lesson_free(&L);
}

// The cost, the KV cache's size, every head, the shuffle test and the comparison on the cat lesson.
static void test_tables(void)
{
    Lesson L;
    Trace T;
    if (!load("lessons/the-cat-sat.json", &L, &T)) return;
    const AttnParams *p = &L.params;
    ViewState st;
    view_init(&st, &(ViewDims){.n = p->n, .m = p->m, .heads = p->heads, .d_k = p->d_k});
    PanelTextSrc src = {&st, &L, &T, NULL, NULL, NULL, NULL, NULL};
    PanelText pt = {0};
    CHECK(panel_text_build(&pt, &src) && pt.count == 0,
          "one head, no panel, no training: no text (%d items)", pt.count);
    char status[600];
    panel_text_status(&src, status, sizeof status);
    CHECK(status[0] == '\0', "no panel: no status");
    // K: h = 1 and the lesson's h; projection weights h·3·d_model·d_k + h·d_k·d_model worked out
    // here.
    st.panel = PANEL_COST;
    CHECK(panel_text_build(&pt, &src), "cost builds");
    const PanelTable *c = table_with(&pt, "What the heads cost");
    char want[64];
    long long pw = 4LL * p->d_model * p->heads * p->d_k;
    snprintf(want, sizeof want, "%lld", pw);
    char grouped[64] = "";
    for (int i = 0, o = 0; want[i]; i++) { // thousands separators, as the panel writes them
        if (i && (strlen(want) - (size_t)i) % 3 == 0) grouped[o++] = ',';
        grouped[o++] = want[i];
        grouped[o] = '\0';
    }
    CHECK(c && c->rows == 2 && !strcmp(c->row_label[0], "h = 1")
              && !strcmp(c->col_label[1], "projection weights")
              && !strcmp(c->cell[1 * 4 + 1], grouped),
          "cost: h = %d's projection weights %s (%s)", p->heads, c ? c->cell[4 + 1] : "?", grouped);
    CHECK(table_with(&pt, "The paper's layer") != NULL, "cost: the paper's table too");
    panel_text_free(&pt);
    // Shift+K: Llama-3-8B, 32 layers, d_k 128, 16-bit: 2·32·8·128·2 = 131,072 bytes a token with 8
    // K/V heads, 1 GiB for 8,192 tokens; MHA's 32 K/V heads 512 KiB a token.
    st.panel = PANEL_CACHE;
    CHECK(panel_text_build(&pt, &src), "cache size builds");
    const PanelTable *k = table_with(&pt, "Llama-3-8B");
    CHECK(k && k->rows >= 3 && !strcmp(k->row_label[0], "MHA") && !strcmp(k->cell[1], "512 KiB")
              && !strcmp(k->row_label[1], "GQA") && !strcmp(k->cell[3 + 1], "128 KiB")
              && !strcmp(k->cell[3 + 2], "1 GiB") && !strcmp(k->col_label[2], "8,192 tokens"),
          "cache size: Llama-3-8B's MHA %s a token, GQA %s, %s for %s", k ? k->cell[1] : "?",
          k ? k->cell[4] : "?", k ? k->cell[5] : "?", k ? k->col_label[2] : "?");
    CHECK(table_with(&pt, "This lesson") != NULL, "cache size: the lesson's table");
    panel_text_free(&pt);
    // A: every head's weights at the softmax.
    st.panel = PANEL_NONE;
    st.view = VIEW_ALL_HEADS;
    for (int i = 0; i < st.stage_count; i++)
        if (st.stages[i] == STAGE_SOFTMAX) st.stage_index = i;
    CHECK(panel_text_build(&pt, &src), "all heads builds");
    int heads = 0;
    for (int i = 0; i < pt.count; i++) heads += pt.items[i].kind == PANEL_ITEM_TABLE;
    const PanelTable *a1 = table_with(&pt, "head 1 (2 of 2)");
    CHECK(heads == p->heads && a1 && same_number(a1->cell[0], mat_row(&T.head[1].weights, 0)[0])
              && !strcmp(a1->cell[0], "0.3020"),
          "all heads: %d tables, A1[The, The] %s", heads, a1 ? a1->cell[0] : "?");
    panel_text_free(&pt);
    // M: the single head beside the heads, both outputs.
    st.view = VIEW_ONE_HEAD;
    st.panel = PANEL_COMPARE;
    Comparison cmp;
    TraceError err;
    CHECK(compare_run(&cmp, p, &err), "compare runs");
    src.compare = &cmp;
    CHECK(panel_text_build(&pt, &src), "compare builds");
    const PanelTable *one = table_with(&pt, "One head"), *out = table_with(&pt, "Output, one head");
    CHECK(one && one->rows == p->n && out
              && same_number(out->cell[0], mat_row(&cmp.trace.output, 0)[0]),
          "compare: the single head's weights and output (%s)", out ? out->cell[0] : "?");
    panel_text_free(&pt);
    compare_free(&cmp);
    // X without its shuffled lesson: says so, no table.
    st.panel = PANEL_SHUFFLE;
    CHECK(panel_text_build(&pt, &src) && has_text(&pt, "could not be computed"),
          "shuffle without its lesson says so");
    panel_text_free(&pt);
    trace_free(&T);
    lesson_free(&L);
}

// The training's checkpoints: one row per checkpoint whose loss is known.
static void test_training(void)
{
    Lesson L;
    Trace T;
    if (!load("lessons/the-cat-sat.json", &L, &T)) return;
    ViewState st;
    view_init(&st,
              &(ViewDims){
                  .n = L.params.n, .m = L.params.m, .heads = L.params.heads, .d_k = L.params.d_k});
    double loss[5] = {1.5, 1.25, 0.75, 0.5, 0.00025};
    SessionTrain tr;
    memset(&tr, 0, sizeof tr);
    tr.active = true, tr.steps = 4, tr.step = 4, tr.loss_count = 5, tr.loss = loss,
    tr.checkpoint_count = 3;
    tr.checkpoint_steps[0] = 0, tr.checkpoint_steps[1] = 2, tr.checkpoint_steps[2] = 4;
    PanelTextSrc src = {&st, &L, &T, NULL, NULL, &tr, NULL, NULL};
    PanelText pt = {0};
    CHECK(panel_text_build(&pt, &src), "training builds");
    const PanelTable *t = table_with(&pt, "checkpoint");
    CHECK(t && t->rows == 3 && !strcmp(t->corner, "step") && !strcmp(t->row_label[1], "2")
              && !strcmp(t->cell[1], "0.7500") && !strcmp(t->cell[2], "2.50e-04"),
          "training: checkpoints 0, 2, 4 with their losses (%s, %s)", t ? t->cell[1] : "?",
          t ? t->cell[2] : "?");
    panel_text_free(&pt);
    trace_free(&T);
    lesson_free(&L);
}

int main(void)
{
    (void)parse; // lesson_trace.h's in-memory lessons: not needed here
    test_decode("lessons/kv-cache-decoding.json", 3, 0);
    test_decode("lessons/mistral-sliding-window.json", 6,
                0); // a rolling buffer, full, its slots reused
    test_decode("lessons/llama-rope-gqa.json", 2, 1); // RoPE's turned keys, a K/V head shared
    test_tiles();
    test_tables();
    test_training();
    return check_report("test_panel_text");
}
