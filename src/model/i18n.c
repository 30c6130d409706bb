// Languages: choosing one and looking a message up in its catalogue (the tables tools/po2c.py
// writes from po/LINGUAS and po/*.po into the build folder: i18n_catalog.c).
#include "model/i18n.h"

#include <stdlib.h>
#include <string.h>

// From i18n_catalog.c: English, then the languages of po/LINGUAS; and their codes, "en, es, fr,
// zh".
extern const LangTable I18N_TABLES[];
extern const int I18N_TABLE_COUNT;
extern const char I18N_CODES[];

// The language in use and the lookups that found nothing: the process's, set by main (see i18n.h).
static struct {
    Lang lang;
    size_t missing;
    const char *first_missing;
} state = {LANG_EN, 0, NULL};

int i18n_count(void) { return I18N_TABLE_COUNT; }

const LangTable *i18n_table(Lang l)
{
    return &I18N_TABLES[l >= 0 && l < I18N_TABLE_COUNT ? l : LANG_EN];
}

bool i18n_parse(const char *code, Lang *out)
{
    if (!code) return false;
    for (int l = 0; l < I18N_TABLE_COUNT; l++) {
        const char *c = I18N_TABLES[l].code;
        size_t n = strlen(c);
        if (strncmp(code, c, n) == 0
            && (code[n] == '\0' || code[n] == '-' || code[n] == '_' || code[n] == '.'
                || code[n] == '@')) {
            *out = l;
            return true;
        }
    }
    return false;
}

bool i18n_from_env(Lang *out)
{
    static const char *const VARS[] = {"LC_ALL", "LC_MESSAGES", "LANG"};
    for (size_t i = 0; i < sizeof VARS / sizeof VARS[0]; i++) {
        const char *v = getenv(VARS[i]);
        if (v && v[0]) return i18n_parse(v, out); // the first one set decides, as for the C library
    }
    return false;
}

Lang i18n_choose(const char *option, const char *lesson_language)
{
    Lang l = LANG_EN;
    if (i18n_parse(option, &l) || i18n_parse(lesson_language, &l) || i18n_from_env(&l)) return l;
    return LANG_EN;
}

const char *i18n_codes(void) { return I18N_CODES; }

void i18n_use(Lang l) { state.lang = l >= 0 && l < I18N_TABLE_COUNT ? l : LANG_EN; }
Lang i18n_current(void) { return state.lang; }

// A message without a word (two lower-case ASCII letters in a row) is a symbol or a key ("A", "1 …
// 9", "QK^T", "W^O"), the same in every language, so it is not looked up.
static bool has_word(const char *s)
{
    for (; s[0] && s[1]; s++)
        if (s[0] >= 'a' && s[0] <= 'z' && s[1] >= 'a' && s[1] <= 'z') return true;
    return false;
}

// strcmp of key against ctx "\004" id (ctx NULL: against id), without building the string.
static int key_cmp(const char *key, const char *ctx, const char *id)
{
    const unsigned char *k = (const unsigned char *)key;
    if (ctx) {
        for (const unsigned char *c = (const unsigned char *)ctx; *c; c++, k++)
            if (*k != *c) return *k < *c ? -1 : 1;
        if (*k != 4) return *k < 4 ? -1 : 1;
        k++;
    }
    return strcmp((const char *)k, id);
}

static const I18nMessage *find(const LangTable *t, const char *ctx, const char *id)
{
    size_t lo = 0, hi = t->count; // the key is in [lo, hi) if anywhere
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = key_cmp(t->messages[mid].key, ctx, id);
        if (c == 0) return &t->messages[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

const I18nMessage *i18n_find(const LangTable *t, const char *key)
{
    return t ? find(t, NULL, key) : NULL;
}

// The message of ctx/id in the language in use, or NULL (counted as missing) when its catalogue
// lacks it.
static const I18nMessage *lookup(const char *ctx, const char *id)
{
    if (state.lang == LANG_EN || !id || !has_word(id)) return NULL;
    const I18nMessage *m = find(i18n_table(state.lang), ctx, id);
    if (!m && !state.missing++) state.first_missing = id;
    return m;
}

const char *i18n_text(const char *en)
{
    const I18nMessage *m = lookup(NULL, en);
    return m ? m->forms[0] : en;
}

const char *i18n_context(const char *ctx, const char *en)
{
    const I18nMessage *m = lookup(ctx, en);
    return m ? m->forms[0] : en;
}

const char *i18n_plural(const char *one, const char *many, unsigned long n)
{
    const I18nMessage *m = lookup(NULL, one);
    if (!m) return n == 1 ? one : many;
    const LangTable *t = i18n_table(state.lang);
    unsigned long form = t->plural(n);
    const char *s = m->forms[form < (unsigned long)t->nplurals ? form : 0];
    return s ? s : m->forms[0]; // a message the catalogue has without plural forms: its one form
}

size_t i18n_missing(const char **first)
{
    if (first) *first = state.first_missing;
    return state.missing;
}

void i18n_missing_reset(void)
{
    state.missing = 0;
    state.first_missing = NULL;
}
