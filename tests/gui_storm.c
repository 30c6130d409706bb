// The event storm (a test, issue 6), linked only into the test program mha-tracer-storm, never into
// mha-tracer: the real window (gui_run, through a GuiDriver) takes COUNT seeded random events
// through its own event path, as if a class of students had the mouse and the keyboard: every bound
// key and others, with modifiers, pointer moves, clicks (half of them on cells), the wheel, window
// sizes from 1x1 to 8000x5000, drops of the files given (good and bad) and of text. The lesson
// opened is rewritten three times (valid -> broken at COUNT/3, -> valid at 2·COUNT/3, -> broken at
// the end) and each change is waited for until the file watch has seen it. Q, Esc and quit are
// never sent, so the storm runs to the end; then one line of counts goes to stderr ("storm:
// events=..."), and the window goes on as usual until it is closed. usage: mha-tracer-storm
// COUNT[:SEED] LESSON [DROP_FILE...] The window's own environment variables (MHA_TRACER_STATS,
// MHA_TRACER_FRAME_FILE ...) work as in mha-tracer.
#include <SDL.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/gui.h"
#include "lesson/lesson.h"
#include "read_all.h"

enum {
    SK_KEY,
    SK_KEYUP,
    SK_TEXT,
    SK_MOTION,
    SK_BUTTON,
    SK_WHEEL,
    SK_RESIZE,
    SK_WINDOW,
    SK_DROP_GOOD,
    SK_DROP_BAD,
    SK_DROP_TEXT,
    SK_KINDS
};
static const char *const STORM_KIND[SK_KINDS] = {"keys",     "keyups",    "text",     "motion",
                                                 "buttons",  "wheel",     "resizes",  "window",
                                                 "drops-ok", "drops-bad", "drop-text"};

typedef struct {
    long count, sent;
    uint64_t rng;
    long kinds[SK_KINDS];
    char **drops; // the files it may drop (SDL_strdup'd into each event; not owned)
    int ndrops;
    char target[1024]; // the lesson rewritten mid-run ("" when the window opened the built-in one)
    char *original; // its bytes at the start
    size_t original_len;
    int phase; // rewrites done (0..3)
    bool await_drop; // the target was dropped; the rewrite follows once the drop is handled
    long await_reloads; // waiting for the watch to see a rewrite: the value of watch_reloads to
                        // exceed
    Uint32 await_until; // until when (SDL ticks; 0: not waiting)
    long rewrites, rewrites_seen, exports;
    long loads0, errors0; // the window's counts when the storm began
    Uint32 started;
    bool done;
} Storm;

static uint64_t storm_next(Storm *s)
{
    uint64_t z = (s->rng += 0x9E3779B97F4A7C15ULL); // splitmix64
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static int storm_int(Storm *s, int n) { return n > 0 ? (int)(storm_next(s) % (uint64_t)n) : 0; }

static void write_bytes(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f) return;
    fwrite(data, 1, len, f);
    fclose(f);
}

// A storm of count events from seed over the window opened on lesson_path (NULL: the built-in
// lesson), dropping the files drops[0 .. ndrops-1] (not copied) now and then.
static void storm_init(Storm *s, long count, uint64_t seed, const char *lesson_path, char **drops,
                       int ndrops)
{
    memset(s, 0, sizeof *s);
    s->count = count;
    s->rng = seed;
    s->drops = drops;
    s->ndrops = ndrops;
    if (lesson_path) {
        s->original = read_all(lesson_path, &s->original_len);
        if (s->original) snprintf(s->target, sizeof s->target, "%s", lesson_path);
    }
}

static void storm_free(Storm *s)
{
    free(s->original);
    memset(s, 0, sizeof *s);
}

