// Tests that small lessons are shown whole (issue 25, item 1): random lessons of at most 8 tokens and
// d_model <= 8 (1-4 heads, with and without the causal mask, positions, cross-attention, heads switched
// off) show no window of any matrix ("cols a–b of n", "rows a–b of n") on any stage, head or part at
// 1280x720, in the window and on the exported boards, measured with the fonts shipped.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lesson_trace.h"
#include "model/view.h"
#include "render/export.h"
#include "render/export_png.h"
#include "render/scene.h"

#define FONTS MHA_SOURCE_DIR "/assets/fonts"
#define EN_DASH "\xe2\x80\x93"

static uint64_t rng_next(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}
static int rng_int(uint64_t *s, int lo, int hi) { return lo + (int)(rng_next(s) % (uint64_t)(hi - lo + 1)); }

// n rows of d numbers in [-1, 1] as JSON (the size of the shipped lessons' embeddings).
static void json_matrix(char *buf, size_t cap, uint64_t *r, int n, int d)
{
    size_t k = strlen(buf);
    k += (size_t)snprintf(buf + k, cap - k, "[");
    for (int i = 0; i < n; i++) {
        k += (size_t)snprintf(buf + k, cap - k, "%s[", i ? "," : "");
        for (int j = 0; j < d; j++) k += (size_t)snprintf(buf + k, cap - k, "%s%.2f", j ? "," : "", rng_int(r, -100, 100) / 100.0);
        k += (size_t)snprintf(buf + k, cap - k, "]");
    }
    snprintf(buf + k, cap - k, "]");
}

static void json_tokens(char *buf, size_t cap, uint64_t *r, int n)
{
    static const char *const WORDS[] = {"a", "cat", "sat", "on", "the", "mat", "quickly", "dog", "attention", "x", "le", "chat"};
    size_t k = strlen(buf);
    k += (size_t)snprintf(buf + k, cap - k, "[");
    for (int i = 0; i < n; i++)
        k += (size_t)snprintf(buf + k, cap - k, "%s\"%s\"", i ? "," : "", WORDS[rng_int(r, 0, 11)]);
    snprintf(buf + k, cap - k, "]");
}

// A random small lesson; *ablate: the heads to switch off (bits).
static void make_lesson(uint64_t seed, char *buf, size_t cap, uint64_t *ablate)
{
    uint64_t r = seed * 2654435761u + 1;
    int n = rng_int(&r, 1, 8), heads = rng_int(&r, 1, 4), d_k = rng_int(&r, 1, 8 / heads), d = heads * d_k;
    bool causal = rng_int(&r, 0, 2) == 0, pos = rng_int(&r, 0, 2) == 0, cross = rng_int(&r, 0, 3) == 0;
    snprintf(buf, cap, "{\"title\": \"Small lesson %llu\", \"tokens\": ", (unsigned long long)seed);
    json_tokens(buf, cap, &r, n);
    snprintf(buf + strlen(buf), cap - strlen(buf), ", \"embeddings\": ");
    json_matrix(buf, cap, &r, n, d);
    snprintf(buf + strlen(buf), cap - strlen(buf), ", \"heads\": %d%s%s", heads,
             causal && !cross ? ", \"mask\": \"causal\"" : "", pos ? ", \"positions\": \"sinusoidal\"" : "");
    if (cross) {
        int m = rng_int(&r, 1, 8);
        snprintf(buf + strlen(buf), cap - strlen(buf), ", \"source\": {\"tokens\": ");
        json_tokens(buf, cap, &r, m);
        snprintf(buf + strlen(buf), cap - strlen(buf), ", \"embeddings\": ");
        json_matrix(buf, cap, &r, m, d);
        snprintf(buf + strlen(buf), cap - strlen(buf), "}");
    }
    snprintf(buf + strlen(buf), cap - strlen(buf), ", \"weights\": {\"random\": {\"seed\": %llu}}}",
             (unsigned long long)(seed % 1000));
    *ablate = heads > 1 && rng_int(&r, 0, 2) == 0 ? (1u << rng_int(&r, 0, heads - 1)) : 0;
}

// A window's caption on the scene: "cols a–b of n" or "rows a–b of n" (NULL: none).
static const char *window_caption(const Scene *s)
{
    for (size_t i = 0; i < s->count; i++) {
        if (s->cmds[i].kind != CMD_TEXT) continue;
        const char *t = scene_text(s, &s->cmds[i]);
        int a, b, n;
        char dash[4] = {0};
        if ((sscanf(t, "cols %d%3c%d of %d", &a, dash, &b, &n) == 4 || sscanf(t, "rows %d%3c%d of %d", &a, dash, &b, &n) == 4) &&
            !strcmp(dash, EN_DASH))
            return t;
    }
    return NULL;
}

typedef struct {
    const char *lesson;
    int checked, windowed;
} Tally;

// Every part of the stage on screen, in the window (export false) or on the exported board.
static void check_parts(Scene *s, ViewState *st, const Lesson *L, const Trace *T, const TextMetrics *tm, bool export,
                        Tally *t)
{
    int parts = 1;
    for (int k = 0; k < parts && k < 32; k++) {
        st->substep = k;
        bool ok = export ? export_build_board(s, st, L, T, 1.0, EXPORT_BG_WHITE, tm)
                         : scene_build(s, st, L, T, 1280, 720, tm, NULL);
        CHECK(ok, "%s: the scene is built", t->lesson);
        if (k == 0) parts = s->substeps;
        view_set_substeps(st, s->substeps, s->substep);
        const char *cap = window_caption(s);
        t->checked++;
        if (cap) {
            if (t->windowed++ < 8)
                fprintf(stderr, "  %s: stage %d head %d part %d/%d%s: '%s'\n", t->lesson, st->stage_index + 1, st->head,
                        k + 1, parts, export ? " (export)" : "", cap);
        }
    }
}

