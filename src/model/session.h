// The document the window shows, without the window: a lesson (from its file or the built-in one)
// with the editable copy of its parameters and their trace, the watch on its file, edits, revert,
// save, the single-head comparison and what an export is to show. No SDL and no printing: failures
// come back in a SessionError.
#ifndef MHA_SESSION_H
#define MHA_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/compare.h"
#include "core/circuit_train.h"
#include "hf/layer_stream.h"
#include "lesson/lesson.h"
#include "model/tiles_sheet.h"
#include "model/view.h"

typedef struct {
    // What went wrong, for a person: "FILE:LINE:COL: error: PATH: MESSAGE" for a lesson that does
    // not load, "FILE: MESSAGE" for one that does not trace or save, or the reason an edit was
    // undone. "" when none.
    char message[1200];
} SessionError;

// A file as the session last saw it: its modification time, size and identity (device, file
// number), and the hash of its bytes when a change could hide from those (see session_poll).
typedef struct {
    long long sec, nsec;
    long long size; // -1: the file could not be looked at
    unsigned long long device, file_id;
    uint64_t hash; // of the bytes, when hashed
    bool hashed;
    long long looked; // the wall-clock second at which hash held (or the stamp was taken)
} SessionStamp;

typedef enum { SESSION_CMP_NONE = 0, SESSION_CMP_READY, SESSION_CMP_FAILED } SessionCmpState;

// The shuffle test of the current parameters: the lesson with its tokens reordered (lesson_shuffle)
// and its trace, and how far its output rows are from the original's, reordered the same way.
typedef struct {
    Lesson lesson; // the tokens reordered (the title and notes the same)
    Trace trace;
    int *perm; // [n]: token i is the original token perm[i]
    double difference; // trace_shuffle_difference
    bool same; // trace_shuffle_same: the rows only moved
} SessionShuffle;

// Training in the window (a lesson with a "train" section): the trainer started from the
// weights shown when T was first pressed, whether it runs, and which saved checkpoint is shown.
// With async (the window), the work (the first evaluation, the steps, the trace of the weights
// shown) runs on a worker thread and session_train_poll shows what it made, so no frame waits for
// it; without, every call does its work before it returns. The screen reads only the
// fields below `job`, never the trainer's own.
typedef struct SessionTrainJob SessionTrainJob; // the work on the worker thread (session_train.c)
typedef struct {
    Trainer tr; // valid when active; while a job runs only the job touches it
    bool active; // a trainer exists (T pressed on this lesson; until reset by a reload)
    bool running; // steps are taken between frames
    int shown; // the checkpoint whose weights are shown (index into tr.checkpoints), -1: the newest
               // weights
    bool async; // the work on a worker thread (set by the window before T)
    SessionTrainJob *job; // the worker's job and what it keeps between jobs (NULL before T)
    // The trainer as the screen shows it, copied when a job ends (the main thread's own):
    int step, steps; // Adam steps done, of steps
    int loss_count; // loss[0 .. loss_count) known
    double *loss; // [steps + 1]
    int checkpoint_count;
    int checkpoint_steps[TRAIN_CHECKPOINTS + 1]; // the step of each saved checkpoint, oldest first
} SessionTrain;

// A lesson of layers in the window (session_circuit.c): the weights shown (the file's, or
// training's), their run on the lesson's tokens with the heads switched off, the layer on the
// board, and what the circuit panel (key U) reads: the scores over training's checkpoints, the
// scores of the weights shown with each head switched off, the K-composition. The lesson's params
// and the edit are the layer shown (circuit_layer.h). on false: a lesson of one layer.
#define SESSION_CIRCUIT_MAX_HEADS 16 // layers x heads measured per checkpoint (more: not measured)
typedef struct {
    int step;
    double repeat_loss, repeat_accuracy;
    double prev_token[SESSION_CIRCUIT_MAX_HEADS], induction[SESSION_CIRCUIT_MAX_HEADS];
} SessionCircuitPoint;
typedef struct {
    bool on;
    Circuit cur; // the weights shown
    CircuitRun run; // of cur on the lesson's tokens, with ablated
    bool has_run;
    uint64_t ablated[CIRCUIT_MAX_LAYERS]; // per layer the heads switched off (bit h)
    int layer; // on the board
    LayerStream stream; // the stream entering the layer shown (its params' stream)
    bool measured; // the lesson trains: the figures below are of cur
    CircuitScores now; // on the evaluation repeats, with ablated
    double *off_loss, *off_accuracy; // [layers * heads]: that head alone switched off
    double *k_comp; // [(layers - 1) * heads * heads]: layer l+1's head h2 reading layer l's h1
    // Training (T): the trainer, a copy of the weights at each checkpoint (SessionTrain's steps)
    // and the scores measured there.
    CircuitTrainer tr;
    bool training;
    Circuit *checkpoint; // [TRAIN_CHECKPOINTS + 1]
    SessionCircuitPoint *point; // [TRAIN_CHECKPOINTS + 2]: the checkpoints' scores, then the
                                // newest weights'
    int point_count;
    bool fresh; // steps were taken since the window last looked (session_train_poll)
} SessionCircuit;

