// Questions: their form (lesson_parse), their answers from the trace (model/questions.c): a right
// stated answer passes, a wrong one fails with the right answer in the message, tolerance edges,
// ties, masked cells, judging a student's response, the automatic question.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lesson_trace.h"
#include "model/questions.h"

// The built-in cat lesson with one question (the JSON of one list item).
static char *with_question(const char *q)
{
    static const char base[] =
        "{\"title\": \"The cat sat\", \"tokens\": [\"The\",\"cat\",\"sat\"], "
        "\"embeddings\": [[1,0,1,0],[0,1,0,1],[1,1,1,1]],\n \"heads\": 2, "
        "\"weights\": {\"random\": {\"seed\": 42, \"qkv_std\": 1.0, \"out_std\": 0.5}},\n "
        "\"questions\": [\n  %s\n ]}";
    size_t n = sizeof base + strlen(q);
    char *s = malloc(n);
    snprintf(s, n, base, q);
    return s;
}

// Parses the lesson with question q and checks it: returns whether question_check passed, err
// filled.
static bool check_one(const char *q, LessonError *err, QuestionAnswer *a)
{
    char *json = with_question(q);
    Lesson L;
    Trace T;
    bool ok = false;
    memset(err, 0, sizeof *err);
    if (parse(json, &L, &T)) {
        CHECK(L.question_count == 1, "one question, got %d", L.question_count);
        if (L.question_count == 1) ok = question_check(&L, &T, &L.questions[0], 0, a, err);
        trace_free(&T);
        lesson_free(&L);
    }
    free(json);
    return ok;
}

static bool parse_fails(const char *q, const char *want_path, const char *want_msg)
{
    char *json = with_question(q);
    Lesson L;
    LessonError err;
    bool ok = lesson_parse(&L, json, strlen(json), "<test>", &err);
    free(json);
    if (ok) {
        lesson_free(&L);
        return false;
    }
    CHECK(strcmp(err.path, want_path) == 0, "path %s, want %s", err.path, want_path);
    CHECK(strstr(err.message, want_msg) != NULL, "message '%s' lacks '%s'", err.message, want_msg);
    CHECK(err.line == 4, "the error is on the question's line 4, got %d", err.line);
    return true;
}

static void test_parse(void)
{
    Lesson L;
    Trace T;
    if (load("lessons/the-cat-sat-on-the-mat.json", &L, &T)) {
        CHECK(L.question_count == 4, "the mat lesson has 4 questions, got %d", L.question_count);
        const LessonQuestion *q = &L.questions[3];
        CHECK(strcmp(q->stage, "scores") == 0 && q->head == 0 && q->kind == ANSWER_CHOICE,
              "question 4: %s", q->stage);
        CHECK(q->choice_count == 4 && q->choices[2] == 4 && q->correct == 2
                  && strcmp(q->matrix, "scores") == 0,
              "its choices");
        CHECK(L.questions[2].kind == ANSWER_VALUE && L.questions[2].tolerance == 0.01,
              "question 3 is a value");
        CHECK(strstr(L.questions[0].text, "\xe2\x80\x9c"
                                          "cat"
                                          "\xe2\x80\x9d")
                  != NULL,
              "UTF-8 text kept");
        trace_free(&T);
        lesson_free(&L);
    }
    CHECK(parse_fails("{\"stage\": \"softmax\", \"text\": \"?\", \"answer\": {\"kind\": \"cell\", "
                      "\"cell\": [1, 2], "
                      "\"pick\": \"most\"}}",
                      "questions[0].answer.pick", "expected \"max\" or \"min\""),
          "pick must be max or min");
    CHECK(parse_fails(
              "{\"stage\": 3, \"text\": \"?\", \"answer\": {\"kind\": \"cell\", \"cell\": [1, 2]}}",
              "questions[0].stage", "expected a string"),
          "the stage is a string");
    CHECK(parse_fails("{\"stage\": \"softmax\", \"text\": \"?\", \"answer\": {\"kind\": \"value\", "
                      "\"cell\": [1, 2], "
                      "\"value\": 0.4, \"tolerance\": -0.1}}",
                      "questions[0].answer.tolerance", "greater than 0"),
          "a negative tolerance");
    CHECK(parse_fails("{\"stage\": \"softmax\", \"text\": \"?\", \"answer\": {\"kind\": "
                      "\"choice\", \"cell\": [1, 2], "
                      "\"choices\": [1,2,3,4,5,6,7,8,9,10], \"correct\": 0}}",
                      "questions[0].answer.choices", "got 10"),
          "ten choices");
    // No questions: none, and the lesson is as before.
    if (load("lessons/cross-attention.json", &L, &T)) {
        CHECK(L.question_count == 0 && L.questions == NULL, "no questions");
        trace_free(&T);
        lesson_free(&L);
    }
}

