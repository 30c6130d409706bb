// The interface in the class's language: every string the window and the exports show is written in the
// code in English (the message) and looked up, when drawn, in the table of the language in use: one table
// per language (src/model/lang_es.c, lang_fr.c, lang_zh.c; English is the messages themselves). Numbers,
// token text and the command line's output (--trace, --json, --check) never change with the language.
// The language is the process's, like the C locale: main chooses it once (--lang, else the lesson's
// "language", else LANG) before the window or the export starts. No SDL.
#ifndef MHA_I18N_H
#define MHA_I18N_H

#include <stdbool.h>
#include <stddef.h>

typedef enum { LANG_EN = 0, LANG_ES, LANG_FR, LANG_ZH, LANG_COUNT } Lang;

// One message and its translation. printf conversions appear in the same order in both ("%.0s" may take
// the place of a "%s" the language has no use for, such as an English plural "s").
typedef struct {
    const char *en, *tr;
} LangPair;

typedef struct {
    const char *code;       // "es"
    const char *name;       // in its own language: "español"
    const LangPair *pairs;  // NULL for English
    size_t count;
} LangTable;

const LangTable *i18n_table(Lang l);

// The language of a code: "es", "es-MX", "es_ES.UTF-8", "fr_CA", "zh", "zh-Hans", "zh_CN.UTF-8", "en_US".
// False for any other language, or a code that is not one ("C", "POSIX", "").
bool i18n_parse(const char *code, Lang *out);
// The language of the environment (LC_ALL, else LC_MESSAGES, else LANG, as the C library reads them);
// false when it names none of ours.
bool i18n_from_env(Lang *out);
// "en, es, fr, zh": for messages about --lang.
const char *i18n_codes(void);

// The interface's language: the --lang code when given (it must be one of ours: main checks), else the
// lesson's "language" when we have it, else the environment's, else English.
Lang i18n_choose(const char *option, const char *lesson_language);

// The language in use (LANG_EN until set).
void i18n_use(Lang l);
Lang i18n_current(void);

// The translation of message en in the language in use; en itself in English, or when the table lacks it
// (then i18n_missing counts it, for the tests).
const char *i18n_text(const char *en);
#define TR(s) i18n_text(s)
// Marks a message in a static table, translated where it is drawn with TR(row->field).
#define N_(s) s

// Messages looked up and not found since the last call to i18n_missing_reset, and the first of them.
size_t i18n_missing(const char **first);
void i18n_missing_reset(void);

#endif
