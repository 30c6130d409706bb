// The question on screen as the page's HTML: its title, how to answer and a form with
// real fields (radio buttons named by the tokens for a "cell" question, one per choice for a
// "choice" one, a labelled text field for a "value"), then the verdict; and the form's response
// turned into what the window's keys would give. The judging stays model/questions.c's and the
// view's (the page sends the response through them). No SDL.
#ifndef MHA_QUESTION_TEXT_H
#define MHA_QUESTION_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include "model/questions.h"
#include "model/stage_text.h"

// What the stage's text is made from (the view: the question's phase and the class's response; the
// lesson shown, its trace), and the question (NULL: none on screen).
typedef struct {
    StageTextSrc on;
    const LessonQuestion *q;
} QuestionTextSrc;

// Appends the question's box: <div class="st-question" id="quiz"> with <h3 id="quiz-title">, then
// while it is asked a <form id="quiz-form" data-kind="cell|value|choice"> (a fieldset of radio
// buttons name="quiz-answer", value "ROW,COL" or the choice from 1; or <input id="quiz-number">),
// an error line id="quiz-error" and the Submit and Skip buttons; once judged the verdict, <p
// id="quiz-verdict">. say gets what the live line says of it: the question and how to answer while
// asked, the verdict once judged; "" and nothing appended when no question is on screen.
void question_text_html(StrBuf *b, const QuestionTextSrc *src, char *say, size_t cap);

// A number typed into the form ("0,61", " −0.6", "-.5") as the window's keys would type it: digits,
// at most one '.', a leading '-' ("0.61", "-0.6", "-.5"). False (out empty) when it is no such
// number or longer than the window's field takes (cap - 1 characters).
bool question_text_number(const char *in, char *out, size_t cap);

#endif
