// Issue 36, the panels as slides with the real fonts: the KV-cache panel (G) of llama-rope-gqa and
// mistral-sliding-window shows every row and column of both caches at every token, at 1280x720 and
// 1920x1080 (the cells tagged in the scene's draw commands, and no "rows a–b of N" window caption);
// the FlashAttention panel (B) shows llama's scores whole; the cost panel's (K) numbers are at the
// floor and no line is cut;
// --what decode, tiles, cost, compare, shuffle and all-heads write the right files under the right
// names; the header names the head G and B show.
#define _POSIX_C_SOURCE 200809L // mkdtemp
#include <SDL.h>
#include <SDL_image.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "lesson_trace.h"
#include "core/decode.h"
#include "model/i18n.h"
#include "render/export.h"

#define FONTS MHA_SOURCE_DIR "/assets/fonts"

// The scales of a 1280x720 board that give the two projector sizes.
static const struct {
    double scale;
    const char *name;
} SIZES[] = {{1.0, "1280x720"}, {1.5, "1920x1080"}};

// Whether a number of cell ref is drawn (a text command tagged ROLE_NUMBER with that cell), and its
// size.
static int number_size(const Scene *s, CellRef ref)
{
    for (size_t i = 0; i < s->count; i++) {
        const DrawCmd *c = &s->cmds[i];
        if (c->kind == CMD_TEXT && c->role == ROLE_NUMBER && c->cell.mat == ref.mat
            && c->cell.head == ref.head && c->cell.row == ref.row && c->cell.col == ref.col)
            return c->size;
    }
    return 0;
}

// A window's caption ("rows 2–6 of 7", "cols 0–2 of 4") anywhere in the scene.
static const char *window_caption(const Scene *s)
{
    for (size_t i = 0; i < s->count; i++) {
        const DrawCmd *c = &s->cmds[i];
        if (c->kind != CMD_TEXT) continue;
        const char *t = scene_text(s, c);
        if ((!strncmp(t, "rows ", 5) || !strncmp(t, "cols ", 5)) && strstr(t, " of ")) return t;
    }
    return NULL;
}

enum { TEST_MAX_ROWS = 16, TEST_MAX_DK = 16 };

