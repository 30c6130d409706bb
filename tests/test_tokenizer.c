// Tests src/hf/pretokenize and tokenizer: the pre-tokenizer patterns' pieces (GPT-2's, Llama
// 3's, Qwen2's: contractions, the optional space, digits, newlines, the (?!\S) look-ahead), the
// Unicode classes, BPE merges by rank, the added and special tokens, byte fallback, the tokens as
// shown, and tokenizer.json refused.
#define _POSIX_C_SOURCE 200809L // mkdtemp, truncate, mkfifo
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifndef _WIN32
#include <unistd.h>
#endif
#include "check.h"
#include "core/utf8.h"
#include "hf/nfc.h"
#include "hf/pretokenize.h"
#include "hf/tokenizer.h"
#include "hf/unicode_classes.h"

// The pieces of text under kind, joined by '|'.
static void pieces(PretokKind kind, const char *text, char *out, size_t cap)
{
    uint32_t cp[256];
    size_t at[257], len = strlen(text), used = 0;
    int n = 0;
    for (size_t i = 0; i < len && n < 256;) {
        at[n] = i;
        cp[n++] = utf8_decode(text, len, &i);
    }
    at[n] = len;
    out[0] = '\0';
    for (int i = 0; i < n;) {
        int k = pretok_match(kind, cp, n, i);
        used += (size_t)snprintf(out + used, cap - used, "%s%.*s", i ? "|" : "",
                                 (int)(at[i + k] - at[i]), text + at[i]);
        i += k;
    }
}

static void expect_pieces(PretokKind kind, const char *text, const char *want)
{
    char got[1024];
    pieces(kind, text, got, sizeof got);
    CHECK(strcmp(got, want) == 0, "pieces of \"%s\": \"%s\", expected \"%s\"", text, got, want);
}

static void test_patterns(void)
{
    expect_pieces(PRETOK_GPT2, "Hello world  !!\n", "Hello| world| | !!|\n");
    expect_pieces(PRETOK_GPT2, "it's I'M 2024ab", "it|'s| I|'|M| 2024|ab");
    expect_pieces(PRETOK_GPT2, "a   b", "a|  | b");
    expect_pieces(PRETOK_GPT2, "caf\xc3\xa9 \xe4\xb8\xad\xe6\x96\x87!",
                  "caf\xc3\xa9| \xe4\xb8\xad\xe6\x96\x87|!");
    expect_pieces(PRETOK_LLAMA3, "I'M 12345 ok\n\n x", "I|'M| |123|45| ok|\n\n| x");
    expect_pieces(PRETOK_LLAMA3, "(hi) ...\n\nyes", "(hi|)| ...\n\n|yes");
    expect_pieces(PRETOK_LLAMA3, "a \n b", "a| \n| b");
    expect_pieces(PRETOK_QWEN2, "x 123", "x| |1|2|3");
    PretokKind k;
    CHECK(pretok_from_pattern(
              "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+",
              &k)
              && k == PRETOK_GPT2,
          "GPT-2's pattern");
    CHECK(!pretok_from_pattern("\\w+", &k), "an unknown pattern");
    CHECK(unicode_is_letter(0xE9) && unicode_is_letter(0x4E2D) && !unicode_is_letter('1')
              && !unicode_is_letter(0x301),
          "\\p{L}: é, 中, not 1, not a combining mark");
    CHECK(unicode_is_number(0x0663) && unicode_is_number(0xB2) && !unicode_is_number('x'),
          "\\p{N}: Arabic-Indic 3, ²");
    CHECK(unicode_is_space(0x3000) && unicode_is_space(0x85) && !unicode_is_space(0x200B),
          "\\s: White_Space only");
}

