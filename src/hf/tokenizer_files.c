// The tokenizer files older checkpoints ship instead of tokenizer.json: GPT-2's vocab.json and
// merges.txt (byte-level BPE, GPT-2's pattern, <|endoftext|> and added_tokens.json's tokens whole)
// and BERT's vocab.txt (WordPiece, one token a line, tokenizer_config.json's do_lower_case,
// strip_accents and tokenize_chinese_chars; [CLS] ... [SEP]), written as the tokenizer.json Hugging
// Face's converters make of them and read by tokenizer_parse; and tokenizer_load, which picks
// tokenizer.json or these.
#include "hf/tokenizer.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "hf/hf_config.h"
#include "hf/hf_error.h"
#include "platform/platform.h"

static bool exists(const char *path)
{
    PlatformStat st;
    bool opened = true;
    FILE *f = platform_open_regular(path, &st, &opened);
    if (f) fclose(f);
    return f != NULL;
}

// The JSON file at path parsed (NULL when absent; NULL with err when it is there but not JSON).
static cJSON *read_json(const char *path, bool required, LessonError *err)
{
    if (!required && !exists(path)) return NULL;
    size_t len = 0;
    char *text = hf_read_file(path, &len, err);
    if (!text) return NULL;
    cJSON *j = hf_parse_json(text, len, path, err);
    free(text);
    return j;
}

static void add_token(cJSON *added, const char *content, int id)
{
    cJSON *a = cJSON_CreateObject();
    cJSON_AddNumberToObject(a, "id", id);
    cJSON_AddStringToObject(a, "content", content);
    cJSON_AddBoolToObject(a, "special", true);
    cJSON_AddItemToArray(added, a);
}

// GPT2Tokenizer: vocab.json {token: id}, merges.txt "a b" a line after "#version"; <|endoftext|>
// and the tokens of added_tokens.json matched whole.
static cJSON *gpt2_files(const char *dir, char *source, size_t cap, LessonError *err)
{
    char path[1100];
    snprintf(source, cap, "%s/vocab.json", dir);
    cJSON *vocab = read_json(source, true, err);
    if (!vocab) return NULL;
    if (!cJSON_IsObject(vocab)) {
        cJSON_Delete(vocab);
        hf_fail(err, source, NULL, "not an object from token to id");
        return NULL;
    }
    snprintf(path, sizeof path, "%s/merges.txt", dir);
    size_t len = 0;
    char *text = hf_read_file(path, &len, err);
    if (!text) {
        cJSON_Delete(vocab);
        return NULL;
    }
    cJSON *root = cJSON_CreateObject(), *model = cJSON_AddObjectToObject(root, "model");
    cJSON *merges = cJSON_CreateArray(), *added = cJSON_AddArrayToObject(root, "added_tokens");
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        size_t n = strlen(line);
        if (n && line[n - 1] == '\r') line[--n] = '\0';
        if (n && strncmp(line, "#version", 8) != 0)
            cJSON_AddItemToArray(merges, cJSON_CreateString(line));
    }
    free(text);
    const cJSON *eot = cJSON_GetObjectItemCaseSensitive(vocab, "<|endoftext|>");
    if (cJSON_IsNumber(eot)) add_token(added, "<|endoftext|>", (int)eot->valuedouble);
    snprintf(path, sizeof path, "%s/added_tokens.json", dir);
    cJSON *extra = read_json(path, false, err);
    for (const cJSON *j = extra ? extra->child : NULL; j; j = j->next)
        if (cJSON_IsNumber(j)) add_token(added, j->string, (int)j->valuedouble);
    cJSON_Delete(extra);
    cJSON_AddStringToObject(model, "type", "BPE");
    cJSON_AddItemToObject(model, "vocab", vocab);
    cJSON_AddItemToObject(model, "merges", merges);
    cJSON *pre = cJSON_AddObjectToObject(root, "pre_tokenizer");
    cJSON_AddStringToObject(pre, "type", "ByteLevel");
    cJSON_AddBoolToObject(pre, "add_prefix_space", false);
    return root;
}

// vocab.txt's lines (len bytes of text, changed in place) into vocab {token: id}: a token's id is
// the number of its line, the last line when it is there twice (transformers' load_vocab:
// vocab[token] = index over the lines), each token once in the order of its first line. Linear: a
// map of the tokens seen. false with err: no memory.
static bool vocab_lines(cJSON *vocab, char *text, size_t len, const char *path, LessonError *err)
{
    StrMap seen = {0}; // token -> its last line
    char **first = malloc(sizeof *first * (len / 2 + 2)); // each token's first line, in order
    int count = 0, id = 0;
    bool ok = first && strmap_init(&seen, len / 8);
    for (char *line = text, *next; ok && line && (*line || (size_t)(line - text) < len);
         line = next, id++) {
        next = memchr(line, '\n', len - (size_t)(line - text));
        if (next) *next++ = '\0';
        size_t n = strlen(line);
        if (n && line[n - 1] == '\r') line[--n] = '\0';
        if (strmap_get(&seen, line, n) < 0) first[count++] = line;
        ok = strmap_put(&seen, line, n, id, true);
        if (!next) break;
    }
    for (int i = 0; ok && i < count; i++)
        ok = cJSON_AddNumberToObject(vocab, first[i], strmap_get(&seen, first[i], strlen(first[i])))
             != NULL;
    free(first);
    strmap_free(&seen);
    return ok || hf_fail(err, path, NULL, "out of memory");
}

