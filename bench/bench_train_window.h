// mha-bench --limits: the window's T on a training lesson at the limits (POSIX + the window's
// code).
#ifndef MHA_BENCH_TRAIN_WINDOW_H
#define MHA_BENCH_TRAIN_WINDOW_H

#include <stdbool.h>

typedef struct {
    double longest_turn_ms; // the longest turn of the window's loop after T that drew no frame, its
                            // own work (its wait for events left out): the events, the polls; the
                            // training itself is not
    double
        longest_frame_ms; // the longest that drew a frame (the board's redraw and present included)
    long turns, frames; // turns measured after T, frames presented after T
    int step; // the training step shown at the end
    double seconds_to_step; // from T to the step asked for (or to the timeout)
    double quit_seconds; // from Escape to the window's end (the worker's step stopped)
    double peak_mb; // the process's peak resident memory
    int status; // its exit status
} TrainWindowFigures;

// Opens the window on path in a child process, presses T once the first frame is drawn, measures
// until the step shown is `until` (at most timeout seconds), presses Escape. False when the child
// could not be run or said nothing.
bool bench_train_window(const char *path, int until, double timeout, TrainWindowFigures *out);

#endif
