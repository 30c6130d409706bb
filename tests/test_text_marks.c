// Tests text of format marks, joiners and variation selectors as every backend draws it (issue 27
// item 3): a token that is one U+200B, U+200D, U+200F, U+2060, U+FE0F or U+FEFF is measured and
// drawn as its label "⟨U+200B⟩" in the PNG and the SVG, and a line with a mark in it (a question
// ending in U+200F, a title ending in U+200E) is drawn whole, as wide as without the mark: never an
// error, never a blank line.
#include <SDL.h>
#include <SDL_image.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "render/export.h"
#include "render/svg.h"
#include "render/textrun.h"

#define FONTS MHA_SOURCE_DIR "/assets/fonts"

// The dark pixels of t drawn alone (black on white) through the PNG exporter; -1 when it failed.
static long ink_of(Exporter *x, const char *t, int w, int h)
{
    Scene s;
    scene_init(&s);
    s.width = 400;
    s.height = 60;
    scene_push_rect(&s, 0, 0, 400, 60, (Rgba){255, 255, 255, 255});
    scene_push_text(&s, FONT_REGULAR, 20, (Rgba){0, 0, 0, 255}, (Box){4, 4, w, h}, t);
    ExportBuffer png = {0};
    ExportError err = {0};
    long dark = -1;
    if (export_png_encode(x, &s, EXPORT_BG_WHITE, &png, &err)) {
        SDL_Surface *raw = IMG_Load_RW(SDL_RWFromConstMem(png.data, (int)png.size), 1);
        SDL_Surface *img = raw ? SDL_ConvertSurfaceFormat(raw, SDL_PIXELFORMAT_RGBA32, 0) : NULL;
        dark = img ? 0 : -1;
        for (int y = 0; img && y < img->h; y++)
            for (int k = 0; k < img->w; k++) {
                const Uint8 *p =
                    (const Uint8 *)img->pixels + (size_t)y * (size_t)img->pitch + (size_t)k * 4;
                dark += p[0] + p[1] + p[2] < 3 * 128;
            }
        SDL_FreeSurface(img);
        SDL_FreeSurface(raw);
    } else {
        fprintf(stderr, "%s\n", err.message);
    }
    export_buffer_free(&png);
    scene_free(&s);
    return dark;
}

static void test_labels(void)
{
    char out[64];
    CHECK(textrun_mark_label("\xe2\x80\x8b", out, sizeof out)
              && strcmp(out, "\xe2\x9f\xa8U+200B\xe2\x9f\xa9") == 0,
          "ZWSP's label: %s", out);
    CHECK(textrun_mark_label("\xe2\x80\x8d\xef\xb8\x8f", out, sizeof out)
              && strcmp(out, "\xe2\x9f\xa8U+200D U+FE0F\xe2\x9f\xa9") == 0,
          "ZWJ VS16's label: %s", out);
    CHECK(textrun_mark_label(
              "\xef\xbb\xbf\xef\xbb\xbf\xef\xbb\xbf\xef\xbb\xbf\xef\xbb\xbf\xef\xbb\xbf", out,
              sizeof out)
              && strcmp(out, "\xe2\x9f\xa8U+FEFF U+FEFF U+FEFF U+FEFF \xe2\x80\xa6\xe2\x9f\xa9")
                     == 0,
          "six BOMs: %s", out);
    CHECK(!textrun_mark_label("", out, sizeof out), "\"\" has no label");
    CHECK(!textrun_mark_label("a\xe2\x80\x8b", out, sizeof out), "a letter shows: no label");
    CHECK(!textrun_mark_label("\xd8\xa7\xe2\x80\x8f", out, sizeof out),
          "an Arabic letter with its RLM: no label");
}

int main(void)
{
    test_labels();
    ExportError err;
    Exporter *x = export_open(FONTS, &err);
    CHECK(x != NULL, "export_open: %s", err.message);
    if (!x) return check_report("test_text_marks");
    TextMetrics tm = export_metrics(x);
    int h = tm.line_height(tm.user, FONT_REGULAR, 20);
    // Tokens of one mark each: ZWSP, ZWJ, RLM, WJ, VS16, BOM.
    static const char *const MARKS[] = {"\xe2\x80\x8b", "\xe2\x80\x8d", "\xe2\x80\x8f",
                                        "\xe2\x81\xa0", "\xef\xb8\x8f", "\xef\xbb\xbf"};
    for (size_t i = 0; i < sizeof MARKS / sizeof MARKS[0]; i++) {
        char label[64];
        textrun_mark_label(MARKS[i], label, sizeof label);
        int w = tm.text_width(tm.user, FONT_REGULAR, 20, MARKS[i]);
        CHECK(w == tm.text_width(tm.user, FONT_REGULAR, 20, label) && w > 20,
              "mark %zu measured as its label (%d)", i, w);
        long ink = ink_of(x, MARKS[i], w, h);
        CHECK(ink > 50, "mark %zu drawn as its label (%ld dark pixels)", i, ink);
        Scene s;
        scene_init(&s);
        s.width = s.height = 100;
        scene_push_text(&s, FONT_BOLD, 20, (Rgba){0, 0, 0, 255}, (Box){0, 0, w, h}, MARKS[i]);
        size_t n = 0;
        char *svg = svg_encode(&s, "t", &n);
        CHECK(svg && strstr(svg, label) && !strstr(svg, MARKS[i]), "the SVG writes mark %zu as %s",
              i, label);
        free(svg);
        scene_free(&s);
    }
    // A mark inside a line: the line is drawn, as wide as without it.
    static const char *const LINES[][2] = {
        {"Which word does \xe2\x80\x9c"
         "cat\xe2\x80\x9d attend to?\xe2\x80\x8f",
         "Which word does \xe2\x80\x9c"
         "cat\xe2\x80\x9d attend to?"},
        {"The cat sat\xe2\x80\x8e", "The cat sat"},
        {"a\xe2\x80\x8b"
         "b",
         "ab"},
    };
    for (size_t i = 0; i < sizeof LINES / sizeof LINES[0]; i++) {
        int w = tm.text_width(tm.user, FONT_REGULAR, 20, LINES[i][0]),
            w0 = tm.text_width(tm.user, FONT_REGULAR, 20, LINES[i][1]);
        CHECK(abs(w - w0) <= 2, "line %zu is %d pixels wide, %d without its mark", i, w, w0);
        long ink = ink_of(x, LINES[i][0], w, h), ink0 = ink_of(x, LINES[i][1], w0, h);
        CHECK(ink > 0 && labs(ink - ink0) * 10 <= ink0,
              "line %zu drawn whole (%ld dark pixels, %ld without its mark)", i, ink, ink0);
    }
    CHECK(ink_of(x, "", 0, h) == 0, "\"\" draws nothing and does not fail");
    export_close(x);
    IMG_Quit();
    SDL_Quit();
    return check_report("test_text_marks");
}
