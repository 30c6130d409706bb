// tokenizer.json -> Tokenizer, and text -> ids: the added tokens split out first, the normalizer,
// the pre-tokenizer's pieces, BPE merges by rank in each piece (the lowest rank first, the leftmost
// of equals, as Hugging Face's tokenizers apply them), the post-processor's special tokens around.
#include "hf/tokenizer.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "core/utf8.h"
#include "hf/hf_config.h"
#include "hf/hf_error.h"
#include "hf/nfc.h"
#include "platform/platform.h"
#include "hf/unicode_classes.h"
#include "hf/wordpiece.h"

static const char SP_SPACE[] = "\xe2\x96\x81"; // U+2581 "▁": SentencePiece's space

// ---- a string -> int map (open addressing, FNV-1a) ----

static uint64_t hash_bytes(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

// The slot of key (n bytes) in m: its own, or the empty one where it would go.
static size_t map_slot(const StrMap *m, const char *key, size_t n)
{
    size_t i = (size_t)(hash_bytes(key, n) & (m->cap - 1));
    while (m->keys[i] && !(strlen(m->keys[i]) == n && memcmp(m->keys[i], key, n) == 0))
        i = (i + 1) & (m->cap - 1);
    return i;
}

static bool map_init(StrMap *m, size_t expected)
{
    m->cap = 16;
    while (m->cap < 2 * expected + 16) m->cap *= 2;
    m->used = 0;
    m->keys = calloc(m->cap, sizeof *m->keys);
    m->values = calloc(m->cap, sizeof *m->values);
    return m->keys && m->values;
}

static void map_free(StrMap *m)
{
    for (size_t i = 0; m->keys && i < m->cap; i++) free(m->keys[i]);
    free(m->keys);
    free(m->values);
    memset(m, 0, sizeof *m);
}

// Adds key (n bytes) -> value unless it is there (the first one stays, as in the vocabulary's
// JSON). false: no memory.
static bool map_put(StrMap *m, const char *key, size_t n, int value)
{
    size_t i = map_slot(m, key, n);
    if (m->keys[i]) return true;
    if (2 * (m->used + 1) > m->cap) { // twice the slots, every key moved to its new one
        StrMap g = {calloc(2 * m->cap, sizeof *g.keys), calloc(2 * m->cap, sizeof *g.values),
                    2 * m->cap, m->used};
        if (!g.keys || !g.values) {
            free(g.keys);
            free(g.values);
            return false;
        }
        for (size_t k = 0; k < m->cap; k++)
            if (m->keys[k]) {
                size_t at = map_slot(&g, m->keys[k], strlen(m->keys[k]));
                g.keys[at] = m->keys[k], g.values[at] = m->values[k];
            }
        free(m->keys);
        free(m->values);
        *m = g;
        i = map_slot(m, key, n);
    }
    if (!(m->keys[i] = malloc(n + 1))) return false;
    memcpy(m->keys[i], key, n);
    m->keys[i][n] = '\0';
    m->values[i] = value;
    m->used++;
    return true;
}

static int map_get(const StrMap *m, const char *key, size_t n)
{
    if (!m->cap) return -1;
    size_t i = map_slot(m, key, n);
    return m->keys[i] ? m->values[i] : -1;
}

int tokenizer_vocab_id(const Tokenizer *t, const char *s, size_t n)
{
    return map_get(&t->vocab, s, n);
}

// ---- GPT-2's bytes_to_unicode: the printable bytes as themselves, the others as 256, 257, ... ----

static uint32_t byte_code_point(int b)
{
    if ((b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255))
        return (uint32_t)b;
    int k = 0; // how many unprintable bytes come before b
    for (int c = 0; c < b; c++)
        k += !((c >= 33 && c <= 126) || (c >= 161 && c <= 172) || (c >= 174 && c <= 255));
    return 256u + (uint32_t)k;
}

// The byte whose code point is cp, or -1.
static int code_point_byte(uint32_t cp)
{
    for (int b = 0; b < 256; b++)
        if (byte_code_point(b) == cp) return b;
    return -1;
}

static size_t put_utf8(char *out, uint32_t cp)
{
    if (cp < 0x80) return out[0] = (char)cp, 1;
    if (cp < 0x800) return out[0] = (char)(0xC0 | cp >> 6), out[1] = (char)(0x80 | (cp & 0x3F)), 2;
    if (cp < 0x10000)
        return out[0] = (char)(0xE0 | cp >> 12), out[1] = (char)(0x80 | (cp >> 6 & 0x3F)),
               out[2] = (char)(0x80 | (cp & 0x3F)), 3;
    out[0] = (char)(0xF0 | cp >> 18), out[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    out[2] = (char)(0x80 | (cp >> 6 & 0x3F)), out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

// ---- reading tokenizer.json ----

// The model: type BPE, its vocab, merges ("a b" or ["a", "b"]), byte_fallback, ignore_merges,
// unk_token.
static bool read_model(Tokenizer *t, const cJSON *model, const char *path, LessonError *err)
{
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(model, "type");
    t->wordpiece = cJSON_IsString(type) && strcmp(type->valuestring, "WordPiece") == 0;
    if (!cJSON_IsString(type) || (strcmp(type->valuestring, "BPE") != 0 && !t->wordpiece))
        return hf_fail(err, path, "model.type", "only BPE and WordPiece models are read (got %s)",
                       cJSON_IsString(type) ? type->valuestring : "none");
    const cJSON *vocab = cJSON_GetObjectItemCaseSensitive(model, "vocab");
    const cJSON *merges = cJSON_GetObjectItemCaseSensitive(model, "merges");
    if (!cJSON_IsObject(vocab))
        return hf_fail(err, path, "model.vocab", "missing: an object from token to id");
    if (t->wordpiece) {
        const char *prefix = cJSON_GetStringValue(
            cJSON_GetObjectItemCaseSensitive(model, "continuing_subword_prefix"));
        const cJSON *max = cJSON_GetObjectItemCaseSensitive(model, "max_input_chars_per_word");
        if (prefix && strlen(prefix) >= sizeof t->wp_prefix)
            return hf_fail(err, path, "model.continuing_subword_prefix", "longer than %zu bytes",
                           sizeof t->wp_prefix - 1);
        snprintf(t->wp_prefix, sizeof t->wp_prefix, "%s", prefix ? prefix : "##");
        t->wp_max_chars = cJSON_IsNumber(max) && max->valuedouble >= 1 && max->valuedouble < 1e6
                              ? (int)max->valuedouble
                              : 100;
        merges = NULL;
    } else if (!cJSON_IsArray(merges))
        return hf_fail(err, path, "model.merges", "missing: a list of merges");
    t->byte_fallback = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(model, "byte_fallback"));
    t->ignore_merges = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(model, "ignore_merges"));
    if (!map_init(&t->vocab, (size_t)cJSON_GetArraySize(vocab))
        || !map_init(&t->merges, (size_t)cJSON_GetArraySize(merges)))
        return hf_fail(err, path, NULL, "out of memory");
    for (const cJSON *j = vocab->child; j; j = j->next) {
        if (!cJSON_IsNumber(j) || j->valuedouble < 0 || j->valuedouble >= 16777216
            || j->valuedouble != (int)j->valuedouble)
            return hf_fail(err, path, "model.vocab",
                           "the id of \"%.60s\" is not a whole number from 0", j->string);
        if (!map_put(&t->vocab, j->string, strlen(j->string), (int)j->valuedouble))
            return hf_fail(err, path, NULL, "out of memory");
    }
    char key[1024];
    int rank = 0;
    for (const cJSON *j = merges ? merges->child : NULL; j; j = j->next, rank++) {
        const char *a = NULL, *b = NULL;
        char pair[1024];
        if (cJSON_IsString(j) && strlen(j->valuestring) < sizeof pair) {
            snprintf(pair, sizeof pair, "%s", j->valuestring);
            char *sp = strchr(pair, ' ');
            if (sp) *sp = '\0', a = pair, b = sp + 1;
        } else if (cJSON_IsArray(j) && cJSON_GetArraySize(j) == 2) {
            a = cJSON_GetStringValue(cJSON_GetArrayItem(j, 0));
            b = cJSON_GetStringValue(cJSON_GetArrayItem(j, 1));
        }
        if (!a || !b || strlen(a) + strlen(b) + 2 > sizeof key)
            return hf_fail(err, path, "model.merges",
                           "merge %d is not \"left right\" or [left, right]", rank);
        int n = snprintf(key, sizeof key, "%s\x01%s", a, b);
        if (!map_put(&t->merges, key, (size_t)n, rank))
            return hf_fail(err, path, NULL, "out of memory");
    }
    const char *unk = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(model, "unk_token"));
    t->unk = unk ? map_get(&t->vocab, unk, strlen(unk)) : -1;
    return true;
}