// A byte-level tokenizer: every byte a token (ids in GPT-2's order), then "Ġt" "he" "Ġthe", an
// added token.
static char *byte_level_json(void)
{
    static const char *const MERGED[] = {"\xc4\xa0t", "he", "\xc4\xa0the"};
    char *s = malloc(20000);
    size_t n = (size_t)sprintf(
        s,
        "{\"added_tokens\":[{\"id\":259,\"content\":\"<|bos|>\"}],\"normalizer\":null,"
        "\"pre_tokenizer\":{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"use_regex\":true},"
        "\"post_processor\":{\"type\":\"TemplateProcessing\",\"single\":[{\"SpecialToken\":"
        "{\"id\":\"<|bos|>\"}},{\"Sequence\":{\"id\":\"A\"}}],\"special_tokens\":{\"<|bos|>\":"
        "{\"id\":\"<|bos|>\",\"ids\":[259]}}},"
        "\"model\":{\"type\":\"BPE\",\"vocab\":{");
    // bytes_to_unicode's order: the printable bytes, then the others as U+0100 ...
    int id = 0, extra = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int b = 0; b < 256; b++) {
            bool printable =
                (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
            if (printable != (pass == 0)) continue;
            uint32_t cp = printable ? (uint32_t)b : 256u + (uint32_t)extra++;
            char u[8];
            int k = cp < 0x80
                        ? sprintf(u, "%c", (char)cp)
                        : sprintf(u, "%c%c", (char)(0xC0 | cp >> 6), (char)(0x80 | (cp & 0x3F)));
            (void)k;
            if (cp == '"' || cp == '\\') n += (size_t)sprintf(s + n, "\"\\%s\":%d,", u, id++);
            else n += (size_t)sprintf(s + n, "\"%s\":%d,", u, id++);
        }
    for (int i = 0; i < 3; i++)
        n += (size_t)sprintf(s + n, "\"%s\":%d%s", MERGED[i], id++, i < 2 ? "," : "");
    sprintf(s + n, "},\"merges\":[\"\xc4\xa0 t\",[\"h\",\"e\"],\"\xc4\xa0t he\"]}}");
    return s;
}

static void test_byte_level(void)
{
    char *json = byte_level_json();
    Tokenizer t;
    LessonError err;
    bool ok = tokenizer_parse(&t, json, strlen(json), "tok.json", &err);
    free(json);
    CHECK(ok, "%s: %s", err.path, err.message);
    if (!ok) return;
    int *ids = NULL, n = 0;
    ok = tokenizer_encode(&t, "the the<|bos|>\n", &ids, &n, "tok.json", &err);
    CHECK(ok, "%s", err.message);
    // bos, t h e (no merge "t h": "he" then), Ġthe, bos, \n (byte 10: the 11th unprintable: 256 +
    // 10)
    int want[] = {259, 't' - 33, 257, 258, 259, 188 + 10};
    CHECK(ok && n == 6, "%d ids", n);
    for (int i = 0; ok && i < n && i < 6; i++)
        CHECK(ids[i] == want[i], "id %d: %d, expected %d", i, ids[i], want[i]);
    const char *shown[] = {"<|bos|>", "t", "he", "\xe2\x96\x81the", "<|bos|>", "\xe2\x86\xb5"};
    for (int i = 0; ok && i < n && i < 6; i++) {
        char *s = tokenizer_display(&t, ids[i]);
        CHECK(s && strcmp(s, shown[i]) == 0, "token %d shown \"%s\", expected \"%s\"", i, s,
              shown[i]);
        free(s);
    }
    char *half = tokenizer_display(&t, 106 + 0xC3 - 174); // byte 0xC3 alone: no whole character
    CHECK(half && strcmp(half, "<0xC3>") == 0, "a lone lead byte shown \"%s\"", half);
    free(half);
    free(ids);
    tokenizer_free(&t);
}

