// Tests the help overlay (key H) for the back row (issue 25): in every language (en, es, fr, zh) at
// 1280x720 and 1920x1080, every line of every page has letters of at least 2.6 % of the window's
// height (measured with the fonts shipped) and stays inside the window; the pages together show
// every key; the pages turn with the stage keys, which then keep the class's stage, and Esc or H
// closes the help.
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "lesson_trace.h"
#include "model/i18n.h"
#include "model/view.h"
#include "render/export_png.h"
#include "render/scene.h"

#define FONTS MHA_SOURCE_DIR "/assets/fonts"
#define CAP_HEIGHT                                                                                 \
    0.729 // the digits and capitals of the fonts shipped, of their pixel size (scene_number_floor)

static ViewEvent key(ViewKey k)
{
    ViewEvent e;
    memset(&e, 0, sizeof e);
    e.kind = VIEW_EV_KEY;
    e.key = k;
    e.head = -1;
    return e;
}

static void press(ViewState *s, ViewKey k)
{
    ViewEvent e = key(k);
    view_handle(s, &e);
}

// The help's texts on the scene: from its title down. Writes them, one a line, into out; returns
// how many, and counts those too small (letters below 2.6 % of h) or outside the w x h window.
static int help_texts(const Scene *s, int w, int h, char *out, size_t cap, int *small, int *outside,
                      const char *what)
{
    size_t from = s->count;
    for (size_t i = 0; i < s->count; i++)
        if (s->cmds[i].kind == CMD_TEXT && strcmp(scene_text(s, &s->cmds[i]), TR("Keys")) == 0)
            from = i;
    int n = 0;
    out[0] = '\0';
    for (size_t i = from; i < s->count; i++) {
        const DrawCmd *c = &s->cmds[i];
        if (c->kind != CMD_TEXT) continue;
        const char *t = scene_text(s, c);
        n++;
        if (c->size * CAP_HEIGHT < 0.026 * h && (*small)++ < 3)
            fprintf(stderr, "  %s: '%s' at %d px (letters %.1f px)\n", what, t, c->size,
                    c->size * CAP_HEIGHT);
        if ((c->x < 0 || c->y < 0 || c->x + c->w > w || c->y + c->h > h) && (*outside)++ < 3)
            fprintf(stderr, "  %s: '%s' at %d,%d %dx%d leaves the window\n", what, t, c->x, c->y,
                    c->w, c->h);
        size_t k = strlen(out);
        snprintf(out + k, cap - k, "%s\n", t);
    }
    return n;
}

