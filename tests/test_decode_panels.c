// Tests the window's panels of issue 22's decoding and tiles headless (a fixed-width fake font):
// the keys (G and B open them, the arrows step, the ends clamp, Esc closes), that the decode panel
// draws, at every token, the numbers the KV-cache decoder computes (q, the cache, the weights over
// it, z) at the board's legible size inside the window, and that the tiles panel reports its tiles,
// frames the one read and ends with the softmax's Z — at 1280x720 and 1920x1080.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lesson_trace.h"
#include "core/decode.h"
#include "render/scene.h"

#include "fake_font.h"

static ViewEvent key(ViewKey k)
{
    ViewEvent e;
    memset(&e, 0, sizeof e);
    e.kind = VIEW_EV_KEY;
    e.key = k;
    return e;
}
static void press(ViewState *st, ViewKey k)
{
    ViewEvent e = key(k);
    view_handle(st, &e);
}

// The text of the number drawn in cell ref (the command tagged ROLE_NUMBER), or NULL.
static const char *number_in(const Scene *s, CellRef ref)
{
    for (size_t i = 0; i < s->count; i++) {
        const DrawCmd *c = &s->cmds[i];
        if (c->kind == CMD_TEXT && c->role == ROLE_NUMBER && c->cell.mat == ref.mat
            && c->cell.head == ref.head && c->cell.row == ref.row && c->cell.col == ref.col)
            return scene_text(s, c);
    }
    return NULL;
}

// Every command inside w x h; every number tagged with a cell has digits of at least 2.6 % of h.
static void check_frame(const Scene *s, int w, int h, const char *what)
{
    int outside = 0, small = 0, numbers = 0;
    for (size_t i = 0; i < s->count; i++) {
        const DrawCmd *c = &s->cmds[i];
        if (c->kind == CMD_CLIP) continue;
        if (c->x < 0 || c->y < 0 || c->x + c->w > w || c->y + c->h > h) outside++;
        if (c->kind == CMD_TEXT && c->role == ROLE_NUMBER) {
            numbers++;
            if (fake_height(NULL, FONT_REGULAR, c->size) * 0.73 < 0.026 * h) small++;
        }
    }
    CHECK(outside == 0, "%s: %d commands outside %dx%d", what, outside, w, h);
    CHECK(small == 0, "%s: %d numbers below 2.6 %% of %d px", what, small, h);
    CHECK(numbers > 0, "%s: numbers drawn", what);
}

// The command that draws the number of cell ref, or NULL.
static const DrawCmd *number_cmd(const Scene *s, CellRef ref)
{
    for (size_t i = 0; i < s->count; i++) {
        const DrawCmd *c = &s->cmds[i];
        if (c->kind == CMD_TEXT && c->role == ROLE_NUMBER && c->cell.mat == ref.mat
            && c->cell.head == ref.head && c->cell.row == ref.row && c->cell.col == ref.col)
            return c;
    }
    return NULL;
}

// The number written on the line of cell ref left of its matrix's label (a rolling buffer's slot),
// or -1; *bold: whether it is bold (the slot this step wrote).
static int slot_left_of(const Scene *s, CellRef ref, int cells_x, bool *bold)
{
    const DrawCmd *cell = number_cmd(s, ref);
    if (!cell) return -1;
    int mid = cell->y + cell->h / 2;
    for (size_t i = 0; i < s->count; i++) {
        const DrawCmd *c = &s->cmds[i];
        if (c->kind != CMD_TEXT || c->role == ROLE_NUMBER || c->x + c->w > cells_x || c->y > mid
            || c->y + c->h < mid)
            continue;
        const char *t = scene_text(s, c);
        if (!t[0] || strspn(t, "0123456789") != strlen(t)) continue;
        *bold = c->font == FONT_BOLD;
        return atoi(t);
    }
    return -1;
}

// The text of the row label tagged with (mat, head, row), or NULL.
static const char *row_label(const Scene *s, MatId mat, int head, int row)
{
    for (size_t i = 0; i < s->count; i++) {
        const DrawCmd *c = &s->cmds[i];
        if (c->kind == CMD_TEXT && c->role == ROLE_LABEL && c->cell.mat == mat
            && c->cell.head == head && c->cell.row == row && c->cell.col == -1)
            return scene_text(s, c);
    }
    return NULL;
}

