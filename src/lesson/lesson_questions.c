// A lesson's "questions" (predict, then reveal): their form and the answer kinds' table. Whether a
// stated answer is right needs the trace: model/questions.c judges that.
#include "lesson/lesson_ctx.h"

#include <stdlib.h>
#include <string.h>

// "cell": [row, col], two whole numbers from 0 (their range is the model's: it knows the matrix).
static bool read_answer_cell(Ctx *c, const cJSON *ans, LessonQuestion *q)
{
    const cJSON *v = lesson_need(c, ans, "cell");
    if (!v) return false;
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2)
        return lesson_fail(c, "expected [row, column] (two whole numbers from 0), got %s",
                           cJSON_IsArray(v) ? "an array of another length" : lesson_type_name(v));
    int *dst[2] = {&q->row, &q->col};
    int j = 0;
    for (const cJSON *x = v->child; x; x = x->next, j++) {
        lesson_push_index(c, j);
        if (!lesson_get_int(c, x, 0, 1 << 20, dst[j])) return false;
        lesson_pop(c);
    }
    lesson_pop(c);
    return true;
}

static bool read_answer_number(Ctx *c, const cJSON *ans, const char *key, double *out)
{
    const cJSON *v = lesson_need(c, ans, key);
    if (!v || !lesson_get_number(c, v, out)) return false;
    lesson_pop(c);
    return true;
}

// {"kind": "cell", "cell": [r, c], "among": "row" | "column" | "matrix", "pick": "max" | "min"}
static bool parse_cell_answer(Ctx *c, const cJSON *ans, LessonQuestion *q)
{
    const cJSON *v;
    char shown[80];
    if ((v = lesson_enter(c, ans, "among"))) {
        const char *s = NULL;
        if (!cJSON_IsString(v))
            return lesson_fail(c, "expected \"row\", \"column\" or \"matrix\", got %s",
                               lesson_type_name(v));
        s = v->valuestring;
        if (strcmp(s, "column") == 0) q->among_column = true;
        else if (strcmp(s, "matrix") == 0) q->among_matrix = true;
        else if (strcmp(s, "row") != 0)
            return lesson_fail(c, "expected \"row\", \"column\" or \"matrix\", got \"%s\"",
                               lesson_show_key(s, shown, sizeof shown));
        lesson_pop(c);
    }
    if ((v = lesson_enter(c, ans, "pick"))) {
        if (!cJSON_IsString(v))
            return lesson_fail(c, "expected \"max\" or \"min\", got %s", lesson_type_name(v));
        if (strcmp(v->valuestring, "min") == 0) q->pick_min = true;
        else if (strcmp(v->valuestring, "max") != 0)
            return lesson_fail(c, "expected \"max\" or \"min\", got \"%s\"",
                               lesson_show_key(v->valuestring, shown, sizeof shown));
        lesson_pop(c);
    }
    return read_answer_cell(c, ans, q);
}

// {"kind": "value", "cell": [r, c], "value": x, "tolerance": t > 0}
static bool parse_value_answer(Ctx *c, const cJSON *ans, LessonQuestion *q)
{
    char num[40];
    if (!read_answer_cell(c, ans, q) || !read_answer_number(c, ans, "value", &q->value))
        return false;
    int k;
    lesson_member(ans, "tolerance", &k);
    if (!read_answer_number(c, ans, "tolerance", &q->tolerance)) return false;
    if (!(q->tolerance > 0)) {
        lesson_push_key(c, "tolerance", k);
        return lesson_fail(c, "must be greater than 0 (a typed number is never exact), got %s",
                           lesson_fmt_num(q->tolerance, num, sizeof num));
    }
    return true;
}

// {"kind": "choice", "cell": [r, c], "choices": [x, y, ...], "correct": i}
static bool parse_choice_answer(Ctx *c, const cJSON *ans, LessonQuestion *q)
{
    if (!read_answer_cell(c, ans, q)) return false;
    const cJSON *v = lesson_need(c, ans, "choices");
    if (!v) return false;
    if (!cJSON_IsArray(v))
        return lesson_fail(c, "expected an array of 2 to %d numbers, got %s", LESSON_MAX_CHOICES,
                           lesson_type_name(v));
    int n = cJSON_GetArraySize(v);
    if (n < 2 || n > LESSON_MAX_CHOICES)
        return lesson_fail(c, "expected 2 to %d choices (keys 1 to %d pick them), got %d",
                           LESSON_MAX_CHOICES, LESSON_MAX_CHOICES, n);
    if (!lesson_read_vector(c, v, q->choices, n, "the choices")) return false;
    q->choice_count = n;
    lesson_pop(c);
    if (!(v = lesson_need(c, ans, "correct"))) return false;
    if (!lesson_get_int(c, v, 0, n - 1, &q->correct)) return false;
    lesson_pop(c);
    return true;
}