static void test_cell(void)
{
    LessonError err;
    QuestionAnswer a;
    // Head 1's weights of the cat (row 1): 0.2751 0.5487 0.1762: the largest is column 1.
    CHECK(check_one("{\"stage\": \"softmax\", \"head\": 1, \"text\": \"?\", \"answer\": {\"kind\": "
                    "\"cell\", \"cell\": [1, 1]}}",
                    &err, &a),
          "the right cell passes: %s", err.message);
    CHECK(a.cell.row == 1 && a.cell.col == 1 && fabs(a.value - 0.5487) < 5e-5
              && a.mat == MAT_WEIGHTS && a.head == 1,
          "the answer: [%d, %d] %g", a.cell.row, a.cell.col, a.value);
    CHECK(!check_one("{\"stage\": \"softmax\", \"head\": 1, \"text\": \"?\", \"answer\": "
                     "{\"kind\": \"cell\", \"cell\": [1, 2]}}",
                     &err, &a),
          "a wrong cell fails");
    CHECK(strcmp(err.path, "questions[0].answer") == 0 && err.line == 4 && err.col == 58,
          "positioned: %s %d:%d", err.path, err.line, err.col);
    CHECK(strstr(err.message, "[1, 1]") && strstr(err.message, "0.5487")
              && strstr(err.message, "the lesson says [1, 2]"),
          "the right answer in the message: %s", err.message);
    // The smallest of a column: column 2 of head 0 (0.1458 0.4332 0.2317) is smallest in row 0.
    CHECK(check_one("{\"stage\": \"softmax\", \"text\": \"?\", \"answer\": {\"kind\": \"cell\", "
                    "\"cell\": [0, 2], "
                    "\"among\": \"column\", \"pick\": \"min\"}}",
                    &err, &a),
          "the smallest of a column: %s", err.message);
    // The largest of the whole matrix of head 0: 0.6111 at [0, 0].
    CHECK(check_one("{\"stage\": \"softmax\", \"text\": \"?\", \"answer\": {\"kind\": \"cell\", "
                    "\"cell\": [0, 0], "
                    "\"among\": \"matrix\"}}",
                    &err, &a),
          "the largest of the matrix: %s", err.message);
    CHECK(!check_one("{\"stage\": \"softmax\", \"text\": \"?\", \"answer\": {\"kind\": \"cell\", "
                     "\"cell\": [2, 0], "
                     "\"among\": \"matrix\"}}",
                     &err, &a),
          "the largest of its row is not the largest of the matrix");
    // Out of range, not the stage's matrix, a stage the lesson has not.
    CHECK(!check_one("{\"stage\": \"softmax\", \"text\": \"?\", \"answer\": {\"kind\": \"cell\", "
                     "\"cell\": [3, 0]}}",
                     &err, &a)
              && strcmp(err.path, "questions[0].answer.cell") == 0 && strstr(err.message, "3 rows"),
          "row 3 of 3: %s", err.message);
    CHECK(!check_one("{\"stage\": \"softmax\", \"text\": \"?\", \"answer\": {\"kind\": \"cell\", "
                     "\"matrix\": \"scores\", "
                     "\"cell\": [0, 0]}}",
                     &err, &a)
              && strcmp(err.path, "questions[0].answer.matrix") == 0
              && strstr(err.message, "(weights)"),
          "scores are not the softmax's: %s", err.message);
    CHECK(!check_one("{\"stage\": \"mask\", \"text\": \"?\", \"answer\": {\"kind\": \"cell\", "
                     "\"cell\": [0, 0]}}",
                     &err, &a)
              && strcmp(err.path, "questions[0].stage") == 0 && err.col == 13,
          "no mask in this lesson: %s %d:%d", err.message, err.line, err.col);
    CHECK(!check_one("{\"stage\": \"input\", \"text\": \"?\", \"answer\": {\"kind\": \"cell\", "
                     "\"cell\": [0, 0]}}",
                     &err, &a)
              && strstr(err.message, "nothing to predict"),
          "the input stage: %s", err.message);
    // A question on the second result of the projections: K.
    CHECK(check_one("{\"stage\": \"projections\", \"text\": \"?\", \"answer\": {\"kind\": "
                    "\"value\", \"matrix\": \"K\", "
                    "\"cell\": [0, 0], \"value\": 0, \"tolerance\": 100}}",
                    &err, &a)
              && a.mat == MAT_K,
          "K on the projections: %s", err.message);
}

