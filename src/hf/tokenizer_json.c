// tokenizer.json -> Tokenizer: the model (BPE or WordPiece: vocabulary, merges, switches), the
// added tokens, the normalizer, the pre-tokenizer and the post-processor's special tokens, each
// refused with its field named when it is not one read here.
#include "hf/tokenizer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "hf/hf_config.h"
#include "hf/hf_error.h"

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
    if (!strmap_init(&t->vocab, (size_t)cJSON_GetArraySize(vocab))
        || !strmap_init(&t->merges, (size_t)cJSON_GetArraySize(merges)))
        return hf_fail(err, path, NULL, "out of memory");
    for (const cJSON *j = vocab->child; j; j = j->next) {
        if (!cJSON_IsNumber(j) || j->valuedouble < 0 || j->valuedouble >= 16777216
            || j->valuedouble != (int)j->valuedouble)
            return hf_fail(err, path, "model.vocab",
                           "the id of \"%.60s\" is not a whole number from 0", j->string);
        // A key given twice: the last one's id, as serde's map and Python's json keep it.
        if (!strmap_put(&t->vocab, j->string, strlen(j->string), (int)j->valuedouble, true))
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
        if (!strmap_put(&t->merges, key, (size_t)n, rank, false))
            return hf_fail(err, path, NULL, "out of memory");
    }
    const char *unk = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(model, "unk_token"));
    t->unk = unk ? strmap_get(&t->vocab, unk, strlen(unk)) : -1;
    return true;
}

// A part's "type" (NULL: none), and whether it is the type name.
static const char *part_type(const cJSON *part)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(part, "type"));
}
static bool is_type(const char *type, const char *name) { return type && strcmp(type, name) == 0; }

// The error for a part of a type this reader does not read (field: where its type is).
static bool not_read(LessonError *err, const char *path, const char *field, const char *type)
{
    return hf_fail(err, path, field, "\"%.40s\" is not read here", type ? type : "none");
}

typedef bool (*PartReader)(Tokenizer *t, const cJSON *part, const char *path, LessonError *err);

// A part that is absent (null) or a Sequence, whose items (under key) read is given one by one:
// *done true, and how it went. *done false: a part of another type, for the caller.
static bool read_sequence(Tokenizer *t, const cJSON *part, const char *key, PartReader read,
                          const char *path, LessonError *err, bool *done)
{
    const char *type = part_type(part);
    *done = !part || cJSON_IsNull(part) || is_type(type, "Sequence");
    const cJSON *list = *done && part ? cJSON_GetObjectItemCaseSensitive(part, key) : NULL;
    for (const cJSON *j = list ? list->child : NULL; j; j = j->next)
        if (!read(t, j, path, err)) return false;
    return true;
}

// One pre-tokenizer (or each of a Sequence's): ByteLevel, Split with a known pattern, Metaspace.
static bool read_pretok(Tokenizer *t, const cJSON *p, const char *path, LessonError *err)
{
    bool done, ok = read_sequence(t, p, "pretokenizers", read_pretok, path, err, &done);
    if (done) return ok;
    const char *type = part_type(p);
    if (is_type(type, "ByteLevel")) {
        t->byte_level = true;
        const cJSON *regex = cJSON_GetObjectItemCaseSensitive(p, "use_regex");
        if (!regex || cJSON_IsTrue(regex)) t->pretok = PRETOK_GPT2;
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "add_prefix_space")))
            return hf_fail(err, path, "pre_tokenizer.add_prefix_space", "true is not followed yet");
        return true;
    }
    if (is_type(type, "Split")) {
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
    if (is_type(type, "Digits")) {
        if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "individual_digits")))
            return hf_fail(err, path, "pre_tokenizer.individual_digits",
                           "only true (each digit alone) is read");
        t->split_digits = true;
        return true;
    }
    if (is_type(type, "BertPreTokenizer") && t->wordpiece) return true; // wordpiece.c splits
    if (is_type(type, "Metaspace")) {
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
    return not_read(err, path, "pre_tokenizer.type", type);
}