static const SDL_Keycode STORM_KEYS[] = {
    SDLK_RIGHT,  SDLK_LEFT, SDLK_UP,     SDLK_DOWN,    SDLK_SPACE, SDLK_BACKSPACE, SDLK_PAGEDOWN,
    SDLK_PAGEUP, SDLK_HOME, SDLK_END,    SDLK_PERIOD,  SDLK_COMMA, SDLK_KP_PERIOD, SDLK_KP_COMMA,
    SDLK_1,      SDLK_2,    SDLK_3,      SDLK_4,       SDLK_5,     SDLK_6,         SDLK_7,
    SDLK_8,      SDLK_9,    SDLK_KP_1,   SDLK_KP_9,    SDLK_TAB,   SDLK_a,         SDLK_f,
    SDLK_F11,    SDLK_PLUS, SDLK_EQUALS, SDLK_KP_PLUS, SDLK_MINUS, SDLK_KP_MINUS,  SDLK_0,
    SDLK_KP_0,   SDLK_h,    SDLK_F1,     SDLK_c,       SDLK_k,     SDLK_m,         SDLK_r,
    SDLK_s,      SDLK_e,    SDLK_n,
};

static void storm_key(Gui *g, Storm *s, SDL_Event *e)
{
    SDL_Keycode k;
    int pick = storm_int(s, 100);
    if (pick < 75) {
        k = STORM_KEYS[storm_int(s, (int)(sizeof STORM_KEYS / sizeof STORM_KEYS[0]))];
    } else if (pick < 90) {
        k = (SDL_Keycode)(' ' + storm_int(s, 95)); // printable ASCII
    } else {
        k = (SDL_Keycode)(storm_next(s)
                          & (storm_int(s, 2) ? 0x400001FFu
                                             : 0xFFFFFFFFu)); // anything, scancode keys too
    }
    if (k == SDLK_q || k == SDLK_ESCAPE || k == SDLK_AC_BACK)
        k = SDLK_RIGHT; // the storm must not end itself
    // E and Shift+E write two images each: now and then, not one key in forty.
    if (k == SDLK_e && storm_int(s, 8) != 0) k = SDLK_PERIOD;
    static const Uint16 MODS[] = {KMOD_NONE,
                                  KMOD_NONE,
                                  KMOD_NONE,
                                  KMOD_LSHIFT,
                                  KMOD_RSHIFT,
                                  KMOD_LCTRL,
                                  KMOD_RCTRL,
                                  KMOD_LALT,
                                  KMOD_LSHIFT | KMOD_LCTRL,
                                  KMOD_LGUI,
                                  KMOD_CAPS | KMOD_NUM,
                                  0xFFFF};
    bool up = storm_int(s, 5) == 0;
    if (k == SDLK_e && !up) s->exports++;
    e->type = up ? SDL_KEYUP : SDL_KEYDOWN;
    e->key.windowID = SDL_GetWindowID(gui_window(g));
    e->key.state = up ? SDL_RELEASED : SDL_PRESSED;
    e->key.repeat = (Uint8)(storm_int(s, 4) == 0);
    e->key.keysym.sym = k;
    e->key.keysym.scancode = SDL_GetScancodeFromKey(k);
    e->key.keysym.mod = MODS[storm_int(s, (int)(sizeof MODS / sizeof MODS[0]))];
    s->kinds[up ? SK_KEYUP : SK_KEY]++;
}

// A point in the window, on a cell of the scene half of the time.
static void storm_point(Gui *g, Storm *s, int *x, int *y)
{
    int w, h;
    const Scene *sc = gui_scene(g);
    SDL_GetWindowSize(gui_window(g), &w, &h);
    if (sc->hit_count > 0 && storm_int(s, 2)) {
        const HitRegion *r = &sc->hits[storm_int(s, (int)sc->hit_count)];
        int pw, ph; // scene pixels -> window coordinates
        SDL_GetRendererOutputSize(gui_renderer(g), &pw, &ph);
        int px = r->x + storm_int(s, r->w > 0 ? r->w : 1),
            py = r->y + storm_int(s, r->h > 0 ? r->h : 1);
        *x = pw > 0 ? (int)((long long)px * w / pw) : px;
        *y = ph > 0 ? (int)((long long)py * h / ph) : py;
        return;
    }
    *x = storm_int(s, w + 200) - 100; // outside now and then
    *y = storm_int(s, h + 200) - 100;
}

