// The table of mha-tracer's options and what reads it: the parser (modes, values, where each option
// goes), the value checks with their messages, --help and the manual page.
#include "app/options.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli.h"
#include "platform/platform.h"
#include "core/train.h"
#include "lesson/lesson.h"
#include "model/i18n.h"
#include "model/stages.h"
#include "render/export.h"

static const OptionChoice WHATS[] = {{"heatmaps", EXPORT_WHAT_HEATMAPS},
                                     {"board", EXPORT_WHAT_BOARD},
                                     {"all", EXPORT_WHAT_ALL},
                                     {"decode", EXPORT_WHAT_DECODE},
                                     {"tiles", EXPORT_WHAT_TILES},
                                     {"cost", EXPORT_WHAT_COST},
                                     {"compare", EXPORT_WHAT_COMPARE},
                                     {"shuffle", EXPORT_WHAT_SHUFFLE},
                                     {"all-heads", EXPORT_WHAT_ALL_HEADS},
                                     {"cache-size", EXPORT_WHAT_CACHE},
                                     {"rotation", EXPORT_WHAT_ROTATION},
                                     {"overview", EXPORT_WHAT_OVERVIEW},
                                     {"handout", EXPORT_WHAT_HANDOUT},
                                     {"circuit", EXPORT_WHAT_CIRCUIT},
                                     {NULL, 0}};
static const OptionChoice FORMATS[] = {
    {"png", EXPORT_PNG}, {"svg", EXPORT_SVG}, {"both", EXPORT_PNG | EXPORT_SVG}, {NULL, 0}};
static const OptionChoice BACKGROUNDS[] = {{"white", EXPORT_BG_WHITE},
                                           {"transparent", EXPORT_BG_TRANSPARENT},
                                           {"dark", EXPORT_BG_DARK},
                                           {NULL, 0}};
static const OptionChoice PARTS[] = {{"first", 0}, {"all", 1}, {NULL, 0}};
static const OptionChoice HANDOUT_STYLES[] = {
    {"slides", EXPORT_HANDOUT_SLIDES}, {"notes", EXPORT_HANDOUT_NOTES}, {NULL, 0}};

#define V OPT_VALUE
#define SUB (OPT_VALUE | OPT_SUB)