static void test_value(void)
{
    LessonError err;
    QuestionAnswer a;
    char q[256];
    // weights_0[0][0] = 0.61106340127283476: right within the tolerance, at its edge, wrong just
    // past it.
    snprintf(q, sizeof q,
             "{\"stage\": \"softmax\", \"text\": \"?\", \"answer\": {\"kind\": \"value\", "
             "\"cell\": [0, 0], "
             "\"value\": 0.6, \"tolerance\": 0.02}}");
    CHECK(check_one(q, &err, &a), "0.6 ± 0.02 holds 0.6111: %s", err.message);
    snprintf(q, sizeof q,
             "{\"stage\": \"softmax\", \"text\": \"?\", \"answer\": {\"kind\": \"value\", "
             "\"cell\": [0, 0], "
             "\"value\": 0.6, \"tolerance\": 0.0110635}}");
    CHECK(check_one(q, &err, &a), "0.6 ± 0.0110635 holds 0.61106340: %s", err.message);
    snprintf(q, sizeof q,
             "{\"stage\": \"softmax\", \"text\": \"?\", \"answer\": {\"kind\": \"value\", "
             "\"cell\": [0, 0], "
             "\"value\": 0.6, \"tolerance\": 0.0110633}}");
    CHECK(!check_one(q, &err, &a), "0.6 ± 0.0110633 misses 0.61106340");
    CHECK(strstr(err.message, "0.6111") && strstr(err.message, "0.6 \xc2\xb1 0.0110633"),
          "message: %s", err.message);
    // A masked cell has no number to predict (the causal lesson's weights above the diagonal are 0,
    // its masked scores −∞).
    Lesson L;
    Trace T;
    if (load("lessons/causal-decoder.json", &L, &T)) {
        LessonQuestion q2 = L.questions[0];
        q2.stage = "mask";
        q2.matrix = NULL;
        q2.row = 0;
        q2.col = 1;
        CHECK(!question_answer(&L, &T, &q2, 0, &a, &err) && strstr(err.message, "masked"),
              "masked: %s", err.message);
        // The largest of a causal row never picks a masked cell; the smallest neither.
        q2.kind = ANSWER_CELL;
        q2.pick_min = true;
        q2.row = 1;
        q2.col = 0;
        CHECK(question_answer(&L, &T, &q2, 0, &a, &err) && a.cell.col <= 1 && isfinite(a.value),
              "the smallest of row 1 of the masked scores is before the diagonal: col %d",
              a.cell.col);
        trace_free(&T);
        lesson_free(&L);
    }
}

