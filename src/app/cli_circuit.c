// A lesson of layers on the command line: --json (every layer as a lesson of one layer prints it,
// the residual stream, the logits, the loss, the heads' composition and, with a "train" section,
// the scores on the evaluation repeats), --grad (the loss's gradient, the names of the explicit
// lesson), --trace (the circuit's report in words) and --train. No SDL.
#include "app/cli_circuit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli.h"
#include "app/cli_circuit_train.h"
#include "app/options.h"

// A matrix without its key: rows a line each, indented by `indent`.
static void rows(FILE *out, const Matrix *m, const char *indent)
{
    fputc('[', out);
    for (int r = 0; r < m->rows; r++) {
        fprintf(out, "%s\n%s  ", r ? "," : "", indent);
        cli_json_row(out, mat_row(m, r), m->cols);
    }
    fprintf(out, "%s%s]", m->rows ? "\n" : "", m->rows ? indent : "");
}

static void vector(FILE *out, const char *key, const Matrix *m, const char *indent, bool last)
{
    fprintf(out, "%s\"%s\": ", indent, key);
    cli_json_row(out, m->data, m->cols);
    fprintf(out, "%s\n", last ? "" : ",");
}

// One head as a lesson of one layer prints it: its weights, then Q, K, V, the scores, scaled
// scores, weights and Z.
static void head_json(FILE *out, const LayerWeights *w, const HeadTrace *ht, int h)
{
    const char *ind = "          ";
    cli_json_matrix(out, "W_Q", &w->W_Q[h], ind, false);
    cli_json_matrix(out, "W_K", &w->W_K[h], ind, false);
    cli_json_matrix(out, "W_V", &w->W_V[h], ind, false);
    vector(out, "b_Q", &w->b_Q[h], ind, false);
    vector(out, "b_K", &w->b_K[h], ind, false);
    vector(out, "b_V", &w->b_V[h], ind, false);
    const Matrix *m[] = {&ht->Q, &ht->K, &ht->V, &ht->scores, &ht->scaled, &ht->weights, &ht->Z};
    const char *names[] = {"Q", "K", "V", "scores", "scaled", "weights", "Z"};
    for (int i = 0; i < 7; i++) cli_json_matrix(out, names[i], m[i], ind, i == 6);
}

static void layers_json(FILE *out, const Circuit *c, const CircuitRun *r)
{
    fputs("  \"layers\": [\n", out);
    for (int l = 0; l < c->layers; l++) {
        const Trace *t = &r->trace[l];
        fputs("    {\n", out);
        cli_json_matrix(out, "input", &r->x[l], "      ", false);
        fputs("      \"head\": [\n", out);
        for (int h = 0; h < c->shape.heads; h++) {
            fputs("        {\n", out);
            head_json(out, &c->w[l], &t->head[h], h);
            fprintf(out, "        }%s\n", h + 1 < c->shape.heads ? "," : "");
        }
        fputs("      ],\n", out);
        cli_json_matrix(out, "concat", &t->concat, "      ", false);
        cli_json_matrix(out, "W_O", &c->w[l].W_O, "      ", false);
        vector(out, "b_O", &c->w[l].b_O, "      ", false);
        cli_json_matrix(out, "output", &t->output, "      ", true);
        fprintf(out, "    }%s\n", l + 1 < c->layers ? "," : "");
    }
    fputs("  ],\n", out);
}

// "composition": for each later layer and each earlier one, the Q-, K- and V-composition of every
// pair of heads (rows: the later layer's heads, columns: the earlier layer's).
static void composition_json(FILE *out, const Circuit *c)
{
    static const char *const kinds[] = {"Q", "K", "V"};
    int H = c->shape.heads;
    double *row = malloc((size_t)H * sizeof *row);
    fputs("  \"composition\": [", out);
    bool first = true;
    for (int l2 = 1; row && l2 < c->layers; l2++)
        for (int l1 = 0; l1 < l2; l1++) {
            fprintf(out, "%s\n    {\"layer\": %d, \"from_layer\": %d", first ? "" : ",", l2, l1);
            first = false;
            for (int k = 0; k < 3; k++) {
                fprintf(out, ", \"%s\": [", kinds[k]);
                for (int h2 = 0; h2 < H; h2++) {
                    for (int h1 = 0; h1 < H; h1++)
                        row[h1] = circuit_composition(c, (CompositionKind)k, l2, h2, l1, h1);
                    if (h2) fputs(", ", out);
                    cli_json_row(out, row, H);
                }
                fputc(']', out);
            }
            fputc('}', out);
        }
    fputs(first ? "],\n" : "\n  ],\n", out);
    free(row);
}

