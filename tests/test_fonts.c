// Tests text in any script as the SDL backend draws it (offscreen, no window): a CJK token drawn
// from the system's fallback font matches a reference rendering of that font, two different tokens
// differ (no boxes), a colour emoji keeps its colours, an Arabic ellipsis lands on the left, and
// with no font on the computer for a character the backend says which one and what to install.
// Needs the fonts .ci/run installs (fonts-noto-cjk, fonts-noto-color-emoji, fonts-noto-core).
#define _POSIX_C_SOURCE 200809L
#include <SDL.h>
#include <SDL_ttf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "platform/fontfind.h"
#include "render/draw_sdl.h"
#include "render/svg.h"
#include "render/export.h"
#include "lesson/lesson.h"
#include <SDL_image.h>

#define W 900
#define H 120

typedef struct {
    SDL_Surface *surf;
    SDL_Renderer *ren;
    DrawSdl *d;
} Canvas;

static bool canvas_open(Canvas *c)
{
    char err[600];
    c->surf = SDL_CreateRGBSurfaceWithFormat(0, W, H, 32, SDL_PIXELFORMAT_ARGB8888);
    c->ren = c->surf ? SDL_CreateSoftwareRenderer(c->surf) : NULL;
    c->d = c->ren ? draw_sdl_create(c->ren, MHA_SOURCE_DIR "/assets/fonts", err, sizeof err) : NULL;
    if (!c->d) fprintf(stderr, "cannot draw: %s %s\n", err, SDL_GetError());
    return c->d != NULL;
}

static void canvas_close(Canvas *c)
{
    draw_sdl_destroy(c->d);
    if (c->ren) SDL_DestroyRenderer(c->ren);
    if (c->surf) SDL_FreeSurface(c->surf);
}

// Draws t (black on white, top-left at 0, 0) and returns its measured width.
static int draw(Canvas *c, const char *t, int size)
{
    Scene s;
    scene_init(&s);
    TextMetrics tm = draw_sdl_metrics(c->d);
    int w = tm.text_width(tm.user, FONT_REGULAR, size, t),
        h = tm.line_height(tm.user, FONT_REGULAR, size);
    scene_push_text(&s, FONT_REGULAR, size, (Rgba){0, 0, 0, 255}, (Box){0, 0, w, h}, t);
    SDL_SetRenderDrawColor(c->ren, 255, 255, 255, 255);
    SDL_RenderClear(c->ren);
    draw_sdl_scene(c->d, &s);
    SDL_RenderPresent(c->ren);
    scene_free(&s);
    return w;
}

static Uint32 px(SDL_Surface *s, int x, int y)
{
    return ((Uint32 *)((Uint8 *)s->pixels + y * s->pitch))[x];
}
static bool dark(Uint32 p) { return ((p >> 16 & 255) + (p >> 8 & 255) + (p & 255)) < 3 * 128; }

// The canvas's ink (dark pixels) as a 0/1 mask.
static void ink(Canvas *c, unsigned char *m)
{
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) m[y * W + x] = dark(px(c->surf, x, y));
}

// Pixels where a and b differ, over pixels inked in either; a shifted right by dx.
static double differ(const unsigned char *a, const unsigned char *b, int dx)
{
    long both = 0, diff = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int ax = x - dx;
            int va = ax >= 0 && ax < W ? a[y * W + ax] : 0, vb = b[y * W + x];
            both += va || vb;
            diff += va != vb;
        }
    return both ? (double)diff / both : 0.0;
}

static bool covers(void *user, const char *path, int index, uint32_t cp)
{
    (void)user;
    TTF_Font *f = TTF_OpenFontIndex(path, 16, index);
    bool yes = f && TTF_GlyphIsProvided32(f, cp);
    if (f) TTF_CloseFont(f);
    return yes;
}

