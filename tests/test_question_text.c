// Tests the question as the page's HTML form (src/model/question_text.c, issue 24) without SDL or a
// browser: each of the cat lesson's questions gets real fields (radio buttons named by the keys for
// "which word", one per choice, a labelled decimal text field for a number), a Submit and a Skip
// button, and nothing that gives the answer away; each radio button's value is a response the model
// judges as the window would; the verdict replaces the form once judged; a repeated token's button
// names its place; typed numbers become the window's keys.
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lesson_trace.h"
#include "model/question_text.h"
#include "model/stage_text.h"

// The view of question i of L asked, as the window asks it.
static bool ask(ViewState *st, const Lesson *L, const Trace *T, const LessonQuestion *q, int index,
                QuestionAnswer *a)
{
    LessonError err;
    if (!question_answer(L, T, q, index < 0 ? 0 : index, a, &err)) {
        CHECK(false, "question %d answers: %s", index, err.message);
        return false;
    }
    CHECK(stage_text_view(st, &L->params, a->stage, q->head), "the question's stage");
    ViewQuestion vq = question_view(q, a);
    view_quiz_ask(st, &vq, index);
    return true;
}

static char *html(const ViewState *st, const Lesson *L, const Trace *T, const LessonQuestion *q,
                  char *say, size_t cap)
{
    QuestionTextSrc src = {{st, L, T}, q};
    StrBuf b = {0};
    question_text_html(&b, &src, say, cap);
    CHECK(!b.oom && (b.p || !q), "question_text_html writes");
    return b.p;
}