// A lesson of layers trained beside the one shown (--beside LESSON): the same task on the same
// batches (the shown lesson's "train" section and seed), a step of it for each step of the shown
// one; the circuit panel draws its loss over the shown lesson's. Kept when the shown lesson
// reloads (session_beside.c).
typedef struct {
    bool on; // a lesson is held
    Lesson lesson;
    char name[200]; // its file's name ("induction-one-layer.json")
    char why[800]; // why it does not train beside the lesson shown ("" when it does)
    bool training;
    CircuitTrainer tr;
    double *loss; // [steps + 1]: the batch loss of each step taken
    int loss_count;
    int measured_step; // the step its repeats were measured at (-1: not measured)
    double repeat_loss, repeat_accuracy;
} SessionBeside;

typedef struct {
    Lesson lesson; // as in the file: what session_revert goes back to
    AttnParams edit; // the editable copy (the sizes of lesson.params) the trace is computed from
    Trace trace; // the trace of edit
    int edit_count; // the values of edit that differ from the file's (session_edit_count), kept up
                    // to date
    bool retrace_async; // the window: session_edit traces on a worker (session_retrace_poll shows
                        // it)
    struct Retrace *rt; // that worker's job (model/retrace.h; NULL before the first such edit)
    bool loaded; // a lesson is held (false until the first session_load that succeeds)
    char path[1024]; // the watched file ("" for the built-in lesson)
    SessionStamp stamp; // of path, when last looked at
    char saved[1100]; // where this session saved the edits of this lesson ("" none): saved over
                      // again while the file there is still the one it wrote (saved_as), else under
                      // a new name
    SessionStamp
        saved_as; // the file this session wrote at saved, as written (its bytes' hash included)
    uint64_t saved_values; // a fingerprint of the editable values saved there (session_unsaved
                           // compares it)
    Comparison cmp; // the single-head version of edit, when cmp_state is SESSION_CMP_READY
    SessionCmpState cmp_state;
    SessionShuffle shuf; // when shuf_state is SESSION_CMP_READY
    SessionCmpState shuf_state;
    int shuf_k; // the reordering it was computed (or failed) for
    TilesSheet tiles; // FlashAttention's tiles at one step of the trace, when tiles_ready
    bool tiles_ready;
    SessionTrain train; // training on the lesson's task (inactive until T)
    SessionCircuit circuit; // a lesson of layers (circuit.on)
    long loads; // lessons loaded (session_load and reloads that succeeded)
    long load_errors; // loads and reloads that failed
    long watch_changes; // changes of the watched file seen by session_poll
    SessionBeside beside; // --beside: a lesson of layers trained beside this one
} Session;

// --beside: the lesson of layers at path trained beside the lesson shown whenever it trains (T):
// it needs the same vocabulary size and positions (n_ctx), so that both see the same sequences.
// False (err says why: the file and what it lacks; nothing held) when it cannot be read or is not
// a lesson of layers; a lesson shown that does not match is said in beside.why when T starts.
bool session_beside_load(Session *s, const char *path, SessionError *err);

// An empty session (nothing loaded). Free with session_free.
void session_init(Session *s);
void session_free(Session *s);

