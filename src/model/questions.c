// Predict, then reveal: each question of a lesson resolved against its stages and matrices and
// answered from the trace's own numbers; a table row per answer kind computes, checks, judges and
// describes.
#include "model/questions.h"
#include "model/i18n.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation" // messages are cut to their buffers on purpose
#endif

static double value_at(const AttnParams *p, const Trace *t, MatId m, int head, int row, int col)
{
    return model_cell_value(p, t, (CellRef){m, head, row, col});
}

static void fmt_value(double v, char *buf, size_t cap) { model_format_value(v, buf, cap); }

// "row 1 (“cat”), column 2 (“sat”)": a token's name where the axis is a sequence.
static void cell_words(const Lesson *L, MatId m, int row, int col, char *buf, size_t cap)
{
    const MatInfo *mi = mat_info(m);
    char rl[96] = "", cl[96] = "", rs[128] = "", cs[128] = "";
    if (mi && (mi->row_axis == AXIS_QUERY || mi->row_axis == AXIS_KEY)) {
        model_axis_label(L, mi->row_axis, row, rl, sizeof rl);
        snprintf(rs, sizeof rs, " (\xe2\x80\x9c%s\xe2\x80\x9d)", rl);
    }
    if (mi && (mi->col_axis == AXIS_QUERY || mi->col_axis == AXIS_KEY)) {
        model_axis_label(L, mi->col_axis, col, cl, sizeof cl);
        snprintf(cs, sizeof cs, " (\xe2\x80\x9c%s\xe2\x80\x9d)", cl);
    }
    snprintf(buf, cap, TR("row %d%s, column %d%s"), row, rs, col, cs);
}

static const char *among_words(const LessonQuestion *q)
{
    return q->among_matrix ? "the whole matrix" : q->among_column ? "its column" : "its row";
}

// --- "cell": the largest (or smallest) of a row, a column or the matrix ---

// Whether (r, c) is among the cells searched for the cell asked about.
static bool in_span(const LessonQuestion *q, const QuestionAnswer *a, int r, int c)
{
    if (q->among_matrix) return true;
    return q->among_column ? c == a->asked.col : r == a->asked.row;
}

// The extreme finite value over the span (masked cells, -inf, are not candidates); false when none.
static bool extreme(const LessonQuestion *q, const QuestionAnswer *a, const AttnParams *p,
                    const Trace *t, int *br, int *bc, double *bv)
{
    int rows, cols;
    model_mat_shape(p, a->mat, &rows, &cols);
    bool found = false;
    for (int r = 0; r < rows; r++) {
        for (int c = 0; c < cols; c++) {
            if (!in_span(q, a, r, c)) continue;
            double v = value_at(p, t, a->mat, a->head, r, c);
            if (!isfinite(v)) continue;
            if (!found || (q->pick_min ? v < *bv : v > *bv)) {
                *br = r;
                *bc = c;
                *bv = v;
                found = true;
            }
        }
    }
    return found;
}

static bool cell_compute(const LessonQuestion *q, const AttnParams *p, const Trace *t,
                         QuestionAnswer *a, char *msg, size_t cap)
{
    int r = 0, c = 0;
    double v = 0;
    if (!extreme(q, a, p, t, &r, &c, &v)) {
        snprintf(msg, cap, "every cell of %s is masked: there is nothing to pick", among_words(q));
        return false;
    }
    a->cell = (CellRef){a->mat, a->head, r, c};
    a->value = v;
    a->choice = -1;
    return true;
}

static bool cell_check(const LessonQuestion *q, const QuestionAnswer *a, const Lesson *L,
                       const Trace *t, char *msg, size_t cap)
{
    double stated = value_at(&L->params, t, a->mat, a->head, q->row, q->col);
    if (stated == a->value) return true; // a tie with the first extreme is right too
    char right[256], said[256], rv[32], sv[32];
    cell_words(L, a->mat, a->cell.row, a->cell.col, right, sizeof right);
    cell_words(L, a->mat, q->row, q->col, said, sizeof said);
    fmt_value(a->value, rv, sizeof rv);
    fmt_value(stated, sv, sizeof sv);
    snprintf(msg, cap,
             "wrong answer: the %s value of %s in %s is at [%d, %d], %s: %s; the lesson says [%d, "
             "%d], %s: %s",
             q->pick_min ? "smallest" : "largest", among_words(q), a->name, a->cell.row,
             a->cell.col, right, rv, q->row, q->col, said, sv);
    return false;
}