// One pre-tokenizer (or each of a Sequence's): ByteLevel, Split with a known pattern, Metaspace.
static bool read_pretok(Tokenizer *t, const cJSON *p, const char *path, LessonError *err)
{
    if (!p || cJSON_IsNull(p)) return true;
    const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "type"));
    if (type && strcmp(type, "Sequence") == 0) {
        const cJSON *list = cJSON_GetObjectItemCaseSensitive(p, "pretokenizers");
        for (const cJSON *j = list ? list->child : NULL; j; j = j->next)
            if (!read_pretok(t, j, path, err)) return false;
        return true;
    }
    if (type && strcmp(type, "ByteLevel") == 0) {
        t->byte_level = true;
        const cJSON *regex = cJSON_GetObjectItemCaseSensitive(p, "use_regex");
        if (!regex || cJSON_IsTrue(regex)) t->pretok = PRETOK_GPT2;
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "add_prefix_space")))
            return hf_fail(err, path, "pre_tokenizer.add_prefix_space", "true is not followed yet");
        return true;
    }
    if (type && strcmp(type, "Split") == 0) {
        const char *regex = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(p, "pattern"), "Regex"));
        const char *behavior =
            cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "behavior"));
        if (!regex || !pretok_from_pattern(regex, &t->pretok) || !behavior
            || strcmp(behavior, "Isolated") != 0)
            return hf_fail(err, path, "pre_tokenizer.pattern",
                           "not a pattern read here (GPT-2's, Llama 3's, Qwen2's, "
                           "isolated)");
        return true;
    }
    if (type && strcmp(type, "Digits") == 0) {
        if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "individual_digits")))
            return hf_fail(err, path, "pre_tokenizer.individual_digits",
                           "only true (each digit alone) is read");
        t->split_digits = true;
        return true;
    }
    if (type && strcmp(type, "BertPreTokenizer") == 0 && t->wordpiece)
        return true; // wordpiece.c splits
    if (type && strcmp(type, "Metaspace") == 0) {
        const char *scheme =
            cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "prepend_scheme"));
        const cJSON *add =
            cJSON_GetObjectItemCaseSensitive(p, "add_prefix_space"); // before transformers 4.38
        t->sp_spaces = true;
        t->sp_prepend = scheme ? strcmp(scheme, "never") != 0 : !cJSON_IsFalse(add);
        t->sp_first_only = scheme && strcmp(scheme, "first") == 0;
        if (!cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(p, "split")))
            t->pretok = PRETOK_METASPACE;
        return true;
    }
    return hf_fail(err, path, "pre_tokenizer.type", "\"%.40s\" is not read here",
                   type ? type : "none");
}