const Option OPTIONS[OPT_COUNT] = {
    [OPT_WINDOW] = {.arg = "(no option)", .help = "open the window on LESSON"},
    [OPT_FULLSCREEN] = {"--fullscreen", .help = "open the window full screen"},
    [OPT_LANG] =
        {"--lang", .arg = "CODE", .flags = V | OPT_NOW, .kind = VALUE_LANG,
         .help = "the window's and the exports' words in en, es, fr or zh (default: the lesson's\n"
                 "\"language\", else LANG); numbers, tokens and --trace/--json never change"},
    [OPT_TRACE] = {"--trace", .arg = "[LESSON]", .mode = MODE_TRACE,
                   .help = "print every stage of every head, rounded to 4 decimals"},
    [OPT_JSON] = {"--json", .arg = "[LESSON]", .mode = MODE_JSON,
                  .help = "print the whole trace as JSON (17 significant digits)"},
    [OPT_COMPARE] =
        {"--compare", .arg = "[LESSON]", .mode = MODE_COMPARE,
         .help = "print one head of d_k = h*d_k next to the h heads: patterns, outputs, cost"},
    [OPT_CHECK] =
        {"--check", .arg = "LESSON...", .mode = MODE_CHECK,
         .help =
             "validate lesson files: 'FILE: ok' (and any warnings) or every error and their count\n"
             "(each question's stated answer is checked against the trace)"},
    [OPT_QUESTIONS] =
        {"--questions", .arg = "[LESSON]", .mode = MODE_QUESTIONS,
         .help = "print each question with its answer computed from the trace (teacher's notes)"},
    [OPT_NEW] =
        {"--new", .arg = "FILE", .mode = MODE_NEW, .flags = V | OPT_ONCE,
         .help = "write a starter lesson into FILE (never over an existing file), then edit it"},
    [OPT_TOKENS] = {"--tokens", .arg = "\"a b c\"", .with = WITH_NEW, .flags = SUB, .col = 24,
                    .help = "its tokens (default \"The cat sat\")"},
    [OPT_HEADS] = {"--heads", .arg = "H", .with = WITH_NEW, .flags = SUB, .col = 25,
                   .kind = VALUE_WHOLE, .min = 1, .max = LESSON_MAX_HEADS,
                   .help = "its heads (default 2)"},
    [OPT_D_MODEL] = {"--d-model", .arg = "D", .with = WITH_NEW, .flags = SUB, .col = 25,
                     .kind = VALUE_WHOLE, .min = 1, .max = 64,
                     .help = "its d_model, a multiple of H up to 64 (default 4)"},
    [OPT_EXPORT] = {"--export", .arg = "DIR [LESSON]", .mode = MODE_EXPORT,
                    .flags = V | OPT_MODE_FIRST,
                    .help =
                        "write slide images into DIR and print their paths (no display needed;\n"
                        "    DIR is made when missing)"},
    [OPT_WHAT] = {"--what", .arg = "WHAT", .with = WITH_EXPORT, .flags = SUB, .col = 35,
                  .kind = VALUE_CHOICE, .choices = WHATS,
                  .help = "heatmaps (default): one image per head and one of all heads;\n"
                          "board: the whole screen of a stage, as the window shows it;\n"
                          "all: both; or a panel as the window shows it, named after it:\n"
                          "decode (G: one slide per generated token), tiles (B: one per tile,\n"
                          "see --block), cost (K), compare (M), shuffle (X: the tokens\n"
                          "reversed), all-heads (A: the stage's every head), cache-size\n"
                          "(Shift+K: the KV cache's bytes, MHA, GQA, MQA and a window),\n"
                          "rotation (W, RoPE lessons: a token's pairs turned, the\n"
                          "frequencies; --head N), overview (Shift+A, --model only:\n"
                          "every layer x every head's attention weights);\n"
                          "handout: one PDF for the class, NAME-handout-headH.pdf: a title\n"
                          "page, every part of every stage of --head's board, each question\n"
                          "before the page that answers it, the panels the lesson uses and\n"
                          "an answer key (also with --model; see --handout-style);\n"
                          "circuit (U, a lesson of layers: trained first, its loss, the\n"
                          "heads' scores and each head off; see --beside, --steps)"},
    [OPT_STAGE] = {"--stage", .arg = "NAME|all", .with = WITH_STAGE, .flags = SUB, .col = 35,
                   .help = "heatmaps: scores, scaled, mask or weights (default);\n"
                           "board: input, positions, projections, rotate (RoPE: Q_rot, K_rot),\n"
                           "scores, scaled, mask, softmax (default), weighted-sum, concat\n"
                           "or output (a checkpoint's layer in the window also has input-norm,\n"
                           "residual and next-token);\n"
                           "with --trace: print only that stage (or all) as the board shows it,\n"
                           "tab-separated with token headers"},
    [OPT_FORMAT] = {"--format", .with = WITH_EXPORT, .flags = SUB, .col = 35, .kind = VALUE_CHOICE,
                    .choices = FORMATS, .help = "default png"},
    [OPT_SCALE] = {"--scale", .arg = "K", .with = WITH_EXPORT, .flags = SUB, .col = 35,
                   .kind = VALUE_NUMBER, .min = EXPORT_SCALE_MIN, .max = EXPORT_SCALE_MAX,
                   .help = "pixel size from 0.25 to 8 (default 2: crisp on a 1080p slide)"},
    [OPT_BACKGROUND] = {"--background", .with = WITH_EXPORT, .flags = SUB, .col = 35, .gap = 3,
                        .kind = VALUE_CHOICE, .choices = BACKGROUNDS, .help = "default white"},
    [OPT_HEAD] = {"--head", .arg = "N", .with = WITH_STAGE, .flags = SUB, .col = 35,
                  .kind = VALUE_WHOLE, .min = 0, .max = 1000000,
                  .expects = "a head number from 0", // the lesson's count: export_run
                  .help =
                      "board, decode, tiles (and --trace --stage): the head it shows (default 0)"},
    [OPT_BLOCK] = {"--block", .arg = "B", .with = WITH_EXPORT, .flags = SUB, .col = 35,
                   .kind = VALUE_WHOLE, .min = 1, .max = 1000000,
                   .help = "tiles: blocks of B queries by B keys (default 2; up to the tokens)"},
    [OPT_CELL] = {"--cell", .arg = "ROW,COL", .with = WITH_EXPORT, .flags = SUB, .col = 35,
                  .help = "board: the result cell whose arithmetic it shows (default the first;\n"
                          "the file name then carries it)"},
    [OPT_PARTS] = {"--parts", .with = WITH_EXPORT, .flags = SUB, .col = 35, .kind = VALUE_CHOICE,
                   .choices = PARTS,
                   .help = "board: a stage shown in parts (Q, then K, then V; the output, then\n"
                           "the difference without switched-off heads): its first part, or one\n"
                           "slide per part, NAME-part1, NAME-part2, ... (default: first; all\n"
                           "with --stage all, the whole deck)"},
    [OPT_HANDOUT_STYLE] = {"--handout-style", .with = WITH_EXPORT, .flags = SUB, .col = 35,
                           .kind = VALUE_CHOICE, .choices = HANDOUT_STYLES,
                           .help = "handout: slides (default: a 16:9 page per screen) or notes\n"
                                   "(A4, two boards a page with their explanation)"},
    [OPT_ABLATE] = {"--ablate", .arg = "H[,H...]", .with = WITH_TEACH, .flags = V,
                    .help =
                        "with --trace, --json or --export: those heads' Z enter the concat as "
                        "zeros (their own\n"
                        "stages are still computed); the output with every head is shown beside;\n"
                        "in a lesson of layers LAYER:HEAD[,LAYER:HEAD...]"},
    [OPT_SHUFFLE] =
        {"--shuffle", .arg = "PERM", .with = WITH_TEACH, .flags = V,
         .help =
             "with --trace, --json or --export: the lesson with its tokens reordered, e.g. 2,0,1\n"
             "(token i is the token at position PERM[i]; positions stay in place), compared\n"
             "with the original output"},
    [OPT_ROPE_SHIFT] =
        {"--rope-shift", .arg = "K", .with = WITH_TEACH, .flags = V, .kind = VALUE_WHOLE, .min = 0,
         .max = ATTN_MAX_ROPE_SHIFT,
         .help =
             "with --trace, --json or --export (a lesson with \"rope\"): every query and key also\n"
             "turned at position p + K, and their scores again (Q_rot_shifted,\n"
             "K_rot_shifted, scores_shifted): the same scores up to rounding"},
    [OPT_DECODE] =
        {"--decode", .with = WITH_JSON,
         .help =
             "with --json: generate the tokens one at a time with a KV cache (a causal lesson\n"
             "without a source): per step each head's q, caches, weights and z, the output row\n"
             "and the multiply-adds with and without the cache"},
    [OPT_TILES] = {"--tiles", .arg = "B", .with = WITH_JSON, .flags = V, .kind = VALUE_WHOLE,
                   .min = 1, .max = 1000000,
                   .help =
                       "with --json: each head's attention also in tiles of B queries by B keys\n"
                       "(FlashAttention's online softmax): per tile the running m, l and O"},
    [OPT_GRAD] =
        {"--grad", .arg = "LESSON", .mode = MODE_GRAD,
         .help =
             "print the loss mean((output - targets)^2) and its gradient for every embedding and\n"
             "weight (explicit per-head form) as JSON; the targets are the lesson's \"targets\", "
             "or\n"
             "its \"train\" task's for its own tokens"},
    [OPT_TRAIN] =
        {"--train", .arg = "LESSON --out FILE", .mode = MODE_TRAIN, .gap = 3,
         .help =
             "train the weights of a lesson with a \"train\" section (Adam) and write\n"
             "the trained lesson, explicit weights, into FILE (never over LESSON); the last line\n"
             "says steps=N loss_start=A loss_end=B seconds=S"},
    [OPT_OUT] = {"--out", .arg = "FILE", .with = WITH_TRAIN, .flags = V}, // told in --train's row
    [OPT_STEPS] = {"--steps", .arg = "N", .with = WITH_STEPS, .flags = SUB, .kind = VALUE_WHOLE,
                   .min = 1, .max = TRAIN_MAX_STEPS,
                   .help = "train N steps instead of the lesson's \"steps\" (also --what circuit)"},
    [OPT_BESIDE] =
        {"--beside", .arg = "LESSON", .with = WITH_BESIDE, .flags = V,
         .help = "in the window or with --export DIR --what circuit (lessons of layers): train\n"
                 "LESSON beside the lesson shown, on the same sequences (the shown lesson's\n"
                 "\"train\" section and seed), and draw both loss curves on one plot (U)"},
    [OPT_LAYOUT] =
        {"--layout", .arg = "[LESSON]", .mode = MODE_LAYOUT,
         .help = "the layout audit: every screen the window can show (each stage, part and head,\n"
                 "the panels, the help, each question), one JSON object a line: each matrix's\n"
                 "rows and columns shown, its digit height and box, the texts and their sizes;\n"
                 "with --model DIR instead of LESSON: a checkpoint's layer (--layer, --text)"},
    [OPT_SIZE] = {"--size", .arg = "WxH", .with = WITH_LAYOUT, .flags = SUB, .col = 25,
                  .expects = "WIDTHxHEIGHT, each from 320 to 8192",
                  .help = "the window's size (default 1280x720)"},
    [OPT_MODEL] =
        {"--model", .arg = "DIR", .with = WITH_MODEL, .flags = V,
         .help =
             "in the window (with --head H: on head H), or with --json, --trace, --save-lesson,\n"
             "--layout or --export DIR (any --what): a Hugging Face checkpoint in DIR\n"
             "(config.json, model.safetensors or its shards, tokenizer.json or vocab.json +\n"
             "merges.txt or vocab.txt; llama, mistral and qwen2 with their sliding windows,\n"
             "gpt2, bert with weight/bias or gamma/beta names; F32, F16, BF16) instead of a\n"
             "lesson: layer L's attention on the text, computed in float64, and the next token;\n"
             "--json adds \"token_ids\" and \"next_token\" (the top 5 with their probabilities;\n"
             "null for bert). Not with --ablate, --shuffle, --rope-shift, --decode, --tiles or\n"
             "--stage. Exit 1 when a file cannot be read (absent, not a file, shrinking while\n"
             "read), 2 when what it says is refused (the file and the field named)"},
    [OPT_TEXT] =
        {"--text", .arg = "\"...\"", .with = WITH_MODEL_SETTING, .flags = SUB, .col = 24,
         .help =
             "the text, UTF-8, tokenized by the model's tokenizer (default \"The cat sat on the\n"
             "mat\"; at most 512 tokens)"},
    [OPT_LAYER] = {"--layer", .arg = "L", .with = WITH_LAYER, .flags = SUB, .col = 24,
                   .kind = VALUE_WHOLE, .min = 0, .max = 1000,
                   .help = "the layer whose attention is traced, from 0 (default 0); also\n"
                           "--export and --layout of a lesson of layers: that layer's board"},
    [OPT_IDS] = {"--ids", .arg = "I,J,...", .with = WITH_MODEL_SETTING, .flags = SUB, .col = 24,
                 .help =
                     "instead of --text: the token ids themselves (as --head-scores prints them)"},
    [OPT_HEAD_SCORES] =
        {"--head-scores", .with = WITH_MODEL_SETTING, .flags = OPT_SUB, .col = 24,
         .help =
             "every layer's heads scored on a seeded probe: random tokens, then the same tokens\n"
             "again (BOS first where the model has one): the previous-token, duplicate-token\n"
             "and induction scores of each head, and the probe's token ids (with --json: JSON)"},
    [OPT_SAVE_LESSON] =
        {"--save-lesson", .arg = "FILE", .mode = MODE_SAVE_LESSON, .with = WITH_MODEL_SETTING,
         .flags = SUB, .col = 26,
         .help = "instead of --json or --trace: write layer L as an ordinary lesson into FILE\n"
                 "(its normed input as the embeddings, explicit weights, the tokens; at most\n"
                 "64 MiB, what a lesson file may hold)"},
    [OPT_HELP] = {"--help", "-h", .mode = MODE_HELP, .help = "show this help"},
    [OPT_VERSION] = {"--version", .mode = MODE_VERSION, .help = "show the version"},
};

