// Language tables: choosing one and looking a message up in it.
#include "i18n.h"

#include <stdlib.h>
#include <string.h>

extern const LangPair LANG_ES_PAIRS[], LANG_FR_PAIRS[], LANG_ZH_PAIRS[];
extern const size_t LANG_ES_COUNT, LANG_FR_COUNT, LANG_ZH_COUNT;

// The language in use and the lookups that found nothing: the process's, set by main (see i18n.h).
static struct {
    Lang lang;
    size_t missing;
    const char *first_missing;
} state = {LANG_EN, 0, NULL};

const LangTable *i18n_table(Lang l)
{
    static LangTable tables[LANG_COUNT];
    tables[LANG_EN] = (LangTable){"en", "English", NULL, 0};
    tables[LANG_ES] = (LangTable){"es", "espa\xc3\xb1ol", LANG_ES_PAIRS, LANG_ES_COUNT};
    tables[LANG_FR] = (LangTable){"fr", "fran\xc3\xa7" "ais", LANG_FR_PAIRS, LANG_FR_COUNT};
    tables[LANG_ZH] = (LangTable){"zh", "\xe4\xb8\xad\xe6\x96\x87", LANG_ZH_PAIRS, LANG_ZH_COUNT};
    return l >= 0 && l < LANG_COUNT ? &tables[l] : &tables[LANG_EN];
}

bool i18n_parse(const char *code, Lang *out)
{
    if (!code) return false;
    static const char *const CODES[LANG_COUNT] = {"en", "es", "fr", "zh"};
    for (int l = 0; l < LANG_COUNT; l++) {
        size_t n = strlen(CODES[l]);
        if (strncmp(code, CODES[l], n) == 0 && (code[n] == '\0' || code[n] == '-' || code[n] == '_' || code[n] == '.' ||
                                                code[n] == '@')) {
            *out = (Lang)l;
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

const char *i18n_codes(void) { return "en, es, fr, zh"; }

void i18n_use(Lang l) { state.lang = l >= 0 && l < LANG_COUNT ? l : LANG_EN; }
Lang i18n_current(void) { return state.lang; }

// A message without a word (two lower-case ASCII letters in a row) is a symbol or a key ("A", "1 … 9",
// "QK^T", "W^O"), the same in every language, so it is not looked up.
static bool has_word(const char *s)
{
    for (; s[0] && s[1]; s++)
        if (s[0] >= 'a' && s[0] <= 'z' && s[1] >= 'a' && s[1] <= 'z') return true;
    return false;
}

const char *i18n_text(const char *en)
{
    if (state.lang == LANG_EN || !en || !has_word(en)) return en;
    const LangTable *t = i18n_table(state.lang);
    for (size_t i = 0; i < t->count; i++)
        if (strcmp(t->pairs[i].en, en) == 0) return t->pairs[i].tr;
    if (!state.missing++) state.first_missing = en;
    return en;
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
