// The handout's words (handout_text.h): its title page's lines and its answer key's entries, for
// the PDF and the page's printed handout alike.
#include "model/handout_text.h"

#include <stdio.h>
#include <string.h>

#include "model/explain.h"
#include "model/i18n.h"
#include "model/questions.h"
#include "model/stage_text.h"

// Lines and their pieces are cut to their buffers on purpose.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

static void title_tokens(char *const *tokens, int count, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < count && n + 8 < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", i ? "  \xc2\xb7  " : "", tokens[i]);
}

// Appends ", " and piece to buf (cut to cap).
static void append(char *buf, size_t cap, const char *piece)
{
    size_t n = strlen(buf);
    if (n < cap) snprintf(buf + n, cap - n, ", %s", piece);
}

static void title_shapes(const Lesson *L, char *buf, size_t cap)
{
    const AttnParams *p = &L->params;
    char part[200];
    // TRANSLATORS: the handout's title page, the lesson's shapes: "3 tokens, d_model = 4, ..."
    snprintf(buf, cap, TRN("%d token", "%d tokens", p->n), p->n);
    snprintf(part, sizeof part, "d_model = %d", p->d_model);
    append(buf, cap, part);
    // TRANSLATORS: the handout's title page, after the tokens and d_model: "2 heads of d_k = 2"
    snprintf(part, sizeof part, TRN("%d head of d_k = %d", "%d heads of d_k = %d", p->heads),
             p->heads, p->d_k);
    append(buf, cap, part);
    if (p->cross) {
        snprintf(part, sizeof part, TRN("%d source token", "%d source tokens", p->m), p->m);
        append(buf, cap, part);
    }
    if (p->kv_heads != p->heads) {
        snprintf(part, sizeof part, TRN("%d K/V head", "%d K/V heads", p->kv_heads), p->kv_heads);
        append(buf, cap, part);
    }
    if (p->mask == MASK_CAUSAL) append(buf, cap, TR("causal mask"));
    if (p->window > 0) {
        // TRANSLATORS: the handout's title page: a sliding window of this many tokens
        snprintf(part, sizeof part, TR("a window of %d"), p->window);
        append(buf, cap, part);
    }
    if (p->rope != ROPE_NONE) append(buf, cap, "RoPE");
}

void handout_title_lines(const Lesson *L, int stages, int head,
                         char lines[HANDOUT_TITLE_LINES][HANDOUT_LINE_MAX])
{
    char tokens[1600], more[300];
    title_tokens(L->tokens, L->params.n, tokens, sizeof tokens);
    snprintf(lines[HANDOUT_TITLE_TOKENS], HANDOUT_LINE_MAX, TR("Tokens: %s"), tokens);
    lines[HANDOUT_TITLE_SOURCE][0] = '\0';
    if (L->params.cross && L->source_tokens) {
        title_tokens(L->source_tokens, L->params.m, tokens, sizeof tokens);
        snprintf(lines[HANDOUT_TITLE_SOURCE], HANDOUT_LINE_MAX, TR("Source tokens: %s"), tokens);
    }
    title_shapes(L, lines[HANDOUT_TITLE_SHAPES], HANDOUT_LINE_MAX);
    char *counts = lines[HANDOUT_TITLE_COUNTS];
    // TRANSLATORS: the handout's title page: how many stages it shows, of which head
    snprintf(counts, HANDOUT_LINE_MAX, TRN("%d stage, head %d", "%d stages, head %d", stages),
             stages, head);
    if (L->question_count > 0) {
        // TRANSLATORS: the handout's title page, after "7 stages, head 0; "
        snprintf(more, sizeof more,
                 TRN("%d question, answered at the end", "%d questions, answered at the end",
                     L->question_count),
                 L->question_count);
        snprintf(counts + strlen(counts), HANDOUT_LINE_MAX - strlen(counts), "; %s", more);
    }
}

void handout_key_entry(const Lesson *L, const Trace *T, int k, HandoutKeyEntry *e)
{
    int i = questions_asked(L, k);
    const LessonQuestion *q = &L->questions[i];
    memset(e, 0, sizeof *e);
    // TRANSLATORS: the handout's answer key: a question's heading (the stage's name as the lesson
    // writes it)
    snprintf(e->heading, sizeof e->heading, TR("Question %d of %d  (stage %s, head %d)"), k + 1,
             L->question_count, q->stage, q->head);
    e->question = q->text;
    QuestionAnswer a;
    LessonError err;
    memset(&err, 0, sizeof err);
    if (!question_answer(L, T, q, i, &a, &err)) {
        snprintf(e->answer, sizeof e->answer, TR("(no answer: %s)"), err.message);
        return;
    }
    char words[512];
    question_describe(q, &a, L, words, sizeof words);
    snprintf(e->answer, sizeof e->answer, TR("Answer: %s"), words);
    e->answered = true;
    char lines[HANDOUT_ARITH_MAX][256];
    int n = model_explain(L, T, a.cell, lines, HANDOUT_ARITH_MAX, false);
    for (int l = 0; l < n; l++)
        stage_text_plain(lines[l], e->arithmetic[l], sizeof e->arithmetic[l]);
    e->arithmetic_count = n;
}
