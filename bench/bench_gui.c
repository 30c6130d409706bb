// The window-side cases of mha-bench: a full offscreen redraw of the board at 1920x1080, the cat
// lesson's PNG export, and start to first frame of the real program. Built only with MHA_GUI.
#define _POSIX_C_SOURCE 200809L
#include "bench_gui.h"

#include <SDL.h>
#include <SDL_image.h>
#include <SDL_ttf.h>
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "render/draw_sdl.h"
#include "render/export.h"
#include "render/scene.h"

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

// A lesson and its trace: the built-in cat lesson when path is NULL.
static bool load(Lesson *l, Trace *t, const char *path)
{
    LessonError lerr;
    TraceError terr;
    if (!(path ? lesson_load(l, path, &lerr) : lesson_load_builtin(l, &lerr))) {
        fprintf(stderr, "mha-bench: cannot load %s: %s\n", path ? path : "the built-in lesson",
                lerr.message);
        return false;
    }
    if (!trace_run(t, &l->params, &terr)) {
        fprintf(stderr, "mha-bench: %s\n", terr.message);
        lesson_free(l);
        return false;
    }
    return true;
}

// The state a teacher most often shows: the softmax stage of head 0 (or another stage).
static void stage_state(ViewState *st, const Lesson *l, int w, int h, Stage stage)
{
    ViewDims dims = view_dims_from_params(&l->params);
    view_init(st, &dims);
    for (int i = 0; i < st->stage_count; i++)
        if (st->stages[i] == stage) st->stage_index = i;
    st->width = w;
    st->height = h;
}

// One frame: scene_build + clear + draw, as the window's redraw does (without the present).
static bool frame(Scene *sc, DrawSdl *d, SDL_Renderer *r, const ViewState *st, const Lesson *l,
                  const Trace *t, const TextMetrics *tm)
{
    bool ok = scene_build(sc, st, l, t, st->width, st->height, tm, NULL);
    SDL_SetRenderDrawColor(r, sc->background.r, sc->background.g, sc->background.b, 255);
    SDL_RenderClear(r);
    return draw_sdl_scene(d, sc) && ok;
}

static int bench_frames(const char *name, const char *lesson_path, Stage stage,
                        const char *font_dir, int reps)
{
    enum { W = 1920, H = 1080 };
    Lesson l;
    Trace t;
    if (!load(&l, &t, lesson_path)) return 1;
    SDL_Surface *surf = SDL_CreateRGBSurfaceWithFormat(0, W, H, 32, SDL_PIXELFORMAT_ARGB8888);
    SDL_Renderer *r = surf ? SDL_CreateSoftwareRenderer(surf) : NULL;
    char err[512] = "";
    DrawSdl *d = r ? draw_sdl_create(r, font_dir, err, sizeof err) : NULL;
    int rc = 0;
    if (!d) {
        fprintf(stderr, "mha-bench: %s: no offscreen renderer: %s %s\n", name, SDL_GetError(), err);
        rc = 1;
    } else {
        TextMetrics tm = draw_sdl_metrics(d);
        ViewState st;
        stage_state(&st, &l, W, H, stage);
        Scene sc;
        scene_init(&sc);
        double t0 = now_seconds();
        bool ok =
            frame(&sc, d, r, &st, &l, &t, &tm); // cold: every text rasterised for the first time
        double cold = now_seconds() - t0, best = 1e30;
        for (int i = 0; i < reps && ok; i++) {
            t0 = now_seconds();
            ok = frame(&sc, d, r, &st, &l, &t, &tm);
            double dt = now_seconds() - t0;
            if (dt < best) best = dt;
        }
        if (!ok) {
            fprintf(stderr, "mha-bench: %s: drawing failed\n", name);
            rc = 1;
        } else {
            printf("case=%s seconds_per_frame=%.6f cold_first_frame_seconds=%.6f width=%d "
                   "height=%d commands=%zu\n",
                   name, best, cold, W, H, sc.count);
        }
        scene_free(&sc);
    }
    draw_sdl_destroy(d);
    if (r) SDL_DestroyRenderer(r);
    SDL_FreeSurface(surf);
    trace_free(&t);
    lesson_free(&l);
    return rc;
}