// The normalizer: none, or SentencePiece's Prepend("▁") and Replace(" ", "▁").
static bool read_normalizer(Tokenizer *t, const cJSON *n, const char *path, LessonError *err)
{
    if (!n || cJSON_IsNull(n)) return true;
    const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(n, "type"));
    if (type && strcmp(type, "Sequence") == 0) {
        const cJSON *list = cJSON_GetObjectItemCaseSensitive(n, "normalizers");
        for (const cJSON *j = list ? list->child : NULL; j; j = j->next)
            if (!read_normalizer(t, j, path, err)) return false;
        return true;
    }
    if (type
        && strcmp(type, "BertNormalizer")
               == 0) { // its four switches and their defaults (normalizers/bert.rs)
        const cJSON *strip = cJSON_GetObjectItemCaseSensitive(n, "strip_accents");
        t->bert_clean = !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(n, "clean_text"));
        t->bert_chinese =
            !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(n, "handle_chinese_chars"));
        t->bert_lower = !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(n, "lowercase"));
        t->bert_strip =
            cJSON_IsBool(strip) ? cJSON_IsTrue(strip) : t->bert_lower; // null: as lowercase
        return true;
    }
    if (type
        && strcmp(type, "NFC") == 0) { // Qwen2, Qwen3: nfc.c, on each stretch between added tokens
        t->nfc = true;
        return true;
    }
    bool prepend = type && strcmp(type, "Prepend") == 0,
         replace = type && strcmp(type, "Replace") == 0;
    const char *content =
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(n, prepend ? "prepend" : "content"));
    const char *from = cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(n, "pattern"), "String"));
    bool to_mark = content && strcmp(content, SP_SPACE) == 0;
    if (prepend && to_mark) return t->sp_prepend = true;
    if (replace && to_mark && from && strcmp(from, " ") == 0) return t->sp_spaces = true;
    return hf_fail(err, path, "normalizer.type", "\"%.40s\" is not read here",
                   type ? type : "none");
}