// Whether the texts drawn, joined by spaces in their order (a sentence wrapped over lines), contain
// needle.
static bool said(const Scene *s, const char *needle)
{
    size_t cap = 1, used = 0;
    for (size_t i = 0; i < s->count; i++)
        if (s->cmds[i].kind == CMD_TEXT) cap += strlen(scene_text(s, &s->cmds[i])) + 1;
    char *all = malloc(cap);
    if (!all) return false;
    all[0] = '\0';
    for (size_t i = 0; i < s->count; i++)
        if (s->cmds[i].kind == CMD_TEXT)
            used +=
                (size_t)sprintf(all + used, "%s%s", used ? " " : "", scene_text(s, &s->cmds[i]));
    bool found = strstr(all, needle) != NULL;
    free(all);
    return found;
}

// A rolling buffer (a sliding window): each cache row drawn (keys in the first part or the whole
// step, values in the second part) has its slot left of its label, which carries its position; the
// slot this step wrote is the bold one; the sentence says how many keys q reads (min(t + 1, W), the
// window's) and names the key let go.
static void check_buffer(const Scene *s, const Lesson *L, const Decoder *d, int t, int head,
                         bool keys, bool values, const char *what)
{
    const AttnParams *p = &L->params;
    DecodeBuffer b = decode_buffer(p, t);
    CHECK(b.rows == p->window && b.cached == (t + 1 < p->window ? t + 1 : p->window)
              && b.first == t + 1 - b.cached && b.slot == t % p->window
              && b.evicted == (t >= p->window ? t - p->window : -1),
          "%s: the buffer at step %d: %d rows, %d cached from %d, slot %d, evicted %d", what, t,
          b.rows, b.cached, b.first, b.slot, b.evicted);
    CHECK(d->slot_written == b.slot && d->evicted == b.evicted && d->first_cached == b.first,
          "%s: the decoder wrote slot %d and let go %d", what, d->slot_written, d->evicted);
    MatId kid = p->rope != ROPE_NONE ? MAT_KROT : MAT_K;
    for (int m = 0; m < 2; m++) {
        MatId id = m == 0 ? kid : MAT_V;
        if (m == 0 ? !keys : !values) continue;
        const DrawCmd *first = number_cmd(s, (CellRef){id, head, b.first, 0});
        int cells_x = first ? first->x : 0;
        for (int j = b.first; j <= t; j++) {
            bool bold = false;
            int slot = slot_left_of(s, (CellRef){id, head, j, 0}, cells_x, &bold);
            if (m == 1 && keys)
                continue; // the whole step: V's rows are labelled by K's beside them
            CHECK(slot == j % b.rows && bold == (j == t), "%s: %s row %d in slot %d (drawn: %d%s)",
                  what, m ? "V" : "K", j, j % b.rows, slot, bold ? ", bold" : "");
            const char *label = row_label(s, id, head, j);
            char want[160];
            snprintf(want, sizeof want, "%s", L->tokens[j]);
            model_subscript(want, sizeof want, j);
            CHECK(label && strcmp(label, want) == 0, "%s: %s row %d labelled '%s', not '%s'", what,
                  m ? "V" : "K", j, label ? label : "(none)", want);
        }
        for (int j = 0; j < b.first; j++)
            CHECK(!number_in(s, (CellRef){id, head, j, 0}),
                  "%s: %s row %d (out of the buffer) drawn", what, m ? "V" : "K", j);
    }
    for (int j = 0; j < b.first; j++)
        CHECK(!number_in(s, (CellRef){MAT_WEIGHTS, head, t, j}),
              "%s: the weight of key %d (out of the buffer) drawn", what, j);
    char want[200];
    if (keys && values) // the whole step's sentence, in the catalogue's plural forms
        snprintf(want, sizeof want, "its q reads the %d cached key%s", b.cached,
                 b.cached == 1 ? "" : "s");
    else if (keys) snprintf(want, sizeof want, "its q against the %d cached keys", b.cached);
    else snprintf(want, sizeof want, "the weights sum the %d cached values", b.cached);
    CHECK(said(s, want), "%s: says '%s'", what, want);
    if (b.evicted >= 0)
        snprintf(want, sizeof want,
                 "overwrite slot %d: \xe2\x80\x9c%s\xe2\x80\x9d (position %d) has left the window.",
                 b.slot, L->tokens[b.evicted], b.evicted);
    else snprintf(want, sizeof want, "go into slot %d of %d.", b.slot, b.rows);
    CHECK(said(s, want), "%s: says '%s'", what, want);
}