static bool cell_judge(const LessonQuestion *q, const QuestionAnswer *a, const AttnParams *p,
                       const Trace *t, const QuestionResponse *r)
{
    const CellRef c = r->cell;
    if (c.mat != a->mat) return false;
    const MatInfo *mi = mat_info(a->mat);
    if (mi && mi->per_head && c.head != a->head) return false;
    if (!in_span(q, a, c.row, c.col)) return false;
    return value_at(p, t, a->mat, a->head, c.row, c.col) == a->value;
}

static void cell_describe(const LessonQuestion *q, const QuestionAnswer *a, const Lesson *L,
                          char *buf, size_t cap)
{
    (void)q;
    char where[256], v[32];
    cell_words(L, a->mat, a->cell.row, a->cell.col, where, sizeof where);
    fmt_value(a->value, v, sizeof v);
    snprintf(buf, cap, "%s: %s", where, v);
}

// --- "value": a number, right within a tolerance ---

static bool point_compute(const LessonQuestion *q, const AttnParams *p, const Trace *t,
                          QuestionAnswer *a, char *msg, size_t cap)
{
    (void)q;
    a->cell = a->asked;
    a->value = value_at(p, t, a->mat, a->head, a->asked.row, a->asked.col);
    a->choice = -1;
    if (!isfinite(a->value)) {
        snprintf(msg, cap,
                 "the cell [%d, %d] is masked (\xe2\x88\x92\xe2\x88\x9e): ask about a cell with a "
                 "number",
                 a->asked.row, a->asked.col);
        return false;
    }
    return true;
}

static bool value_check(const LessonQuestion *q, const QuestionAnswer *a, const Lesson *L,
                        const Trace *t, char *msg, size_t cap)
{
    (void)L;
    (void)t;
    if (fabs(q->value - a->value) <= q->tolerance) return true;
    char v[32], exact[40] = "";
    fmt_value(a->value, v, sizeof v);
    if (a->value != floor(a->value))
        snprintf(exact, sizeof exact, " (%.17g)", a->value); // the digits to compare
    snprintf(msg, cap, "wrong answer: %s[%d, %d] is %s%s, not within %g \xc2\xb1 %g", a->name,
             a->cell.row, a->cell.col, v, exact, q->value, q->tolerance);
    return false;
}

static bool value_judge(const LessonQuestion *q, const QuestionAnswer *a, const AttnParams *p,
                        const Trace *t, const QuestionResponse *r)
{
    (void)p;
    (void)t;
    return isfinite(r->value) && fabs(r->value - a->value) <= q->tolerance;
}

static void value_describe(const LessonQuestion *q, const QuestionAnswer *a, const Lesson *L,
                           char *buf, size_t cap)
{
    char where[256], v[32];
    cell_words(L, a->mat, a->cell.row, a->cell.col, where, sizeof where);
    fmt_value(a->value, v, sizeof v);
    snprintf(buf, cap, TR("%s is %s (right within \xc2\xb1 %g)"), where, v, q->tolerance);
}

// --- "choice": the choice nearest the cell's value ---

static bool choice_compute(const LessonQuestion *q, const AttnParams *p, const Trace *t,
                           QuestionAnswer *a, char *msg, size_t cap)
{
    if (!point_compute(q, p, t, a, msg, cap)) return false;
    int best = 0;
    for (int i = 1; i < q->choice_count; i++)
        if (fabs(q->choices[i] - a->value) < fabs(q->choices[best] - a->value)) best = i;
    for (int i = 0; i < q->choice_count; i++) {
        if (i != best && fabs(q->choices[i] - a->value) == fabs(q->choices[best] - a->value)) {
            char v[32];
            fmt_value(a->value, v, sizeof v);
            snprintf(
                msg, cap,
                "choices %d and %d (%g and %g) are equally near the value %s: the question has no "
                "single answer",
                best < i ? best : i, best < i ? i : best, q->choices[best < i ? best : i],
                q->choices[best < i ? i : best], v);
            return false;
        }
    }
    a->choice = best;
    return true;
}

static bool choice_check(const LessonQuestion *q, const QuestionAnswer *a, const Lesson *L,
                         const Trace *t, char *msg, size_t cap)
{
    (void)L;
    (void)t;
    if (q->correct == a->choice) return true;
    char v[32];
    fmt_value(a->value, v, sizeof v);
    snprintf(
        msg, cap,
        "wrong answer: %s[%d, %d] is %s, nearest to choices[%d] = %g (\"correct\": %d); the lesson "
        "says \"correct\": %d (%g)",
        a->name, a->cell.row, a->cell.col, v, a->choice, q->choices[a->choice], a->choice,
        q->correct, q->choices[q->correct]);
    return false;
}

