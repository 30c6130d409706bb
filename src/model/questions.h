// Predict, then reveal: a lesson's questions answered from the trace. One row per answer kind
// {name, compute, check, judge, describe, prompt, input, response} (the lesson's reader
// holds the same kinds' parse rows), so the
// --check, --questions, the window and the slides all ask and answer through this table. No SDL.
#ifndef MHA_QUESTIONS_H
#define MHA_QUESTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include "model/matrices.h"
#include "model/stages.h"
#include "model/view.h"

// A question resolved against the lesson and answered from the trace.
typedef struct {
    Stage stage;
    MatId mat; // the matrix asked about (one of the stage's results)
    int head; // the question's head (0 for matrices shared by every head)
    CellRef asked; // the cell the question names ("cell": the stated answer, whose row/column is
                   // searched)
    CellRef cell; // "cell": the right cell (the first largest/smallest); else the cell asked about
    double value; // the value of `cell` in the trace
    int choice; // "choice": the choice nearest the value (else -1)
    char name[64]; // the matrix's name as the board writes it (model_mat_name): "A₁"; K₁ on head 2
                   // of 2 K/V heads
} QuestionAnswer;

// What a student gave: a clicked cell, a typed number, or a choice (0-based).
typedef struct {
    CellRef cell;
    double value;
    int choice;
} QuestionResponse;

typedef struct {
    AnswerKind kind;
    const char *name; // as in a lesson: "cell"
    // Fills a->cell, a->value, a->choice from the trace (a->stage, mat, head, asked already
    // resolved).
    bool (*compute)(const LessonQuestion *q, const AttnParams *p, const Trace *t, QuestionAnswer *a,
                    char *msg, size_t cap);
    // Whether the lesson's stated answer is the computed one; else why not, with the right answer,
    // in msg.
    bool (*check)(const LessonQuestion *q, const QuestionAnswer *a, const Lesson *L, const Trace *t,
                  char *msg, size_t cap);
    // Whether a student's response is right.
    bool (*judge)(const LessonQuestion *q, const QuestionAnswer *a, const AttnParams *p,
                  const Trace *t, const QuestionResponse *r);
    // The right answer in words: "column 2 (key “sat”): 0.4683".
    void (*describe)(const LessonQuestion *q, const QuestionAnswer *a, const Lesson *L, char *buf,
                     size_t cap);
    // How the class answers: "Click the cell of A₁ you predict." in the window; on paper (a slide
    // or a handout page): "Mark the cell of A₁ you predict."
    void (*prompt)(const LessonQuestion *q, const QuestionAnswer *a, bool paper, char *buf,
                   size_t cap);
    QuizInput input; // ... in the window: a click, a typed number, a key
    // What the class gave, in words ("you said 0.6"); "" when it gave nothing of this kind.
    void (*response)(const LessonQuestion *q, const Lesson *L, const QuestionResponse *r, char *buf,
                     size_t cap);
} AnswerKindInfo;

const AnswerKindInfo *answer_kind_info(AnswerKind k);

// The matrix whose key is `key` ("weights"); MAT_NONE when none.
MatId model_mat_from_key(const char *key);

// Resolves question q (number index of the lesson, for the error's path) against the lesson and
// computes its answer from the trace: the stage must be one of the lesson's, the matrix one of its
// results, the cell inside it and not masked. On failure fills err (positioned in the lesson's
// text, file left as it was) and returns false; err's message is empty when what is left to check
// depends on a field of q that the lesson's report found wrong (q->broken: --check named that error
// already).
bool question_answer(const Lesson *L, const Trace *t, const LessonQuestion *q, int index,
                     QuestionAnswer *a, LessonError *err);
// question_answer, then the stated answer against the computed one ("questions[2].answer: ...").
bool question_check(const Lesson *L, const Trace *t, const LessonQuestion *q, int index,
                    QuestionAnswer *a, LessonError *err);
// --check: every question of the lesson, each error added to rep (file set to filename). Returns
// how many.
int questions_check(const Lesson *L, const Trace *t, const char *filename, LessonReport *rep);

// The number of question `index` (from 1) in the order the class is asked: by stage, then in the
// lesson's order within a stage ("Question 1 of 3" is the first one asked, in the window, the
// slides and
// --questions). questions_asked: the index of the k-th asked (from 0), -1 when k is out of range.
int question_number(const Lesson *L, int index);
int questions_asked(const Lesson *L, int k);

// "cell" questions: whether cell (row, col) is one of those searched (the row, column or matrix of
// the cell asked about), i.e. one the class may pick; false for the other kinds.
bool question_in_span(const LessonQuestion *q, const QuestionAnswer *a, int row, int col);

bool question_judge(const LessonQuestion *q, const QuestionAnswer *a, const AttnParams *p,
                    const Trace *t, const QuestionResponse *r);
void question_describe(const LessonQuestion *q, const QuestionAnswer *a, const Lesson *L, char *buf,
                       size_t cap);
// What a student gave, in words: "you picked row 1 (“cat”), column 2 (“sat”)", "you said 0.6", "you
// pressed 3 (1.3)".
void question_response(const LessonQuestion *q, const Lesson *L, const QuestionResponse *r,
                       char *buf, size_t cap);
// How the class answers in the window: "click a cell of A₀", "type a number, then Enter",
// "press 1 … 3". For the slides and the window alike.
void question_prompt(const LessonQuestion *q, const QuestionAnswer *a, char *buf, size_t cap);
// How a printed page or a slide asks it (nothing to click, type or press).
void question_prompt_paper(const LessonQuestion *q, const QuestionAnswer *a, char *buf, size_t cap);

// The state machine's view of question q, answered: its stage, head, kind, matrix and choices.
ViewQuestion question_view(const LessonQuestion *q, const QuestionAnswer *a);
// Where the reveal goes after an answer: the answer's cell (its arithmetic pinned) and the last
// cell of the row or column searched ("cell" questions: the class sees the whole row it compared),
// else the cell asked.
void question_reveal_cells(const LessonQuestion *q, const QuestionAnswer *a, const AttnParams *p,
                           CellRef *answer, CellRef *through);

// An automatic question for any lesson: which key the query of one row of `head`'s softmax weights
// attends to most. The row comes from counter alone (deterministic: the same counter, the same
// row); in a causal lesson never the first row (one key). Fills *q (free with lesson_question_free)
// with the right cell as its stated answer. False when out of memory.
bool question_auto(LessonQuestion *q, const Lesson *L, const Trace *t, int head, unsigned counter);

#endif
