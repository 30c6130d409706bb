// The window-side cases of mha-bench (frame, export, startup); built only when MHA_GUI is ON.
#ifndef MHA_BENCH_GUI_H
#define MHA_BENCH_GUI_H

// Prints one line per case (frame-cat, frame-12-heads, export, export-deck, startup), or only the
// case named `only` (NULL: all). assets: the repo's assets directory; tracer: the mha-tracer
// program. Returns 0 when every case ran.
int bench_gui(int reps, const char *only, const char *assets, const char *tracer);

#endif