static bool choice_judge(const LessonQuestion *q, const QuestionAnswer *a, const AttnParams *p,
                         const Trace *t, const QuestionResponse *r)
{
    (void)q;
    (void)p;
    (void)t;
    return r->choice == a->choice;
}

static void choice_describe(const LessonQuestion *q, const QuestionAnswer *a, const Lesson *L,
                            char *buf, size_t cap)
{
    char where[256], v[32];
    cell_words(L, a->mat, a->cell.row, a->cell.col, where, sizeof where);
    fmt_value(a->value, v, sizeof v);
    snprintf(buf, cap, TR("key %d: %g (%s is %s)"), a->choice + 1, q->choices[a->choice], where, v);
}

// lead, then the choices numbered from 1 ("Press  1: 0.5,  2: 1").
static void choices_after(const LessonQuestion *q, const char *lead, char *buf, size_t cap)
{
    size_t used = (size_t)snprintf(buf, cap, "%s", lead);
    for (int i = 0; i < q->choice_count && used < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, "%s  %d: %g", i ? "," : "", i + 1,
                                 q->choices[i]);
}

// How the class answers in the window (a click, a typed number, a key), or on paper (a slide or a
// handout page, where nothing is clicked, typed or pressed).
static void cell_prompt(const LessonQuestion *q, const QuestionAnswer *a, bool paper, char *buf,
                        size_t cap)
{
    (void)q;
    // TRANSLATORS: "Mark": a question on a printed page or slide, the student marks a cell with a
    // pen.
    const char *how =
        paper ? TR("Mark the cell of %s you predict.") : TR("Click the cell of %s you predict.");
    snprintf(buf, cap, how, a->name);
}

static void value_prompt(const LessonQuestion *q, const QuestionAnswer *a, bool paper, char *buf,
                         size_t cap)
{
    (void)a;
    // TRANSLATORS: "Write down": a question on a printed page or slide, the student writes a number
    // down.
    const char *how = paper ? TR("Write down your number (right within \xc2\xb1 %g).")
                            : TR("Type a number, then Enter (right within \xc2\xb1 %g).");
    snprintf(buf, cap, how, q->tolerance);
}

static void choice_prompt(const LessonQuestion *q, const QuestionAnswer *a, bool paper, char *buf,
                          size_t cap)
{
    (void)a;
    // TRANSLATORS: a question on a printed page or slide: the choices follow ("1: 0.5,  2: 1").
    choices_after(q, paper ? TR("Choose one:") : TR("Press"), buf, cap);
}

static void cell_response(const LessonQuestion *q, const Lesson *L, const QuestionResponse *r,
                          char *buf, size_t cap)
{
    (void)q;
    char where[300];
    if (r->cell.mat == MAT_NONE) {
        buf[0] = '\0';
        return;
    }
    cell_words(L, r->cell.mat, r->cell.row, r->cell.col, where, sizeof where);
    snprintf(buf, cap, TR("you picked %s"), where);
}

static void value_response(const LessonQuestion *q, const Lesson *L, const QuestionResponse *r,
                           char *buf, size_t cap)
{
    (void)q;
    (void)L;
    if (isfinite(r->value)) snprintf(buf, cap, TR("you said %g"), r->value);
    else buf[0] = '\0';
}

static void choice_response(const LessonQuestion *q, const Lesson *L, const QuestionResponse *r,
                            char *buf, size_t cap)
{
    (void)L;
    if (r->choice >= 0 && r->choice < q->choice_count)
        snprintf(buf, cap, TR("you pressed %d (%g)"), r->choice + 1, q->choices[r->choice]);
    else buf[0] = '\0';
}

static const AnswerKindInfo KINDS[ANSWER_KIND_COUNT] = {
    {ANSWER_CELL, "cell", cell_compute, cell_check, cell_judge, cell_describe, cell_prompt,
     QUIZ_CLICK, cell_response},
    {ANSWER_VALUE, "value", point_compute, value_check, value_judge, value_describe, value_prompt,
     QUIZ_TYPE, value_response},
    {ANSWER_CHOICE, "choice", choice_compute, choice_check, choice_judge, choice_describe,
     choice_prompt, QUIZ_KEYS, choice_response},
};

const AnswerKindInfo *answer_kind_info(AnswerKind k)
{
    return (int)k >= 0 && k < ANSWER_KIND_COUNT ? &KINDS[k] : NULL;
}