// Loads the lesson at path (NULL: the built-in one) and traces it. On success the lesson replaces
// the one held (its edits are dropped) and path becomes the watched file ("" for NULL); edits of
// another file are then saved under a fresh name. On failure nothing changes (the last good lesson
// stays) and err says why.
bool session_load(Session *s, const char *path, SessionError *err);

// The lesson *l, made elsewhere (a checkpoint's layer: hf/hf_model.h), taken over (*l is left
// empty, also on failure) and traced, as session_load does with a file; nothing is watched and
// edits are saved in the working directory. name names it in errors. On failure nothing else
// changes and err says why.
bool session_take_lesson(Session *s, Lesson *l, const char *name, SessionError *err);

typedef enum {
    SESSION_SAME =
        0, // no change (or no file watched, or the file is being replaced: look again later)
    SESSION_RELOADED, // the file changed and was loaded again
    SESSION_RELOAD_FAILED, // the file changed and does not load: the last good lesson stays, err
                           // says why
} SessionWatch;

// Looks at the watched file's time stamp and size; when they changed, loads it again.
SessionWatch session_poll(Session *s, SessionError *err);

// The lesson as shown: the file's title and tokens with the edited numbers. Borrows from s (free
// nothing); valid until the next call that changes s.
Lesson session_shown(const Session *s);

// Adds delta to cell c of the editable copy, rounded to 4 decimals (as the screen shows values),
// and traces again. Returns false when nothing changed: c is not an editable cell (err->message
// ""), or the value would not be finite or the trace fails (the edit is undone; err says why).
bool session_edit(Session *s, CellRef c, double delta, SessionError *err);

// With retrace_async, session_edit changes the value at once and traces a copy on a worker thread;
// until the trace is shown (session_retrace_poll) s->trace is the previous one (the screen marks it
// as recomputing). Edits made meanwhile are traced together when it ends; a trace that fails undoes
// the edits since the last good one. Every other call that changes the session first waits for it
// (session_settle).
typedef enum {
    SESSION_RETRACE_IDLE = 0,
    SESSION_RETRACE_SHOWN,
    SESSION_RETRACE_FAILED
} SessionRetracePoll;
// SHOWN: the new trace is s->trace; FAILED: the edits were undone, err says why; IDLE: nothing
// ended.
SessionRetracePoll session_retrace_poll(Session *s, SessionError *err);
// True while an edit's trace runs (s->trace is then the one before it).
bool session_retrace_busy(const Session *s);
// Waits until the edits are traced and shown (or undone), as session_retrace_poll.
SessionRetracePoll session_settle(Session *s, SessionError *err);

// How many editable values differ from the file's.
int session_edit_count(const Session *s);

// Back to the file's values. Returns how many values were edited before (0: nothing to revert), or
// -1 when out of memory (nothing changed; err says so).
int session_revert(Session *s, SessionError *err);

// Saves the lesson with the edited values as NAME-edited.json beside its file (the working
// directory for the built-in lesson), its title marked " (edited)", written atomically (a temporary
// file renamed into place); again to the same file for the rest of the session. out (cap bytes)
// gets the path written.
bool session_save(Session *s, char *out, size_t cap, SessionError *err);

// True when quitting would lose edits: values differ from the file's and were not saved as they are
// now (never saved in this session, or changed since; training's weights count as edits).
bool session_unsaved(const Session *s);

// Computes the single-head comparison of the edited parameters unless it is already computed for
// them or failed for them (a failure is not tried again until the parameters change). Returns false
// only when this call tried and failed (err says why).
bool session_compare(Session *s, SessionError *err);
// The comparison of the current parameters, or NULL when it is not computed.
const Comparison *session_comparison(const Session *s);

// Switches head h off (its Z zeros in the concat) or on again, and traces again. False when h is
// not a head or the trace fails (nothing changes then; err says why).
bool session_toggle_head(Session *s, int h, SessionError *err);
// Sets the softmax scale (0: the default 1/sqrt(d_k); the slider's stop at 1/sqrt(d_k) is that
// default) and traces again. False when it is not a finite number >= 0 or the trace fails (nothing
// changes; err says why).
bool session_set_scale(Session *s, double scale, SessionError *err);
// RoPE's point (key S): every position shifted to the next stop (dir +1) or the one before (-1),
// the trace run again with the shifted rows and scores (AttnParams.rope_shift). False with err set
// when the trace fails; false with no message when the lesson has no RoPE.
bool session_rope_shift(Session *s, int dir, SessionError *err);
// The scale that multiplies the scores now (params_scale of the edited parameters).
double session_scale(const Session *s);

