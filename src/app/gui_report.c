// What the window tells the world outside it: its title (the lesson's, and the frame count with
// MHA_TRACER_FRAME_TITLE=1) and, with MHA_TRACER_FRAME_FILE, the line per frame presented that the
// window tests wait for (tests/gui_frames.sh), never the clock.
#include "app/gui_private.h"
#include "core/trace.h"
#include "model/session.h"
#include "model/view.h"

#include <SDL.h>
#include <stdio.h>

void gui_set_title(Gui *g)
{
    char t[600], count[40] = "";
    if (g->frame_title) snprintf(count, sizeof count, " [frame %ld]", g->frames);
    const char *title = g->doc.loaded && g->doc.lesson.title ? g->doc.lesson.title : "";
    snprintf(t, sizeof t, "mha-tracer \xe2\x80\x94 %s%s", title, count);
    if (g->win) SDL_SetWindowTitle(g->win, t);
}

static const char *panel_key(ViewPanel p)
{
    return p == PANEL_COST       ? "cost"
           : p == PANEL_COMPARE  ? "compare"
           : p == PANEL_SHUFFLE  ? "shuffle"
           : p == PANEL_DECODE   ? "decode"
           : p == PANEL_TILES    ? "tiles"
           : p == PANEL_CACHE    ? "cache-size"
           : p == PANEL_ROPE     ? "rotation"
           : p == PANEL_OVERVIEW ? "overview"
           : p == PANEL_CIRCUIT  ? "circuit"
                                 : "none";
}

// MHA_TRACER_FRAME_FILE: after each frame presented, one line
//   frame N stage=KEY substep=S substeps=C head=H reveal=R zoom=Z w=W h=H view=one|all
//         panel=none|cost|compare|shuffle|decode|tiles|cache-size|rotation
//         quiz=none|asking|judging|revealed help=0|1 notes=0|1 strip=X,Y,SEG,GAP ablated=B scale=S
//         train=T running=0|1 edits=E banner=0|1 ask=0|1 panel_part=P/Q
//         shift=K retrace=0|1 export=0|1 note=0|1
// N counts from 1; P/Q: the part of the panel shown of how many (from 1: the KV cache's token step
// in parts, the compare and shuffle panels' outputs on a part of their own; 1/1 otherwise); S is
// the sub-step of the stage shown (0 .. C-1); H counts heads from 0, as the screen and the file
// names do; R is the number of result cells revealed (-1: all); quiz: where the question on screen
// is; strip: the header's strip of stages (pixels: its first segment's left edge, its middle line,
// a segment's width, the gap between two); B the heads switched off as bits in hexadecimal (0:
// none); S the softmax scale in use (%.6g); train: the training step whose weights are shown (-1:
// not training); running: training steps between frames; E the values edited (session_edit_count);
// banner: an error is shown; ask: the question before quitting (unsaved edits) is on screen; shift:
// K the shift of every position that shows RoPE's point (key S; 0: none); retrace: an edit is being
// traced on the worker (the results shown are the previous ones); export: an export is being
// written on the worker; note: a note (an export's, Esc's hint) is in the header. The line goes out
// with one flush, and its last field has a one-character value, so a reader can tell a complete
// line from one still being written. The panel's part shown (parts 0) or how many it has (parts 1),
// from 0: the KV cache's step in parts, the compare and shuffle panels' outputs on a part of their
// own.
static int panel_part(const ViewState *st, const Scene *s, int parts)
{
    bool pair = st->panel == PANEL_COMPARE || st->panel == PANEL_SHUFFLE;
    if (st->panel == PANEL_DECODE) return parts ? s->decode_parts : st->decode_part;
    if (pair) return parts ? s->pair_parts : st->pair_part;
    return parts ? 1 : 0;
}

const char *gui_quiz_key(QuizPhase q)
{
    static const char *const keys[] = {"none", "asking", "judging", "revealed"};
    return (int)q >= 0 && q <= QUIZ_REVEALED ? keys[q] : "none";
}

void gui_report_frame(Gui *g, int w, int h)
{
    if (g->frame_title) gui_set_title(g);
    if (!g->frame_file) return;
    // The frame goes to the X server before it is reported (pumping flushes the connection): a
    // screenshot taken after the line is read shows it.
    SDL_PumpEvents();
    const ViewState *st = &g->st;
    fprintf(g->frame_file,
            "frame %ld stage=%s substep=%d substeps=%d head=%d reveal=%d zoom=%.3f w=%d h=%d "
            "view=%s panel=%s quiz=%s "
            "help=%d notes=%d strip=%d,%d,%d,%d ablated=%llx scale=%.6g train=%d running=%d "
            "layer=%d layers=%d edits=%d banner=%d ask=%d panel_part=%d/%d "
            "shift=%d retrace=%d export=%d note=%d\n",
            g->frames, stage_key(view_stage(st)), st->substep, st->substep_count, st->head,
            st->reveal, st->zoom, w, h, st->view == VIEW_ALL_HEADS ? "all" : "one",
            panel_key(st->panel), gui_quiz_key(st->quiz_phase), st->help ? 1 : 0, st->notes ? 1 : 0,
            g->scene.strip_x, g->scene.strip_y + g->scene.strip_h / 2, g->scene.strip_seg,
            g->scene.strip_gap, (unsigned long long)g->doc.edit.ablated, session_scale(&g->doc),
            session_train_shown_step(&g->doc), g->doc.train.running ? 1 : 0,
            session_circuit_shown(&g->doc), session_circuit_layers(&g->doc),
            session_edit_count(&g->doc), g->banner[0] || g->edit_error[0] ? 1 : 0,
            gui_asking(g) != GUI_ASK_NONE ? 1 : 0, panel_part(st, &g->scene, 0) + 1,
            panel_part(st, &g->scene, 1), g->doc.edit.rope_shift,
            session_retrace_busy(&g->doc) ? 1 : 0, g->xjob.busy ? 1 : 0, g->flash[0] ? 1 : 0);
    fflush(g->frame_file);
}