// Every cell of both caches, q and z drawn at the floor or larger, at every token, both sizes.
static void test_decode(const char *rel, const TextMetrics *tm)
{
    Lesson L;
    Trace T;
    if (!load(rel, &L, &T)) return;
    const AttnParams *p = &L.params;
    MatId kmat = p->rope != ROPE_NONE ? MAT_KROT : MAT_K;
    ViewDims dims = view_dims_from_params(p);
    Scene s;
    scene_init(&s);
    for (size_t z = 0; z < sizeof SIZES / sizeof SIZES[0]; z++) {
        int missing = 0, small = 0, windows = 0, parts_seen = 0, gone = 0;
        for (int head = 0;
             head<p->heads; head += p->heads> 1 ? p->heads - 1 : 1) { // the first and the last
            for (int t = 0; t < p->n; t++) {
                // A step too wide or tall for one screen comes in two parts (q·K, then A·V), each
                // whole: a cell counts as shown when one of the parts draws it.
                int size[4][TEST_MAX_ROWS][TEST_MAX_DK] = {{{0}}}, wsize[TEST_MAX_ROWS] = {0},
                    parts = 1;
                MatId qz[2] = {p->rope != ROPE_NONE ? MAT_QROT : MAT_Q, MAT_Z};
                for (int part = 0; part < parts; part++) {
                    ViewState st;
                    view_init(&st, &dims);
                    st.panel = PANEL_DECODE, st.decode_t = t, st.head = head, st.decode_part = part;
                    if (!export_build_board(&s, &st, &L, &T, SIZES[z].scale, EXPORT_BG_WHITE, tm)) {
                        CHECK(false, "%s: the decode board of token %d builds", rel, t);
                        break;
                    }
                    if (part == 0) parts = s.decode_parts > 1 ? s.decode_parts : 1;
                    const char *w = window_caption(&s);
                    if (w) {
                        windows++;
                        CHECK(false, "%s at %s, head %d, token %d, part %d: a window \"%s\"", rel,
                              SIZES[z].name, head, t + 1, part + 1, w);
                    }
                    for (int r = 0; r <= t && r < TEST_MAX_ROWS; r++)
                        for (int j = 0; j < p->d_k && j < TEST_MAX_DK; j++) {
                            CellRef cells[4] = {{kmat, head, r, j},
                                                {MAT_V, head, r, j},
                                                {qz[0], head, t, j},
                                                {qz[1], head, t, j}};
                            for (int k = 0; k < 4; k++) {
                                int got = number_size(&s, cells[k]);
                                if (got) size[k][r][j] = got;
                            }
                        }
                    for (int r = 0; r <= t && r < TEST_MAX_ROWS; r++) {
                        int got = number_size(&s, (CellRef){MAT_WEIGHTS, head, t, r});
                        if (got) wsize[r] = got;
                    }
                }
                parts_seen += parts > 1;
                int floor = scene_number_floor(s.height);
                // With a sliding window the caches are rolling buffers: rows first .. t, the older
                // ones let go (issue 38), and never drawn.
                int first = decode_buffer(p, t).first;
                for (int r = 0; r < first && r < TEST_MAX_ROWS; r++) {
                    for (int j = 0; j < p->d_k && j < TEST_MAX_DK; j++)
                        gone += size[0][r][j] != 0 || size[1][r][j] != 0;
                    gone += wsize[r] != 0;
                }
                for (int r = first; r <= t && r < TEST_MAX_ROWS; r++) {
                    for (int j = 0; j < p->d_k && j < TEST_MAX_DK; j++)
                        for (int k = 0; k < 4; k++) {
                            if (k >= 2 && r > first) continue; // q and z: the token's one row
                            if (size[k][r][j] == 0) missing++;
                            else if (k < 2 && size[k][r][j] < floor) small++;
                        }
                    missing += wsize[r] == 0;
                }
            }
        }
        CHECK(missing == 0, "%s at %s: %d cells of q, the caches, the weights or z not drawn", rel,
              SIZES[z].name, missing);
        CHECK(small == 0, "%s at %s: %d cache numbers below the floor", rel, SIZES[z].name, small);
        CHECK(gone == 0, "%s at %s: %d numbers of keys out of the window drawn", rel, SIZES[z].name,
              gone);
        CHECK(windows == 0, "%s at %s: %d decode boards windowed", rel, SIZES[z].name, windows);
        CHECK(p->n <= TEST_MAX_ROWS && p->d_k <= TEST_MAX_DK, "%s: within the test's sizes", rel);
        printf("%s at %s: every token's K and V caches whole (%d tokens, d_k %d; %d steps in two "
               "parts)\n",
               rel, SIZES[z].name, p->n, p->d_k, parts_seen);
    }
    scene_free(&s);
    trace_free(&T);
    lesson_free(&L);
}

// The tiles panel: llama's 7 x 7 scores whole at every tile of 2 x 2, both sizes.
static void test_tiles(const TextMetrics *tm)
{
    Lesson L;
    Trace T;
    if (!load("lessons/llama-rope-gqa.json", &L, &T)) return;
    ViewDims dims = view_dims_from_params(&L.params);
    int64_t computed = 0, skipped = 0;
    tiles_count(&L.params, 2, &computed, &skipped);
    Scene s;
    scene_init(&s);
    for (size_t z = 0; z < sizeof SIZES / sizeof SIZES[0]; z++) {
        int windows = 0, missing = 0;
        for (int k = 1; k <= computed; k++) {
            ViewState st;
            view_init(&st, &dims);
            st.panel = PANEL_TILES, st.tiles_block = 2, st.tile = k, st.tile_count = (int)computed;
            if (!export_build_board(&s, &st, &L, &T, SIZES[z].scale, EXPORT_BG_WHITE, tm)) continue;
            windows += window_caption(&s) != NULL;
            for (int i = 0; i < L.params.n; i++)
                for (int j = 0; j <= i; j++)
                    missing += number_size(&s, (CellRef){MAT_MASKED, 0, i, j}) == 0;
        }
        CHECK(windows == 0, "llama-rope-gqa tiles at %s: %d of %lld tiles windowed", SIZES[z].name,
              windows, (long long)computed);
        CHECK(missing == 0, "llama-rope-gqa tiles at %s: %d scores not drawn", SIZES[z].name,
              missing);
    }
    scene_free(&s);
    trace_free(&T);
    lesson_free(&L);
}

// Whether a text command reads exactly t.
static bool has_text(const Scene *s, const char *t)
{
    for (size_t i = 0; i < s->count; i++)
        if (s->cmds[i].kind == CMD_TEXT && strcmp(scene_text(s, &s->cmds[i]), t) == 0) return true;
    return false;
}