int main(void)
{
    ExportError err;
    Exporter *x = export_open(FONTS, &err);
    CHECK(x != NULL, "export_open: %s", err.message);
    if (!x) return check_report("test_help");
    TextMetrics tm = export_metrics(x);
    Lesson L;
    Trace T;
    if (!load("lessons/the-cat-sat.json", &L, &T)) return check_report("test_help");
    (void)parse;
    ViewDims dims = view_dims_from_params(&L.params);
    static const char *const LANGS[] = {"en", "es", "fr", "zh"};
    static const int SIZES[2][2] = {{1280, 720}, {1920, 1080}};
    Scene s;
    scene_init(&s);
    static char page[16][8192], all[65536];
    for (size_t li = 0; li < sizeof LANGS / sizeof LANGS[0]; li++) {
        Lang lang;
        CHECK(i18n_parse(LANGS[li], &lang), "language %s", LANGS[li]);
        i18n_use(lang);
        for (int k = 0; k < 2; k++) {
            int w = SIZES[k][0], h = SIZES[k][1], pages = 0, small = 0, outside = 0;
            char what[64];
            ViewState st;
            view_init(&st, &dims);
            st.help = true;
            all[0] = '\0';
            for (int p = 0; p < 16 && !pages; p++) {
                st.help_page = p;
                snprintf(what, sizeof what, "%s %dx%d page %d", LANGS[li], w, h, p + 1);
                CHECK(scene_build(&s, &st, &L, &T, w, h, &tm, NULL), "%s builds", what);
                int n = help_texts(&s, w, h, page[p], sizeof page[p], &small, &outside, what);
                CHECK(n >= 6, "%s: %d texts on the help", what, n);
                if (p > 0 && strcmp(page[p], page[0]) == 0)
                    pages = p; // turned back to the first page
                else if (strlen(all) + strlen(page[p]) < sizeof all) strcat(all, page[p]);
            }
            snprintf(what, sizeof what, "%s %dx%d", LANGS[li], w, h);
            CHECK(small == 0, "%s: %d help texts with letters below 2.6 %% of %d px", what, small,
                  h);
            CHECK(outside == 0, "%s: %d help texts leave the window", what, outside);
            CHECK(pages >= 1 && pages <= 6, "%s: the help has %d pages", what, pages);
            // Before the page before the first: the last one.
            st.help_page = -1;
            scene_build(&s, &st, &L, &T, w, h, &tm, NULL);
            char last[8192];
            int z = 0;
            help_texts(&s, w, h, last, sizeof last, &z, &z, what);
            CHECK(pages >= 1 && strcmp(last, page[pages - 1]) == 0, "%s: page -1 is the last page",
                  what);
            // Every key is on a page, and the last line tells the page and how to turn it.
            static const char *const KEYS[] = {"Home / End", "Tab / Shift+Tab", "Ctrl+S", "F11  F",
                                               "H  F1",      "drop a .json",    "R"};
            for (size_t i = 0; i < sizeof KEYS / sizeof KEYS[0]; i++) {
                char line[128];
                snprintf(line, sizeof line, "\n%s\n", TR(KEYS[i]));
                CHECK(strstr(all, line) != NULL, "%s: the key '%s' is on a page", what,
                      TR(KEYS[i]));
            }
            CHECK(strstr(all, TR("this help")) != NULL && strstr(all, TR("next stage")) != NULL,
                  "%s: first and last rows", what);
            char foot[320];
            snprintf(foot, sizeof foot,
                     TR("Page %d of %d  \xc2\xb7  \xe2\x86\x92 PageDown: next page  \xc2\xb7  "
                        "\xe2\x86\x90 PageUp: previous page  "
                        "\xc2\xb7  Esc, H: close"),
                     1, pages);
            char first_words[24];
            snprintf(first_words, sizeof first_words, "%.12s", foot);
            CHECK(strstr(page[0], first_words) != NULL, "%s: the first page says '%s'", what,
                  first_words);
            if (h == 720)
                CHECK(pages >= 2, "%s: the help needs pages at this size (%d)", what, pages);
        }
    }
    i18n_use(LANG_EN);
    // The keys: the help's pages turn with the stage keys, which leave the stage where it was; Esc
    // and H close.
    ViewState st;
    view_init(&st, &dims);
    press(&st, VIEW_KEY_RIGHT);
    int stage = st.stage_index;
    press(&st, VIEW_KEY_H);
    CHECK(st.help && st.help_page == 0, "H opens the help on its first page");
    static const ViewKey NEXT[] = {VIEW_KEY_RIGHT, VIEW_KEY_DOWN, VIEW_KEY_PAGEDOWN,
                                   VIEW_KEY_SPACE};
    static const ViewKey BACK[] = {VIEW_KEY_LEFT, VIEW_KEY_UP, VIEW_KEY_PAGEUP, VIEW_KEY_BACKSPACE};
    for (int i = 0; i < 4; i++) press(&st, NEXT[i]);
    CHECK(st.help && st.help_page == 4 && st.stage_index == stage,
          "the next keys turn the page (%d), stage %d kept", st.help_page, st.stage_index);
    for (int i = 0; i < 4; i++) press(&st, BACK[i]);
    CHECK(st.help && st.help_page == 0 && st.stage_index == stage,
          "the previous keys turn back (%d), stage %d kept", st.help_page, st.stage_index);
    press(&st, VIEW_KEY_ESCAPE);
    CHECK(!st.help && st.stage_index == stage, "Esc closes the help");
    press(&st, VIEW_KEY_H);
    press(&st, VIEW_KEY_PAGEDOWN);
    press(&st, VIEW_KEY_H);
    CHECK(!st.help && st.stage_index == stage, "H closes the help");
    press(&st, VIEW_KEY_H);
    CHECK(st.help && st.help_page == 0, "H opens it again on its first page");
    scene_free(&s);
    trace_free(&T);
    lesson_free(&L);
    export_close(x);
    return check_report("test_help");
}
