// What the window keeps of a checkpoint's layer (issue 40: hf_model_run_ex's LayerStream) against a
// float64 reference forward (tests/model_stream_ref.py): the stream at the layer's input and after
// the residual add (as the residual stage shows it: h + Output, from the trace), X as the norm
// stage makes it from h and g, the top 10 next tokens at every position (ids exact, probabilities
// within 1e-9), the last position's equal to
// --json's (hf_model_run) within 1e-9, the overview's weights the trace's (as float), and the three
// stages present only with the stream. usage: test_model_stream CHECKPOINT_DIR EXPECTED LAYER
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hf/hf_model.h"
#include "model/matrices.h"
#include "model/stages.h"

enum { MAX_N = 64, MAX_D = 64 };

typedef struct {
    int n, d, ids[MAX_N];
    double before[MAX_N][MAX_D], after[MAX_N][MAX_D];
    int top_id[MAX_N][10];
    double top_p[MAX_N][10];
} Expected;

// EXPECTED's lines: "ids ...", "before ..." and "after ..." (a row each), "top POS id:p ..." (10
// each).
static bool read_expected(Expected *e, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return false;
    static char line[65536];
    int nb = 0, na = 0;
    memset(e, 0, sizeof *e);
    while (fgets(line, sizeof line, f)) {
        char *tok = strtok(line, " \n");
        if (!tok) continue;
        if (!strcmp(tok, "ids"))
            for (char *t; (t = strtok(NULL, " \n")) && e->n < MAX_N;) e->ids[e->n++] = atoi(t);
        else if (!strcmp(tok, "before") || !strcmp(tok, "after")) {
            double(*m)[MAX_D] = tok[0] == 'b' ? e->before : e->after;
            int *row = tok[0] == 'b' ? &nb : &na, j = 0;
            for (char *t; (t = strtok(NULL, " \n")) && j < MAX_D;) m[*row][j++] = strtod(t, NULL);
            e->d = j;
            (*row)++;
        } else if (!strcmp(tok, "top")) {
            int pos = atoi(strtok(NULL, " \n")), k = 0;
            for (char *t; (t = strtok(NULL, " \n")) && k < 10 && pos < MAX_N; k++) {
                e->top_id[pos][k] = atoi(t);
                e->top_p[pos][k] = strtod(strchr(t, ':') + 1, NULL);
            }
        }
    }
    fclose(f);
    return e->n > 0 && nb == e->n && na == e->n;
}

static bool has_stage(const AttnParams *p, Stage s)
{
    Stage st[STAGE_COUNT];
    int n = model_stages(p, st);
    for (int i = 0; i < n; i++)
        if (st[i] == s) return true;
    return false;
}