static void storm_resize(Gui *g, Storm *s, SDL_Event *e)
{
    static const int SIZES[][2] = {{1, 1},       {50, 30},    {2, 700},     {700, 2},
                                   {640, 400},   {1280, 720}, {1920, 1080}, {8000, 5000},
                                   {3840, 2160}, {333, 777}};
    int i = storm_int(s, (int)(sizeof SIZES / sizeof SIZES[0]) + 1), w, h;
    if (i < (int)(sizeof SIZES / sizeof SIZES[0])) {
        w = SIZES[i][0];
        h = SIZES[i][1];
    } else {
        w = 1 + storm_int(s, 2500);
        h = 1 + storm_int(s, 1500);
    }
    SDL_SetWindowSize(gui_window(g), w,
                      h); // the window manager (or X) may refuse: the event says it anyway
    e->type = SDL_WINDOWEVENT;
    e->window.windowID = SDL_GetWindowID(gui_window(g));
    e->window.event = storm_int(s, 2) ? SDL_WINDOWEVENT_RESIZED : SDL_WINDOWEVENT_SIZE_CHANGED;
    e->window.data1 = w;
    e->window.data2 = h;
    s->kinds[SK_RESIZE]++;
}

static void storm_drop(Gui *g, Storm *s, SDL_Event *e, const char *path, int kind)
{
    e->type = kind == SK_DROP_TEXT ? SDL_DROPTEXT : SDL_DROPFILE;
    e->drop.windowID = SDL_GetWindowID(gui_window(g));
    e->drop.file = SDL_strdup(path);
    s->kinds[kind]++;
}

// One random event (not yet pushed).
static void storm_event(Gui *g, Storm *s, SDL_Event *e)
{
    memset(e, 0, sizeof *e);
    e->common.timestamp = SDL_GetTicks();
    int r = storm_int(s, 1000);
    if (r < 380) {
        storm_key(g, s, e);
    } else if (r < 420) {
        e->type = SDL_TEXTINPUT;
        e->text.windowID = SDL_GetWindowID(gui_window(g));
        for (int i = 0, n = 1 + storm_int(s, 8); i < n; i++)
            e->text.text[i] = (char)(1 + storm_int(s, 255));
        s->kinds[SK_TEXT]++;
    } else if (r < 640) {
        int x, y;
        storm_point(g, s, &x, &y);
        e->type = SDL_MOUSEMOTION;
        e->motion.windowID = SDL_GetWindowID(gui_window(g));
        e->motion.x = x;
        e->motion.y = y;
        e->motion.xrel = storm_int(s, 41) - 20;
        e->motion.yrel = storm_int(s, 41) - 20;
        e->motion.state = storm_int(s, 3) ? SDL_BUTTON_LMASK : 0; // drags, mostly
        s->kinds[SK_MOTION]++;
    } else if (r < 820) {
        int x, y;
        storm_point(g, s, &x, &y);
        bool down = storm_int(s, 2);
        e->type = down ? SDL_MOUSEBUTTONDOWN : SDL_MOUSEBUTTONUP;
        e->button.windowID = SDL_GetWindowID(gui_window(g));
        e->button.button = (Uint8)(storm_int(s, 4) ? SDL_BUTTON_LEFT : 1 + storm_int(s, 5));
        e->button.state = down ? SDL_PRESSED : SDL_RELEASED;
        e->button.clicks = (Uint8)(1 + storm_int(s, 3));
        e->button.x = x;
        e->button.y = y;
        s->kinds[SK_BUTTON]++;
    } else if (r < 920) {
        static const SDL_Keymod WMODS[] = {KMOD_NONE, KMOD_NONE, KMOD_LSHIFT, KMOD_LCTRL,
                                           KMOD_LCTRL | KMOD_LSHIFT};
        SDL_SetModState(WMODS[storm_int(s, 5)]); // the wheel reads the modifiers from SDL
        e->type = SDL_MOUSEWHEEL;
        e->wheel.windowID = SDL_GetWindowID(gui_window(g));
        e->wheel.x = storm_int(s, 3) - 1;
        e->wheel.y = storm_int(s, 10) == 0 ? storm_int(s, 201) - 100 : storm_int(s, 7) - 3;
        e->wheel.direction = storm_int(s, 2) ? SDL_MOUSEWHEEL_FLIPPED : SDL_MOUSEWHEEL_NORMAL;
        s->kinds[SK_WHEEL]++;
    } else if (r < 950) {
        storm_resize(g, s, e);
    } else if (r < 975) {
        static const Uint8 WEV[] = {
            SDL_WINDOWEVENT_SHOWN,      SDL_WINDOWEVENT_HIDDEN,    SDL_WINDOWEVENT_EXPOSED,
            SDL_WINDOWEVENT_MINIMIZED,  SDL_WINDOWEVENT_MAXIMIZED, SDL_WINDOWEVENT_RESTORED,
            SDL_WINDOWEVENT_ENTER,      SDL_WINDOWEVENT_LEAVE,     SDL_WINDOWEVENT_FOCUS_GAINED,
            SDL_WINDOWEVENT_FOCUS_LOST, SDL_WINDOWEVENT_MOVED};
        e->type = storm_int(s, 8) ? SDL_WINDOWEVENT : SDL_RENDER_TARGETS_RESET;
        e->window.windowID = SDL_GetWindowID(gui_window(g));
        e->window.event = WEV[storm_int(s, (int)sizeof WEV)];
        s->kinds[SK_WINDOW]++;
    } else if (s->ndrops > 0 && r < 995) {
        // Good or bad: whether it loads. While the target is broken (phase 1) no good file may take
        // the watch from it, so a good pick becomes a missing file.
        const char *path = s->drops[storm_int(s, s->ndrops)];
        Lesson probe;
        LessonError lerr;
        bool good = lesson_load(&probe, path, &lerr);
        if (good) lesson_free(&probe);
        if (good && s->phase == 1) {
            path = "/nonexistent/storm.json";
            good = false;
        }
        storm_drop(g, s, e, path, good ? SK_DROP_GOOD : SK_DROP_BAD);
    } else {
        storm_drop(g, s, e, "dragged text, not a file", SK_DROP_TEXT);
    }
}

