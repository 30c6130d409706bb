// mha-bench --limits, the window's T: the real window (gui_run, through a GuiDriver) in a child process
// presses T and measures every turn of its loop until the step shown reaches a goal, then quits (Q, Q).
// Built only with MHA_GUI.
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

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct {
    int until;        // the step to reach
    double timeout;   // seconds after T at most
    double t0, last, quit_at;
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
    Driver *d = ctx;
    push_key(g, SDLK_t);
    d->t0 = now_seconds();
    return true;
}

// Every turn of the loop: the time since the last one (the loop may wait 1 ms at most, so the rest is work:
// events, the worker's result shown, the redraw).
static int driver_step(void *ctx, Gui *g)
{
    Driver *d = ctx;
    double t = now_seconds();
    GuiCounts c;
    gui_counts(g, &c);
    if (d->last > 0) { // a turn that drew a frame (the board's own cost) or one that did not (events, the poll)
        double ms = (t - d->last) * 1e3, *longest = c.frames > d->fig.frames ? &d->fig.longest_frame_ms
                                                                           : &d->fig.longest_turn_ms;
        if (ms > *longest) *longest = ms;
        d->fig.turns++;
    }
    d->last = t;
    d->fig.frames = c.frames;
    d->fig.step = c.train_step;
    if (d->quit_at == 0 && (c.train_step >= d->until || t - d->t0 > d->timeout)) {
        d->fig.seconds_to_step = t - d->t0;
        d->quit_at = t;
        // Q quits (Esc never does); the weights trained are unsaved edits, so it asks first: Q again quits.
        push_key(g, SDLK_q);
        push_key(g, SDLK_q);
    }
    return 1;
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
    while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR) {
    }
    out->peak_mb = (double)ru.ru_maxrss / 1024.0;
    out->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return got == (ssize_t)sizeof *out;
}