// "repeats": the evaluation repeats' figures (with the heads switched off that --ablate names).
static void repeats_json(FILE *out, const Circuit *c, const CircuitScores *s)
{
    int H = c->shape.heads;
    fprintf(out, "  \"repeats\": {\"sequences\": %d, \"loss\": ", CIRCUIT_EVAL_SEQUENCES);
    cli_json_number(out, s->loss);
    fputs(", \"repeat_loss\": ", out);
    cli_json_number(out, s->repeat_loss);
    fputs(", \"repeat_accuracy\": ", out);
    cli_json_number(out, s->repeat_accuracy);
    for (int which = 0; which < 2; which++) {
        fprintf(out, ", \"%s\": [", which ? "induction" : "previous_token");
        for (int l = 0; l < c->layers; l++) {
            if (l) fputs(", ", out);
            cli_json_row(out, (which ? s->induction : s->prev_token) + (size_t)l * (size_t)H, H);
        }
        fputc(']', out);
    }
    fputs("},\n", out);
}

static void settings_json(FILE *out, const Lesson *l)
{
    const AttnParams *p = &l->params;
    const Circuit *c = &l->circuit->model;
    fprintf(out, "  \"d_model\": %d,\n  \"heads\": %d,\n  \"d_k\": %d,\n  \"mask\": \"%s\",\n",
            c->shape.d_model, c->shape.heads, c->shape.d_k,
            p->mask == MASK_CAUSAL ? "causal" : "none");
    if (p->window > 0) fprintf(out, "  \"window\": %d,\n", p->window);
    if (p->scale > 0) {
        fputs("  \"scale\": ", out);
        cli_json_number(out, p->scale);
        fputs(",\n", out);
    }
    fprintf(out, "  \"n_ctx\": %d,\n", c->n_ctx);
}

static void print_json(FILE *out, const Lesson *l, const CircuitRun *r, const uint64_t *ablated,
                       const CircuitScores *s)
{
    const LessonCircuit *lc = l->circuit;
    const Circuit *c = &lc->model;
    cli_json_title_notes(out, l);
    cli_json_tokens(out, "vocabulary", lc->vocabulary, lc->vocab);
    cli_json_tokens(out, "tokens", l->tokens, r->n);
    fputs("  \"token_ids\": [", out);
    for (int i = 0; i < r->n; i++) fprintf(out, "%s%d", i ? ", " : "", lc->ids[i]);
    fputs("],\n", out);
    settings_json(out, l);
    fputs("  \"ablated\": [", out);
    for (int k = 0, first = 1; k < c->layers; k++)
        for (int h = 0; h < c->shape.heads; h++)
            if ((ablated[k] >> h) & 1u)
                fprintf(out, "%s[%d, %d]", first ? "" : ", ", k, h), first = 0;
    fputs("],\n", out);
    cli_json_matrix(out, "token_embeddings", &c->E, "  ", false);
    cli_json_matrix(out, "positions", &c->P, "  ", false);
    cli_json_matrix(out, "unembedding", &c->U, "  ", false);
    fputs("  \"residual\": [", out);
    for (int k = 0; k <= c->layers; k++) {
        fputs(k ? ",\n    " : "\n    ", out);
        rows(out, &r->x[k], "    ");
    }
    fputs("\n  ],\n", out);
    layers_json(out, c, r);
    composition_json(out, c);
    if (s) repeats_json(out, c, s);
    cli_json_matrix(out, "logits", &r->logits, "  ", false);
    fputs("  \"loss\": ", out);
    cli_json_number(out, r->loss);
    fputs("\n}\n", out);
}

static void print_grad(FILE *out, double loss, const Circuit *g)
{
    fputs("{\"loss\": ", out);
    cli_json_number(out, loss);
    fputs(", \"grad\": {\n  \"token_embeddings\": ", out);
    cli_json_matrix_compact(out, &g->E);
    fputs(",\n  \"positions\": ", out);
    cli_json_matrix_compact(out, &g->P);
    fputs(",\n  \"weights\": [", out);
    for (int l = 0; l < g->layers; l++) {
        fputs(l ? ",\n    {" : "\n    {", out);
        for (int i = 0; i < PARAM_COUNT; i++) {
            fprintf(out, "%s\"%s\": %s", i ? ",\n     " : "", PARAMS[i].name,
                    PARAMS[i].per_head ? "[" : "");
            for (int h = 0; h < layer_weights_count(g->shape, i); h++) {
                const Matrix *m = layer_weights_own_const(&g->w[l], g->shape, i, h);
                if (h) fputs(", ", out);
                if (PARAMS[i].bias) cli_json_row(out, m->data, m->cols);
                else cli_json_matrix_compact(out, m);
            }
            if (PARAMS[i].per_head) fputc(']', out);
        }
        fputc('}', out);
    }
    fputs("\n  ],\n  \"unembedding\": ", out);
    cli_json_matrix_compact(out, &g->U);
    fputs("\n}}\n", out);
}