// The header names the head the panel shows, on every stage (it said "all 4 heads" on the concat
// and output).
static void test_header(const TextMetrics *tm)
{
    Lesson L;
    Trace T;
    if (!load("lessons/llama-rope-gqa.json", &L, &T)) return;
    ViewDims dims = view_dims_from_params(&L.params);
    Scene s;
    scene_init(&s);
    ViewState st;
    view_init(&st, &dims);
    for (int panel = 0; panel < 2; panel++)
        for (int i = 0; i < st.stage_count; i++) {
            st.stage_index = i, st.head = 2;
            st.panel = panel ? PANEL_TILES : PANEL_DECODE, st.tile = 1, st.tiles_block = 2;
            if (!export_build_board(&s, &st, &L, &T, 1.0, EXPORT_BG_WHITE, tm)) continue;
            CHECK(has_text(&s, "head 2  (3 of 4)") && !has_text(&s, "all 4 heads"),
                  "%s on stage %d: the header names head 2", panel ? "tiles" : "decode", i + 1);
        }
    scene_free(&s);
    trace_free(&T);
    lesson_free(&L);
}

// The cost panel: every text with a digit on the sheet (from its title on) at the floor, none cut
// with "…".
static void test_cost(const char *rel, const TextMetrics *tm)
{
    Lesson L;
    Trace T;
    if (!load(rel, &L, &T)) return;
    ViewDims dims = view_dims_from_params(&L.params);
    Scene s;
    scene_init(&s);
    for (size_t z = 0; z < sizeof SIZES / sizeof SIZES[0]; z++) {
        ViewState st;
        view_init(&st, &dims);
        st.panel = PANEL_COST;
        if (!export_build_board(&s, &st, &L, &T, SIZES[z].scale, EXPORT_BG_WHITE, tm)) continue;
        int floor = scene_number_floor(s.height), numbers = 0, small = 0, cut = 0, outside = 0,
            smallest = 1000;
        bool sheet = false;
        for (size_t i = 0; i < s.count; i++) {
            const DrawCmd *c = &s.cmds[i];
            if (c->kind != CMD_TEXT) continue;
            const char *t = scene_text(&s, c);
            if (strstr(t, "What the heads cost")) sheet = true;
            if (!sheet) continue;
            if (strstr(t, "\xe2\x80\xa6")) cut++;
            if (c->x < 0 || c->y < 0 || c->x + c->w > s.width || c->y + c->h > s.height) outside++;
            if (!strpbrk(t, "0123456789")) continue;
            numbers++;
            if (c->size < floor) small++;
            if (c->size < smallest) smallest = c->size;
        }
        CHECK(sheet && numbers >= 10, "%s at %s: the cost sheet with its numbers (%d)", rel,
              SIZES[z].name, numbers);
        CHECK(small == 0, "%s at %s: %d texts with numbers below the floor (%d px)", rel,
              SIZES[z].name, small, floor);
        CHECK(cut == 0, "%s at %s: %d lines cut with an ellipsis", rel, SIZES[z].name, cut);
        CHECK(outside == 0, "%s at %s: %d texts outside the slide", rel, SIZES[z].name, outside);
        printf("%s cost at %s: %d texts with numbers, the smallest %d px type (floor %d)\n", rel,
               SIZES[z].name, numbers, smallest, floor);
    }
    scene_free(&s);
    trace_free(&T);
    lesson_free(&L);
}

// The files of --export DIR --what W: count and names (in order), PNG and SVG.
static void test_files(const char *rel, ExportWhat what, int block, const char *const *names,
                       int count)
{
    Lesson L;
    Trace T;
    if (!load(rel, &L, &T)) return;
    char dir[] = "/tmp/mha-panel-slides-XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "a temporary folder");
    ExportRequest req;
    export_request_defaults(&req);
    req.dir = dir;
    req.font_dir = FONTS;
    req.name = "lesson";
    req.formats = EXPORT_PNG | EXPORT_SVG;
    req.what = what;
    req.block = block;
    req.scale = 1.0;
    ExportResult res;
    ExportError err;
    bool ok = export_run(&req, &L, &T, &res, &err);
    CHECK(ok, "%s, what %d: %s", rel, (int)what, ok ? "" : err.message);
    CHECK(!ok || (int)res.count == 2 * count, "%s, what %d: %zu files, want %d", rel, (int)what,
          ok ? res.count : 0, 2 * count);
    for (int i = 0; ok && i < count && 2 * i + 1 < (int)res.count; i++)
        for (int f = 0; f < 2; f++) {
            char want[600];
            snprintf(want, sizeof want, "%s/%s.%s", dir, names[i], f ? "svg" : "png");
            CHECK(strcmp(res.paths[2 * i + f], want) == 0, "%s file %d: %s, want %s", rel,
                  2 * i + f, res.paths[2 * i + f], want);
        }
    for (size_t i = 0; ok && i < res.count; i++) unlink(res.paths[i]);
    if (ok) export_result_free(&res);
    rmdir(dir);
    trace_free(&T);
    lesson_free(&L);
}