// Removes the files an export wrote (the directory is ours, made by mkdtemp).
static void empty_dir(const char *dir)
{
    DIR *dp = opendir(dir);
    if (!dp) return;
    struct dirent *e;
    char path[4200];
    while ((e = readdir(dp))) {
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(dp);
}

static int bench_export(const char *name, ExportWhat what, int stage, const char *font_dir,
                        int reps)
{
    Lesson l;
    Trace t;
    if (!load(&l, &t, NULL)) return 1;
    char dir[] = "/tmp/mha-bench-export-XXXXXX";
    if (!mkdtemp(dir)) {
        fprintf(stderr, "mha-bench: cannot make a temporary directory: %s\n", strerror(errno));
        trace_free(&t);
        lesson_free(&l);
        return 1;
    }
    ExportRequest req;
    export_request_defaults(&req);
    req.dir = dir;
    req.font_dir = font_dir;
    req.name = "the-cat-sat";
    req.what = what;
    req.stage = stage;
    double best = 1e30;
    size_t files = 0;
    int rc = 0;
    for (int i = 0; i < reps; i++) {
        ExportResult res;
        ExportError err;
        double t0 = now_seconds();
        bool ok = export_run(&req, &l, &t, &res, &err);
        double dt = now_seconds() - t0;
        if (!ok) {
            fprintf(stderr, "mha-bench: %s: %s\n", name, err.message);
            rc = 1;
            break;
        }
        files = res.count;
        export_result_free(&res);
        empty_dir(dir); // every repetition writes new files, as a first export does
        if (dt < best) best = dt;
    }
    if (rc == 0) printf("case=%s seconds=%.6f files=%zu\n", name, best, files);
    rmdir(dir);
    trace_free(&t);
    lesson_free(&l);
    return rc;
}

// Starts the real program on the cat lesson with MHA_TRACER_STATS=1, times the wall clock from the
// fork to its first "frame ..." line on standard error (and reads its own first_frame_ms=X when it
// prints one), then ends it. The minimum over a few starts.
static int bench_startup(const char *tracer, int reps)
{
    if (!getenv("DISPLAY") || !getenv("DISPLAY")[0]) {
        printf("case=startup skipped=no-display\n");
        return 0;
    }
    double best = 1e30, best_reported = -1;
    for (int i = 0; i < reps; i++) {
        int fds[2];
        if (pipe(fds) != 0) return 1;
        double t0 = now_seconds();
        pid_t pid = fork();
        if (pid < 0) return 1;
        if (pid == 0) {
            dup2(fds[1], 2);
            close(fds[0]);
            close(fds[1]);
            setenv("MHA_TRACER_STATS", "1", 1);
            execl(tracer, tracer, (char *)NULL);
            _exit(127);
        }
        close(fds[1]);
        // The wall time is taken at the first "frame ..." line (the first redraw); the program's
        // own first_frame_ms (from gui_run, without exec and loading) follows it and is read when
        // it comes.
        char buf[8192];
        size_t len = 0;
        double seen = -1, reported = -1;
        while (reported < 0 && now_seconds() - t0 < (seen < 0 ? 10.0 : seen + 1.0)) {
            struct pollfd pf = {fds[0], POLLIN, 0};
            if (poll(&pf, 1, 50) <= 0) continue;
            ssize_t got = read(fds[0], buf + len, sizeof buf - 1 - len);
            if (got <= 0) break;
            len += (size_t)got;
            buf[len] = '\0';
            char *fr = strstr(buf, "frame ");
            if (seen < 0 && fr && strchr(fr, '\n')) seen = now_seconds() - t0;
            char *ff = strstr(buf, "first_frame_ms=");
            if (ff && strchr(ff, '\n')) {
                reported = atof(ff + strlen("first_frame_ms=")) / 1000.0;
                if (seen < 0) seen = now_seconds() - t0;
            }
            if (len + 1 >= sizeof buf) len = 0;
        }
        kill(pid, SIGTERM);
        int status;
        waitpid(pid, &status, 0);
        close(fds[0]);
        if (seen < 0) {
            fprintf(stderr, "mha-bench: startup: no frame from %s within 10 s\n", tracer);
            return 1;
        }
        if (seen < best) best = seen, best_reported = reported;
    }
    if (best_reported >= 0)
        printf("case=startup seconds=%.6f reported_first_frame_seconds=%.6f\n", best,
               best_reported);
    else printf("case=startup seconds=%.6f\n", best);
    return 0;
}

int bench_gui(int reps, const char *only, const char *assets, const char *tracer)
{
    char font_dir[1100], twelve[1100];
    snprintf(font_dir, sizeof font_dir, "%s/fonts", assets);
    snprintf(twelve, sizeof twelve, "%s/../lessons/bert-base-shape.json", assets);
    if (TTF_Init() != 0) {
        fprintf(stderr, "mha-bench: TTF_Init: %s\n", TTF_GetError());
        return 1;
    }
    int rc = 0;
    int few = reps < 5 ? reps : 5; // exports and starts take long: a few repetitions are enough
    if (!only || strcmp(only, "frame-cat") == 0)
        rc |= bench_frames("frame-cat", NULL, STAGE_SOFTMAX, font_dir, reps);
    if (!only || strcmp(only, "frame-12-heads") == 0)
        rc |= bench_frames("frame-12-heads", twelve, STAGE_SOFTMAX, font_dir, reps);
    // The largest board of a shipped lesson: Concat (7 x 768) times W^O (768 x 768), windowed.
    if (!only || strcmp(only, "frame-12-heads-output") == 0)
        rc |= bench_frames("frame-12-heads-output", twelve, STAGE_OUTPUT, font_dir, reps);
    if (!only || strcmp(only, "export") == 0)
        rc |= bench_export("export", EXPORT_WHAT_HEATMAPS, STAGE_SOFTMAX, font_dir, few);
    if (!only || strcmp(only, "export-deck") == 0)
        rc |= bench_export("export-deck", EXPORT_WHAT_ALL, EXPORT_ALL_STAGES, font_dir, few);
    TTF_Quit();
    IMG_Quit();
    SDL_Quit();
    if (!only || strcmp(only, "startup") == 0) rc |= bench_startup(tracer, few);
    fflush(stdout);
    return rc;
}