// The post-processor's template for one sequence: the special tokens' ids before and after "A".
static bool read_post(Tokenizer *t, const cJSON *p, const char *path, LessonError *err)
{
    if (!p || cJSON_IsNull(p)) return true;
    const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "type"));
    if (type && strcmp(type, "Sequence") == 0) {
        const cJSON *list = cJSON_GetObjectItemCaseSensitive(p, "processors");
        for (const cJSON *j = list ? list->child : NULL; j; j = j->next)
            if (!read_post(t, j, path, err)) return false;
        return true;
    }
    if (type && strcmp(type, "ByteLevel") == 0) return true;
    if (type && strcmp(type, "BertProcessing") == 0) { // "cls": ["[CLS]", 101] before, "sep" after
        const cJSON *cls = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(p, "cls"), 1);
        const cJSON *sep = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(p, "sep"), 1);
        if (!cJSON_IsNumber(cls) || !cJSON_IsNumber(sep) || cls->valuedouble < 0
            || cls->valuedouble >= t->size || sep->valuedouble < 0 || sep->valuedouble >= t->size)
            return hf_fail(err, path, "post_processor.cls",
                           "cls and sep need [token, id] with an id of the vocabulary");
        t->prefix[t->nprefix++] = (int)cls->valuedouble;
        t->suffix[t->nsuffix++] = (int)sep->valuedouble;
        return true;
    }
    if (!type || strcmp(type, "TemplateProcessing") != 0)
        return hf_fail(err, path, "post_processor.type", "\"%.40s\" is not read here",
                       type ? type : "none");
    const cJSON *single = cJSON_GetObjectItemCaseSensitive(p, "single");
    const cJSON *specials = cJSON_GetObjectItemCaseSensitive(p, "special_tokens");
    bool after = false;
    for (const cJSON *j = single ? single->child : NULL; j; j = j->next) {
        if (cJSON_GetObjectItemCaseSensitive(j, "Sequence")) {
            after = true;
            continue;
        }
        const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(j, "SpecialToken"), "id"));
        const cJSON *ids = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(specials, id ? id : ""), "ids");
        for (const cJSON *k = ids ? ids->child : NULL; k; k = k->next) {
            int *list = after ? t->suffix : t->prefix, *count = after ? &t->nsuffix : &t->nprefix;
            if (!cJSON_IsNumber(k) || k->valuedouble < 0 || k->valuedouble >= t->size
                || *count >= 4)
                return hf_fail(err, path, "post_processor.special_tokens",
                               "the ids of \"%.40s\" are not tokens", id);
            list[(*count)++] = (int)k->valuedouble;
        }
        if (!ids)
            return hf_fail(err, path, "post_processor.single", "a special token without its ids");
    }
    return true;
}