static void test_choice(void)
{
    LessonError err;
    QuestionAnswer a;
    // scores_0[1][2] = 1.3465: nearest 1.3 (index 2).
    CHECK(check_one("{\"stage\": \"scores\", \"text\": \"?\", \"answer\": {\"kind\": \"choice\", "
                    "\"cell\": [1, 2], "
                    "\"choices\": [-1, 0, 1.3], \"correct\": 2}}",
                    &err, &a)
              && a.choice == 2,
          "the nearest choice: %s", err.message);
    CHECK(!check_one("{\"stage\": \"scores\", \"text\": \"?\", \"answer\": {\"kind\": \"choice\", "
                     "\"cell\": [1, 2], "
                     "\"choices\": [-1, 0, 1.3], \"correct\": 1}}",
                     &err, &a),
          "a wrong choice fails");
    CHECK(strstr(err.message, "choices[2] = 1.3") && strstr(err.message, "\"correct\": 1"),
          "message: %s", err.message);
    // Two choices equally near: no single answer.
    CHECK(!check_one("{\"stage\": \"scores\", \"text\": \"?\", \"answer\": {\"kind\": \"choice\", "
                     "\"cell\": [1, 2], "
                     "\"choices\": [1.3465, 1.3465], \"correct\": 0}}",
                     &err, &a)
              && strstr(err.message, "equally near"),
          "a tie: %s", err.message);
}