// The answer kinds: a row each {name, its keys, parse}; checking against the trace is
// model/questions.c.
static const struct {
    AnswerKind kind;
    const char *name;
    const char *const *keys;
    const char *expected;
    bool (*parse)(Ctx *c, const cJSON *ans, LessonQuestion *q);
} ANSWER_KINDS[ANSWER_KIND_COUNT] = {
    {ANSWER_CELL, "cell", (const char *const[]){"kind", "matrix", "cell", "among", "pick", NULL},
     "kind, matrix, cell, among, pick", parse_cell_answer},
    {ANSWER_VALUE, "value",
     (const char *const[]){"kind", "matrix", "cell", "value", "tolerance", NULL},
     "kind, matrix, cell, value, tolerance", parse_value_answer},
    {ANSWER_CHOICE, "choice",
     (const char *const[]){"kind", "matrix", "cell", "choices", "correct", NULL},
     "kind, matrix, cell, choices, correct", parse_choice_answer},
};

const char *lesson_answer_kind_name(AnswerKind k)
{
    return (int)k >= 0 && k < ANSWER_KIND_COUNT ? ANSWER_KINDS[k].name : "?";
}

void lesson_question_free(LessonQuestion *q)
{
    if (!q) return;
    free(q->stage);
    free(q->text);
    free(q->matrix);
    memset(q, 0, sizeof *q);
}

void lesson_free_questions(LessonQuestion *qs, int n)
{
    for (int i = 0; qs && i < n; i++) lesson_question_free(&qs[i]);
    free(qs);
}

// "stage": a string (whether the lesson has that stage is the model's to say).
static bool read_stage(Ctx *c, const cJSON *v, LessonQuestion *q)
{
    const char *s = NULL;
    const cJSON *x = lesson_need(c, v, "stage");
    if (!x || !lesson_get_string(c, x, &s)) return false;
    if (!(q->stage = lesson_dup_string(s, strlen(s)))) return lesson_fail(c, "out of memory");
    lesson_pop(c);
    return true;
}

// "head" (optional): one of the lesson's heads (heads < 1: not known, not checked).
static bool read_head(Ctx *c, const cJSON *v, int heads, LessonQuestion *q)
{
    const cJSON *x = lesson_enter(c, v, "head");
    if (!x) return true;
    if (!lesson_get_int(c, x, 0, LESSON_MAX_HEADS - 1, &q->head)) return false;
    if (heads > 0 && q->head >= heads)
        return lesson_fail(c, "the lesson has %d head%s (0 to %d), got %d", heads, plural(heads),
                           heads - 1, q->head);
    lesson_pop(c);
    return true;
}

static bool read_text(Ctx *c, const cJSON *v, LessonQuestion *q)
{
    const char *s = NULL;
    const cJSON *x = lesson_need(c, v, "text");
    if (!x || !lesson_get_string(c, x, &s)) return false;
    if (!s[0]) return lesson_fail(c, "empty question: write what the class should predict");
    if (!(q->text = lesson_dup_string(s, strlen(s)))) return lesson_fail(c, "out of memory");
    lesson_pop(c);
    return true;
}

