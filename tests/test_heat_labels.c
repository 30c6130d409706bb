// Issue 36, the heatmap beside the board: what a student reads there — its title, the tokens along
// its axes, the axes' caption, its numbers — is at least the floor size (scene_number_floor: digits
// of 2.6 % of the height), and no token is written one letter a line. At 1280x720 an 8-token
// lesson's heatmap once had its key labels stacked letter by letter at 7-13 px. Every stage, head
// and part of 8-token lessons (short and long tokens, d_model 4 and 8, one to four heads, with and
// without the causal mask and RoPE) at 1280x720 and 1920x1080, measured with the fonts shipped.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lesson_trace.h"
#include "model/view.h"
#include "render/export_png.h"
#include "render/scene.h"
#include "render/scene_heatmap.h"

#define FONTS MHA_SOURCE_DIR "/assets/fonts"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

typedef struct {
    int screens; // screens of a per-head stage with a heatmap beside the board
    int texts; // texts read in them
    int small; // of which below the floor
    int stacked; // key labels written one letter a line
    int smallest; // the smallest text's size
    int tokens; // texts that are a token's whole label
} Tally;

// Whether a text is one character (one UTF-8 sequence; "…" too).
static bool one_char(const char *t)
{
    if (!t[0]) return false;
    size_t k = 1;
    while (t[k] && ((unsigned char)t[k] & 0xC0) == 0x80) k++;
    return t[k] == '\0';
}

// The heatmap beside the board (the hit region of a whole heatmap: no cell, a head): every text
// inside it at the floor or above, and no column of single letters (a label written downwards).
// Whether t is the whole label of one of the lesson's tokens.
static bool token_label(const Lesson *L, const char *t)
{
    char label[160];
    for (int i = 0; i < L->params.n; i++) {
        model_axis_label(L, AXIS_QUERY, i, label, sizeof label);
        if (!strcmp(t, label)) return true;
    }
    return false;
}

static void check_scene(const Scene *s, const Lesson *L, int h, const char *what, Tally *t)
{
    const HitRegion *heat = NULL;
    for (size_t i = 0; i < s->hit_count; i++)
        if (s->hits[i].cell.mat == MAT_NONE && s->hits[i].head >= 0) heat = &s->hits[i];
    if (!heat) return;
    t->screens++;
    int floor = scene_number_floor(h);
    for (size_t i = 0; i < s->count; i++) {
        const DrawCmd *c = &s->cmds[i];
        if (c->kind != CMD_TEXT || c->x < heat->x || c->y < heat->y || c->x >= heat->x + heat->w
            || c->y >= heat->y + heat->h)
            continue;
        const char *txt = scene_text(s, c);
        t->texts++;
        t->tokens += token_label(L, txt);
        if (c->size < t->smallest) t->smallest = c->size;
        if (c->size < floor && t->small++ < 6)
            fprintf(stderr, "  %s: '%s' at %d px, below the floor %d px\n", what, txt, c->size,
                    floor);
        if (!one_char(txt)) continue;
        for (size_t j = i + 1; j < s->count;
             j++) { // another letter right under it: a label written downwards
            const DrawCmd *d = &s->cmds[j];
            if (d->kind == CMD_TEXT && one_char(scene_text(s, d)) && d->x == c->x && d->w == c->w
                && d->y > c->y && d->y <= c->y + c->size
                && !strchr("0123456789", scene_text(s, d)[0])) {
                if (t->stacked++ < 4)
                    fprintf(stderr, "  %s: '%s' over '%s': a label one letter a line\n", what, txt,
                            scene_text(s, d));
                break;
            }
        }
    }
}