// The shipped questions all pass --check's test; the window's judging of responses.
static void test_shipped_and_judge(void)
{
    static const char *const files[] = {"lessons/the-cat-sat.json",
                                        "lessons/the-cat-sat-on-the-mat.json",
                                        "lessons/causal-decoder.json"};
    for (int f = 0; f < 3; f++) {
        Lesson L;
        Trace T;
        if (!load(files[f], &L, &T)) continue;
        LessonReport rep;
        memset(&rep, 0, sizeof rep);
        CHECK(L.question_count >= 3, "%s has questions", files[f]);
        CHECK(questions_check(&L, &T, files[f], &rep) == 0, "%s: %s", files[f],
              rep.count ? rep.items[0].message : "");
        lesson_report_free(&rep);
        trace_free(&T);
        lesson_free(&L);
    }
    Lesson L;
    Trace T;
    if (!load("lessons/the-cat-sat.json", &L, &T)) return;
    QuestionAnswer a;
    LessonError err;
    QuestionResponse r = {{MAT_WEIGHTS, 1, 1, 1}, 0, -1};
    CHECK(question_answer(&L, &T, &L.questions[0], 0, &a, &err), "question 1 answers");
    CHECK(question_judge(&L.questions[0], &a, &L.params, &T, &r),
          "clicking the right cell is right");
    r.cell.col = 2;
    CHECK(!question_judge(&L.questions[0], &a, &L.params, &T, &r), "another column is wrong");
    r.cell = (CellRef){MAT_WEIGHTS, 0, 1, 1};
    CHECK(!question_judge(&L.questions[0], &a, &L.params, &T, &r),
          "the same cell of another head is wrong");
    r.cell = (CellRef){MAT_SCORES, 1, 1, 1};
    CHECK(!question_judge(&L.questions[0], &a, &L.params, &T, &r),
          "the same cell of another matrix is wrong");
    CHECK(question_answer(&L, &T, &L.questions[1], 1, &a, &err), "question 2 answers");
    r.value = 0.65;
    CHECK(question_judge(&L.questions[1], &a, &L.params, &T, &r), "0.65 is within 0.05 of 0.6111");
    r.value = 0.67;
    CHECK(!question_judge(&L.questions[1], &a, &L.params, &T, &r), "0.67 is not");
    r.value = NAN;
    CHECK(!question_judge(&L.questions[1], &a, &L.params, &T, &r), "nothing typed is wrong");
    CHECK(question_answer(&L, &T, &L.questions[2], 2, &a, &err), "question 3 answers");
    r.choice = 2;
    CHECK(question_judge(&L.questions[2], &a, &L.params, &T, &r), "choice 2 (key 3) is right");
    r.choice = 0;
    CHECK(!question_judge(&L.questions[2], &a, &L.params, &T, &r), "choice 0 is wrong");
    char buf[512];
    question_describe(&L.questions[2], &a, &L, buf, sizeof buf);
    CHECK(strstr(buf, "key 3: 1.3") && strstr(buf, "1.3465"), "described: %s", buf);
    question_prompt(&L.questions[2], &a, buf, sizeof buf);
    CHECK(strstr(buf, "1: -1") && strstr(buf, "3: 1.3"), "prompt: %s", buf);
    // What the class gave, in words; how it answers in the window (the table's input column).
    QuestionResponse given = {{MAT_WEIGHTS, 1, 1, 2}, 0.6, 2};
    question_response(&L.questions[0], &L, &given, buf, sizeof buf);
    CHECK(!strcmp(buf, "you picked row 1 (\xe2\x80\x9c"
                       "cat\xe2\x80\x9d), column 2 (\xe2\x80\x9c"
                       "sat\xe2\x80\x9d)"),
          "response: %s", buf);
    question_response(&L.questions[1], &L, &given, buf, sizeof buf);
    CHECK(!strcmp(buf, "you said 0.6"), "response: %s", buf);
    question_response(&L.questions[2], &L, &given, buf, sizeof buf);
    CHECK(!strcmp(buf, "you pressed 3 (1.3)"), "response: %s", buf);
    given.choice = -1;
    question_response(&L.questions[2], &L, &given, buf, sizeof buf);
    CHECK(buf[0] == '\0', "no choice given: nothing said");
    ViewQuestion vq = question_view(&L.questions[2], &a);
    CHECK(vq.input == QUIZ_KEYS && vq.choices == 3 && vq.stage == STAGE_SCORES
              && vq.mat == MAT_SCORES,
          "keys 1..3");
    CHECK(answer_kind_info(ANSWER_CELL)->input == QUIZ_CLICK
              && answer_kind_info(ANSWER_VALUE)->input == QUIZ_TYPE,
          "a cell is clicked, a value typed");

    // The automatic question: the same counter, the same row; its stated answer checks; rows vary.
    LessonQuestion q1, q2;
    bool seen[3] = {false, false, false};
    for (unsigned k = 0; k < 24; k++) {
        CHECK(question_auto(&q1, &L, &T, 1, k) && question_auto(&q2, &L, &T, 1, k), "auto %u", k);
        CHECK(q1.row == q2.row && q1.col == q2.col && strcmp(q1.text, q2.text) == 0,
              "deterministic");
        CHECK(q1.head == 1 && q1.kind == ANSWER_CELL && q1.row >= 0 && q1.row < 3, "in range");
        seen[q1.row] = true;
        CHECK(question_check(&L, &T, &q1, 0, &a, &err), "the automatic answer checks: %s",
              err.message);
        lesson_question_free(&q1);
        lesson_question_free(&q2);
    }
    CHECK(seen[0] && seen[1] && seen[2], "24 counters reach every row");
    trace_free(&T);
    lesson_free(&L);
    if (load("lessons/causal-decoder.json", &L, &T)) {
        for (unsigned k = 0; k < 16; k++) {
            CHECK(question_auto(&q1, &L, &T, 0, k) && q1.row >= 1,
                  "causal: never the one-key first row");
            lesson_question_free(&q1);
        }
        trace_free(&T);
        lesson_free(&L);
    }
}

int main(void)
{
    test_parse();
    test_cell();
    test_value();
    test_choice();
    test_shipped_and_judge();
    return check_report("test_questions");
}