// Every stage, head and part of lesson L (with the heads in `ablate` switched off): the screens with a window.
static int check_lesson(Scene *s, Lesson *L, Trace *T, uint64_t ablate, const TextMetrics *tm, const char *name,
                        int *checked)
{
    if (ablate) {
        L->params.ablated = ablate;
        trace_free(T);
        TraceError terr;
        CHECK(trace_run(T, &L->params, &terr), "%s traces with heads off", name);
    }
    Tally t = {name, 0, 0};
    ViewDims dims = view_dims_from_params(&L->params);
    ViewState st;
    view_init(&st, &dims);
    st.width = 1280;
    st.height = 720;
    for (int si = 0; si < st.stage_count; si++)
        for (int head = 0; head < L->params.heads; head++)
            for (int export = 0; export < 2; export++) {
                st.stage_index = si;
                st.head = head;
                st.substep_count = 1;
                check_parts(s, &st, L, T, tm, export, &t);
            }
    CHECK(t.windowed == 0, "%s (%d tokens, %d heads, d_model %d%s): %d of %d screens show a window of a matrix", name,
          L->params.n, L->params.heads, L->params.d_model, ablate ? ", a head off" : "", t.windowed, t.checked);
    *checked += t.checked;
    return t.windowed;
}

// A lesson too big to show whole (paper-base: 10 tokens, d_k = 64) at 1280x720: on the softmax each matrix shows
// at least half its columns in its part (its inputs, then the weights), not 2 and 3 of 10 side by side (issue 25).
static void check_paper_base(const TextMetrics *tm)
{
    Lesson L;
    Trace T;
    if (!load("lessons/paper-base.json", &L, &T)) return;
    ViewDims dims = view_dims_from_params(&L.params);
    ViewState st;
    view_init(&st, &dims);
    st.width = 1280;
    st.height = 720;
    for (int i = 0; i < st.stage_count; i++)
        if (st.stages[i] == STAGE_SOFTMAX) st.stage_index = i;
    Scene s;
    scene_init(&s);
    int parts = 1, narrow = 0, windows = 0;
    for (int k = 0; k < parts && k < 8; k++) {
        st.substep = k;
        CHECK(scene_build(&s, &st, &L, &T, 1280, 720, tm, NULL), "paper-base softmax builds");
        if (k == 0) parts = s.substeps;
        for (size_t i = 0; i < s.count; i++) {
            if (s.cmds[i].kind != CMD_TEXT) continue;
            int a, b, n;
            char dash[4] = {0};
            if (sscanf(scene_text(&s, &s.cmds[i]), "cols %d%3c%d of %d", &a, dash, &b, &n) != 4) continue;
            windows++;
            if (2 * (b - a + 1) < n && narrow++ < 4)
                fprintf(stderr, "  paper-base softmax part %d/%d: '%s'\n", k + 1, parts, scene_text(&s, &s.cmds[i]));
        }
    }
    CHECK(narrow == 0, "paper-base softmax at 1280x720: %d of %d column windows show less than half their columns", narrow,
          windows);
    scene_free(&s);
    trace_free(&T);
    lesson_free(&L);
}

int main(void)
{
    ExportError err;
    Exporter *x = export_open(FONTS, &err);
    CHECK(x != NULL, "export_open: %s", err.message);
    if (!x) return check_report("test_layout_whole");
    TextMetrics tm = export_metrics(x);
    Scene s;
    scene_init(&s);
    int lessons = 0, windowed = 0, checked = 0;
    static char json[16384];
    for (uint64_t seed = 1; seed <= 40; seed++) {
        uint64_t ablate;
        make_lesson(seed, json, sizeof json, &ablate);
        Lesson L;
        Trace T;
        if (!parse(json, &L, &T)) {
            fprintf(stderr, "%s\n", json);
            continue;
        }
        char name[32];
        snprintf(name, sizeof name, "seed %llu", (unsigned long long)seed);
        int w = check_lesson(&s, &L, &T, ablate, &tm, name, &checked);
        if (w) fprintf(stderr, "  %s is %s (heads off: %llx)\n", name, json, (unsigned long long)ablate);
        windowed += w;
        lessons++;
        trace_free(&T);
        lesson_free(&L);
    }
    // The shipped lessons of that size, with every head and with the last one off.
    static const char *const SHIPPED[] = {"lessons/the-cat-sat.json", "lessons/the-cat-sat-on-the-mat.json",
                                          "lessons/the-cat-sat-on-the-mat-positions.json", "lessons/causal-decoder.json",
                                          "lessons/cross-attention.json", "lessons/two-heads-two-jobs.json",
                                          "lessons/the-dog-bit-the-man.json"};
    for (size_t i = 0; i < sizeof SHIPPED / sizeof SHIPPED[0]; i++)
        for (int off = 0; off < 2; off++) {
            Lesson L;
            Trace T;
            if (!load(SHIPPED[i], &L, &T)) continue;
            if (L.params.n <= 8 && L.params.m <= 8 && L.params.d_model <= 8 && (!off || L.params.heads > 1)) {
                windowed += check_lesson(&s, &L, &T, off ? 1u << (L.params.heads - 1) : 0, &tm, SHIPPED[i], &checked);
                lessons++;
            }
            trace_free(&T);
            lesson_free(&L);
        }
    check_paper_base(&tm);
    CHECK(lessons >= 24 && checked > 500, "%d lessons, %d screens checked", lessons, checked);
    fprintf(stderr, "%d lessons, %d screens, %d with a window\n", lessons, checked, windowed);
    scene_free(&s);
    export_close(x);
    return check_report("test_layout_whole");
}