// The id -> string table from the vocabulary and the added tokens (which the text is split on
// first).
static bool read_ids(Tokenizer *t, const cJSON *added, const char *path, LessonError *err)
{
    int size = 0;
    for (size_t i = 0; i < t->vocab.cap; i++)
        if (t->vocab.keys[i] && t->vocab.values[i] + 1 > size) size = t->vocab.values[i] + 1;
    for (const cJSON *j = added ? added->child : NULL; j; j = j->next) {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(j, "id");
        if (!cJSON_IsNumber(id) || id->valuedouble < 0 || id->valuedouble >= 16777216
            || !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "content")))
            return hf_fail(err, path, "added_tokens",
                           "an added token needs \"id\" and \"content\"");
        if ((int)id->valuedouble + 1 > size) size = (int)id->valuedouble + 1;
    }
    t->size = size;
    if (!(t->token = calloc((size_t)size + 1, sizeof *t->token))
        || !(t->added = calloc((size_t)size + 1, 1)))
        return hf_fail(err, path, NULL, "out of memory");
    for (size_t i = 0; i < t->vocab.cap; i++)
        if (t->vocab.keys[i]) t->token[t->vocab.values[i]] = t->vocab.keys[i];
    if (!(t->added_ids = malloc(sizeof *t->added_ids * (size_t)(cJSON_GetArraySize(added) + 1))))
        return hf_fail(err, path, NULL, "out of memory");
    for (const cJSON *j = added ? added->child : NULL; j; j = j->next) {
        int id = (int)cJSON_GetObjectItemCaseSensitive(j, "id")->valuedouble;
        if (!t->added[id]) t->added_ids[t->nadded++] = id;
        const char *content = cJSON_GetObjectItemCaseSensitive(j, "content")->valuestring;
        if (!map_put(&t->vocab, content, strlen(content), id))
            return hf_fail(err, path, NULL, "out of memory");
        t->token[id] = t->vocab.keys[map_slot(&t->vocab, content, strlen(content))];
        t->added[id] = 1;
    }
    return true;
}

bool tokenizer_parse(Tokenizer *t, const char *text, size_t len, const char *path, LessonError *err)
{
    memset(t, 0, sizeof *t);
    t->unk = -1;
    cJSON *root = cJSON_ParseWithLength(text, len);
    bool ok = cJSON_IsObject(root) || hf_fail(err, path, NULL, "not a JSON object");
    if (ok) ok = read_model(t, cJSON_GetObjectItemCaseSensitive(root, "model"), path, err);
    if (ok) ok = read_ids(t, cJSON_GetObjectItemCaseSensitive(root, "added_tokens"), path, err);
    if (ok)
        ok = read_normalizer(t, cJSON_GetObjectItemCaseSensitive(root, "normalizer"), path, err);
    if (ok) ok = read_pretok(t, cJSON_GetObjectItemCaseSensitive(root, "pre_tokenizer"), path, err);
    if (ok) ok = read_post(t, cJSON_GetObjectItemCaseSensitive(root, "post_processor"), path, err);
    if (ok && !t->wordpiece && t->byte_level == (t->sp_spaces || t->sp_prepend))
        ok = hf_fail(err, path, "pre_tokenizer",
                     "neither byte-level (ByteLevel) nor SentencePiece-style (\"▁\" spaces)");
    cJSON_Delete(root);
    if (!ok) tokenizer_free(t);
    return ok;
}