// A Japanese lesson's heatmap exported as PNG: every token label, read back from the PNG, is that
// token as the system's CJK font draws it (a reference made with SDL_ttf directly), and no two
// labels look alike.
static void test_export_png(void)
{
    static const char *const TOK[] = {"\xe7\x8c\xab", "\xe3\x81\x8c",
                                      "\xe5\xba\xa7\xe3\x81\xa3\xe3\x81\x9f",
                                      "\xe7\x8a\xac"}; // 猫 が 座った 犬
    const char *json =
        "{\"title\": \"\xe7\x8c\xab\", \"tokens\": [\"\xe7\x8c\xab\", \"\xe3\x81\x8c\", "
        "\"\xe5\xba\xa7\xe3\x81\xa3\xe3\x81\x9f\", \"\xe7\x8a\xac\"], \"d_model\": 4, "
        "\"embeddings\": {\"random\": {\"seed\": 7}}, \"heads\": 1, \"weights\": {\"random\": "
        "{\"seed\": 8}}}";
    Lesson L;
    Trace T;
    LessonError lerr;
    TraceError terr;
    if (!lesson_parse(&L, json, strlen(json), "ja.json", &lerr)) {
        CHECK(false, "the Japanese lesson parses: %s", lerr.message);
        return;
    }
    CHECK(trace_run(&T, &L.params, &terr), "it traces");
    ExportError err;
    Exporter *x = export_open(MHA_SOURCE_DIR "/assets/fonts", &err);
    CHECK(x != NULL, "exporter: %s", err.message);
    Scene s;
    scene_init(&s);
    TextMetrics tm = x ? export_metrics(x) : (TextMetrics){0};
    HeatmapSpec spec = {MAT_WEIGHTS, 0, 1.0, COLORMAP_VIRIDIS, EXPORT_BG_WHITE};
    ExportBuffer png = {0};
    SDL_Surface *img = NULL;
    if (x && export_build_heatmap(&s, &spec, &L, &T, &tm)
        && export_png_encode(x, &s, EXPORT_BG_WHITE, &png, &err)) {
        SDL_Surface *raw = IMG_Load_RW(SDL_RWFromConstMem(png.data, (int)png.size), 1);
        img = raw ? SDL_ConvertSurfaceFormat(raw, SDL_PIXELFORMAT_ARGB8888, 0) : NULL;
        SDL_FreeSurface(raw);
    }
    CHECK(img != NULL, "the PNG decodes: %s", IMG_GetError());
    FontFind *ff = fontfind_open();
    TTF_Font *dv = TTF_OpenFont(MHA_SOURCE_DIR "/assets/fonts/DejaVuSans.ttf", 16);
    int labels = 0;
    static unsigned char got[4][W * H];
    for (size_t i = 0; img && i < s.count; i++) {
        const DrawCmd *c = &s.cmds[i];
        if (c->kind != CMD_TEXT) continue;
        int t = -1;
        for (int k = 0; k < 4; k++)
            if (strcmp(scene_text(&s, c), TOK[k]) == 0) t = k;
        if (t < 0 || c->w > W || c->h > H || c->font != FONT_REGULAR)
            continue; // (the lesson's title "猫" is bold)
        // The label's ink in the PNG (dark on the white page) and in the reference, both from its
        // top-left.
        unsigned char *m = got[t], ref[W * H];
        memset(m, 0, W * H);
        memset(ref, 0, sizeof ref);
        for (int y = 0; y < c->h; y++)
            for (int xx = 0; xx < c->w; xx++)
                if (c->x + xx < img->w && c->y + y < img->h) {
                    Uint32 p = px(img, c->x + xx, c->y + y);
                    m[y * W + xx] = ((p >> 16 & 255) + (p >> 8 & 255) + (p & 255)) < 3 * 170;
                }
        char path[1024];
        int index = 0;
        const unsigned char *u =
            (const unsigned char *)TOK[t]; // its first character, three UTF-8 bytes
        uint32_t cp = (uint32_t)(u[0] & 0x0F) << 12 | (uint32_t)(u[1] & 0x3F) << 6 | (u[2] & 0x3F);
        FontWanted want = {.cp = cp, .covers = covers};
        if (!fontfind_for(ff, &want, path, sizeof path, &index)) continue;
        TTF_Font *rf = TTF_OpenFontIndex(path, c->size, index);
        TTF_SetFontSize(dv, c->size);
        SDL_Surface *g = rf ? TTF_RenderUTF8_Blended(rf, TOK[t], (SDL_Color){0, 0, 0, 255}) : NULL;
        SDL_Surface *g32 = g ? SDL_ConvertSurfaceFormat(g, SDL_PIXELFORMAT_ARGB8888, 0) : NULL;
        if (g32) {
            int dy = TTF_FontAscent(dv) - TTF_FontAscent(rf);
            for (int y = 0; y < g32->h; y++)
                for (int xx = 0; xx < g32->w && xx < W; xx++)
                    if (y + dy >= 0 && y + dy < H && (px(g32, xx, y) >> 24) >= 128)
                        ref[(y + dy) * W + xx] = 1;
            double d = differ(ref, m, 0);
            CHECK(d < 0.15,
                  "label %s in the PNG differs from %s's own rendering in %.1f %% of its ink",
                  TOK[t], path, 100 * d);
            labels++;
        }
        SDL_FreeSurface(g32);
        SDL_FreeSurface(g);
        if (rf) TTF_CloseFont(rf);
    }
    CHECK(labels >= 8, "%d token labels compared (rows and columns)", labels);
    for (int a = 0; a < 4; a++)
        for (int b = a + 1; b < 4; b++)
            CHECK(differ(got[a], got[b], 0) > 0.3, "labels %s and %s look alike", TOK[a], TOK[b]);
    if (dv) TTF_CloseFont(dv);
    fontfind_close(ff);
    if (img) SDL_FreeSurface(img);
    export_buffer_free(&png);
    scene_free(&s);
    export_close(x);
    trace_free(&T);
    lesson_free(&L);
}