#undef V
#undef SUB

static const struct {
    unsigned modes; // the modes (bits) it goes with; --new ignores the others' options
    const char *text;
    OptionId needs; // an option that must be given too (OPT_WINDOW: none)
} WITH[WITH_COUNT] = {
    [WITH_NEW] = {.modes = 1u << MODE_NEW, .text = "--new FILE"},
    [WITH_TEACH] = {.modes =
                        1u << MODE_TRACE | 1u << MODE_JSON | 1u << MODE_EXPORT | 1u << MODE_NEW,
                    .text = "--trace, --json or --export"},
    [WITH_TRAIN] = {.modes = 1u << MODE_TRAIN | 1u << MODE_NEW, .text = "--train LESSON"},
    [WITH_EXPORT] = {.modes = 1u << MODE_EXPORT | 1u << MODE_NEW, .text = "--export DIR"},
    [WITH_JSON] = {.modes = 1u << MODE_JSON | 1u << MODE_NEW, .text = "--json"},
    [WITH_STAGE] = {.modes =
                        1u << MODE_EXPORT | 1u << MODE_TRACE | 1u << MODE_LAYOUT | 1u << MODE_NEW,
                    .text = "--export DIR, --trace or --layout"},
    [WITH_LAYOUT] = {.modes = 1u << MODE_LAYOUT | 1u << MODE_NEW, .text = "--layout"},
    [WITH_MODEL] =
        {.modes = 1u << MODE_WINDOW | 1u << MODE_JSON | 1u << MODE_TRACE | 1u << MODE_SAVE_LESSON
                  | 1u << MODE_EXPORT | 1u << MODE_LAYOUT | 1u << MODE_NEW,
         .text = "the window, --json, --trace, --save-lesson FILE, --layout or --export DIR"},
    [WITH_MODEL_SETTING] = {.modes = 1u << MODE_WINDOW | 1u << MODE_JSON | 1u << MODE_TRACE
                                     | 1u << MODE_SAVE_LESSON | 1u << MODE_EXPORT
                                     | 1u << MODE_LAYOUT | 1u << MODE_NEW,
                            .text = "--model DIR",
                            .needs = OPT_MODEL},
    [WITH_LAYER] = {.modes = 1u << MODE_WINDOW | 1u << MODE_JSON | 1u << MODE_TRACE
                             | 1u << MODE_SAVE_LESSON | 1u << MODE_EXPORT | 1u << MODE_LAYOUT
                             | 1u << MODE_NEW,
                    .text = "--model DIR, or --export DIR or --layout on a lesson of layers"},
    [WITH_STEPS] = {.modes = 1u << MODE_TRAIN | 1u << MODE_EXPORT | 1u << MODE_NEW,
                    .text = "--train LESSON or --export DIR --what circuit"},
    [WITH_BESIDE] = {.modes = 1u << MODE_WINDOW | 1u << MODE_EXPORT | 1u << MODE_NEW,
                     .text = "the window or --export DIR --what circuit"},
};