// SentencePiece style: "▁" for spaces, merges over characters, <0xNN> for what has no token.
static void test_sentencepiece(void)
{
    const char *json =
        "{\"added_tokens\":[{\"id\":1,\"content\":\"<s>\"}],"
        "\"normalizer\":{\"type\":\"Sequence\",\"normalizers\":[{\"type\":\"Prepend\",\"prepend\":"
        "\"\xe2\x96\x81\"},"
        "{\"type\":\"Replace\",\"pattern\":{\"String\":\" "
        "\"},\"content\":\"\xe2\x96\x81\"}]},\"pre_tokenizer\":null,"
        "\"post_processor\":{\"type\":\"TemplateProcessing\",\"single\":[{\"SpecialToken\":{\"id\":"
        "\"<s>\"}},"
        "{\"Sequence\":{\"id\":\"A\"}}],\"special_tokens\":{\"<s>\":{\"id\":\"<s>\",\"ids\":[1]}}},"
        "\"model\":{\"type\":\"BPE\",\"byte_fallback\":true,\"unk_token\":\"<unk>\",\"vocab\":{\"<"
        "unk>\":0,\"<s>\":1,"
        "\"<0xC3>\":2,\"<0xA9>\":3,\"\xe2\x96\x81\":4,\"a\":5,\"b\":6,\"\xe2\x96\x81"
        "a\":7,\"\xe2\x96\x81"
        "ab\":8},"
        "\"merges\":[\"\xe2\x96\x81 a\",\"\xe2\x96\x81"
        "a b\"]}}";
    Tokenizer t;
    LessonError err;
    bool ok = tokenizer_parse(&t, json, strlen(json), "sp.json", &err);
    CHECK(ok, "%s: %s", err.path, err.message);
    if (!ok) return;
    int *ids = NULL, n = 0;
    ok = tokenizer_encode(&t, "ab \xc3\xa9", &ids, &n, "sp.json", &err);
    int want[] = {1, 8, 4, 2, 3}; // <s> ▁ab ▁ <0xC3> <0xA9>
    CHECK(ok && n == 5, "%d ids (%s)", n, err.message);
    for (int i = 0; ok && i < n && i < 5; i++)
        CHECK(ids[i] == want[i], "id %d: %d, expected %d", i, ids[i], want[i]);
    char *s = tokenizer_display(&t, 8), *b = tokenizer_display(&t, 2);
    CHECK(s
              && strcmp(s, "\xe2\x96\x81"
                           "ab")
                     == 0
              && b && strcmp(b, "<0xC3>") == 0,
          "shown %s %s", s, b);
    free(s);
    free(b);
    free(ids);
    tokenizer_free(&t);
}

// WordPiece (BERT): the normalizer lowercases and strips accents, punctuation is a word of its own,
// "##" pieces, [UNK] for a word that cannot be cut, a Chinese character alone, [CLS] ... [SEP] by
// BertProcessing.
static void test_wordpiece(void)
{
    const char *json = "{\"added_tokens\": [{\"id\": 0, \"content\": \"[UNK]\"}, {\"id\": 1, "
                       "\"content\": \"[CLS]\"},"
                       " {\"id\": 2, \"content\": \"[SEP]\"}],"
                       " \"normalizer\": {\"type\": \"BertNormalizer\", \"lowercase\": true, "
                       "\"strip_accents\": null},"
                       " \"pre_tokenizer\": {\"type\": \"BertPreTokenizer\"},"
                       " \"post_processor\": {\"type\": \"BertProcessing\", \"sep\": [\"[SEP]\", "
                       "2], \"cls\": [\"[CLS]\", 1]},"
                       " \"model\": {\"type\": \"WordPiece\", \"unk_token\": \"[UNK]\", "
                       "\"continuing_subword_prefix\": \"##\","
                       " \"vocab\": {\"[UNK]\": 0, \"[CLS]\": 1, \"[SEP]\": 2, \"hel\": 3, "
                       "\"##lo\": 4, \",\": 5, \"world\": 6,"
                       " \"!\": 7, \"\xe4\xb8\xad\": 8, \"cafe\": 9}}}";
    Tokenizer t;
    LessonError err;
    bool ok = tokenizer_parse(&t, json, strlen(json), "wp.json", &err);
    CHECK(ok, "the WordPiece tokenizer refused: %s", err.message);
    if (!ok) return;
    int *ids = NULL, n = 0;
    ok = tokenizer_encode(&t, "H\xc3\xa9llo, WORLD!\t\xe4\xb8\xad\xe6\x96\x87 CAF\xc3\x89 [SEP]",
                          &ids, &n, "wp.json", &err);
    int want[] = {1, 3, 4, 5, 6, 7,
                  8, 0, 9, 2, 2}; // [CLS] hel ##lo , world ! 中 [UNK] cafe [SEP] [SEP]
    CHECK(ok && n == 11, "%d ids (%s)", n, err.message);
    for (int i = 0; ok && i < n && i < 11; i++)
        CHECK(ids[i] == want[i], "id %d: %d, expected %d", i, ids[i], want[i]);
    char *s = tokenizer_display(&t, 4);
    CHECK(s && strcmp(s, "##lo") == 0, "shown %s", s);
    free(s);
    free(ids);
    tokenizer_free(&t);
}

static void refused(const char *json, const char *field)
{
    Tokenizer t;
    LessonError err;
    bool ok = tokenizer_parse(&t, json, strlen(json), "bad.json", &err);
    CHECK(!ok && strcmp(err.path, field) == 0 && strcmp(err.file, "bad.json") == 0,
          "%s: %s, expected %s", json, ok ? "accepted" : err.path, field);
    if (ok) tokenizer_free(&t);
}