// The normalizer: none, or SentencePiece's Prepend("▁") and Replace(" ", "▁").
static bool read_normalizer(Tokenizer *t, const cJSON *n, const char *path, LessonError *err)
{
    bool done, ok = read_sequence(t, n, "normalizers", read_normalizer, path, err, &done);
    if (done) return ok;
    const char *type = part_type(n);
    if (is_type(type,
                "BertNormalizer")) { // its four switches and their defaults (normalizers/bert.rs)
        const cJSON *strip = cJSON_GetObjectItemCaseSensitive(n, "strip_accents");
        t->bert_clean = !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(n, "clean_text"));
        t->bert_chinese =
            !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(n, "handle_chinese_chars"));
        t->bert_lower = !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(n, "lowercase"));
        t->bert_strip =
            cJSON_IsBool(strip) ? cJSON_IsTrue(strip) : t->bert_lower; // null: as lowercase
        return true;
    }
    if (is_type(type, "NFC")) { // Qwen2, Qwen3: nfc.c, on each stretch between added tokens
        t->nfc = true;
        return true;
    }
    bool prepend = is_type(type, "Prepend"), replace = is_type(type, "Replace");
    const char *content =
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(n, prepend ? "prepend" : "content"));
    const char *from = cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(n, "pattern"), "String"));
    bool to_mark = content && strcmp(content, TOKENIZER_SP_SPACE) == 0;
    if (prepend && to_mark) return t->sp_prepend = true;
    if (replace && to_mark && from && strcmp(from, " ") == 0) return t->sp_spaces = true;
    return not_read(err, path, "normalizer.type", type);
}

// The post-processor's template for one sequence: the special tokens' ids before and after "A".
static bool read_post(Tokenizer *t, const cJSON *p, const char *path, LessonError *err)
{
    bool done, ok = read_sequence(t, p, "processors", read_post, path, err, &done);
    if (done) return ok;
    const char *type = part_type(p);
    if (is_type(type, "ByteLevel")) return true;
    if (is_type(type, "BertProcessing")) { // "cls": ["[CLS]", 101] before, "sep" after
        const cJSON *cls = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(p, "cls"), 1);
        const cJSON *sep = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(p, "sep"), 1);
        if (!cJSON_IsNumber(cls) || !cJSON_IsNumber(sep) || cls->valuedouble < 0
            || cls->valuedouble >= t->size || sep->valuedouble < 0 || sep->valuedouble >= t->size)
            return hf_fail(err, path, "post_processor.cls",
                           "cls and sep need [token, id] with an id of the vocabulary");
        if (t->nprefix >= HF_MAX_SPECIAL || t->nsuffix >= HF_MAX_SPECIAL)
            return hf_fail(err, path, "post_processor.processors",
                           "more than %d special tokens before or after the text", HF_MAX_SPECIAL);
        t->prefix[t->nprefix++] = (int)cls->valuedouble;
        t->suffix[t->nsuffix++] = (int)sep->valuedouble;
        return true;
    }
    if (!type || strcmp(type, "TemplateProcessing") != 0)
        return not_read(err, path, "post_processor.type", type);
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
                || *count >= HF_MAX_SPECIAL)
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
        if (!strmap_put(&t->vocab, content, strlen(content), id, false))
            return hf_fail(err, path, NULL, "out of memory");
        t->token[id] = (char *)strmap_key(&t->vocab, content, strlen(content));
        t->added[id] = 1;
    }
    return true;
}

bool tokenizer_parse(Tokenizer *t, const char *text, size_t len, const char *path, LessonError *err)
{
    memset(t, 0, sizeof *t);
    t->unk = -1;
    cJSON *root = hf_parse_json(text, len, path, err);
    bool ok = root && (cJSON_IsObject(root) || hf_fail(err, path, NULL, "not a JSON object"));
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

void tokenizer_free(Tokenizer *t)
{
    strmap_free(&t->vocab);
    strmap_free(&t->merges);
    free(t->token);
    free(t->added);
    free(t->added_ids);
    memset(t, 0, sizeof *t);
}
