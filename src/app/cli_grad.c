// --grad: the loss and every parameter's gradient as JSON, after checking that each is a finite
// number (JSON has no infinity).
#include <math.h>
#include <stdio.h>

#include "app/cli.h"
#include "core/params.h"

// The first value of m that is not finite, as "KEY[r][c]" after prefix (a bias, one row: "KEY[c]"),
// into at.
static bool grad_bad_cell(const Matrix *m, bool bias, const char *prefix, char *at, size_t cap,
                          double *v)
{
    for (int r = 0; r < m->rows; r++)
        for (int c = 0; c < m->cols; c++) {
            if (isfinite(*v = mat_get(m, r, c))) continue;
            if (bias) snprintf(at, cap, "%s[%d]", prefix, c);
            else snprintf(at, cap, "%s[%d][%d]", prefix, r, c);
            return true;
        }
    return false;
}

// Where cli_print_grad's output would hold its first non-finite number (JSON has none), in its
// keys.
static bool grad_bad(double loss, const AttnParams *g, char *at, size_t cap, double *v)
{
    if (!isfinite(*v = loss)) {
        snprintf(at, cap, "loss");
        return true;
    }
    if (grad_bad_cell(&g->X, false, "grad.embeddings", at, cap, v)) return true;
    if (g->cross && grad_bad_cell(&g->S, false, "grad.source_embeddings", at, cap, v)) return true;
    for (int i = 0; i < PARAM_COUNT; i++)
        for (int h = 0; h < params_count(g, i); h++) {
            char prefix[64];
            if (PARAMS[i].per_head)
                snprintf(prefix, sizeof prefix, "grad.%s[%d]", PARAMS[i].name, h);
            else snprintf(prefix, sizeof prefix, "grad.%s", PARAMS[i].name);
            if (grad_bad_cell(params_own_const(g, i, h), PARAMS[i].bias, prefix, at, cap, v))
                return true;
        }
    return false;
}

bool cli_grad_check(double loss, const AttnParams *g, const Matrix *targets, char *why, size_t cap)
{
    char at[96];
    double v;
    if (!grad_bad(loss, g, at, sizeof at, &v)) return true;
    int tr = 0, tc = 0; // the largest target, the likeliest cause
    for (int r = 0; r < targets->rows; r++)
        for (int c = 0; c < targets->cols; c++)
            if (fabs(mat_get(targets, r, c)) > fabs(mat_get(targets, tr, tc))) tr = r, tc = c;
    char cause[96];
    if (isfinite(loss))
        snprintf(cause, sizeof cause, "a gradient exceeds a double, the loss being %.6g", loss);
    else
        snprintf(cause, sizeof cause,
                 "the squared distance from the output to the targets exceeds a double");
    snprintf(why, cap,
             "--grad overflows: %s is %s, which JSON cannot hold (%s; the largest target is "
             "targets[%d][%d] = %.6g); "
             "nothing was printed",
             at,
             isnan(v) ? "not a number"
             : v > 0  ? "infinite"
                      : "-infinite",
             cause, tr, tc, mat_get(targets, tr, tc));
    return false;
}

void cli_print_grad(FILE *out, double loss, const AttnParams *g)
{
    fputs("{\"loss\": ", out);
    cli_json_number(out, loss); // finite: cli_grad_check came first
    fputs(", \"grad\": {\n  \"embeddings\": ", out);
    cli_json_matrix_compact(out, &g->X);
    if (g->cross) {
        fputs(",\n  \"source_embeddings\": ", out);
        cli_json_matrix_compact(out, &g->S);
    }
    // The weights in PARAMS' order: a per-head row as a list over the heads (W_K, W_V, b_K, b_V
    // over the K/V heads); a bias as its one row.
    for (int i = 0; i < PARAM_COUNT; i++) {
        fprintf(out, ",\n  \"%s\": %s", PARAMS[i].name, PARAMS[i].per_head ? "[" : "");
        for (int h = 0; h < params_count(g, i); h++) {
            const Matrix *m = params_own_const(g, i, h);
            if (h) fputs(", ", out);
            if (PARAMS[i].bias) cli_json_row(out, m->data, m->cols);
            else cli_json_matrix_compact(out, m);
        }
        if (PARAMS[i].per_head) fputc(']', out);
    }
    fputs("\n}}\n", out);
}