// The one value v as the board writes it, against the text drawn in ref (which must be drawn when
// `shown`).
static void check_cell(const Scene *s, CellRef ref, double v, const char *what, bool shown)
{
    char want[48];
    model_format_value(v, want, sizeof want);
    const char *got = number_in(s, ref);
    if (!got && !shown) return;
    CHECK(got && strcmp(got, want) == 0,
          "%s: cell (%d, %d) of matrix %d reads '%s', the decoder's %s", what, ref.row, ref.col,
          ref.mat, got ? got : "(none)", want);
}

static void test_keys(const Lesson *L)
{
    ViewDims dims = view_dims_from_params(&L->params);
    ViewState st;
    view_init(&st, &dims);
    press(&st, VIEW_KEY_G);
    CHECK(st.panel == PANEL_DECODE && st.decode_t == 0,
          "G opens the decode panel at the first token");
    for (int i = 0; i < L->params.n + 3; i++) press(&st, VIEW_KEY_RIGHT);
    CHECK(st.decode_t == L->params.n - 1, "the arrows stop at the last token (%d)", st.decode_t);
    press(&st, VIEW_KEY_LEFT);
    CHECK(st.decode_t == L->params.n - 2, "Left goes back a token");
    press(&st, VIEW_KEY_HOME);
    CHECK(st.decode_t == 0 && st.stage_index == 0, "Home: the first token; the stage did not move");
    // A step shown in two parts (the scene says so): → shows its second part, then the next token's
    // first.
    view_set_decode_parts(&st, 2);
    press(&st, VIEW_KEY_RIGHT);
    CHECK(st.decode_t == 0 && st.decode_part == 1, "→: the step's second part (token %d part %d)",
          st.decode_t, st.decode_part);
    press(&st, VIEW_KEY_RIGHT);
    CHECK(st.decode_t == 1 && st.decode_part == 0,
          "→: the next token's first part (token %d part %d)", st.decode_t, st.decode_part);
    press(&st, VIEW_KEY_LEFT);
    CHECK(st.decode_t == 0 && st.decode_part == 1,
          "←: back to the token before, its last part (token %d part %d)", st.decode_t,
          st.decode_part);
    press(&st, VIEW_KEY_LEFT);
    press(&st, VIEW_KEY_LEFT);
    CHECK(st.decode_t == 0 && st.decode_part == 0, "← stops at the first part of the first token");
    press(&st, VIEW_KEY_RIGHT);
    view_set_decode_parts(&st, 1); // a step that fits whole: no second part to stay on
    CHECK(st.decode_part == 0, "one part: the part clamps to it");
    press(&st, VIEW_KEY_END);
    CHECK(st.decode_t == L->params.n - 1 && st.decode_part == 0,
          "End: the last token, its first part");
    press(&st, VIEW_KEY_HOME);
    press(&st, VIEW_KEY_B);
    CHECK(st.panel == PANEL_TILES && st.tile == 1 && st.tiles_block == 2,
          "B opens the tiles panel, blocks of 2");
    view_set_tiles(&st, 4);
    for (int i = 0; i < 9; i++) press(&st, VIEW_KEY_RIGHT);
    CHECK(st.tile == 4, "the arrows stop at the last tile (%d)", st.tile);
    press(&st, VIEW_KEY_UP);
    CHECK(st.tiles_block == 3 && st.tile == 1, "Up: larger blocks, from the first tile");
    for (int i = 0; i < 100; i++) press(&st, VIEW_KEY_UP);
    CHECK(st.tiles_block == L->params.n, "blocks stop at the tokens (%d)", st.tiles_block);
    for (int i = 0; i < 100; i++) press(&st, VIEW_KEY_DOWN);
    CHECK(st.tiles_block == 1, "blocks stop at 1");
    press(&st, VIEW_KEY_ESCAPE);
    CHECK(st.panel == PANEL_NONE && !st.quit, "Esc closes the panel");
    press(&st, VIEW_KEY_G);
    press(&st, VIEW_KEY_G);
    CHECK(st.panel == PANEL_NONE, "G again closes it");
}