static const char HELP_USAGE[] = "mha-tracer [OPTIONS] [LESSON.json]";
static const char HELP_ABOUT[] =
    "Steps through multi-head attention one stage at a time, in a window or on the command line.";
static const char HELP_DEFAULT[] = "With no LESSON the built-in lesson \"The cat sat\" is used.";
static const char HELP_EXIT[] = "0 success, 1 I/O failure, 2 bad usage or an invalid lesson.";

// The row spelt a ("--name", "-h", or "--name=VALUE" for an option with a value: *value then points
// at VALUE).
static const Option *find_option(const char *a, const char **value)
{
    *value = NULL;
    for (int i = 0; i < OPT_COUNT; i++) {
        const Option *o = &OPTIONS[i];
        if (!o->name) continue;
        size_t n = strlen(o->name);
        if (strcmp(a, o->name) == 0 || (o->alias && strcmp(a, o->alias) == 0)) return o;
        if ((o->flags & OPT_VALUE) && strncmp(a, o->name, n) == 0 && a[n] == '=') {
            *value = a + n + 1;
            return o;
        }
    }
    return NULL;
}

static bool check_value(const Option *o, const char *text);

static int needs_value(const Option *o)
{
    cli_line(stderr, "mha-tracer: error: %s needs a value (see --help)\n", o->name);
    return EXIT_USAGE;
}

