// Tests the stage as text (src/model/stage_text.c, issue 24) without SDL: the HTML of the softmax
// stage holds A₀ as a table with a caption and the tokens as <th scope> headers and the numbers as
// the board rounds them; a reveal or a question hides result cells as "?"; tokens are escaped; the
// tab-separated text has a header line and one line per token; the status line says the stage, head
// and part.
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lesson_trace.h"
#include "model/stage_text.h"

static char *html_of(const ViewState *st, const Lesson *L, const Trace *T)
{
    StageTextSrc src = {st, L, T};
    StrBuf b = {0};
    CHECK(stage_text_html(&b, &src) && b.p, "stage_text_html writes");
    return b.p;
}

static void test_softmax(const Lesson *L, const Trace *T)
{
    ViewState st;
    CHECK(stage_text_view(&st, &L->params, STAGE_SOFTMAX, 0), "the cat lesson has a softmax stage");
    char *h = html_of(&st, L, T);
    if (!h) return;
    CHECK(strstr(h, "<table data-mat=\"weights\" data-head=\"0\"><caption>A\xe2\x82\x80: attention "
                    "weights, 3 \xc3\x97 3, head 0 (1 of 2)</caption>"),
          "A0's table and caption: %.300s", h);
    CHECK(
        strstr(h, "<th scope=\"col\">The</th><th scope=\"col\">cat</th><th scope=\"col\">sat</th>"),
        "token column headers");
    CHECK(strstr(h, "<tr><th scope=\"row\">The</th><td data-row=\"0\" data-col=\"0\">0.6111</td>"),
          "A0[The, The] = 0.6111 in its row");
    CHECK(strstr(h, "<h2 id=\"st-title\">Softmax</h2>"), "the stage's title");
    CHECK(!strstr(h, "st-hid"), "nothing hidden in a whole stage");
    free(h);
    // The reveal: no result cell filled yet; S' (given) stays, A0's cells are "?".
    st.reveal = 0;
    h = html_of(&st, L, T);
    if (!h) return;
    CHECK(strstr(h, "<td data-row=\"0\" data-col=\"0\" class=\"st-hid\">?</td>")
              && strstr(h, "class=\"st-hidden\""),
          "a result cell not revealed is ? with the note");
    CHECK(!strstr(h, ">0.6111<"), "the hidden 0.6111 is not in the text");
    free(h);
    st.reveal = -1;
    st.head = 1;
    st.substep_count = 2;
    char where[128];
    StageTextSrc src = {&st, L, T};
    stage_text_status(&src, where, sizeof where);
    CHECK(!strcmp(where, "Softmax, head 1 (2 of 2), part 1 of 2"), "status: '%s'", where);
    StrBuf b = {0};
    CHECK(stage_text_tsv(&b, &src) && b.p, "stage_text_tsv writes");
    CHECK(b.p && strstr(b.p, "\nA\xe2\x82\x81\tThe\tcat\tsat\nThe\t0.3020\t0.3639\t0.3342\n"),
          "A1 tab-separated: %s", b.p ? b.p : "");
    CHECK(b.p && strstr(b.p, "\t-0.0851\t"),
          "a spreadsheet's minus sign in the tab-separated text");
    free(b.p);
}

static void test_escape(void)
{
    static const char json[] =
        "{\"title\": \"t\", \"tokens\": [\"<b>\", \"a&b\"], \"embeddings\": [[1, 0], [0, 1]],"
        " \"heads\": 1, \"weights\": {\"random\": {\"seed\": 1}}}";
    Lesson L;
    Trace T;
    if (!parse(json, &L, &T)) return;
    ViewState st;
    CHECK(stage_text_view(&st, &L.params, STAGE_INPUT, 0), "input stage");
    char *h = html_of(&st, &L, &T);
    CHECK(h && strstr(h, "<th scope=\"row\">&lt;b&gt;</th>")
              && strstr(h, "<th scope=\"row\">a&amp;b</th>") && !strstr(h, "<b>"),
          "tokens escaped: %s", h ? h : "");
    char plain[64];
    stage_text_plain("Q K^T, W^Q", plain, sizeof plain);
    CHECK(!strcmp(plain, "Q K\xe1\xb5\x80, W^Q"), "plain notation: '%s'", plain);
    StrBuf b = {0};
    stage_text_html_put(&b, "10000^(2i/d) W^Q", true);
    CHECK(b.p && !strcmp(b.p, "10000<sup>2i/d</sup> W<sup>Q</sup>"), "raised in HTML: '%s'",
          b.p ? b.p : "");
    free(b.p);
    free(h);
    trace_free(&T);
    lesson_free(&L);
}

int main(void)
{
    Lesson L;
    Trace T;
    if (load("lessons/the-cat-sat.json", &L, &T)) {
        test_softmax(&L, &T);
        trace_free(&T);
        lesson_free(&L);
    }
    test_escape();
    return check_report("test_stage_text");
}