static void test_refused(void)
{
    refused("{\"model\":{\"type\":\"Unigram\"}}", "model.type");
    refused("{\"model\":{\"type\":\"WordPiece\"}}", "model.vocab");
    refused("{\"model\":{\"type\":\"BPE\",\"merges\":[]}}", "model.vocab");
    refused("{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":-1},\"merges\":[]}}", "model.vocab");
    refused("{\"model\":{\"type\":\"BPE\",\"vocab\":{},\"merges\":[\"ab\"]}}", "model.merges");
    refused("{\"model\":{\"type\":\"BPE\",\"vocab\":{},\"merges\":[]},\"pre_tokenizer\":{\"type\":"
            "\"Split\","
            "\"pattern\":{\"Regex\":\"\\\\w+\"},\"behavior\":\"Isolated\"}}",
            "pre_tokenizer.pattern");
    refused("{\"model\":{\"type\":\"BPE\",\"vocab\":{},\"merges\":[]},\"normalizer\":{\"type\":"
            "\"NFKC\"}}",
            "normalizer.type");
    refused("{\"model\":{\"type\":\"BPE\",\"vocab\":{},\"merges\":[]}}", "pre_tokenizer");
}

// NFC (nfc.c) against Python's unicodedata.normalize("NFC", ...): a mark composed, singletons (Å, Ω
// sign), marks reordered by class, Hangul jamo, a blocked mark, a leading mark, exclusions (U+0958,
// U+2ADC, U+F900), a malformed byte kept as it is.
static void test_nfc(void)
{
    static const char *const CASES[][2] = {
        {"\x63\x61\x66\x65\xcc\x81", "\x63\x61\x66\xc3\xa9"},
        {"\xe2\x84\xab\xe2\x84\xa6", "\xc3\x85\xce\xa9"},
        {"\x71\xcc\x87\xcc\xa3", "\x71\xcc\xa3\xcc\x87"},
        {"\xe1\x84\x92\xe1\x85\xa1\xe1\x86\xab\xe1\x84\x80\xe1\x85\xa1",
         "\xed\x95\x9c\xea\xb0\x80"},
        {"\x61\xcc\xa8\xcc\x81", "\xc4\x85\xcc\x81"},
        {"\x61\xcc\x81\xcc\x81", "\xc3\xa1\xcc\x81"},
        {"\xcc\x81\x61", "\xcc\x81\x61"},
        {"\x65\xcc\x84\xcc\x81\x20\xe1\xb8\x97", "\xe1\xb8\x97\x20\xe1\xb8\x97"},
        {"\xe0\xa5\x98\x20\xe2\xab\x9c\x20\xef\xa4\x80",
         "\xe0\xa4\x95\xe0\xa4\xbc\x20\xe2\xab\x9d\xcc\xb8\x20\xe8\xb1\x88"},
        {"\xc3\x85\xcc\xa7", "\xc3\x85\xcc\xa7"},
        {"\x78\xcc\x80\xcc\x96\xcc\x81", "\x78\xcc\x96\xcc\x80\xcc\x81"},
        {"\x61\xff\xcc\x81", "\x61\xff\xcc\x81"},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        size_t n = 0;
        char *got = unicode_nfc(CASES[i][0], strlen(CASES[i][0]), &n);
        CHECK(got && n == strlen(CASES[i][1]) && strcmp(got, CASES[i][1]) == 0,
              "NFC of case %zu: \"%s\"", i, got ? got : "(no memory)");
        free(got);
    }
}

// The merges of w (n symbols, one char each, ranks[a][b] of the pair "a b", -1: none) applied the
// plain way: the lowest rank, the leftmost of equals, again and again; the symbols' lengths out.
static int naive_bpe(const char *w, int n, int ranks[4][4], int *len)
{
    int count = n;
    char sym[512][512];
    for (int i = 0; i < n; i++) sym[i][0] = w[i], sym[i][1] = '\0';
    for (;;) {
        int best = -1, best_rank = 0;
        for (int i = 0; i + 1 < count; i++) {
            int r = strlen(sym[i]) == 1 && strlen(sym[i + 1]) == 1
                        ? ranks[sym[i][0] - 'a'][sym[i + 1][0] - 'a']
                        : -1;
            if (r >= 0 && (best < 0 || r < best_rank)) best = i, best_rank = r;
        }
        if (best < 0) break;
        size_t la = strlen(sym[best]), lb = strlen(sym[best + 1]);
        if (la + lb >= sizeof sym[0]) break; // never: the words are 300 letters at most
        memmove(sym[best] + la, sym[best + 1], lb + 1);
        memmove(sym[best + 1], sym[best + 2], sizeof sym[0] * (size_t)(count - best - 2));
        count--;
    }
    for (int i = 0; i < count; i++) len[i] = (int)strlen(sym[i]);
    return count;
}