static bool all_finite(Circuit *g)
{
    int cap = circuit_matrix_cap(g);
    Matrix **all = malloc((size_t)cap * sizeof *all);
    if (!all) return false;
    int count = circuit_matrices(all, g, true);
    bool ok = true;
    for (int i = 0; ok && i < count; i++) ok = mat_all_finite(all[i], false);
    free(all);
    return ok;
}

static int run_grad(const Lesson *l, const char *name, const CircuitRun *r, const uint64_t *off)
{
    const LessonCircuit *lc = l->circuit;
    Circuit g;
    if (!circuit_init(&g, lc->model.layers, lc->model.shape, lc->model.vocab, lc->model.n_ctx)) {
        cli_line(stderr, "mha-tracer: error: out of memory\n");
        return EXIT_IO;
    }
    int status = EXIT_OK;
    if (!circuit_backward(&g, &lc->model, &l->params.cfg, r, lc->ids, off, 1.0)) {
        cli_line(stderr, "mha-tracer: error: out of memory\n");
        status = EXIT_IO;
    } else if (!all_finite(&g)) {
        cli_line(stderr, "%s: error: a gradient is not a finite number; use smaller numbers\n",
                 name);
        status = EXIT_USAGE;
    } else {
        print_grad(stdout, r->loss, &g);
        status = cli_finish_stdout();
    }
    circuit_free(&g);
    return status;
}

// --trace: the circuit's report in words.
static void print_report(const Lesson *l, const CircuitRun *r, const CircuitScores *s)
{
    const Circuit *c = &l->circuit->model;
    cli_line(stdout, "%s\n", l->title);
    cli_line(stdout,
             "%d layer%s of %d head%s, d_model = %d, d_k = %d, vocabulary %d, n_ctx %d, mask %s\n",
             c->layers, c->layers == 1 ? "" : "s", c->shape.heads, c->shape.heads == 1 ? "" : "s",
             c->shape.d_model, c->shape.d_k, c->vocab, c->n_ctx,
             l->params.mask == MASK_CAUSAL ? "causal" : "none");
    cli_line(stdout, "loss on the lesson's tokens (next-token cross-entropy): %.6f\n", r->loss);
    if (s) {
        cli_line(stdout,
                 "repeats (%d sequences from seed + 1): loss %.6f, repeat loss %.6f, repeat "
                 "accuracy %.4f\n",
                 CIRCUIT_EVAL_SEQUENCES, s->loss, s->repeat_loss, s->repeat_accuracy);
        cli_circuit_print_heads(stdout, c, s);
    }
    for (int l2 = 1; l2 < c->layers; l2++)
        for (int h2 = 0; h2 < c->shape.heads; h2++)
            for (int h1 = 0; h1 < c->shape.heads; h1++)
                cli_line(stdout, "K-composition of layer %d head %d with layer %d head %d: %.4f\n",
                         l2, h2, l2 - 1, h1, circuit_composition(c, COMPOSE_K, l2, h2, l2 - 1, h1));
}

bool cli_circuit_mode(int mode)
{
    return mode == MODE_JSON || mode == MODE_GRAD || mode == MODE_TRACE || mode == MODE_TRAIN;
}

int cli_circuit_run(int mode, Lesson *l, const char *path, const char *ablate,
                    const char *steps_arg, const char *out)
{
    const char *name = path ? path : "<built-in>";
    if (mode == MODE_TRAIN) return cli_circuit_train(l, path, steps_arg, out);
    const LessonCircuit *lc = l->circuit;
    uint64_t off[CIRCUIT_MAX_LAYERS] = {0};
    char msg[300];
    if (ablate
        && !cli_circuit_ablation(ablate, lc->model.layers, lc->model.shape.heads, off, msg,
                                 sizeof msg)) {
        cli_line(stderr, "mha-tracer: error: --ablate %s\n", msg);
        return EXIT_USAGE;
    }
    CircuitRun r;
    TraceError err = {0};
    if (!circuit_run(&r, &lc->model, &l->params.cfg, lc->ids, l->params.n, off, &err)) {
        cli_line(stderr, "%s: error: %s\n", name, err.message);
        return EXIT_USAGE;
    }
    int status = EXIT_OK;
    CircuitScores s = {0}, *scores = NULL;
    if (mode != MODE_GRAD && lc->trains) {
        if (!cli_circuit_probe(l, &lc->model, off, &s, &err)) {
            cli_line(stderr, "%s: error: %s\n", name, err.message);
            status = EXIT_USAGE;
        }
        scores = &s;
    }
    if (status == EXIT_OK && mode == MODE_GRAD) status = run_grad(l, name, &r, off);
    else if (status == EXIT_OK && mode == MODE_JSON) {
        print_json(stdout, l, &r, off, scores);
        status = cli_finish_stdout();
    } else if (status == EXIT_OK) {
        print_report(l, &r, scores);
        status = cli_finish_stdout();
    }
    circuit_scores_free(&s);
    circuit_run_free(&r);
    return status;
}