bool tokenizer_load(Tokenizer *t, const char *dir, LessonError *err)
{
    char path[1024], source[1024];
    snprintf(path, sizeof path, "%s/tokenizer.json", dir);
    PlatformStat st;
    bool opened = true;
    FILE *f = platform_open_regular(path, &st, &opened);
    bool absent = !f && !opened && errno == ENOENT;
    if (f) fclose(f);
    bool ok;
    if (absent) { // no tokenizer.json: the files older checkpoints have
        ok = tokenizer_load_files(t, dir, source, sizeof source, err);
    } else {
        size_t len = 0;
        char *text = hf_read_file(path, &len, err);
        if (!text) return false;
        ok = tokenizer_parse(t, text, len, path, err);
        free(text);
        snprintf(source, sizeof source, "%s", path);
    }
    if (ok) snprintf(t->source, sizeof t->source, "%s", source);
    return ok;
}

void tokenizer_free(Tokenizer *t)
{
    map_free(&t->vocab);
    map_free(&t->merges);
    free(t->token);
    free(t->added);
    free(t->added_ids);
    memset(t, 0, sizeof *t);
}

// ---- encoding ----

typedef struct {
    int *ids;
    int n, cap;
} IdList;

static bool push_id(IdList *l, int id)
{
    if (l->n == l->cap) {
        int *g = realloc(l->ids, sizeof *g * (size_t)(l->cap = 2 * l->cap + 16));
        if (!g) return false;
        l->ids = g;
    }
    l->ids[l->n++] = id;
    return true;
}

// One symbol (w[a, b)) of a merged piece as ids: its token, else its bytes' <0xNN> tokens (byte
// fallback), else the unknown token.
static bool symbol_ids(const Tokenizer *t, const char *w, size_t a, size_t b, IdList *out,
                       const char *path, LessonError *err)
{
    int id = map_get(&t->vocab, w + a, b - a);
    if (id >= 0) return push_id(out, id) || hf_fail(err, path, NULL, "out of memory");
    if (t->byte_fallback) {
        bool all = true;
        for (size_t k = a; k < b && all; k++) {
            char name[8];
            snprintf(name, sizeof name, "<0x%02X>", (unsigned)(unsigned char)w[k]);
            all = map_get(&t->vocab, name, 6) >= 0;
        }
        for (size_t k = a; k < b && all; k++) {
            char name[8];
            snprintf(name, sizeof name, "<0x%02X>", (unsigned)(unsigned char)w[k]);
            if (!push_id(out, map_get(&t->vocab, name, 6)))
                return hf_fail(err, path, NULL, "out of memory");
        }
        if (all) return true;
    }
    if (t->unk >= 0) return push_id(out, t->unk) || hf_fail(err, path, NULL, "out of memory");
    return hf_fail(err, path, "model.vocab", "no token for \"%.*s\" and no unk_token",
                   (int)(b - a < 60 ? b - a : 60), w + a);
}

// BPE on one piece w (n bytes, already mapped): its characters as symbols, then the merge of lowest
// rank (the leftmost of equal ones) again and again, then each symbol's id.
static bool bpe_piece(const Tokenizer *t, const char *w, size_t n, IdList *out, const char *path,
                      LessonError *err)
{
    if (t->ignore_merges) {
        int id = map_get(&t->vocab, w, n);
        if (id >= 0) return push_id(out, id) || hf_fail(err, path, NULL, "out of memory");
    }
    size_t *start = malloc(sizeof *start * (n + 1));
    char *key = malloc(n + 2);
    if (!start || !key) {
        free(start);
        free(key);
        return hf_fail(err, path, NULL, "out of memory");
    }
    int count = 0;
    for (size_t i = 0; i < n;) { // one symbol per character
        start[count++] = i;
        utf8_decode(w, n, &i);
    }
    start[count] = n;
    for (;;) {
        int best = -1, best_rank = 0;
        for (int i = 0; i + 1 < count; i++) {
            size_t la = start[i + 1] - start[i], lb = start[i + 2] - start[i + 1];
            memcpy(key, w + start[i], la);
            key[la] = '\x01';
            memcpy(key + la + 1, w + start[i + 1], lb);
            int rank = map_get(&t->merges, key, la + lb + 1);
            if (rank >= 0 && (best < 0 || rank < best_rank)) best = i, best_rank = rank;
        }
        if (best < 0) break;
        memmove(start + best + 1, start + best + 2, sizeof *start * (size_t)(count - best - 1));
        count--;
    }
    bool ok = true;
    for (int i = 0; ok && i < count; i++)
        ok = symbol_ids(t, w, start[i], start[i + 1], out, path, err);
    free(start);
    free(key);
    return ok;
}