// whole: the cache must be shown whole (the lesson fits at the floor); else its newest row at
// least.
static void test_decode_panel(const char *name, const Lesson *L, const Trace *T, int w, int h,
                              bool whole)
{
    const AttnParams *p = &L->params;
    ViewDims dims = view_dims_from_params(p);
    ViewState st;
    view_init(&st, &dims);
    st.width = w, st.height = h;
    press(&st, VIEW_KEY_G);
    Decoder d;
    CHECK(decode_init(&d, p), "%s: the decoder starts", name);
    // With RoPE the decoder's q and keys are the rotated ones (the cache holds the turned k_t).
    MatId qid = p->rope != ROPE_NONE ? MAT_QROT : MAT_Q,
          kid = p->rope != ROPE_NONE ? MAT_KROT : MAT_K;
    bool rolling = p->window > 0 && p->window < p->n;
    Scene s;
    scene_init(&s);
    char what[160];
    for (int t = 0; t < p->n; t++) {
        CHECK(decode_step(&d), "%s: step %d", name, t);
        for (int head = 0; head < p->heads; head++) {
            st.head = head;
            // A step too big for one screen comes in two parts, each whole: q·K (q, the keys, the
            // weights), then A·V (the weights, the values, z). Every number is on one of them.
            int parts = 1;
            for (int part = 0; part < parts; part++) {
                st.decode_part = part;
                snprintf(what, sizeof what, "%s %dx%d token %d head %d part %d", name, w, h, t,
                         head, part + 1);
                CHECK(scene_build(&s, &st, L, T, w, h, &TM, NULL), "%s: builds", what);
                if (part == 0) parts = s.decode_parts;
                CHECK(s.decode_parts == parts && parts >= 1 && parts <= 2, "%s: %d parts", what,
                      s.decode_parts);
                check_frame(&s, w, h, what);
                bool keys = parts == 1 || part == 0, values = parts == 1 || part == 1;
                // Every number drawn is the decoder's; the whole cache when it fits, else its
                // newest row.
                for (int c = 0; c < p->d_k; c++) {
                    if (keys)
                        check_cell(&s, (CellRef){qid, head, t, c}, d.q[head].data[c], what,
                                   whole || c == 0);
                    else
                        CHECK(!number_in(&s, (CellRef){qid, head, t, c}),
                              "%s: q is the first part's", what);
                    if (values)
                        check_cell(&s, (CellRef){MAT_Z, head, t, c}, d.z[head].data[c], what,
                                   whole || c == 0);
                    else
                        CHECK(!number_in(&s, (CellRef){MAT_Z, head, t, c}),
                              "%s: z is the second part's", what);
                    // The rows the rolling buffer still holds (a window lets the older ones go), at
                    // their slots.
                    for (int j = t + 1 - decode_cached(&d, t), g = params_kv_head(p, head); j <= t;
                         j++) {
                        Matrix k = decode_cache_row(&d, g, decode_slot(&d, j), false);
                        Matrix v = decode_cache_row(&d, g, decode_slot(&d, j), true);
                        if (keys)
                            check_cell(&s, (CellRef){kid, head, j, c}, k.data[c], what,
                                       whole || (j == t && c == 0));
                        if (values)
                            check_cell(&s, (CellRef){MAT_V, head, j, c}, v.data[c], what,
                                       whole || (j == t && c == 0));
                    }
                }
                for (int j = t + 1 - decode_cached(&d, t); j <= t;
                     j++) // (the keys the window let go: check_buffer)
                    check_cell(&s, (CellRef){MAT_WEIGHTS, head, t, j}, d.weights[head].data[j],
                               what, whole || j == t);
                CHECK(!number_in(&s, (CellRef){kid, head, t + 1, 0}),
                      "%s: no key of a token not generated yet", what);
                if (rolling) check_buffer(&s, L, &d, t, head, keys, values, what);
            }
            st.decode_part = 0;
        }
        press(&st, VIEW_KEY_RIGHT);
    }
    decode_free(&d);
    scene_free(&s);
}

