// The command line's one table of options: each row says how an option is written, which mode it
// selects or goes with, how its value is checked and what --help and the manual page say of it.
// Parsing, --help and mha-tracer.1 (tools: mha-manpage) all read these rows.
#ifndef MHA_OPTIONS_H
#define MHA_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

enum { EXIT_OK = 0, EXIT_IO = 1, EXIT_USAGE = 2 }; // the program's exit statuses (--help says them)

typedef enum {
    MODE_WINDOW,
    MODE_TRACE,
    MODE_JSON,
    MODE_COMPARE,
    MODE_CHECK,
    MODE_EXPORT,
    MODE_NEW,
    MODE_GRAD,
    MODE_TRAIN,
    MODE_QUESTIONS,
    MODE_LAYOUT,
    MODE_SAVE_LESSON,
    MODE_HELP,
    MODE_VERSION,
    MODE_COUNT
} Mode;

// The rows, in the order --help lists them.
typedef enum {
    OPT_WINDOW, // "(no option)": a line of --help, no option
    OPT_FULLSCREEN,
    OPT_LANG,
    OPT_TRACE,
    OPT_JSON,
    OPT_COMPARE,
    OPT_CHECK,
    OPT_QUESTIONS,
    OPT_NEW,
    OPT_TOKENS,
    OPT_HEADS,
    OPT_D_MODEL,
    OPT_EXPORT,
    OPT_WHAT,
    OPT_STAGE,
    OPT_FORMAT,
    OPT_SCALE,
    OPT_BACKGROUND,
    OPT_HEAD,
    OPT_BLOCK,
    OPT_CELL,
    OPT_PARTS,
    OPT_HANDOUT_STYLE,
    OPT_ABLATE,
    OPT_SHUFFLE,
    OPT_ROPE_SHIFT,
    OPT_DECODE,
    OPT_TILES,
    OPT_GRAD,
    OPT_TRAIN,
    OPT_OUT,
    OPT_STEPS,
    OPT_BESIDE,
    OPT_LAYOUT,
    OPT_SIZE,
    OPT_MODEL,
    OPT_TEXT,
    OPT_LAYER,
    OPT_IDS,
    OPT_HEAD_SCORES,
    OPT_SAVE_LESSON,
    OPT_HELP,
    OPT_VERSION,
    OPT_COUNT
} OptionId;

// The modes an option other than a mode goes with ("--format only works with --export DIR").
typedef enum {
    WITH_ANY,
    WITH_NEW,
    WITH_TEACH,
    WITH_TRAIN,
    WITH_EXPORT,
    WITH_JSON,
    WITH_STAGE,
    WITH_LAYOUT,
    WITH_MODEL,
    WITH_MODEL_SETTING,
    WITH_LAYER,
    WITH_STEPS,
    WITH_BESIDE,
    WITH_COUNT
} OptionWith;

// How a value is read (options_number, options_choice); VALUE_TEXT: by the code that uses it.
typedef enum { VALUE_TEXT, VALUE_WHOLE, VALUE_NUMBER, VALUE_CHOICE, VALUE_LANG } ValueKind;

typedef struct {
    const char *key;
    int value;
} OptionChoice;

enum {
    OPT_VALUE = 1, // takes a value: "--name VALUE" or "--name=VALUE"
    OPT_SUB = 2, // listed under the option before it (indented)
    OPT_ONCE = 4, // its mode cannot be given twice either (--new)
    OPT_MODE_FIRST = 8, // a mode conflict is told before an empty value (--export)
    OPT_NOW = 16, // its value is checked when it is read, a missing one as '' (--lang)
};

typedef struct {
    const char *name; // "--export"; NULL for a line of --help that is no option
    const char *alias; // another spelling ("-h"), or NULL
    const char *arg; // what follows the name in --help and the manual ("DIR [LESSON]"), or NULL
    const char *help; // its text in --help, lines split by '\n'; NULL: told in another row (--out)
    Mode mode; // the mode it selects (MODE_WINDOW: none)
    OptionWith with; // the modes it goes with
    unsigned flags; // OPT_*
    int col, gap; // --help: the column of its text (0: 21); the spaces after a name too long for it
                  // (0: 2)
    ValueKind kind;
    double min, max; // VALUE_WHOLE, VALUE_NUMBER: the range
    const char *expects; // what the error says it expects, when not made from the kind
    const OptionChoice *choices; // VALUE_CHOICE: the keys, ended by {NULL, 0}
} Option;

extern const Option OPTIONS[OPT_COUNT];

// The command line as parsed: the mode, each option's text as given (the last one wins; a flag's is
// its name; NULL when absent) and the lesson files (pointers into argv).
typedef struct {
    Mode mode;
    const char *value[OPT_COUNT];
    char **files;
    int nfiles;
} Args;

// Reads argv into a (which options_free frees, whatever the result): the options, their modes and
// where they go checked. Returns EXIT_OK, or prints the error and returns its exit status. --help
// and --version end the reading (a->mode says which).
int options_parse(Args *a, int argc, char **argv);
void options_free(Args *a);

// The value of option id (VALUE_WHOLE or VALUE_NUMBER) in its range into *out; false with the error
// printed.
bool options_number(OptionId id, const char *text, double *out);
// The value of option id (VALUE_CHOICE) among its keys into *out; false with the error printed.
bool options_choice(OptionId id, const char *text, int *out);
// --handout-style's value into *style (an ExportHandoutStyle); false, after saying why, when it is
// no style or --what (what) is not the handout.
bool options_handout_style(const char *value, int what, int *style);

// --help, from the rows.
void options_print_help(FILE *out);
// The manual page mha-tracer.1 (troff, man(7)), from the same rows; version goes into its header.
void options_print_man(FILE *out, const char *version);

// --stage KEY: "all" (EXPORT_ALL_STAGES) or a lesson's stage into out; prints what was expected and
// returns false otherwise.
bool options_stage(const char *key, int *out);

#endif