int main(void)
{
    (void)parse; // (lesson_trace.h's other helper)
    ExportError err;
    Exporter *x = export_open(FONTS, &err);
    CHECK(x != NULL, "export_open: %s", x ? "" : err.message);
    if (!x) return check_report("test_panel_slides");
    TextMetrics tm = export_metrics(x);
    test_decode("lessons/llama-rope-gqa.json", &tm);
    test_decode("lessons/mistral-sliding-window.json", &tm);
    test_decode("lessons/kv-cache-decoding.json", &tm);
    test_decode("tests/good/kv-cache-wide-head.json", &tm); // d_k 8: q·K, then A·V
    // Issue 38: in French the longer sentences left the 8-row caches of d_k 8 windowed at 720p (the
    // full layout audit found it): the work's sentence gives way first. Every cell is drawn in
    // French too.
    Lang fr;
    if (i18n_parse("fr", &fr)) {
        i18n_use(fr);
        test_decode("tests/good/kv-cache-wide-head.json", &tm);
        i18n_use(LANG_EN);
    } else CHECK(false, "French is one of the languages");
    test_tiles(&tm);
    test_header(&tm);
    test_cost("lessons/llama-rope-gqa.json", &tm);
    test_cost("lessons/the-cat-sat.json", &tm);
    test_cost("lessons/cross-attention.json", &tm);
    export_close(x);

    static const char *const decode[] = {"lesson-decode-head0-token1", "lesson-decode-head0-token2",
                                         "lesson-decode-head0-token3", "lesson-decode-head0-token4",
                                         "lesson-decode-head0-token5", "lesson-decode-head0-token6",
                                         "lesson-decode-head0-token7"};
    test_files("lessons/llama-rope-gqa.json", EXPORT_WHAT_DECODE, 0, decode, 7);
    // 7 tokens in blocks of 3: query blocks 0-2, 3-5, 6; the causal mask skips the tiles above the
    // diagonal.
    static const char *const tiles[] = {
        "lesson-tiles-block3-head0-tile1", "lesson-tiles-block3-head0-tile2",
        "lesson-tiles-block3-head0-tile3", "lesson-tiles-block3-head0-tile4",
        "lesson-tiles-block3-head0-tile5", "lesson-tiles-block3-head0-tile6"};
    test_files("lessons/llama-rope-gqa.json", EXPORT_WHAT_TILES, 3, tiles, 6);
    // The compare and shuffle panels whose outputs come on parts of their own: a slide per part.
    static const char *const
        cost[] = {"lesson-cost"},
        *const compare[] = {"lesson-compare-part1", "lesson-compare-part2"},
        *const shuffle[] = {"lesson-shuffle-reversed-part1", "lesson-shuffle-reversed-part2"},
        *const compare1[] = {"lesson-compare"}, *const heads[] = {"lesson-stage07-softmax-heads"};
    test_files("lessons/llama-rope-gqa.json", EXPORT_WHAT_COST, 0, cost, 1);
    test_files("lessons/llama-rope-gqa.json", EXPORT_WHAT_COMPARE, 0, compare, 2);
    test_files("lessons/the-cat-sat.json", EXPORT_WHAT_COMPARE, 0, compare1, 1);
    test_files("lessons/llama-rope-gqa.json", EXPORT_WHAT_SHUFFLE, 0, shuffle, 2);
    test_files("lessons/llama-rope-gqa.json", EXPORT_WHAT_ALL_HEADS, 0, heads, 1);
    static const char *const cache[] = {"lesson-cache-size"};
    test_files("lessons/llama-rope-gqa.json", EXPORT_WHAT_CACHE, 0, cache, 1);
    static const char *const rotation[] = {"lesson-rotation-head0-token7"};
    test_files("lessons/llama-rope-gqa.json", EXPORT_WHAT_ROTATION, 0, rotation, 1);
    IMG_Quit();
    SDL_Quit();
    return check_report("test_panel_slides");
}
