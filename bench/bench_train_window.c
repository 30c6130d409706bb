// mha-bench --limits, the window's T: the real window (gui_run, through a GuiDriver) in a child
// process presses T and measures every turn of its loop until the step shown reaches a goal, then
// quits (Q, Q). Built only with MHA_GUI.
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE // wait4
#include "bench_train_window.h"

#include <SDL.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "app/gui.h"

// The longest the loop may wait for an event: the window itself wakes for the worker's results and
// keys; the driver only needs a turn now and then to look at the step shown.
#define GUI_BENCH_WAIT_MS 10

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct {
    int until; // the step to reach
    double timeout; // seconds after T at most
    bool seen_first; // the first frame presented
    bool pressed; // T pressed (after the first frame: the class sees the lesson, then the teacher
                  // presses T)
    double t0, quit_at;
    TrainWindowFigures fig;
} Driver;

static void push_key(Gui *g, SDL_Keycode k)
{
    for (int up = 0; up < 2; up++) {
        SDL_Event e;
        memset(&e, 0, sizeof e);
        e.type = up ? SDL_KEYUP : SDL_KEYDOWN;
        e.key.windowID = SDL_GetWindowID(gui_window(g));
        e.key.state = up ? SDL_RELEASED : SDL_PRESSED;
        e.key.keysym.sym = k;
        e.key.keysym.scancode = SDL_GetScancodeFromKey(k);
        SDL_PushEvent(&e);
    }
}

static bool driver_start(void *ctx, Gui *g)
{
    (void)ctx;
    (void)g;
    return true;
}

// Every turn of the loop. The first frame (the lesson opened, its text made) comes before T; then T
// is pressed and every later turn's own work is measured as the window measures it (gui_counts: the
// redraw, the polls and the events, its wait for the next event left out, which the real window
// spends asleep): the turns that presented a frame and those that did not, apart.
static int driver_step(void *ctx, Gui *g)
{
    Driver *d = ctx;
    double t = now_seconds();
    GuiCounts c;
    gui_counts(g, &c);
    if (!d->pressed) {
        // T in the turn after the one that presented the first frame: the turn that handles T is
        // measured whole, without the first frame's redraw.
        if (c.frames >= 1 && d->seen_first) {
            push_key(g, SDLK_t);
            d->pressed = true;
            d->t0 = t;
            d->fig.frames = c.frames;
        }
        d->seen_first = c.frames >= 1;
        return GUI_BENCH_WAIT_MS;
    }
    // The turn before this one (the first time: the turn that pushed T and handled it).
    double *longest = c.last_turn_drew ? &d->fig.longest_frame_ms : &d->fig.longest_turn_ms;
    if (c.last_turn_ms > *longest) *longest = c.last_turn_ms;
    d->fig.turns++;
    d->fig.step = c.train_step;
    if (d->quit_at == 0 && (c.train_step >= d->until || t - d->t0 > d->timeout)) {
        d->fig.seconds_to_step = t - d->t0;
        d->fig.frames = c.frames - d->fig.frames;
        d->quit_at = t;
        // Q quits (Esc never does); the weights trained are unsaved edits, so it asks first: Q
        // again quits.
        push_key(g, SDLK_q);
        push_key(g, SDLK_q);
    }
    return GUI_BENCH_WAIT_MS;
}

bool bench_train_window(const char *path, int until, double timeout, TrainWindowFigures *out)
{
    memset(out, 0, sizeof *out);
    int fds[2];
    if (pipe(fds) != 0) return false;
    pid_t pid = fork();
    if (pid < 0) return false;
    if (pid == 0) {
        close(fds[0]);
        Driver d;
        memset(&d, 0, sizeof d);
        d.until = until;
        d.timeout = timeout;
        GuiDriver driver = {.ctx = &d, .start = driver_start, .step = driver_step};
        GuiOptions opt = {.lesson_path = path, .driver = &driver};
        int status = gui_run(&opt);
        d.fig.quit_seconds = d.quit_at > 0 ? now_seconds() - d.quit_at : -1;
        ssize_t wrote = write(fds[1], &d.fig, sizeof d.fig);
        _exit(wrote == (ssize_t)sizeof d.fig ? status : 1);
    }
    close(fds[1]);
    ssize_t got = 0;
    while (got < (ssize_t)sizeof *out) {
        ssize_t r = read(fds[0], (char *)out + got, sizeof *out - (size_t)got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += r;
    }
    close(fds[0]);
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR) {}
    out->peak_mb = (double)ru.ru_maxrss / 1024.0;
    out->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return got == (ssize_t)sizeof *out;
}