// A rewrite of the target: drop it first (so it is the watched file), then change it once the drop
// is handled.
static const char STORM_BROKEN[] =
    "{\"title\": \"Broken by the storm\", \"tokens\": [\"a\"],\n  \"heads\": oops}\n";

static void storm_rewrite(Gui *g, Storm *s)
{
    GuiCounts c;
    gui_counts(g, &c);
    if (strcmp(c.watched, s->target) != 0)
        return; // the target could not be opened: nothing to watch
    s->phase++;
    if (s->phase == 2) write_bytes(s->target, s->original, s->original_len);
    else if (s->phase == 1)
        write_bytes(s->target, s->original, s->original_len / 2); // cut in the middle
    else write_bytes(s->target, STORM_BROKEN, sizeof STORM_BROKEN - 1);
    s->rewrites++;
    s->await_reloads = c.watch_changes;
    s->await_until = SDL_GetTicks() + 5000;
}

// Pushes the next batch; returns true while the storm goes on.
static bool storm_step(Gui *g, Storm *s)
{
    if (s->done) return false;
    if (s->await_until) { // a rewrite is waiting for the file watch
        GuiCounts c;
        gui_counts(g, &c);
        if (c.watch_changes > s->await_reloads) s->rewrites_seen++;
        else if (!SDL_TICKS_PASSED(SDL_GetTicks(), s->await_until)) return true;
        s->await_until = 0;
    }
    if (s->await_drop) {
        s->await_drop = false;
        storm_rewrite(g, s);
        return true;
    }
    // The rewrites, at a third, two thirds and the end. Phase 2 (broken -> valid) needs no drop:
    // the broken file is still the watched one, because random drops of good files are held back
    // while it is broken.
    long due = s->phase == 0 ? s->count / 3 : s->phase == 1 ? 2 * s->count / 3 : s->count;
    if (s->target[0] && s->phase < 3 && s->sent >= due) {
        if (s->phase == 1) {
            storm_rewrite(g, s);
        } else {
            SDL_Event e;
            memset(&e, 0, sizeof e);
            storm_drop(g, s, &e, s->target, SK_DROP_GOOD);
            if (SDL_PushEvent(&e) != 1) SDL_free(e.drop.file);
            // A drop on unsaved edits asks first (issue 25): Enter opens it without saving, as a
            // teacher would.
            SDL_Event enter;
            memset(&enter, 0, sizeof enter);
            enter.type = SDL_KEYDOWN;
            enter.key.windowID = SDL_GetWindowID(gui_window(g));
            enter.key.state = SDL_PRESSED;
            enter.key.keysym.sym = SDLK_RETURN;
            enter.key.keysym.scancode = SDL_SCANCODE_RETURN;
            SDL_PushEvent(&enter);
            s->await_drop = true;
        }
        return true;
    }
    if (s->sent >= s->count) {
        s->done = true;
        return false;
    }
    for (int i = 0; i < 16 && s->sent < s->count; i++) {
        SDL_Event e;
        storm_event(g, s, &e);
        if (SDL_PushEvent(&e) != 1 && (e.type == SDL_DROPFILE || e.type == SDL_DROPTEXT))
            SDL_free(e.drop.file);
        s->sent++;
    }
    return true;
}

