// The question on screen as the page's HTML: a form with real fields while it is asked (one row of
// the answer kinds' table each: radio buttons over the cells searched, over the choices, or a
// number field), the verdict once judged. The words are the window's (questions.c's prompt,
// response and description) where they fit.
#include "model/question_text.h"

#include <stdio.h>
#include <string.h>

#include "model/i18n.h"
#include "model/stage_text.h"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation" // texts are cut to their buffers on purpose
#endif

// The label of row (or column) i of matrix m, as the text view's headers name it.
static void axis_label(const QuestionTextSrc *src, MatId m, bool row, int i, char *buf, size_t cap)
{
    const MatInfo *mi = mat_info(m);
    model_axis_label(src->on.L, row ? mi->row_axis : mi->col_axis, i, buf, cap);
}

// A cell the class may pick, named as the question asks for it: the key of a row ("sat"), the query
// of a column, or "[cat, sat]" over the whole matrix.
static void cell_label(const QuestionTextSrc *src, const QuestionAnswer *a, int r, int c, char *buf,
                       size_t cap)
{
    char rl[96], cl[96];
    axis_label(src, a->mat, true, r, rl, sizeof rl);
    axis_label(src, a->mat, false, c, cl, sizeof cl);
    if (src->q->among_matrix) snprintf(buf, cap, "[%s, %s]", rl, cl);
    else snprintf(buf, cap, "%s", src->q->among_column ? rl : cl);
}

static void put_radio(StrBuf *b, int n, const char *value, const char *label)
{
    strbuf_printf(b,
                  "<label class=\"st-choice\"><input type=\"radio\" name=\"quiz-answer\" "
                  "id=\"quiz-opt-%d\" value=\"",
                  n);
    stage_text_html_put(b, value, false);
    strbuf_puts(b, "\"> ");
    stage_text_html_put(b, label, false);
    strbuf_puts(b, "</label>\n");
}

// "cell": a radio button per cell of the row, column or matrix searched (a repeated token's label
// names its place, as the board's headers do: "a₀", "a₂").
static void form_cells(StrBuf *b, const QuestionTextSrc *src, const QuestionAnswer *a)
{
    int rows, cols, n = 0;
    model_mat_shape(&src->on.L->params, a->mat, &rows, &cols);
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            if (!question_in_span(src->q, a, r, c)) continue;
            char label[256], value[32];
            cell_label(src, a, r, c, label, sizeof label);
            snprintf(value, sizeof value, "%d,%d", r, c);
            put_radio(b, n++, value, label);
        }
}

// "choice": a radio button per choice, named as its key says it in the window: "3: 1.3".
static void form_choices(StrBuf *b, const QuestionTextSrc *src)
{
    for (int i = 0; i < src->q->choice_count; i++) {
        char label[64], value[8];
        snprintf(label, sizeof label, "%d: %g", i + 1, src->q->choices[i]);
        snprintf(value, sizeof value, "%d", i + 1);
        put_radio(b, i, value, label);
    }
}

// The form of a question asked; how: the line that says how to answer (also announced).
static void form(StrBuf *b, const QuestionTextSrc *src, const QuestionAnswer *a, const char *how)
{
    static const char *const kind_key[] = {
        [QUIZ_CLICK] = "cell", [QUIZ_TYPE] = "value", [QUIZ_KEYS] = "choice"};
    QuizInput input = answer_kind_info(src->q->kind)->input;
    strbuf_printf(b,
                  "<form id=\"quiz-form\" class=\"st-quiz\" data-kind=\"%s\" "
                  "aria-labelledby=\"quiz-title\" novalidate>\n",
                  kind_key[input]);
    if (input == QUIZ_TYPE) {
        strbuf_puts(b, "<p><label for=\"quiz-number\">");
        stage_text_html_put(b, TR("Your answer (a number)"), false);
        strbuf_puts(b, "</label> <input id=\"quiz-number\" name=\"quiz-answer\" type=\"text\" "
                       "inputmode=\"decimal\" "
                       "autocomplete=\"off\" spellcheck=\"false\" size=\"10\" "
                       "aria-describedby=\"quiz-how quiz-error\"></p>\n");
    } else {
        strbuf_puts(b, "<fieldset aria-describedby=\"quiz-how quiz-error\"><legend>");
        stage_text_html_put(b, TR("Your answer"), false);
        strbuf_puts(b, "</legend>\n");
        if (input == QUIZ_CLICK) form_cells(b, src, a);
        else form_choices(b, src);
        strbuf_puts(b, "</fieldset>\n");
    }
    strbuf_puts(b, "<p id=\"quiz-how\" class=\"st-how\">");
    stage_text_html_put(b, how, false);
    strbuf_puts(b, "</p>\n<p id=\"quiz-error\" class=\"st-error\"></p>\n<p "
                   "class=\"st-buttons\"><button type=\"submit\">");
    stage_text_html_put(b, TR("Submit"), false);
    strbuf_puts(b, "</button> <button type=\"button\" id=\"quiz-skip\">");
    stage_text_html_put(b, TR("Skip (Esc)"), false);
    strbuf_puts(b, "</button></p>\n</form>\n");
}