// "answer": {"kind", "matrix", ...} with the keys of its kind (ANSWER_KINDS).
static bool read_answer(Ctx *c, const cJSON *v, LessonQuestion *q)
{
    const cJSON *ans = lesson_need(c, v, "answer"), *x;
    if (!ans) return false;
    if (!cJSON_IsObject(ans))
        return lesson_fail(
            c, "expected an answer {\"kind\": \"cell\", \"value\" or \"choice\", ...}, got %s",
            lesson_type_name(ans));
    const cJSON *kv = lesson_need_hint(c, ans, "kind", "\"cell\", \"value\" or \"choice\"");
    if (!kv) return false;
    if (!cJSON_IsString(kv))
        return lesson_fail(c, "expected \"cell\", \"value\" or \"choice\", got %s",
                           lesson_type_name(kv));
    int kind = -1;
    for (int i = 0; i < ANSWER_KIND_COUNT; i++)
        if (strcmp(kv->valuestring, ANSWER_KINDS[i].name) == 0) kind = i;
    char shown[80];
    if (kind < 0)
        return lesson_fail(c, "expected \"cell\", \"value\" or \"choice\", got \"%s\"",
                           lesson_show_key(kv->valuestring, shown, sizeof shown));
    lesson_pop(c);
    q->kind = (AnswerKind)kind;
    int d1 = c->depth;
    if (!lesson_check_keys(c, ans, ANSWER_KINDS[kind].keys, ANSWER_KINDS[kind].expected))
        return false;
    c->depth = d1;
    const char *s = NULL;
    if ((x = lesson_enter(c, ans, "matrix"))) {
        if (!lesson_get_string(c, x, &s)) return false;
        if (!(q->matrix = lesson_dup_string(s, strlen(s)))) return lesson_fail(c, "out of memory");
        lesson_pop(c);
    }
    return ANSWER_KINDS[kind].parse(c, ans, q);
}

// One question object (the current path is its place in the list); heads < 1: not known (not
// checked). Its fields are checks of their own: lesson_parse stops at the first error, a report
// (c->rep) goes on with the others and marks the broken ones in q->broken (the model then checks
// only what does not depend on them).
static bool read_question(Ctx *c, const cJSON *v, int heads, LessonQuestion *q)
{
    static const char *const keys[] = {"stage", "head", "text", "answer", NULL};
    if (!cJSON_IsObject(v)) {
        q->broken = LESSON_QUESTION_BROKEN_STAGE | LESSON_QUESTION_BROKEN_ANSWER;
        return lesson_fail(
            c, "expected a question {\"stage\", \"text\", \"answer\", \"head\"}, got %s",
            lesson_type_name(v));
    }
    int d0 = c->depth;
    bool ok = true;
#define FIELD(bit, check)                                                                          \
    do {                                                                                           \
        if (!(check)) {                                                                            \
            q->broken |= (bit);                                                                    \
            ok = false;                                                                            \
            if (!c->rep) return false;                                                             \
        }                                                                                          \
        c->depth = d0;                                                                             \
    } while (0)
    FIELD(0u, lesson_check_keys(c, v, keys, "stage, head, text, answer"));
    FIELD(LESSON_QUESTION_BROKEN_STAGE, read_stage(c, v, q));
    FIELD(LESSON_QUESTION_BROKEN_HEAD, read_head(c, v, heads, q));
    FIELD(LESSON_QUESTION_BROKEN_TEXT, read_text(c, v, q));
    FIELD(LESSON_QUESTION_BROKEN_ANSWER, read_answer(c, v, q));
#undef FIELD
    if (q->broken & LESSON_QUESTION_BROKEN_HEAD) q->head = 0;
    return ok;
}

// "questions": a list of question objects (optional). heads: the lesson's (< 1 when unknown).
bool lesson_read_questions(Ctx *c, const cJSON *root, int heads, LessonQuestion **out, int *count)
{
    int k;
    const cJSON *v = lesson_member(root, "questions", &k);
    if (!v) return true;
    lesson_push_key(c, "questions", k);
    if (!cJSON_IsArray(v))
        return lesson_fail(c, "expected an array of questions, got %s", lesson_type_name(v));
    int n = cJSON_GetArraySize(v);
    if (n > LESSON_MAX_QUESTIONS)
        return lesson_fail(c, "too many questions: %d (the limit is %d)", n, LESSON_MAX_QUESTIONS);
    LessonQuestion *qs = n ? calloc((size_t)n, sizeof *qs) : NULL;
    if (n && !qs) return lesson_fail(c, "out of memory");
    int i = 0, d0 = c->depth;
    bool ok = true;
    for (const cJSON *x = v->child; x; x = x->next, i++) {
        lesson_push_index(c, i);
        if (!read_question(c, x, heads, &qs[i])) {
            ok = false;
            if (!c->rep) break;
        }
        c->depth = d0;
    }
    if (!ok && !c->rep) {
        lesson_free_questions(qs, n);
        return false;
    }
    lesson_pop(c);
    *out = qs; // a report keeps them, the broken ones marked: --check checks the rest against the
               // trace
    *count = n;
    return ok;
}