// Reads the option at argv[*i] (its value too, advancing *i). Returns EXIT_OK or the error's
// status.
static int read_option(Args *a, int argc, char **argv, int *i, const Option **first)
{
    const char *value;
    const Option *o = find_option(argv[*i], &value);
    if (!o) {
        cli_line(stderr, "mha-tracer: error: unknown option '%s' (see --help)\n", argv[*i]);
        return EXIT_USAGE;
    }
    if (o->mode == MODE_HELP || o->mode == MODE_VERSION) { // the reading ends here
        a->mode = o->mode;
        return EXIT_OK;
    }
    if (!(o->flags & OPT_VALUE)) value = o->name;
    else if (!value && *i + 1 < argc) value = argv[++*i];
    if (o->flags & OPT_NOW) {
        if (!check_value(o, value ? value : "")) return EXIT_USAGE;
    } else if (!value || (!value[0] && !(o->flags & OPT_MODE_FIRST))) return needs_value(o);
    if (o->mode != MODE_WINDOW) {
        if (a->mode != MODE_WINDOW && (a->mode != o->mode || (o->flags & OPT_ONCE))) {
            cli_line(stderr, "mha-tracer: error: %s cannot be combined with another mode\n",
                     o->name);
            return EXIT_USAGE;
        }
        if (!value[0]) return needs_value(o);
        a->mode = o->mode;
    }
    if (o->with != WITH_ANY && !first[o->with]) first[o->with] = o;
    a->value[o - OPTIONS] = value;
    return EXIT_OK;
}