static void storm_report(Gui *g, const Storm *s)
{
    GuiCounts c;
    gui_counts(g, &c);
    char kinds[600] = "";
    for (int k = 0; k < SK_KINDS; k++)
        snprintf(kinds + strlen(kinds), sizeof kinds - strlen(kinds), " %s=%ld", STORM_KIND[k],
                 s->kinds[k]);
    fprintf(stderr,
            "storm: events=%ld%s rewrites=%ld rewrites_seen=%ld watch_reloads=%ld loads=%ld "
            "errors_shown=%ld "
            "exports=%ld frames=%ld sizes=%dx%d..%dx%d time_ms=%lu title=\"%s\"\n",
            s->sent, kinds, s->rewrites, s->rewrites_seen, c.watch_changes, c.loads - s->loads0,
            c.errors - s->errors0, s->exports, c.frames, c.small_w, c.small_h, c.big_w, c.big_h,
            (unsigned long)(SDL_GetTicks() - s->started), c.title);
}

// ---------------------------------------------------------------------------------------------------
// The driver: the window calls these from its loop.

static bool driver_start(void *ctx, Gui *g)
{
    Storm *s = ctx;
    GuiCounts c;
    gui_counts(g, &c);
    s->loads0 = c.loads;
    s->errors0 = c.errors;
    s->started = SDL_GetTicks();
    SDL_SetWindowMinimumSize(gui_window(g), 1,
                             1); // as under a window manager that ignores the minimum
    return true;
}

static int driver_step(void *ctx, Gui *g)
{
    Storm *s = ctx;
    if (storm_step(g, s)) return s->await_until ? 10 : 0; // the storm's events are queued already
    storm_report(g, s);
    SDL_SetModState(KMOD_NONE); // the wheel reads these: no Ctrl left held by the storm
    SDL_SetWindowMinimumSize(gui_window(g), GUI_MIN_W, GUI_MIN_H);
    SDL_SetWindowSize(gui_window(g), 1280, 720);
    return GUI_DRIVER_DONE;
}

int main(int argc, char **argv)
{
    long count = 0;
    unsigned long long seed = 1;
    if (argc < 3 || sscanf(argv[1], "%ld:%llu", &count, &seed) < 1 || count <= 0) {
        fprintf(stderr, "usage: mha-tracer-storm COUNT[:SEED] LESSON [DROP_FILE...]\n");
        return 2;
    }
    Storm storm;
    storm_init(&storm, count, (uint64_t)seed, argv[2], argv + 3, argc - 3);
    GuiDriver driver = {.ctx = &storm, .start = driver_start, .step = driver_step};
    GuiOptions opt = {.lesson_path = argv[2], .driver = &driver};
    int status = gui_run(&opt);
    storm_free(&storm);
    return status;
}