// draw_heatmap beside the board on its own, as draw_stage calls it (c->heat_shown), over the widths
// the planner tries (from the colour bar and six numbers to two numbers a column), at the window's
// sizes: whatever the planner of the day gives it, the heatmap keeps its texts at the floor.
static void check_widths(const Lesson *L, const Trace *T, const TextMetrics *tm, const char *name,
                         int w, int h, Tally *t)
{
    ViewDims dims = view_dims_from_params(&L->params);
    ViewState st;
    view_init(&st, &dims);
    st.width = w;
    st.height = h;
    for (int i = 0; i < st.stage_count; i++)
        if (st.stages[i] == STAGE_SOFTMAX) st.stage_index = i;
    Scene s;
    scene_init(&s);
    int f = scene_number_font(h), bar = 0;
    for (int k = 0;; k++) {
        Ctx c;
        scene_clear(&s);
        s.width = w;
        s.height = h;
        ctx_init(&c, &s, &st, L, T, tm, (CtxSizes){h / 720.0, f, f * 2 / 3});
        if (k == 0) bar = colorbar_width(&c, MAT_WEIGHTS);
        int want = (L->params.m + 2) * f * 2 + bar, min_w = bar + f * 6, heat_w = min_w + k * f / 2;
        if (want > w * 2 / 5) want = w * 2 / 5;
        if (heat_w > want) break;
        c.heat_shown = true;
        int gy, gh;
        HeatRequest rq = {
            MAT_WEIGHTS, 0,    1.0, {w - heat_w, h / 6, heat_w - bar - f / 3, h * 3 / 5},
            false,       true, NULL};
        draw_heatmap(&c, &rq, &gy, &gh);
        char what[200];
        snprintf(what, sizeof what, "%s, a heatmap %d px wide beside the board at %dx%d", name,
                 heat_w, w, h);
        check_scene(&s, L, h, what, t);
    }
    scene_free(&s);
}

// Every stage, head and part of lesson L in the window at w x h.
static void check_lesson(const Lesson *L, const Trace *T, const TextMetrics *tm, const char *name,
                         int w, int h, Tally *t)
{
    ViewDims dims = view_dims_from_params(&L->params);
    ViewState st;
    view_init(&st, &dims);
    st.width = w;
    st.height = h;
    Scene s;
    scene_init(&s);
    for (int si = 0; si < st.stage_count; si++)
        for (int head = 0; head < L->params.heads; head++) {
            int parts = 1;
            for (int part = 0; part < parts && part < 16; part++) {
                st.stage_index = si;
                st.head = head;
                st.substep = part;
                st.substep_count = parts;
                CHECK(scene_build(&s, &st, L, T, w, h, tm, NULL), "%s: the scene is built", name);
                if (part == 0) parts = s.substeps > 0 ? s.substeps : 1;
                char what[200];
                snprintf(what, sizeof what, "%s %s head %d part %d/%d %dx%d", name,
                         stage_info(st.stages[si])->key, head, part + 1, parts, w, h);
                const StageInfo *info = stage_info(st.stages[si]);
                if (info->results[0] != MAT_NONE && mat_info(info->results[0])->per_head)
                    check_scene(&s, L, h, what, t);
            }
        }
    scene_free(&s);
}

static const char *const SHORT[8] = {"the", "cat", "sat", "on", "the", "mat", "by", "door"};
static const char *const LONG[8] = {"extraordinarily",
                                    "cat",
                                    "internationalization",
                                    "on",
                                    "the",
                                    "transformer",
                                    "jumped",
                                    "\xe5\x9e\xab\xe5\xad\x90\xe4\xb8\x8a"};

// An 8-token lesson of d_model d and the given heads, random numbers of a fixed seed.
static void lesson_json(char *buf, size_t cap, const char *const *tokens, int d, int heads, int kv,
                        bool causal, bool rope)
{
    size_t k = (size_t)snprintf(buf, cap, "{\"title\": \"Eight tokens\", \"tokens\": [");
    for (int i = 0; i < 8; i++)
        k += (size_t)snprintf(buf + k, cap - k, "%s\"%s\"", i ? ", " : "", tokens[i]);
    k += (size_t)snprintf(
        buf + k, cap - k,
        "], \"embeddings\": {\"random\": {\"seed\": 3, \"std\": 0.5}}, \"d_model\": %d, "
        "\"heads\": %d%s%s",
        d, heads, causal ? ", \"mask\": \"causal\"" : "",
        rope ? ", \"rope\": {\"base\": 10000, \"pairs\": \"halves\"}" : "");
    if (kv) k += (size_t)snprintf(buf + k, cap - k, ", \"kv_heads\": %d", kv);
    snprintf(buf + k, cap - k, ", \"weights\": {\"random\": {\"seed\": 4}}}");
}