MatId model_mat_from_key(const char *key)
{
    for (int m = MAT_NONE + 1; key && m < MAT_COUNT; m++)
        if (strcmp(mat_info((MatId)m)->key, key) == 0) return (MatId)m;
    return MAT_NONE;
}

// An error at questions[index] + field of the lesson's text.
static bool q_fail(const Lesson *L, LessonError *err, int index, const char *field, const char *msg)
{
    char path[128];
    snprintf(path, sizeof path, "questions[%d]%s%s", index, field[0] ? "." : "", field);
    lesson_locate(L, path, err);
    snprintf(err->message, sizeof err->message, "%s", msg);
    err->warning = false;
    return false;
}

bool question_answer(const Lesson *L, const Trace *t, const LessonQuestion *q, int index,
                     QuestionAnswer *a, LessonError *err)
{
    const AttnParams *p = &L->params;
    char msg[512];
    memset(a, 0, sizeof *a);
    a->choice = -1;
    err->message[0] = '\0';
    // A field --check already found wrong: only what does not depend on it is checked (an empty
    // message).
    if (q->broken & LESSON_QUESTION_BROKEN_STAGE) return false;
    Stage st;
    Stage stages[STAGE_COUNT];
    int ns = model_stages(p, stages);
    bool present = false;
    if (model_stage_from_key(q->stage, &st))
        for (int i = 0; i < ns; i++) present = present || stages[i] == st;
    if (!present) {
        char names[320];
        model_stage_names(stages, ns, true, names, sizeof names);
        snprintf(msg, sizeof msg,
                 "expected one of this lesson's stages with a result (%s), got \"%.60s\"", names,
                 q->stage);
        return q_fail(L, err, index, "stage", msg);
    }
    const StageInfo *si = stage_info(st);
    if (si->results[0] == MAT_NONE) {
        snprintf(msg, sizeof msg, "the %s stage computes nothing to predict: ask on a later stage",
                 si->key);
        return q_fail(L, err, index, "stage", msg);
    }
    if (q->broken & LESSON_QUESTION_BROKEN_ANSWER) return false;
    MatId m = si->results[0];
    if (q->matrix) {
        m = model_mat_from_key(q->matrix);
        bool shown = false;
        for (int i = 0; i < 3 && si->results[i] != MAT_NONE; i++)
            shown = shown || si->results[i] == m;
        if (!shown) {
            size_t used = (size_t)snprintf(msg, sizeof msg,
                                           "expected a matrix the %s stage computes (", si->key);
            for (int i = 0; i < 3 && si->results[i] != MAT_NONE && used < sizeof msg; i++)
                used += (size_t)snprintf(msg + used, sizeof msg - used, "%s%s", i ? ", " : "",
                                         mat_info(si->results[i])->key);
            if (used < sizeof msg)
                snprintf(msg + used, sizeof msg - used, "), got \"%.60s\"", q->matrix);
            return q_fail(L, err, index, "answer.matrix", msg);
        }
    }
    int rows, cols;
    model_mat_shape(p, m, &rows, &cols);
    if (q->row >= rows || q->col >= cols) {
        snprintf(msg, sizeof msg, "[%d, %d] is outside %s, which has %d row%s and %d column%s",
                 q->row, q->col, mat_info(m)->key, rows, rows == 1 ? "" : "s", cols,
                 cols == 1 ? "" : "s");
        return q_fail(L, err, index, "answer.cell", msg);
    }
    if (q->broken & LESSON_QUESTION_BROKEN_HEAD) return false;
    a->stage = st;
    a->mat = m;
    a->head = mat_info(m)->per_head ? q->head : 0;
    model_mat_name(p, m, a->head, a->name, sizeof a->name);
    a->asked = (CellRef){m, a->head, q->row, q->col};
    if (!KINDS[q->kind].compute(q, p, t, a, msg, sizeof msg))
        return q_fail(L, err, index, "answer", msg);
    return true;
}

bool question_check(const Lesson *L, const Trace *t, const LessonQuestion *q, int index,
                    QuestionAnswer *a, LessonError *err)
{
    if (!question_answer(L, t, q, index, a, err)) return false;
    char msg[512];
    if (KINDS[q->kind].check(q, a, L, t, msg, sizeof msg)) return true;
    return q_fail(L, err, index, "answer", msg);
}