// How many times needle occurs in h.
static int count(const char *h, const char *needle)
{
    int n = 0;
    for (const char *p = h; (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

static void test_cat(const Lesson *L, const Trace *T)
{
    int kinds = 0;
    for (int i = 0; i < L->question_count; i++) {
        const LessonQuestion *q = &L->questions[i];
        ViewState st;
        QuestionAnswer a;
        char say[1400], right[32];
        if (!ask(&st, L, T, q, i, &a)) continue;
        model_format_value(a.value, right, sizeof right);
        char *h = html(&st, L, T, q, say, sizeof say);
        if (!h) continue;
        CHECK(strstr(h, "<h3 id=\"quiz-title\">Question ")
                  && strstr(h, "<button type=\"submit\">Submit</button>")
                  && strstr(h, "<button type=\"button\" id=\"quiz-skip\">Skip (Esc)</button>")
                  && strstr(h, "id=\"quiz-error\"") && strstr(h, "aria-labelledby=\"quiz-title\""),
              "question %d: a titled form with Submit and Skip: %s", i, h);
        CHECK(!strstr(h, right), "question %d: the answer %s is not in the form", i, right);
        CHECK(!strncmp(say, "Question ", 9) && strstr(say, "(Esc: skip)"),
              "question %d announced: '%s'", i, say);
        if (q->kind == ANSWER_CELL) {
            kinds |= 1;
            // "Which word does cat attend to most in head 1?": the keys of cat's row, by name.
            CHECK(strstr(h, "data-kind=\"cell\"")
                      && strstr(h, "<fieldset aria-describedby=\"quiz-how "
                                   "quiz-error\"><legend>Your answer</legend>")
                      && strstr(h, "value=\"1,0\"> The</label>")
                      && strstr(h, "value=\"1,1\"> cat</label>")
                      && strstr(h, "value=\"1,2\"> sat</label>") && count(h, "type=\"radio\"") == 3,
                  "the cell question: a radio button per key of the row, named by the token: %s",
                  h);
            // The right button's value, given back as the window's click, is judged right; another
            // one not.
            char value[16];
            snprintf(value, sizeof value, "%d,%d", a.cell.row, a.cell.col);
            QuestionResponse good = {{a.mat, a.head, a.cell.row, a.cell.col}, 0, -1};
            QuestionResponse bad = {
                {a.mat, a.head, a.cell.row, (a.cell.col + 1) % L->params.m}, 0, -1};
            CHECK(strstr(h, value) && question_judge(q, &a, &L->params, T, &good)
                      && !question_judge(q, &a, &L->params, T, &bad),
                  "the button %s is the right answer, its neighbour is not", value);
        } else if (q->kind == ANSWER_VALUE) {
            kinds |= 2;
            CHECK(strstr(h, "data-kind=\"value\"")
                      && strstr(h, "<label for=\"quiz-number\">Your answer (a number)</label> "
                                   "<input id=\"quiz-number\"")
                      && strstr(h, "type=\"text\" inputmode=\"decimal\"")
                      && !strstr(h, "type=\"radio\""),
                  "the value question: a labelled decimal text field: %s", h);
        } else {
            kinds |= 4;
            CHECK(strstr(h, "data-kind=\"choice\"") && strstr(h, "value=\"1\"> 1: -1</label>")
                      && strstr(h, "value=\"3\"> 3: 1.3</label>")
                      && count(h, "type=\"radio\"") == q->choice_count,
                  "the choice question: a radio button per choice, named as its key: %s", h);
        }
        free(h);
        // Judged: the verdict in place of the form, the live line says it.
        st.quiz_phase = QUIZ_REVEALED;
        st.quiz_right = true;
        st.quiz_cell = a.cell;
        st.quiz_value = a.value;
        st.quiz_choice = a.choice;
        h = html(&st, L, T, q, say, sizeof say);
        if (!h) continue;
        CHECK(strstr(h, "<p id=\"quiz-verdict\" tabindex=\"-1\">\xe2\x9c\x93 Right \xe2\x80\x94 ")
                  && !strstr(h, "<form") && strstr(h, right),
              "question %d judged: the verdict with the answer %s, no form: %s", i, right, h);
        CHECK(!strncmp(say, "\xe2\x9c\x93 Right \xe2\x80\x94 you ", 10) && strstr(say, right),
              "question %d: the verdict announced: '%s'", i, say);
        free(h);
    }
    CHECK(kinds == 7, "the cat lesson asks a cell, a value and a choice question (%d)", kinds);
    // No question on screen: nothing.
    ViewState st;
    char say[64] = "x";
    CHECK(stage_text_view(&st, &L->params, STAGE_SOFTMAX, 0), "softmax");
    char *h = html(&st, L, T, NULL, say, sizeof say);
    CHECK(!h && !say[0], "no question: no box, nothing said");
    free(h);
}

// A token twice ("a <b> a"): the automatic question's buttons say which "a" (a₀, a₂), as the
// headers do.
static void test_repeated(void)
{
    static const char json[] = "{\"title\": \"t\", \"tokens\": [\"a\", \"<b>\", \"a\"], "
                               "\"embeddings\": [[1, 0], [0, 1], [1, 1]],"
                               " \"heads\": 1, \"weights\": {\"random\": {\"seed\": 1}}}";
    Lesson L;
    Trace T;
    if (!parse(json, &L, &T)) return;
    LessonQuestion q;
    CHECK(question_auto(&q, &L, &T, 0, 0), "an automatic question");
    ViewState st;
    QuestionAnswer a;
    if (ask(&st, &L, &T, &q, VIEW_QUIZ_AUTO, &a)) {
        char say[1400];
        char *h = html(&st, &L, &T, &q, say, sizeof say);
        CHECK(h && strstr(h, "> a\xe2\x82\x80</label>") && strstr(h, "> &lt;b&gt;</label>")
                  && strstr(h, "> a\xe2\x82\x82</label>")
                  && strstr(h, "<h3 id=\"quiz-title\">Question: Which key"),
              "repeated tokens named by their place, tokens escaped: %s", h ? h : "");
        free(h);
    }
    lesson_question_free(&q);
    trace_free(&T);
    lesson_free(&L);
}

static void test_number(void)
{
    static const struct {
        const char *in, *out;
    } ok[] = {
        {"0.61", "0.61"},
        {"0,61", "0.61"},
        {"  -0.6 ", "-0.6"},
        {"\xe2\x88\x92"
         "1.3",
         "-1.3"},
        {"+2", "2"},
        {".5", ".5"},
        {"7.", "7."},
    };
    static const char *const bad[] = {"",    " ",     "-",   ".",
                                      "1e3", "1.2.3", "0x1", "1 2",
                                      "abc", "--1",   "inf", "12345678901234567890123456"};
    char out[24];
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        CHECK(question_text_number(ok[i].in, out, sizeof out) && !strcmp(out, ok[i].out),
              "'%s' typed: '%s'", ok[i].in, out);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(!question_text_number(bad[i], out, sizeof out) && !out[0],
              "'%s' is no number for the form", bad[i]);
}

int main(void)
{
    Lesson L;
    Trace T;
    if (load("lessons/the-cat-sat.json", &L, &T)) {
        test_cat(&L, &T);
        trace_free(&T);
        lesson_free(&L);
    }
    test_repeated();
    test_number();
    return check_report("test_question_text");
}