static bool encode_normal(const Tokenizer *t, const char *s, size_t len, bool first, IdList *out,
                          const char *path, LessonError *err);

// A stretch of text with no added token in it: normalized, split by the pre-tokenizer, each piece
// mapped (bytes to code points) and merged.
static bool encode_plain(const Tokenizer *t, const char *s, size_t len, bool first, IdList *out,
                         const char *path, LessonError *err)
{
    if (len == 0) return true;
    if (t->nfc) { // the NFC normalizer, then the rest on its result
        size_t nlen = 0;
        char *norm = unicode_nfc(s, len, &nlen);
        if (!norm) return hf_fail(err, path, NULL, "out of memory");
        bool ok = encode_normal(t, norm, nlen, first, out, path, err);
        free(norm);
        return ok;
    }
    return encode_normal(t, s, len, first, out, path, err);
}

// encode_plain once normalized (NFC); SentencePiece's spaces and the pre-tokenizer here.
static bool encode_normal(const Tokenizer *t, const char *s, size_t len, bool first, IdList *out,
                          const char *path, LessonError *err)
{
    if (t->wordpiece) {
        WpIds ids = {out->ids, out->n, out->cap};
        bool ok = wordpiece_encode(t, s, len, &ids, path, err);
        out->ids = ids.ids, out->n = ids.n, out->cap = ids.cap;
        return ok;
    }
    // SentencePiece style: "▁" before the text and for each space; at most 3 bytes for each byte.
    char *norm = malloc(3 * len + 4), *mapped = malloc(4 * (3 * len + 4));
    uint32_t *cp = malloc(sizeof *cp * (3 * len + 4));
    size_t *at = malloc(sizeof *at * (3 * len + 5));
    bool ok = norm && mapped && cp && at;
    size_t nlen = 0;
    if (ok && t->sp_prepend && (first || !t->sp_first_only)) memcpy(norm, SP_SPACE, 3), nlen = 3;
    for (size_t i = 0; ok && i < len; i++)
        if (t->sp_spaces && s[i] == ' ') memcpy(norm + nlen, SP_SPACE, 3), nlen += 3;
        else norm[nlen++] = s[i];
    int count = 0;
    for (size_t i = 0; ok && i < nlen;) {
        at[count] = i;
        cp[count++] = utf8_decode(norm, nlen, &i);
    }
    if (ok) at[count] = nlen;
    for (int i = 0; ok && i < count;) {
        int end = count; // Digits: a digit alone, else up to the next digit, each then split by the
                         // pattern
        if (t->split_digits) {
            end = i + 1;
            if (!unicode_is_number(cp[i]))
                while (end < count && !unicode_is_number(cp[end])) end++;
        }
        int k = pretok_match(t->pretok, cp, end, i);
        size_t a = at[i], b = at[i + k], m = 0;
        if (t->byte_level)
            for (size_t q = a; q < b; q++)
                m += put_utf8(mapped + m, byte_code_point((unsigned char)norm[q]));
        else memcpy(mapped, norm + a, m = b - a);
        ok = bpe_piece(t, mapped, m, out, path, err);
        i += k;
    }
    if (!(norm && mapped && cp && at)) hf_fail(err, path, NULL, "out of memory");
    free(norm);
    free(mapped);
    free(cp);
    free(at);
    return ok;
}