// BertTokenizer: vocab.txt, a token a line (its id the line's number); tokenizer_config.json's
// switches.
static cJSON *bert_files(const char *dir, char *source, size_t cap, LessonError *err)
{
    char path[1100];
    snprintf(source, cap, "%s/vocab.txt", dir);
    size_t len = 0;
    char *text = hf_read_file(source, &len, err);
    if (!text) return NULL;
    snprintf(path, sizeof path, "%s/tokenizer_config.json", dir);
    cJSON *config = read_json(path, false, err);
    if (!config && err->message[0]) {
        free(text);
        return NULL;
    }
    cJSON *root = cJSON_CreateObject(), *model = cJSON_AddObjectToObject(root, "model");
    cJSON *vocab = cJSON_AddObjectToObject(model, "vocab"),
          *added = cJSON_AddArrayToObject(root, "added_tokens");
    if (!vocab_lines(vocab, text, len, source, err)) {
        free(text);
        cJSON_Delete(config);
        cJSON_Delete(root);
        return NULL;
    }
    free(text);
    static const char *const SPECIAL[] = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};
    for (int i = 0; i < 5; i++) {
        const cJSON *j = cJSON_GetObjectItemCaseSensitive(vocab, SPECIAL[i]);
        if (cJSON_IsNumber(j)) add_token(added, SPECIAL[i], (int)j->valuedouble);
    }
    cJSON_AddStringToObject(model, "type", "WordPiece");
    cJSON_AddStringToObject(model, "unk_token", "[UNK]");
    const cJSON *lower = cJSON_GetObjectItemCaseSensitive(config, "do_lower_case");
    const cJSON *strip = cJSON_GetObjectItemCaseSensitive(config, "strip_accents");
    const cJSON *chinese = cJSON_GetObjectItemCaseSensitive(config, "tokenize_chinese_chars");
    cJSON *norm = cJSON_AddObjectToObject(root, "normalizer");
    cJSON_AddStringToObject(norm, "type", "BertNormalizer");
    cJSON_AddBoolToObject(norm, "lowercase",
                          !cJSON_IsFalse(lower)); // BertTokenizer's default: True
    cJSON_AddBoolToObject(norm, "handle_chinese_chars", !cJSON_IsFalse(chinese));
    if (cJSON_IsBool(strip)) cJSON_AddBoolToObject(norm, "strip_accents", cJSON_IsTrue(strip));
    cJSON_Delete(config);
    cJSON_AddStringToObject(cJSON_AddObjectToObject(root, "pre_tokenizer"), "type",
                            "BertPreTokenizer");
    const cJSON *cls = cJSON_GetObjectItemCaseSensitive(vocab, "[CLS]"),
                *sep = cJSON_GetObjectItemCaseSensitive(vocab, "[SEP]");
    if (cJSON_IsNumber(cls) && cJSON_IsNumber(sep)) {
        cJSON *post = cJSON_AddObjectToObject(root, "post_processor");
        cJSON_AddStringToObject(post, "type", "BertProcessing");
        cJSON *c = cJSON_AddArrayToObject(post, "cls"), *s = cJSON_AddArrayToObject(post, "sep");
        cJSON_AddItemToArray(c, cJSON_CreateString("[CLS]"));
        cJSON_AddItemToArray(c, cJSON_CreateNumber(cls->valuedouble));
        cJSON_AddItemToArray(s, cJSON_CreateString("[SEP]"));
        cJSON_AddItemToArray(s, cJSON_CreateNumber(sep->valuedouble));
    }
    return root;
}

bool tokenizer_load_files(Tokenizer *t, const char *dir, char *source, size_t cap, LessonError *err)
{
    char path[1100];
    memset(err, 0, sizeof *err);
    snprintf(path, sizeof path, "%s/vocab.json", dir);
    bool gpt2 = exists(path);
    snprintf(path, sizeof path, "%s/vocab.txt", dir);
    if (!gpt2 && !exists(path)) {
        snprintf(path, sizeof path, "%s/tokenizer.json", dir);
        return hf_fail_io(err, path, NULL,
                          "cannot be read: %s (nor vocab.json and merges.txt, nor vocab.txt)",
                          strerror(ENOENT));
    }
    cJSON *root = gpt2 ? gpt2_files(dir, source, cap, err) : bert_files(dir, source, cap, err);
    if (!root) return false;
    char *text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    if (!text) return hf_fail(err, source, NULL, "out of memory");
    bool ok = tokenizer_parse(t, text, strlen(text), source, err);
    free(text);
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