static void check_stream(const HfRun *r, const HfRun *plain, const Expected *e, int layer)
{
    const Lesson *L = &r->lesson;
    const LayerStream *s = r->stream;
    CHECK(s && L->params.stream == s && s->layer == layer, "the run keeps the layer's stream");
    if (!s) return;
    CHECK(r->n == e->n && !memcmp(r->ids, e->ids, sizeof(int) * (size_t)e->n), "the token ids");
    Trace t;
    TraceError terr;
    if (!trace_run(&t, &L->params, &terr)) {
        CHECK(false, "the layer traces: %s", terr.message);
        return;
    }
    double worst_h = 0, worst_after = 0, worst_x = 0, worst_p = 0, worst_json = 0, worst_view = 0;
    for (int i = 0; i < e->n; i++) {
        double ms = 0;
        for (int j = 0; j < e->d; j++) ms += mat_get(&s->x, i, j) * mat_get(&s->x, i, j);
        double root = sqrt(ms / e->d + s->eps);
        for (int j = 0; j < e->d; j++) {
            worst_h = fmax(worst_h, fabs(mat_get(&s->x, i, j) - e->before[i][j]));
            double after = model_cell_value(&L->params, &t, (CellRef){MAT_RESIDUAL, 0, i, j});
            worst_after = fmax(worst_after, fabs(after - e->after[i][j]));
            double x =
                mat_get(&s->x, i, j) / root * mat_get(&s->gain, 0, j); // the norm stage's formula
            worst_x = fmax(worst_x, fabs(x - mat_get(&L->params.X, i, j)));
        }
        for (int k = 0; k < s->top; k++) {
            size_t at = (size_t)i * (size_t)s->top + (size_t)k;
            CHECK(s->top_id[at] == e->top_id[i][k], "position %d rank %d: token %d, expected %d", i,
                  k, s->top_id[at], e->top_id[i][k]);
            worst_p = fmax(worst_p, fabs(s->top_p[at] - e->top_p[i][k]));
            double shown = model_cell_value(&L->params, &t, (CellRef){MAT_NEXT, 0, i, k});
            worst_view = fmax(worst_view, fabs(shown - s->top_p[at]));
        }
    }
    for (int k = 0; k < HF_TOP; k++) { // the chart's last position against --json's next_token
        size_t at = (size_t)(e->n - 1) * (size_t)s->top + (size_t)k;
        CHECK(plain->next[k].id == s->top_id[at], "the last position's rank %d is --json's", k);
        worst_json = fmax(worst_json, fabs(plain->next[k].p - s->top_p[at]));
    }
    double worst_w = 0;
    size_t nn = (size_t)s->n * (size_t)s->n;
    for (int h = 0; s->overview && h < s->heads; h++)
        for (size_t q = 0; q < nn; q++)
            worst_w = fmax(worst_w,
                           fabs(s->overview[((size_t)layer * (size_t)s->heads + (size_t)h) * nn + q]
                                - t.head[h].weights.data[q]));
    CHECK(s->overview && s->layers > layer, "the overview is kept");
    CHECK(worst_h <= 1e-9, "h differs from the reference by %g", worst_h);
    CHECK(worst_after <= 1e-9, "h' = h + Output differs from the reference by %g", worst_after);
    CHECK(worst_x <= 1e-12, "X differs from h / sqrt(mean(h^2) + eps) * g by %g", worst_x);
    CHECK(worst_p <= 1e-9, "the next tokens' probabilities differ from the reference by %g",
          worst_p);
    CHECK(worst_json <= 1e-9, "the last position's differ from --json's by %g", worst_json);
    CHECK(worst_view == 0, "the stage's cells are the run's numbers (%g)", worst_view);
    CHECK(worst_w <= 1e-6, "the overview's layer differs from the trace by %g (float)", worst_w);
    printf("largest differences: h %.3g, h' %.3g, X %.3g, p %.3g (--json %.3g), overview %.3g\n",
           worst_h, worst_after, worst_x, worst_p, worst_json, worst_w);
    CHECK(has_stage(&L->params, STAGE_NORM_IN) && has_stage(&L->params, STAGE_RESIDUAL)
              && has_stage(&L->params, STAGE_NEXT),
          "a checkpoint's layer has the norm, residual and next-token stages");
    CHECK(!has_stage(&plain->lesson.params, STAGE_NORM_IN)
              && !has_stage(&plain->lesson.params, STAGE_RESIDUAL)
              && !has_stage(&plain->lesson.params, STAGE_NEXT) && !plain->stream,
          "--json's run keeps nothing more: no such stages");
    trace_free(&t);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: test_model_stream CHECKPOINT_DIR EXPECTED LAYER\n");
        return 2;
    }
    static Expected e;
    int layer = atoi(argv[3]);
    CHECK(read_expected(&e, argv[2]), "%s is read", argv[2]);
    HfModel m;
    LessonError err;
    if (!hf_model_open(&m, argv[1], &err)) {
        CHECK(false, "%s opens: %s", argv[1], err.message);
        return check_report("test_model_stream");
    }
    HfRun r, plain;
    HfRunWant want = {.stream = true, .top = HF_TOP_WINDOW, .overview = true};
    bool ok = hf_model_run_ex(&r, &m, "The cat sat on the mat", layer, &want, &err);
    CHECK(ok, "the window's run: %s", err.message);
    bool ok2 = hf_model_run(&plain, &m, "The cat sat on the mat", layer, &err);
    CHECK(ok2, "--json's run: %s", err.message);
    if (ok && ok2) check_stream(&r, &plain, &e, layer);
    if (ok) hf_run_free(&r);
    if (ok2) hf_run_free(&plain);
    hf_model_close(&m);
    return check_report("test_model_stream");
}