// The added token at s (the longest), or -1.
static int added_at(const Tokenizer *t, const char *s, size_t left, size_t *len)
{
    int best = -1;
    *len = 0;
    for (int a = 0; a < t->nadded; a++) {
        int id = t->added_ids[a];
        size_t k = strlen(t->token[id]);
        if (k > *len && k <= left && memcmp(s, t->token[id], k) == 0) best = id, *len = k;
    }
    return best;
}

bool tokenizer_encode(const Tokenizer *t, const char *text, int **ids, int *n, const char *path,
                      LessonError *err)
{
    size_t len = strlen(text);
    IdList out = {0};
    bool ok = true;
    for (int i = 0; ok && i < t->nprefix; i++) ok = push_id(&out, t->prefix[i]);
    size_t plain = 0;
    for (size_t i = 0; ok && i <= len;) {
        size_t k = 0;
        int id = i < len ? added_at(t, text + i, len - i, &k) : -1;
        if (id < 0 && i < len) {
            i++;
            continue;
        }
        ok = encode_plain(t, text + plain, i - plain, plain == 0, &out, path, err);
        if (id < 0) break;
        if (ok) ok = push_id(&out, id) || hf_fail(err, path, NULL, "out of memory");
        i += k;
        plain = i;
    }
    for (int i = 0; ok && i < t->nsuffix; i++) ok = push_id(&out, t->suffix[i]);
    if (!ok) {
        free(out.ids);
        if (!err->message[0]) hf_fail(err, path, NULL, "out of memory");
        return false;
    }
    *ids = out.ids;
    *n = out.n;
    return true;
}

// ---- display ----

// The bytes token id stands for (its text for an added token): into out (at least 4 * strlen + 1),
// the count.
static size_t token_bytes(const Tokenizer *t, int id, char *out)
{
    const char *s = t->token[id];
    size_t len = strlen(s), n = 0;
    if (t->added[id]) {
        memcpy(out, s, len);
        return len;
    }
    unsigned hex;
    if (t->byte_fallback && len == 6 && sscanf(s, "<0x%2X>", &hex) == 1) {
        out[0] = (char)hex;
        return 1;
    }
    for (size_t i = 0; i < len;) {
        size_t from = i;
        uint32_t c = utf8_decode(s, len, &i);
        int b = t->byte_level ? code_point_byte(c) : -1;
        if (b >= 0) out[n++] = (char)b;
        else if (t->sp_spaces && i - from == 3 && memcmp(s + from, SP_SPACE, 3) == 0)
            out[n++] = ' ';
        else memcpy(out + n, s + from, i - from), n += i - from;
    }
    return n;
}

char *tokenizer_display(const Tokenizer *t, int id)
{
    if (id < 0 || id >= t->size || !t->token[id]) {
        char *s = malloc(16);
        if (s) snprintf(s, 16, "<%d>", id);
        return s;
    }
    size_t len = strlen(t->token[id]);
    char *bytes = malloc(4 * len + 1), *out = malloc(6 * (4 * len) + 1);
    if (!bytes || !out) {
        free(bytes);
        free(out);
        return NULL;
    }
    size_t n = token_bytes(t, id, bytes), m = 0;
    for (size_t i = 0; i < n;) {
        size_t from = i;
        uint32_t c = utf8_decode(bytes, n, &i);
        bool whole = c != 0xFFFD || (i - from == 3 && memcmp(bytes + from, "\xef\xbf\xbd", 3) == 0);
        if (c == ' ') memcpy(out + m, SP_SPACE, 3), m += 3;
        else if (c == '\n') memcpy(out + m, "\xe2\x86\xb5", 3), m += 3; // ↵
        else if (c == '\t') memcpy(out + m, "\xe2\x87\xa5", 3), m += 3; // ⇥
        else if (!whole || c < 0x20 || c == 0x7f)
            for (size_t k = from; k < i; k++)
                m += (size_t)sprintf(out + m, "<0x%02X>", (unsigned)(unsigned char)bytes[k]);
        else memcpy(out + m, bytes + from, i - from), m += i - from;
    }
    out[m] = '\0';
    free(bytes);
    return out;
}