static void test_tiles_panel(const char *name, const Lesson *L, const Trace *T, int w, int h)
{
    const AttnParams *p = &L->params;
    ViewDims dims = view_dims_from_params(p);
    ViewState st;
    view_init(&st, &dims);
    press(&st, VIEW_KEY_B);
    Scene s;
    scene_init(&s);
    char what[160];
    for (int block = 1; block <= 3; block++) {
        st.tiles_block = block;
        st.tile = 1;
        int64_t computed = 0, skipped = 0;
        tiles_count(p, block, &computed, &skipped);
        for (int k = 1; k <= computed; k++) {
            snprintf(what, sizeof what, "%s %dx%d block %d tile %d", name, w, h, block, k);
            CHECK(scene_build(&s, &st, L, T, w, h, &TM, NULL), "%s: builds", what);
            CHECK(s.tile_count == computed, "%s: reports %d tiles, %lld computed", what,
                  s.tile_count, (long long)computed);
            check_frame(&s, w, h, what);
            CHECK(said(&s, "Same Z as the softmax stage") == (k == computed),
                  "%s: the last tile says Z is the same", what);
            view_set_tiles(&st, s.tile_count);
            press(&st, VIEW_KEY_RIGHT);
        }
        CHECK(st.tile == computed, "%s block %d: stepping ends on the last tile", name, block);
    }
    scene_free(&s);
}

int main(void)
{
    static const char *const LESSONS[] = {"lessons/causal-decoder.json",
                                          "tests/good/three-tokens.json"};
    static const int SIZES[2][2] = {{1280, 720}, {1920, 1080}};
    for (size_t i = 0; i < sizeof LESSONS / sizeof LESSONS[0]; i++) {
        Lesson L;
        Trace T;
        if (!load(LESSONS[i], &L, &T)) continue;
        if (i == 0) test_keys(&L);
        for (int k = 0; k < 2; k++) {
            // The causal decoder fits whole at both sizes; three-tokens' wide numbers window the
            // cache (its newest rows at least). Every number drawn is the decoder's.
            if (L.params.mask == MASK_CAUSAL)
                test_decode_panel(LESSONS[i], &L, &T, SIZES[k][0], SIZES[k][1], i == 0);
            test_tiles_panel(LESSONS[i], &L, &T, SIZES[k][0], SIZES[k][1]);
        }
        trace_free(&T);
        lesson_free(&L);
    }
    // A sliding window of 3 over 8 tokens (Mistral's rolling buffer), with RoPE and one K/V head:
    // the caches hold 3 rows, shown whole with their slots.
    {
        Lesson L;
        Trace T;
        if (load("lessons/mistral-sliding-window.json", &L, &T)) {
            for (int k = 0; k < 2; k++)
                test_decode_panel("mistral-sliding-window", &L, &T, SIZES[k][0], SIZES[k][1], true);
            trace_free(&T);
            lesson_free(&L);
        }
    }
    // The largest lesson the panels must show whole at the floor: 8 tokens, d_model 8, 2 heads
    // of 4.
    Lesson L;
    Trace T;
    if (parse("{\"title\": \"eight\", \"tokens\": [\"the\", \"cat\", \"sat\", \"on\", \"the\", "
              "\"mat\", \"and\", "
              "\"slept\"], \"embeddings\": {\"random\": {\"seed\": 40, \"std\": 1.0}}, "
              "\"d_model\": 8, \"heads\": 2, "
              "\"mask\": \"causal\", \"weights\": {\"random\": {\"seed\": 41}}}",
              &L, &T)) {
        for (int k = 0; k < 2; k++) {
            test_decode_panel("eight tokens", &L, &T, SIZES[k][0], SIZES[k][1], false);
            test_tiles_panel("eight tokens", &L, &T, SIZES[k][0], SIZES[k][1]);
        }
        trace_free(&T);
        lesson_free(&L);
    }
    return check_report("test_decode_panels");
}