int main(void)
{
    ExportError err;
    Exporter *x = export_open(FONTS, &err);
    CHECK(x != NULL, "export_open: %s", x ? "" : err.message);
    if (!x) return check_report("test_heat_labels");
    TextMetrics tm = export_metrics(x);
    static const struct {
        int d, heads, kv;
        bool causal, rope;
    } SHAPES[] = {{4, 2, 0, false, false}, {4, 1, 0, true, false}, {8, 2, 0, true, false},
                  {8, 4, 0, false, false}, {8, 2, 0, true, true},  {8, 4, 2, true, true},
                  {4, 4, 0, true, false},  {8, 1, 0, false, false}};
    static const int SIZES[][2] = {{1280, 720}, {1920, 1080}};
    Tally at720 = {0, 0, 0, 0, 1000, 0};
    for (int z = 0; z < 2; z++) {
        Tally t = {0, 0, 0, 0, 1000, 0}, wide = {0, 0, 0, 0, 1000, 0};
        for (size_t i = 0; i < sizeof SHAPES / sizeof SHAPES[0]; i++)
            for (int words = 0; words < 2; words++) {
                char json[4096], name[96];
                lesson_json(json, sizeof json, words ? LONG : SHORT, SHAPES[i].d, SHAPES[i].heads,
                            SHAPES[i].kv, SHAPES[i].causal, SHAPES[i].rope);
                snprintf(name, sizeof name, "8 %s tokens, d_model %d, %d heads%s%s",
                         words ? "long" : "short", SHAPES[i].d, SHAPES[i].heads,
                         SHAPES[i].causal ? ", causal" : "", SHAPES[i].rope ? ", RoPE" : "");
                Lesson L;
                Trace T;
                if (!parse(json, &L, &T)) continue;
                check_lesson(&L, &T, &tm, name, SIZES[z][0], SIZES[z][1], &t);
                check_widths(&L, &T, &tm, name, SIZES[z][0], SIZES[z][1], &wide);
                trace_free(&T);
                lesson_free(&L);
            }
        // The shipped lesson of 8 tokens.
        Lesson L;
        Trace T;
        if (load("lessons/mistral-sliding-window.json", &L, &T)) {
            check_lesson(&L, &T, &tm, "mistral-sliding-window", SIZES[z][0], SIZES[z][1], &t);
            trace_free(&T);
            lesson_free(&L);
        }
        printf("%dx%d: %d screens with a heatmap beside the board, %d texts in them (%d tokens), "
               "the smallest %d px "
               "(floor %d px)\n",
               SIZES[z][0], SIZES[z][1], t.screens, t.texts, t.tokens, t.smallest,
               scene_number_floor(SIZES[z][1]));
        CHECK(t.small == 0,
              "%dx%d: %d of %d texts of the heatmaps beside the board below the floor (%d px)",
              SIZES[z][0], SIZES[z][1], t.small, t.texts, scene_number_floor(SIZES[z][1]));
        CHECK(t.stacked == 0, "%dx%d: %d key labels written one letter a line", SIZES[z][0],
              SIZES[z][1], t.stacked);
        // The same heatmap at every width the planner may give it.
        printf("%dx%d: %d widths of a heatmap beside the board, %d texts in them (%d tokens), the "
               "smallest %d px\n",
               SIZES[z][0], SIZES[z][1], wide.screens, wide.texts, wide.tokens, wide.smallest);
        CHECK(wide.screens > 0 && wide.small == 0,
              "%dx%d: %d of %d texts of the heatmaps at the planner's widths below the "
              "floor (%d px)",
              SIZES[z][0], SIZES[z][1], wide.small, wide.texts, scene_number_floor(SIZES[z][1]));
        CHECK(wide.stacked == 0, "%dx%d: %d key labels one letter a line at the planner's widths",
              SIZES[z][0], SIZES[z][1], wide.stacked);
        // ... and the tokens are not all left to the board: where the room holds them, they are
        // there at the floor.
        CHECK(wide.tokens > 0, "%dx%d: the heatmaps at the planner's widths label tokens (%d)",
              SIZES[z][0], SIZES[z][1], wide.tokens);
        if (z == 0) at720 = t;
    }
    printf("(1280x720: %d screens of the window with a heatmap beside the board)\n", at720.screens);
    export_close(x);
    return check_report("test_heat_labels");
}