// BPE with a heap of merges gives the plain loop's ids on random words (pairs of single letters
// only, so that the plain loop's symbols are easy to name), and a long piece in n log n.
static void test_bpe_heap(void)
{
    int ranks[4][4], rank = 0;
    char json[4096];
    int used = snprintf(json, sizeof json,
                        "{\"pre_tokenizer\":{\"type\":\"ByteLevel\",\"use_regex\":false},"
                        "\"model\":{\"type\":\"BPE\",\"vocab\":{");
    const char *L = "abcd";
    for (int a = 0; a < 4; a++)
        used +=
            snprintf(json + used, sizeof json - (size_t)used, "%s\"%c\":%d", a ? "," : "", L[a], a);
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
            used += snprintf(json + used, sizeof json - (size_t)used, ",\"%c%c\":%d", L[a], L[b],
                             4 + 4 * a + b);
    used += snprintf(json + used, sizeof json - (size_t)used, "},\"merges\":[");
    unsigned seed = 7;
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++) ranks[a][b] = -1;
    for (int k = 0; k < 16; k++) { // a random order of the pairs, some left out
        seed = seed * 1103515245u + 12345u;
        int a = (int)(seed >> 16) % 4, b = (int)(seed >> 20) % 4;
        if (ranks[a][b] >= 0) continue;
        ranks[a][b] = rank++;
        used += snprintf(json + used, sizeof json - (size_t)used, "%s\"%c %c\"",
                         rank > 1 ? "," : "", L[a], L[b]);
    }
    snprintf(json + used, sizeof json - (size_t)used, "]}}");
    Tokenizer t;
    LessonError err;
    if (!tokenizer_parse(&t, json, strlen(json), "bpe.json", &err)) {
        CHECK(false, "the BPE tokenizer refused: %s", err.message);
        return;
    }
    for (int trial = 0; trial < 300; trial++) {
        char w[301];
        int n = 1 + trial % 300, len[512];
        for (int i = 0; i < n; i++) seed = seed * 1103515245u + 12345u, w[i] = L[(seed >> 16) % 4];
        w[n] = '\0';
        int count = naive_bpe(w, n, ranks, len), *ids = NULL, got = 0;
        bool ok = tokenizer_encode(&t, w, &ids, &got, "bpe.json", &err);
        bool same = ok && got == count;
        for (int i = 0, at = 0; same && i < count; at += len[i++]) {
            char piece[3] = {w[at], len[i] == 2 ? w[at + 1] : '\0', '\0'};
            same = ids[i] == tokenizer_vocab_id(&t, piece, strlen(piece));
        }
        CHECK(same, "the heap's merges of \"%s\" differ from the plain loop's", w);
        free(ids);
    }
    size_t big = 200000; // one piece of 200 KB: the plain loop took minutes
    char *text = malloc(big + 1);
    for (size_t i = 0; i < big; i++)
        seed = seed * 1103515245u + 12345u, text[i] = L[(seed >> 16) % 4];
    text[big] = '\0';
    int *ids = NULL, n = 0;
    clock_t t0 = clock();
    bool ok = tokenizer_encode(&t, text, &ids, &n, "bpe.json", &err);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    printf("BPE of one 200 KB piece: %d ids in %.3f s of CPU\n", n, secs);
    CHECK(ok && n >= (int)big / 2, "the long piece: %d ids (%s)", n, err.message);
    free(ids);
    ids = NULL;
    t0 = clock();
    ok = tokenizer_encode_max(&t, text, 512, &ids, &n, "bpe.json", &err);
    printf("the same with a limit of 512 ids: %.3f s of CPU\n",
           (double)(clock() - t0) / CLOCKS_PER_SEC);
    CHECK(!ok && strstr(err.message, "more than 512"), "past the limit: %s", err.message);
    free(ids);
    free(text);
    tokenizer_free(&t);
}