// Computes the shuffle test of the current parameters with reordering number k (view_shuffle_perm:
// 0 reverses the tokens) unless it is already computed or failed for them and k. Returns false only
// when this call tried and failed (err says why).
bool session_shuffle(Session *s, int k, SessionError *err);
// The shuffle test of the current parameters, or NULL when it is not computed.
const SessionShuffle *session_shuffled(const Session *s);
// Makes FlashAttention's tiles panel (key B) of the trace shown at this head, block size and tile
// unless it is already made for them. False only when this call ran out of memory.
bool session_tiles(Session *s, int head, int block, int tile);
// The tiles panel last made for the current trace, or NULL when none is.
const TilesSheet *session_tiled(const Session *s);

// T: starts training (the first time: from the weights shown, edits included), pauses it, or
// resumes it (from the newest weights, whatever checkpoint was shown). False when the lesson has no
// "train" section or the trainer cannot start (err says why); a finished run is not resumed (err
// says so, Z starts again).
bool session_train_toggle(Session *s, SessionError *err);
// While running: up to `steps` more Adam steps, then the newest weights are shown (traced). Stops
// running at the end of the run. False when a step fails (err says why; training stops). With
// async: starts them on the worker (false when a job is already running) and session_train_poll
// shows them.
bool session_train_steps(Session *s, int steps, SessionError *err);
// With async: when the worker's job has ended, shows what it made (the newest weights, a
// checkpoint's, the trainer started) and starts what was asked meanwhile (J, L, Z, a seek).
// SESSION_TRAIN_IDLE: nothing ended.
typedef enum { SESSION_TRAIN_IDLE = 0, SESSION_TRAIN_SHOWN, SESSION_TRAIN_FAILED } SessionTrainPoll;
SessionTrainPoll session_train_poll(Session *s, SessionError *err);
// True while the worker has a job (or one is asked for): the window polls.
bool session_train_busy(const Session *s);
// Waits for the worker's job and shows it (what an export of the checkpoints needs first). As
// session_train_poll.
SessionTrainPoll session_train_wait(Session *s, SessionError *err);
// J / L: the checkpoint dir (-1 / +1) from the one shown (the newest weights count as the last),
// its weights shown; pauses training. False when there is no trainer or no checkpoint that way.
bool session_train_show(Session *s, int dir, SessionError *err);
// The checkpoint nearest to step (the newest weights when they are nearer), its weights shown;
// pauses training. False when there is no trainer, the same weights are already shown, or the trace
// fails (err says why).
bool session_train_seek(Session *s, int step, SessionError *err);
// Z: back to the weights training started from, step 0, paused (the trainer's checkpoint 0).
bool session_train_reset(Session *s, SessionError *err);
// The step whose weights are shown (the checkpoint's, or the trainer's step), -1 when not training.
int session_train_shown_step(const Session *s);

// A lesson of layers (s->circuit.on): the board shows layer `layer` (clamped to the layers): its
// parameters and trace become the lesson's and the edit's. False when the lesson has no layers,
// the layer is the one shown, or the trace fails (err says why).
bool session_circuit_layer(Session *s, int layer, SessionError *err);
// How many layers the lesson has (1 for a lesson of one layer) and which one is shown.
int session_circuit_layers(const Session *s);
int session_circuit_shown(const Session *s);

// What an export is to show, as data: the window's exporter (src/render/export.h) carries it out.
typedef struct {
    bool board; // the whole board of the stage; false: the heatmap on screen
    const char *lesson_path; // the lesson's file (NULL: the built-in lesson): names the files and,
                             // beside it, the exports/ folder
    Lesson shown; // session_shown: what the window shows, edits included
    const Trace *trace; // its trace
    const AttnParams *original; // the file's values, to mark the edited cells
    const Comparison *compare; // the single-head comparison, or NULL when not computed
} SessionExport;
void session_export(const Session *s, bool board, SessionExport *out);

#endif