int questions_check(const Lesson *L, const Trace *t, const char *filename, LessonReport *rep)
{
    int errors = 0;
    for (int i = 0; i < L->question_count; i++) {
        LessonError e;
        memset(&e, 0, sizeof e);
        QuestionAnswer a;
        if (!question_check(L, t, &L->questions[i], i, &a, &e) && e.message[0]) {
            lesson_error_set_file(&e, filename);
            lesson_report_add(rep, &e);
            errors++;
        }
    }
    return errors;
}

// Where question q is asked: its stage's place (the table's order); a stage the lesson cannot name,
// last.
static int ask_rank(const LessonQuestion *q)
{
    Stage s;
    return model_stage_from_key(q->stage, &s) ? (int)s : STAGE_COUNT;
}

int question_number(const Lesson *L, int index)
{
    int rank = ask_rank(&L->questions[index]), before = 0;
    for (int i = 0; i < L->question_count; i++) {
        int r = ask_rank(&L->questions[i]);
        before += r < rank || (r == rank && i < index);
    }
    return before + 1;
}

int questions_asked(const Lesson *L, int k)
{
    for (int i = 0; i < L->question_count; i++)
        if (question_number(L, i) == k + 1) return i;
    return -1;
}

bool question_in_span(const LessonQuestion *q, const QuestionAnswer *a, int row, int col)
{
    return q->kind == ANSWER_CELL && in_span(q, a, row, col);
}

bool question_judge(const LessonQuestion *q, const QuestionAnswer *a, const AttnParams *p,
                    const Trace *t, const QuestionResponse *r)
{
    return KINDS[q->kind].judge(q, a, p, t, r);
}

void question_describe(const LessonQuestion *q, const QuestionAnswer *a, const Lesson *L, char *buf,
                       size_t cap)
{
    KINDS[q->kind].describe(q, a, L, buf, cap);
}

void question_prompt(const LessonQuestion *q, const QuestionAnswer *a, char *buf, size_t cap)
{
    KINDS[q->kind].prompt(q, a, false, buf, cap);
}

void question_prompt_paper(const LessonQuestion *q, const QuestionAnswer *a, char *buf, size_t cap)
{
    KINDS[q->kind].prompt(q, a, true, buf, cap);
}

void question_response(const LessonQuestion *q, const Lesson *L, const QuestionResponse *r,
                       char *buf, size_t cap)
{
    KINDS[q->kind].response(q, L, r, buf, cap);
}

ViewQuestion question_view(const LessonQuestion *q, const QuestionAnswer *a)
{
    ViewQuestion v = {a->stage, a->head, KINDS[q->kind].input, a->mat, q->choice_count};
    return v;
}

void question_reveal_cells(const LessonQuestion *q, const QuestionAnswer *a, const AttnParams *p,
                           CellRef *answer, CellRef *through)
{
    int rows, cols;
    model_mat_shape(p, a->mat, &rows, &cols);
    *answer = a->cell;
    *through = a->cell;
    if (q->kind != ANSWER_CELL) return;
    if (q->among_matrix) {
        through->row = rows - 1;
        through->col = cols - 1;
    } else if (q->among_column) through->row = rows - 1;
    else through->col = cols - 1;
}

// splitmix64: a counter to a well-mixed number (the automatic question's row).
static uint64_t mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static char *dup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

bool question_auto(LessonQuestion *q, const Lesson *L, const Trace *t, int head, unsigned counter)
{
    const AttnParams *p = &L->params;
    memset(q, 0, sizeof *q);
    int first = (p->mask == MASK_CAUSAL && p->n > 1)
                    ? 1
                    : 0; // the first causal row has one key: no question
    int row = first + (int)(mix(counter) % (uint64_t)(p->n - first));
    if (head < 0 || head >= p->heads) head = 0;
    char label[96], text[256];
    model_axis_label(L, AXIS_QUERY, row, label, sizeof label);
    snprintf(text, sizeof text,
             TR("Which key does \xe2\x80\x9c%s\xe2\x80\x9d attend to most in head %d?"), label,
             head);
    q->stage = dup("softmax");
    q->text = dup(text);
    q->matrix = dup("weights");
    if (!q->stage || !q->text || !q->matrix) {
        lesson_question_free(q);
        return false;
    }
    q->head = head;
    q->kind = ANSWER_CELL;
    q->row = row;
    // The stated answer is the trace's own: the first largest weight of the row.
    int best = 0;
    for (int c = 1; c < p->m; c++)
        if (mat_get(&t->head[head].weights, row, c) > mat_get(&t->head[head].weights, row, best))
            best = c;
    q->col = best;
    return true;
}