void question_text_html(StrBuf *b, const QuestionTextSrc *src, char *say, size_t cap)
{
    const ViewState *st = src->on.st;
    const LessonQuestion *q = src->q;
    const Lesson *L = src->on.L;
    say[0] = '\0';
    if (!q || st->quiz_phase == QUIZ_NONE) return;
    QuestionAnswer a;
    LessonError err;
    char head[1200], line[900], words[512];
    if (st->quiz >= 0)
        snprintf(head, sizeof head, TR("Question %d of %d: %s"), question_number(L, st->quiz),
                 L->question_count, q->text);
    else snprintf(head, sizeof head, TR("Question: %s"), q->text);
    bool answerable = question_answer(L, src->on.T, q, st->quiz < 0 ? 0 : st->quiz, &a, &err);
    bool asking = answerable && st->quiz_phase != QUIZ_REVEALED;
    if (!answerable) snprintf(line, sizeof line, TR("No answer: %s"), err.message);
    else if (asking) {
        QuizInput input = answer_kind_info(q->kind)->input;
        if (input == QUIZ_TYPE)
            question_prompt(q, &a, words, sizeof words); // "Type a number, then Enter (...)."
        else snprintf(words, sizeof words, "%s", TR("Choose one, then Submit."));
        snprintf(line, sizeof line, "%s %s", words, TR("(Esc: skip)"));
    } else {
        char said[400], answer[600];
        QuestionResponse r = {st->quiz_cell, st->quiz_value, st->quiz_choice};
        question_response(q, L, &r, said, sizeof said);
        question_describe(q, &a, L, words, sizeof words);
        snprintf(answer, sizeof answer, TR("Answer: %s"), words);
        snprintf(line, sizeof line, "%s \xe2\x80\x94 %s. %s",
                 st->quiz_right ? TR("\xe2\x9c\x93 Right") : TR("\xe2\x9c\x97 Not quite"), said,
                 answer);
    }
    strbuf_puts(b, "<div class=\"st-question\" id=\"quiz\"><h3 id=\"quiz-title\">");
    stage_text_html_put(b, head, false);
    strbuf_puts(b, "</h3>\n");
    if (asking) form(b, src, &a, line);
    else {
        strbuf_puts(b, answerable ? "<p id=\"quiz-verdict\" tabindex=\"-1\">" : "<p>");
        stage_text_html_put(b, line, true);
        strbuf_puts(b, "</p>\n");
    }
    strbuf_puts(b, "</div>\n");
    char plain[1400];
    if (st->quiz_phase == QUIZ_REVEALED) snprintf(plain, sizeof plain, "%s", line);
    else snprintf(plain, sizeof plain, "%s %s", head, line);
    stage_text_plain(plain, say, cap);
}

bool question_text_number(const char *in, char *out, size_t cap)
{
    size_t o = 0;
    bool point = false, digit = false;
    const char *p = in;
    if (cap < 2) return false;
    out[0] = '\0';
    while (*p == ' ' || *p == '\t') p++;
    if (*p == '+') p++;
    else if (*p == '-') out[o++] = '-', p++;
    else if (strncmp(p, "\xe2\x88\x92", 3) == 0)
        out[o++] = '-', p += 3; // U+2212, the board's minus sign
    for (; *p && *p != ' ' && *p != '\t'; p++) {
        if (o + 1 >= cap) goto fail;
        if (*p >= '0' && *p <= '9') out[o++] = *p, digit = true;
        else if ((*p == '.' || *p == ',') && !point) out[o++] = '.', point = true;
        else goto fail;
    }
    while (*p == ' ' || *p == '\t') p++;
    if (*p || !digit) goto fail;
    out[o] = '\0';
    return true;
fail:
    out[0] = '\0';
    return false;
}
