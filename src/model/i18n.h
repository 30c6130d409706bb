// The interface in the class's language: every string the window and the exports show is written in
// the code in English (the message id) and looked up, when drawn, in the catalogue of the language
// in use. The catalogues are gettext's: po/LINGUAS lists the languages, po/CODE.po holds each one's
// translations, and tools/po2c.py compiles them at build time into sorted tables (README:
// "Translations"). English is the messages themselves. Numbers, token text and the command line's
// output (--trace, --json, --check) never change with the language. The language is the process's,
// like the C locale: main chooses it once (--lang, else the lesson's "language", else LANG) before
// the window or the export starts. No SDL.
#ifndef MHA_I18N_H
#define MHA_I18N_H

#include <stdbool.h>
#include <stddef.h>

// A language: its place in the table of languages (English first, then po/LINGUAS's order).
typedef int Lang;
enum { LANG_EN = 0 };

// The most plural forms a catalogue's Plural-Forms may have (Arabic has 6).
#define I18N_MAX_FORMS 6

// One translated message. printf conversions appear in the same order in the message and its forms.
typedef struct {
    const char *key; // msgid, or msgctxt "\004" msgid (gettext's own convention)
    const char *
        forms[I18N_MAX_FORMS]; // msgstr; or msgstr[0] ... msgstr[nplurals - 1] for a plural message
} I18nMessage;

typedef struct {
    const char *code; // "es": its name in po/LINGUAS and po/es.po
    const char *name; // in its own language, "español": the catalogue's X-Language-Name
    int nplurals; // from the catalogue's Plural-Forms
    unsigned long (*plural)(unsigned long n); // its plural expression, compiled: the form for n
    const I18nMessage *messages; // sorted by key (strcmp order), for a binary search
    size_t count; // translated messages (fuzzy and empty entries are left out)
} LangTable;

// The languages: i18n_count() of them, English (LANG_EN) first.
int i18n_count(void);
const LangTable *i18n_table(Lang l);

// The language of a code: "es", "es-MX", "es_ES.UTF-8", "fr_CA", "zh", "zh-Hans", "zh_CN.UTF-8",
// "en_US". False for any other language, or a code that is not one ("C", "POSIX", "").
bool i18n_parse(const char *code, Lang *out);
// The language of the environment (LC_ALL, else LC_MESSAGES, else LANG, as the C library reads
// them); false when it names none of ours.
bool i18n_from_env(Lang *out);
// "en, es, fr, zh": for messages about --lang.
const char *i18n_codes(void);

// The interface's language: the --lang code when given (it must be one of ours: main checks), else
// the lesson's "language" when we have it, else the environment's, else English.
Lang i18n_choose(const char *option, const char *lesson_language);

// The language in use (LANG_EN until set).
void i18n_use(Lang l);
Lang i18n_current(void);

// The translation of message en in the language in use; en itself in English, or when the catalogue
// lacks it (then i18n_missing counts it, for the tests). A message without a word (two lower-case
// ASCII letters in a row: "A", "1 … 9", "QK^T") is a symbol, the same in every language: not looked
// up, not in the catalogues.
const char *i18n_text(const char *en);
// The same for one meaning of a message that has several (gettext's pgettext): ctx tells them
// apart.
const char *i18n_context(const char *ctx, const char *en);
// The form of a message for the count n (gettext's ngettext): by the catalogue's Plural-Forms; in
// English one for n == 1, else many.
const char *i18n_plural(const char *one, const char *many, unsigned long n);
// The translated message of t with this key (msgid, or msgctxt "\004" msgid), or NULL.
const I18nMessage *i18n_find(const LangTable *t, const char *key);

// The keywords xgettext reads (tools/po2c.py pot): TR(message), TRC(context, message), TRN(one,
// many, n), and N_(message) for a message in a static table, translated where it is drawn with
// TR(row->field).
#define TR(s) i18n_text(s)
#define TRC(ctx, s) i18n_context(ctx, s)
#define TRN(one, many, n) i18n_plural(one, many, (unsigned long)(n))
#define N_(s) s

// Messages looked up and not found since the last call to i18n_missing_reset, and the first of
// them.
size_t i18n_missing(const char **first);
void i18n_missing_reset(void);

#endif
