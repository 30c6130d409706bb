// Private to the session's rooms (session.c: the document; session_train.c: training on a worker;
// session_trace.c: the trace of the edits, below both): what one room calls in another. Not an API:
// session.h is.
#ifndef MHA_SESSION_CTX_H
#define MHA_SESSION_CTX_H

#include <stdio.h>

#include "model/session.h"

// err's message (err may be NULL).
static inline void set_error(SessionError *err, const char *message)
{
    if (err) snprintf(err->message, sizeof err->message, "%s", message);
}

// --- session_trace.c ---
// The shuffle test's lesson and trace freed (it is made again for another shuffle).
void session_drop_shuffle(Session *s);
// The parameters changed: what was computed from the old ones goes.
void session_drop_comparison(Session *s);
// The count of edited values taken again (after every change of s->edit).
void session_recount(Session *s);
// Traces s->edit again into s->trace (after an edit's trace on the worker); false (s->trace kept)
// when the trace fails.
bool session_retrace(Session *s, SessionError *err);

// --- session_train.c ---
// The training goes with its lesson: the job (joined when it runs) and the trainer freed.
void session_drop_training(Session *s);

// --- session_circuit.c: a lesson of layers (Session.circuit) ---
// The lesson just adopted: its circuit run and layer 0 shown when it has layers (else nothing).
// False when that failed (err says why; the circuit is then off).
bool session_circuit_adopt(Session *s, SessionError *err);
// Everything the circuit holds freed (its trainer too); off.
void session_circuit_drop(Session *s);
// O: head h of the layer shown switched off or on again; every later layer and the figures follow.
bool session_circuit_toggle(Session *s, int h, SessionError *err);
// The softmax scale of every layer (0: the default), and all traced again.
bool session_circuit_rescale(Session *s, double scale, SessionError *err);
// The weights shown differ from the file's; R takes the file's again (1: done, 0: nothing to do,
// -1: failed); the whole lesson of layers as JSON (malloc'd; NULL when out of memory).
bool session_circuit_edited(const Session *s);
int session_circuit_revert(Session *s, SessionError *err);
char *session_circuit_json(const Session *s, size_t *len);
// Training (session_train.c hands a lesson of layers to these): T, a frame's steps, whether steps
// were taken since the last poll, J / L, a seek, Z.
bool session_circuit_train_toggle(Session *s, SessionError *err);
bool session_circuit_train_steps(Session *s, int steps, SessionError *err);
bool session_circuit_train_poll(Session *s);
bool session_circuit_train_show(Session *s, int dir, SessionError *err);
bool session_circuit_train_seek(Session *s, int step, SessionError *err);
bool session_circuit_train_reset(Session *s, SessionError *err);

// --- session_beside.c: the lesson trained beside (Session.beside) ---
// Training starts or starts again from step 0 (T, Z): its trainer made with the shown lesson's
// "train" section, or beside.why says why not.
void session_beside_begin(Session *s);
// Steps until it has taken `step` steps (as the lesson shown has); false on a failed step
// (beside.why says so; it stops).
bool session_beside_steps(Session *s, int step);
// Its repeats measured (once per step it is at).
void session_beside_measure(Session *s);
// Its training stopped and freed (the lesson shown was dropped); its lesson and training freed
// (session_free).
void session_beside_stop(Session *s);
void session_beside_free(Session *s);

#endif
