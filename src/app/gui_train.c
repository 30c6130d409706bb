// The window's side of training (T, J, L, Z): the worker's steps started a frame's worth at a time
// and shown when done; the session (src/model/session.c) trains, this only paces it and says so in
// the header.
#include "app/gui_private.h"
#include "model/i18n.h"
#include "model/session.h"

#include <SDL.h>
#include <stdio.h>

#define GUI_TRAIN_BUDGET_MS                                                                        \
    20.0 // about this much training per frame (on the worker thread: the frame never waits)
#define GUI_TRAIN_WATCH_S                                                                          \
    12.0 // a run spread over about this long, so the class sees the pattern form

// T: start, pause or resume training; the header says so (a lesson without "train" gets the
// reason).
void gui_train_toggle(Gui *g)
{
    SessionError err;
    if (!session_train_toggle(&g->doc, &err)) {
        if (err.message[0]) gui_show_error(g, TR("Not training: %s"), err.message);
        return;
    }
    g->edit_error[0] = '\0';
    g->train_next = 0; // the first steps with the next frame
    if (g->doc.train.running)
        snprintf(g->flash, sizeof g->flash, TR("Training on the task %s (T pauses)"),
                 train_task_key(g->doc.lesson.train.task));
    else
        snprintf(g->flash, sizeof g->flash, "%s",
                 TR("Training paused (T resumes, J / L checkpoints, Z step 0)"));
    g->flash_until = SDL_GetTicks() + FLASH_MS;
}

// While training runs, one frame's worth of steps: as many as spread the run over GUI_TRAIN_WATCH_S
// seconds of frames, but about GUI_TRAIN_BUDGET_MS of work at most, so the board follows. They run
// on the session's worker thread: this only starts them, and gui_train_poll shows them
// when they are done.
void gui_train_tick(Gui *g)
{
    int frames = (int)(GUI_TRAIN_WATCH_S * 1000 / GUI_TRAIN_FRAME_MS);
    int want = (g->doc.train.steps + frames - 1) / frames;
    if (g->train_step_ms > 0) {
        int fit = (int)(GUI_TRAIN_BUDGET_MS / g->train_step_ms);
        if (fit < want) want = fit;
    }
    if (want < 1) want = 1;
    g->train_started = SDL_GetPerformanceCounter();
    g->train_asked = want;
    SessionError err;
    if (!session_train_steps(&g->doc, want, &err) && err.message[0])
        gui_show_error(g, TR("Training stopped: %s"), err.message);
}

// The worker's job, when it has finished: its weights shown (the frame is redrawn), how long a step
// took.
bool gui_train_poll(Gui *g)
{
    SessionError err;
    bool stepping = g->train_asked > 0;
    SessionTrainPoll r = session_train_poll(&g->doc, &err);
    if (r == SESSION_TRAIN_IDLE) return false;
    if (stepping && !session_train_busy(&g->doc)) {
        double ms = (double)(SDL_GetPerformanceCounter() - g->train_started) * 1000.0
                    / (double)SDL_GetPerformanceFrequency();
        g->train_step_ms = ms / g->train_asked;
        g->train_steps_total += g->train_asked;
        g->train_asked = 0;
    }
    if (r == SESSION_TRAIN_FAILED && err.message[0])
        gui_show_error(g, TR("Training stopped: %s"), err.message);
    return true;
}

void gui_train_show(Gui *g, int dir)
{
    SessionError err;
    if (!session_train_show(&g->doc, dir, &err) && err.message[0])
        gui_show_error(g, "%s", err.message);
}

void gui_train_restart(Gui *g)
{
    SessionError err;
    if (!session_train_reset(&g->doc, &err)) {
        if (err.message[0]) gui_show_error(g, TR("Not reset: %s"), err.message);
        return;
    }
    snprintf(g->flash, sizeof g->flash, "%s",
             TR("Back to step 0: the weights training started from (T trains again)"));
    g->flash_until = SDL_GetTicks() + FLASH_MS;
}