int main(void)
{
    if (TTF_Init() != 0) return 1;
    // The scripts this test draws need fonts the program does not ship. Without them (a machine set
    // up by the README's quick start) the test says what to install and is skipped; CI installs
    // them and sets MHA_REQUIRE_FONTS=1, so there a missing font is a failure, not a skip.
    static const uint32_t NEEDED[] = {0x732B, 0x1F431, 0x0627,
                                      0x0915, 0x0E01,  0x05D0}; // 猫 🐱 ا क ก א
    FontFind *probe = fontfind_open();
    for (size_t i = 0; i < sizeof NEEDED / sizeof NEEDED[0]; i++) {
        char where[1024];
        int idx;
        FontWanted want = {.cp = NEEDED[i], .emoji = NEEDED[i] == 0x1F431, .covers = covers};
        if (fontfind_for(probe, &want, where, sizeof where, &idx)) continue;
        const char *require = getenv("MHA_REQUIRE_FONTS");
        printf("%s: no font on this computer shows U+%04X: install %s (sudo apt-get install -y "
               "fonts-noto-cjk "
               "fonts-noto-color-emoji fonts-noto-core)\n",
               require && require[0] == '1' ? "FAIL" : "SKIP", (unsigned)NEEDED[i],
               fontfind_install_hint(NEEDED[i]));
        fontfind_close(probe);
        TTF_Quit();
        return require && require[0] == '1' ? 1 : 77;
    }
    fontfind_close(probe);
    Canvas c;
    if (!canvas_open(&c)) return 1;
    static unsigned char a[W * H], b[W * H], r[W * H];
    const int size = 48;

    // 猫 from the system's CJK font, exactly as that font draws it (a reference made with SDL_ttf
    // directly).
    draw(&c, "\xe7\x8c\xab", size);
    ink(&c, a);
    FontFind *ff = fontfind_open();
    char path[1024] = "";
    int index = 0;
    FontWanted cat = {.cp = 0x732B, .covers = covers};
    bool found = fontfind_for(ff, &cat, path, sizeof path, &index);
    CHECK(found, "no font on this computer shows 猫: install fonts-noto-cjk");
    if (found) {
        TTF_Font *ref = TTF_OpenFontIndex(path, size, index),
                 *dv = TTF_OpenFont(MHA_SOURCE_DIR "/assets/fonts/DejaVuSans.ttf", size);
        SDL_Surface *g =
            ref ? TTF_RenderUTF8_Blended(ref, "\xe7\x8c\xab", (SDL_Color){0, 0, 0, 255}) : NULL;
        CHECK(g && dv, "reference rendering with %s", path);
        if (g && dv) {
            memset(r, 0, sizeof r);
            SDL_Surface *g32 = SDL_ConvertSurfaceFormat(g, SDL_PIXELFORMAT_ARGB8888, 0);
            int dy =
                TTF_FontAscent(dv) - TTF_FontAscent(ref); // the backend puts baselines on DejaVu's
            for (int y = 0; y < g32->h; y++)
                for (int x = 0; x < g32->w && x < W; x++)
                    if (y + dy >= 0 && y + dy < H && (px(g32, x, y) >> 24) >= 128)
                        r[(y + dy) * W + x] = 1;
            double d = differ(r, a, 0);
            CHECK(d < 0.08, "猫 differs from %s's own rendering in %.1f %% of its ink", path,
                  100 * d);
            long n = 0;
            for (int k = 0; k < W * H; k++) n += a[k];
            CHECK(n > 200, "猫 has ink (%ld pixels)", n);
            SDL_FreeSurface(g32);
        }
        if (g) SDL_FreeSurface(g);
        if (ref) TTF_CloseFont(ref);
        if (dv) TTF_CloseFont(dv);
    }
    fontfind_close(ff);

    // Two different tokens never look the same (boxes would): 猫 and 犬, 座った and 立った.
    draw(&c, "\xe7\x8a\xac", size);
    ink(&c, b);
    CHECK(differ(a, b, 0) > 0.3, "猫 and 犬 look alike (%.2f)", differ(a, b, 0));
    draw(&c, "\xe5\xba\xa7\xe3\x81\xa3\xe3\x81\x9f", size);
    ink(&c, a);
    draw(&c, "\xe7\xab\x8b\xe3\x81\xa3\xe3\x81\x9f", size);
    ink(&c, b);
    CHECK(differ(a, b, 0) > 0.1, "座った and 立った look alike (%.2f)", differ(a, b, 0));
    // Korean, Hindi and Thai have their fonts too.
    draw(&c,
         "\xea\xb3\xa0\xec\x96\x91\xec\x9d\xb4 "
         "\xe0\xa4\xac\xe0\xa4\xbf\xe0\xa4\xb2\xe0\xa5\x8d\xe0\xa4\xb2\xe0\xa5\x80 "
         "\xe0\xb9\x81\xe0\xb8\xa1\xe0\xb8\xa7",
         size);
    CHECK(draw_sdl_missing(c.d)[0] == '\0', "every character had a font, yet: %s",
          draw_sdl_missing(c.d));

    // A colour emoji keeps its colours and is about as tall as the line.
    int ew = draw(&c, "\xf0\x9f\x90\xb1", size);
    long colored = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            Uint32 p = px(c.surf, x, y);
            int R = p >> 16 & 255, G = p >> 8 & 255, B = p & 255;
            if (abs(R - G) > 50 || abs(G - B) > 50 || abs(R - B) > 50) colored++;
        }
    CHECK(colored > 300,
          "🐱 is drawn in colour (%ld coloured pixels): install fonts-noto-color-emoji", colored);
    CHECK(ew > size / 2 && ew < 2 * size, "🐱 is %d pixels wide at size %d", ew, size);

    // Arabic: "قطة…" is "قطة" with the ellipsis added on its left (the text's end in right-to-left
    // order).
    int w1 = draw(&c, "\xd9\x82\xd8\xb7\xd8\xa9", size);
    ink(&c, a);
    int w2 = draw(&c, "\xd9\x82\xd8\xb7\xd8\xa9\xe2\x80\xa6", size);
    ink(&c, b);
    CHECK(w2 > w1, "the ellipsis widens the word (%d, %d)", w1, w2);
    double d = differ(a, b, w2 - w1);
    CHECK(d < 0.35, "the word keeps its place on the right (%.2f of the ink differs)", d);
    long left = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < w2 - w1; x++) left += b[y * W + x];
    CHECK(left > 10, "the ellipsis is on the left (%ld pixels of ink there)", left);

    // A line of several fonts keeps what hangs below its line box: the underscore of d_k in a
    // Chinese sentence (issue 25: the Chinese help showed "1/d k"), at every size the help and the
    // board use.
    for (int sz = 10; sz <= 44; sz++) {
        // "停在 1/d" and then "____": only the underscores add ink (the text before them is drawn
        // the same).
        draw(&c, "\xe5\x81\x9c\xe5\x9c\xa8 1/d", sz);
        ink(&c, b);
        draw(&c, "\xe5\x81\x9c\xe5\x9c\xa8 1/d____", sz);
        ink(&c, a);
        long under = 0;
        for (int k = 0; k < W * H; k++) under += a[k] && !b[k];
        CHECK(under >= sz, "size %d: the underscores after Chinese text have %ld pixels of ink", sz,
              under);
    }
    canvas_close(&c);

    // SVG: an Arabic text reads right to left there too (its ellipsis on the left); a Latin one
    // does not say so.
    Scene sc;
    scene_init(&sc);
    scene_push_text(&sc, FONT_REGULAR, 20, (Rgba){0, 0, 0, 255}, (Box){10, 10, 80, 24},
                    "\xd9\x82\xd8\xb7\xd8\xa9\xe2\x80\xa6");
    scene_push_text(&sc, FONT_REGULAR, 20, (Rgba){0, 0, 0, 255}, (Box){10, 40, 80, 24}, "cat");
    sc.width = 100;
    sc.height = 80;
    size_t n = 0;
    char *svg = svg_encode(&sc, "t", &n);
    const char *ar = svg ? strstr(svg, "\xd9\x82\xd8\xb7") : NULL,
               *lat = svg ? strstr(svg, ">cat<") : NULL;
    const char *rtl1 = svg ? strstr(svg, "direction=\"rtl\"") : NULL;
    CHECK(ar && lat && rtl1 && rtl1 < ar && !strstr(rtl1 + 1, "direction=\"rtl\""),
          "one right-to-left text in the SVG");
    free(svg);
    scene_free(&sc);

    test_export_png();
    if (TTF_WasInit() == 0) TTF_Init(); // export_close quits SDL_ttf once for its own init

    // No font on the computer for a character: the backend says so, naming it and what to install.
    FILE *f = fopen("test_fonts_empty.conf", "w");
    if (f) {
        fputs("<?xml version=\"1.0\"?>\n<fontconfig></fontconfig>\n", f);
        fclose(f);
    }
    char conf[1200], cwd[1024];
    snprintf(conf, sizeof conf, "%s/test_fonts_empty.conf", getcwd(cwd, sizeof cwd) ? cwd : ".");
    setenv("FONTCONFIG_FILE", conf, 1); // fontconfig reads a relative name from its own folder
    if (canvas_open(&c)) {
        draw(&c, "cat", size);
        CHECK(draw_sdl_missing(c.d)[0] == '\0', "nothing is missing in 'cat'");
        draw(&c, "\xe7\x8c\xab", size);
        const char *m = draw_sdl_missing(c.d);
        CHECK(strstr(m, "no font on this computer shows \xe7\x8c\xab")
                  && strstr(m, "fonts-noto-cjk"),
              "message: %s", m);
        draw(&c, "\xea\xb3\xa0", size); // the first one is the one told
        CHECK(strstr(draw_sdl_missing(c.d), "\xe7\x8c\xab") != NULL, "still the first: %s",
              draw_sdl_missing(c.d));
        canvas_close(&c);
    }
    remove("test_fonts_empty.conf");
    TTF_Quit();
    SDL_Quit();
    return check_report("test_fonts");
}