int options_parse(Args *a, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    a->files = malloc(sizeof(char *) * (size_t)(argc > 0 ? argc : 1));
    if (!a->files) return EXIT_IO;
    const Option *first[WITH_COUNT] = {
        NULL}; // the first option seen of each kind (where it goes is checked last)
    bool options_done = false;
    for (int i = 1; i < argc; i++) {
        if (options_done || argv[i][0] != '-' || argv[i][1] == '\0') {
            platform_path_normalize(
                argv[i]); // Windows: a backslash becomes '/', where the program splits paths
            a->files[a->nfiles++] = argv[i];
        } else if (strcmp(argv[i], "--") == 0) options_done = true;
        else {
            int status = read_option(a, argc, argv, &i, first);
            if (status != EXIT_OK) return status;
            if (a->mode == MODE_HELP || a->mode == MODE_VERSION) return EXIT_OK;
        }
    }
    // --model's window opens on the head --head names (the only option of its kind a window takes).
    bool model_head = a->mode == MODE_WINDOW && a->value[OPT_MODEL]
                      && first[WITH_STAGE] == &OPTIONS[OPT_HEAD] && !a->value[OPT_STAGE];
    for (int w = WITH_ANY + 1; w < WITH_COUNT; w++)
        if (first[w] && !(w == WITH_STAGE && model_head)
            && (!(WITH[w].modes & 1u << a->mode) || (WITH[w].needs && !a->value[WITH[w].needs]))) {
            cli_line(stderr, "mha-tracer: error: %s only works with %s (see --help)\n",
                     first[w]->name, WITH[w].text);
            return EXIT_USAGE;
        }
    // --layer without --model: a lesson of layers' board (--export, --layout) only.
    if (a->value[OPT_LAYER] && !a->value[OPT_MODEL] && a->mode != MODE_EXPORT
        && a->mode != MODE_LAYOUT && a->mode != MODE_NEW) {
        cli_line(stderr, "mha-tracer: error: --layer only works with %s (see --help)\n",
                 WITH[WITH_LAYER].text);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

void options_free(Args *a)
{
    free(a->files);
    a->files = NULL;
}

// "a, b or c" of a row's choices (joined by sep and last), or its keys "a|b|c" (sep = last = "|").
static void choice_list(const Option *o, const char *sep, const char *last, char *out, size_t cap)
{
    size_t used = 0;
    out[0] = '\0';
    for (int k = 0; o->choices[k].key && used < cap; k++)
        used += (size_t)snprintf(out + used, cap - used, "%s%s",
                                 k == 0                  ? ""
                                 : o->choices[k + 1].key ? sep
                                                         : last,
                                 o->choices[k].key);
}

static bool expected(const Option *o, const char *text)
{
    char what[160];
    if (o->expects) snprintf(what, sizeof what, "%s", o->expects);
    else if (o->kind == VALUE_WHOLE)
        snprintf(what, sizeof what, "a whole number from %.0f to %.0f", o->min, o->max);
    else if (o->kind == VALUE_NUMBER)
        snprintf(what, sizeof what, "a number from %g to %g", o->min, o->max);
    else if (o->kind == VALUE_LANG) snprintf(what, sizeof what, "one of %s", i18n_codes());
    else choice_list(o, ", ", " or ", what, sizeof what);
    cli_line(stderr, "mha-tracer: error: %s expects %s, got '%s'\n", o->name, what, text);
    return false;
}

// A value read as soon as it is given (OPT_NOW): false with the error printed.
static bool check_value(const Option *o, const char *text)
{
    double v;
    int c;
    Lang l;
    switch (o->kind) {
    case VALUE_WHOLE:
    case VALUE_NUMBER: return options_number((OptionId)(o - OPTIONS), text, &v);
    case VALUE_CHOICE: return options_choice((OptionId)(o - OPTIONS), text, &c);
    case VALUE_LANG: return i18n_parse(text, &l) || expected(o, text);
    case VALUE_TEXT: break;
    }
    return true;
}

bool options_number(OptionId id, const char *text, double *out)
{
    const Option *o = &OPTIONS[id];
    char *end;
    errno = 0;
    double v = o->kind == VALUE_WHOLE ? (double)strtol(text, &end, 10) : strtod(text, &end);
    if (end == text || *end || errno || !(v >= o->min && v <= o->max)) return expected(o, text);
    *out = v;
    return true;
}

bool options_choice(OptionId id, const char *text, int *out)
{
    const Option *o = &OPTIONS[id];
    for (int k = 0; o->choices[k].key; k++)
        if (strcmp(text, o->choices[k].key) == 0) {
            *out = o->choices[k].value;
            return true;
        }
    return expected(o, text);
}

// What follows a row's name: its arg, or its choices "a|b|c".
static const char *row_arg(const Option *o, char *buf, size_t cap)
{
    if (o->arg || !o->choices) return o->arg;
    choice_list(o, "|", "|", buf, cap);
    return buf;
}

void options_print_help(FILE *out)
{
    fprintf(out, "Usage: %s\n%s\n%s\n\n", HELP_USAGE, HELP_ABOUT, HELP_DEFAULT);
    for (int i = 0; i < OPT_COUNT; i++) {
        const Option *o = &OPTIONS[i];
        if (!o->help) continue;
        char buf[160];
        const char *arg = row_arg(o, buf, sizeof buf);
        int col = o->col ? o->col : 21;
        int used = fprintf(out, "%*s%s%s%s", o->flags & OPT_SUB ? 6 : 2, "", o->name ? o->name : "",
                           o->name && arg ? " " : "", arg ? arg : "");
        int pad = col - used;
        if (pad < 1) pad = o->gap ? o->gap : 2;
        fprintf(out, "%*s", pad, "");
        for (const char *s = o->help; *s; s++) {
            fputc(*s, out);
            if (*s == '\n') fprintf(out, "%*s", col, "");
        }
        fputc('\n', out);
    }
    fprintf(out, "\nExit status: %s\n", HELP_EXIT);
}

// text for troff: a backslash as \e, '-' as \- when it is a minus (options), a line never starting
// with '.' or '\''; the help's line breaks (and the spaces that align them) become one space.
static void put_troff(FILE *out, const char *text, bool minus)
{
    for (const char *s = text; *s; s++) {
        if (*s == '\n') {
            while (s[1] == ' ') s++;
            fputc(' ', out);
        } else if (*s == '\\') fputs("\\e", out);
        else if (*s == '-' && minus) fputs("\\-", out);
        else if ((*s == '.' || *s == '\'') && (s == text || s[-1] == '\n'))
            fprintf(out, "\\&%c", *s);
        else fputc(*s, out);
    }
}

void options_print_man(FILE *out, const char *version)
{
    // NAME, the whatis line: "mha-tracer \- steps through ..." (the help's first line, without its
    // full stop).
    fprintf(out,
            ".TH MHA-TRACER 1 \"\" \"mha-tracer %s\" \"User Commands\"\n.SH NAME\nmha-tracer \\- "
            "%c%.*s\n",
            version, tolower((unsigned char)HELP_ABOUT[0]), (int)strlen(HELP_ABOUT) - 2,
            HELP_ABOUT + 1);
    fputs(".SH SYNOPSIS\n.B mha-tracer\n[\\fIOPTIONS\\fR] [\\fILESSON.json\\fR]\n.SH DESCRIPTION\n",
          out);
    put_troff(out, HELP_ABOUT, false);
    fputs("\n.PP\n", out);
    put_troff(out, HELP_DEFAULT, false);
    fputs("\n.SH OPTIONS\n", out);
    bool sub = false; // inside the indented list of an option's own options
    for (int i = 0; i < OPT_COUNT; i++) {
        const Option *o = &OPTIONS[i];
        if (!o->help) continue;
        if (sub != ((o->flags & OPT_SUB) != 0)) fputs(sub ? ".RE\n" : ".RS\n", out);
        sub = (o->flags & OPT_SUB) != 0;
        char buf[160];
        const char *arg = row_arg(o, buf, sizeof buf);
        fputs(".TP\n", out);
        if (o->name) {
            fputs("\\fB", out);
            put_troff(out, o->name, true);
            if (o->alias) {
                fputs("\\fR, \\fB", out);
                put_troff(out, o->alias, true);
            }
            fputs(arg ? "\\fR \\fI" : "\\fR", out);
        } else if (arg) fputs("\\fI", out);
        if (arg) {
            put_troff(out, arg, true);
            fputs("\\fR", out);
        }
        fputc('\n', out);
        put_troff(out, o->help, false);
        fputc('\n', out);
    }
    if (sub) fputs(".RE\n", out);
    fputs(".SH \"EXIT STATUS\"\n", out);
    put_troff(out, HELP_EXIT, false);
    fputc('\n', out);
}

bool options_handout_style(const char *value, int what, int *style)
{
    if (!options_choice(OPT_HANDOUT_STYLE, value, style)) return false;
    if (what == EXPORT_WHAT_HANDOUT) return true;
    cli_line(stderr,
             "mha-tracer: error: --handout-style lays out the handout: add --what handout\n");
    return false;
}

// --stage: all, or a stage by model_stage_from_key (its key, or its heatmap's name: weights,
// masked).
bool options_stage(const char *key, int *out)
{
    Stage s;
    if (strcmp(key, "all") == 0) *out = EXPORT_ALL_STAGES;
    else if (model_stage_from_key(key, &s)) *out = s;
    else {
        char keys[320];
        Stage every[STAGE_COUNT];
        int count = 0;
        for (int i = 0; i < STAGE_COUNT; i++)
            if (!model_stage_checkpoint_only((Stage)i))
                every[count++] = (Stage)i; // a lesson's stages
        model_stage_names(every, count, false, keys, sizeof keys);
        cli_line(stderr, "mha-tracer: error: --stage expects all or a stage (%s), got '%s'\n", keys,
                 key);
        return false;
    }
    return true;
}