#ifndef _WIN32
// A tokenizer.json that cannot be read safely or that repeats a key, and vocab.txt: linear, the
// last of a repeated line wins (transformers' load_vocab).
static void test_reliability(void)
{
    char json[2048];
    int used = snprintf(json, sizeof json,
                        "{\"model\":{\"type\":\"WordPiece\",\"vocab\":{\"[CLS]\":0,"
                        "\"[SEP]\":1,\"a\":2}},\"post_processor\":{\"type\":\"Sequence\","
                        "\"processors\":[");
    for (int i = 0; i < 7; i++) // seven BertProcessing: more special tokens than kept
        used += snprintf(json + used, sizeof json - (size_t)used,
                         "%s{\"type\":\"BertProcessing\",\"cls\":[\"[CLS]\",0],"
                         "\"sep\":[\"[SEP]\",1]}",
                         i ? "," : "");
    snprintf(json + used, sizeof json - (size_t)used, "]}}");
    refused(json, "post_processor.processors");
    const char *dup = "{\"pre_tokenizer\":{\"type\":\"ByteLevel\"},\"model\":{\"type\":"
                      "\"BPE\",\"vocab\":{\"a\":0,\"b\":1,\"a\":2},\"merges\":[]}}";
    Tokenizer t;
    LessonError err;
    int *ids = NULL, n = 0;
    bool ok = tokenizer_parse(&t, dup, strlen(dup), "dup.json", &err)
              && tokenizer_encode(&t, "a", &ids, &n, "dup.json", &err);
    CHECK(ok && n == 1 && ids[0] == 2, "a key given twice: id %d, expected the last (2)",
          ok && n ? ids[0] : -1);
    if (ok) tokenizer_free(&t);
    free(ids);
    char dir[] = "/tmp/mha-vocab-XXXXXX";
    if (!mkdtemp(dir)) return;
    char path[600], source[1100];
    snprintf(path, sizeof path, "%s/vocab.txt", dir);
    FILE *f = fopen(path, "wb");
    fputs("[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\nworld\nhello\n", f);
    for (int i = 0; i < 120000; i++) fprintf(f, "w%d\n", i); // bert-base-multilingual's size
    fclose(f);
    clock_t t0 = clock();
    ok = tokenizer_load_files(&t, dir, source, sizeof source, &err);
    printf("vocab.txt of 120,007 lines read in %.3f s of CPU\n",
           (double)(clock() - t0) / CLOCKS_PER_SEC);
    CHECK(ok, "vocab.txt refused: %s", err.message);
    ids = NULL;
    ok = ok && tokenizer_encode(&t, "hello world w119999", &ids, &n, source, &err);
    CHECK(ok && n == 5 && ids[1] == 6 && ids[2] == 5 && ids[3] == 120006,
          "vocab.txt ids: hello %d (expected its last line, 6), world %d, w119999 %d",
          ok ? ids[1] : -1, ok ? ids[2] : -1, ok ? ids[3] : -1);
    free(ids);
    if (ok) tokenizer_free(&t);
    remove(path);
    rmdir(dir);
}
#endif

// Well-formed UTF-8 only: the offset of the first byte that is not.
static void test_utf8_valid(void)
{
    static const struct {
        const char *s;
        size_t bad;
    } CASES[] = {{"caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80", 13},
                 {"a\xc0\x80", 1},
                 {"ab\xed\xa0\x80", 2}, // a lone surrogate (U+D800) as CESU-8 writes it
                 {"\xf4\x90\x80\x80", 0},
                 {"x\xe2\x82", 1},
                 {"\xff", 0},
                 {"\xe0\x9f\xbf", 0}};
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        size_t len = strlen(CASES[i].s), want = CASES[i].bad == 13 ? len : CASES[i].bad;
        CHECK(utf8_invalid_at(CASES[i].s, len) == want, "case %zu: %zu, expected %zu", i,
              utf8_invalid_at(CASES[i].s, len), want);
    }
}

int main(void)
{
    test_patterns();
    test_byte_level();
    test_sentencepiece();
    test_refused();
    test_wordpiece();
    test_nfc();
    test_bpe_heap();
#ifndef _WIN32
    test_reliability();
#endif
    test_utf8_valid();
    return check_report("test_tokenizer");
}
