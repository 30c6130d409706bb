// Text -> ids with a read Tokenizer: the added tokens split out first, the normalizer, the
// pre-tokenizer's pieces, BPE merges by rank in each piece (the lowest rank first, the leftmost of
// equals, as Hugging Face's tokenizers apply them), the post-processor's special tokens around; and
// an id's token as the class reads it.
#include "hf/tokenizer.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"
#include "hf/hf_error.h"
#include "hf/nfc.h"
#include "hf/unicode_classes.h"
#include "hf/wordpiece.h"

int tokenizer_vocab_id(const Tokenizer *t, const char *s, size_t n)
{
    return strmap_get(&t->vocab, s, n);
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

// ---- encoding ----

// One symbol (w[a, b)) of a merged piece as ids: its token, else its bytes' <0xNN> tokens (byte
// fallback), else the unknown token.
static bool symbol_ids(const Tokenizer *t, const char *w, size_t a, size_t b, IdList *out,
                       const char *path, LessonError *err)
{
    int id = strmap_get(&t->vocab, w + a, b - a);
    if (id >= 0) return idlist_push(out, id) || hf_fail(err, path, NULL, "out of memory");
    if (t->byte_fallback) {
        bool all = true;
        for (size_t k = a; k < b && all; k++) {
            char name[8];
            snprintf(name, sizeof name, "<0x%02X>", (unsigned)(unsigned char)w[k]);
            all = strmap_get(&t->vocab, name, 6) >= 0;
        }
        for (size_t k = a; k < b && all; k++) {
            char name[8];
            snprintf(name, sizeof name, "<0x%02X>", (unsigned)(unsigned char)w[k]);
            if (!idlist_push(out, strmap_get(&t->vocab, name, 6)))
                return hf_fail(err, path, NULL, "out of memory");
        }
        if (all) return true;
    }
    if (t->unk >= 0) return idlist_push(out, t->unk) || hf_fail(err, path, NULL, "out of memory");
    return hf_fail(err, path, "model.vocab", "no token for \"%.*s\" and no unk_token",
                   (int)(b - a < 60 ? b - a : 60), w + a);
}

// A candidate merge: the pair of the symbol whose first character is `pos` and the one after it.
typedef struct {
    int rank, pos;
} Merge;

// The order merges are applied in: the lowest rank first, the leftmost of equal ones.
static bool merge_before(Merge a, Merge b)
{
    return a.rank < b.rank || (a.rank == b.rank && a.pos < b.pos);
}

static void heap_push(Merge *h, int *n, Merge m)
{
    int i = (*n)++;
    for (; i > 0 && merge_before(m, h[(i - 1) / 2]); i = (i - 1) / 2) h[i] = h[(i - 1) / 2];
    h[i] = m;
}

static Merge heap_pop(Merge *h, int *n)
{
    Merge top = h[0], last = h[--*n];
    int i = 0;
    for (int c = 1; c < *n; i = c, c = 2 * c + 1) {
        if (c + 1 < *n && merge_before(h[c + 1], h[c])) c++;
        if (!merge_before(h[c], last)) break;
        h[i] = h[c];
    }
    h[i] = last;
    return top;
}

// One piece's symbols: character i's byte offset at[i] (at[count] = the piece's length), the
// symbols still there linked by next and prev (count: none after; -1: none before).
typedef struct {
    const Tokenizer *t;
    const char *w;
    size_t *at;
    int *next, *prev, count;
    char *key; // room for a pair's key
} Symbols;

// The rank of merging symbol a with the one after it, or -1.
static int pair_rank(const Symbols *s, int a)
{
    if (a < 0 || s->next[a] >= s->count) return -1;
    int b = s->next[a];
    size_t la = s->at[b] - s->at[a], lb = s->at[s->next[b]] - s->at[b];
    memcpy(s->key, s->w + s->at[a], la);
    s->key[la] = '\x01';
    memcpy(s->key + la + 1, s->w + s->at[b], lb);
    return strmap_get(&s->t->merges, s->key, la + lb + 1);
}

// The merges of s in Hugging Face's order (tokenizers' word.rs merge_all: a heap of candidate
// merges, the lowest rank first, the leftmost of equals; a candidate whose pair has changed since
// is dropped): n log n in the piece's characters.
static void merge_all(Symbols *s, Merge *heap)
{
    int hn = 0;
    for (int i = 0; i + 1 < s->count; i++) {
        int r = pair_rank(s, i);
        if (r >= 0) heap_push(heap, &hn, (Merge){r, i});
    }
    while (hn > 0) {
        Merge m = heap_pop(heap, &hn);
        int a = m.pos;
        if (s->prev[a] == -2 || pair_rank(s, a) != m.rank) continue; // gone, or another pair now
        int b = s->next[a];
        s->next[a] = s->next[b];
        if (s->next[b] < s->count) s->prev[s->next[b]] = a;
        s->prev[b] = -2; // merged into a
        int r = pair_rank(s, s->prev[a]);
        if (r >= 0) heap_push(heap, &hn, (Merge){r, s->prev[a]});
        if ((r = pair_rank(s, a)) >= 0) heap_push(heap, &hn, (Merge){r, a});
    }
}

// BPE on one piece w (n bytes, already mapped): its characters as symbols, then the merge of lowest
// rank (the leftmost of equal ones) again and again, then each symbol's id.
static bool bpe_piece(const Tokenizer *t, const char *w, size_t n, IdList *out, const char *path,
                      LessonError *err)
{
    if (t->ignore_merges) {
        int id = strmap_get(&t->vocab, w, n);
        if (id >= 0) return idlist_push(out, id) || hf_fail(err, path, NULL, "out of memory");
    }
    Symbols s = {t,
                 w,
                 malloc(sizeof *s.at * (n + 1)),
                 malloc(sizeof *s.next * (n + 1)),
                 malloc(sizeof *s.prev * (n + 1)),
                 0,
                 malloc(n + 2)};
    Merge *heap = malloc(sizeof *heap * (3 * n + 1)); // the pairs, then two for each merge
    bool ok = s.at && s.next && s.prev && s.key && heap;
    for (size_t i = 0; ok && i < n; s.count++) { // one symbol per character
        s.at[s.count] = i;
        utf8_decode(w, n, &i);
    }
    if (ok) {
        s.at[s.count] = n;
        for (int i = 0; i <= s.count; i++) s.next[i] = i + 1, s.prev[i] = i - 1;
        merge_all(&s, heap);
    } else hf_fail(err, path, NULL, "out of memory");
    for (int i = 0; ok && i < s.count; i = s.next[i])
        ok = symbol_ids(t, w, s.at[i], s.at[s.next[i]], out, path, err);
    free(s.at);
    free(s.next);
    free(s.prev);
    free(s.key);
    free(heap);
    return ok;
}

static bool encode_normal(const Tokenizer *t, const char *s, size_t len, bool first, int max,
                          IdList *out, const char *path, LessonError *err);

// A stretch of text with no added token in it: normalized, split by the pre-tokenizer, each piece
// mapped (bytes to code points) and merged.
static bool encode_plain(const Tokenizer *t, const char *s, size_t len, bool first, int max,
                         IdList *out, const char *path, LessonError *err)
{
    if (len == 0) return true;
    if (t->nfc) { // the NFC normalizer, then the rest on its result
        size_t nlen = 0;
        char *norm = unicode_nfc(s, len, &nlen);
        if (!norm) return hf_fail(err, path, NULL, "out of memory");
        bool ok = encode_normal(t, norm, nlen, first, max, out, path, err);
        free(norm);
        return ok;
    }
    return encode_normal(t, s, len, first, max, out, path, err);
}

// encode_plain once normalized (NFC); SentencePiece's spaces and the pre-tokenizer here.
static bool encode_normal(const Tokenizer *t, const char *s, size_t len, bool first, int max,
                          IdList *out, const char *path, LessonError *err)
{
    if (t->wordpiece) { return wordpiece_encode(t, s, len, out, path, err); }
    // SentencePiece style: "▁" before the text and for each space; at most 3 bytes for each byte.
    char *norm = malloc(3 * len + 4), *mapped = malloc(4 * (3 * len + 4));
    uint32_t *cp = malloc(sizeof *cp * (3 * len + 4));
    size_t *at = malloc(sizeof *at * (3 * len + 5));
    bool ok = norm && mapped && cp && at;
    size_t nlen = 0;
    if (ok && t->sp_prepend && (first || !t->sp_first_only))
        memcpy(norm, TOKENIZER_SP_SPACE, 3), nlen = 3;
    for (size_t i = 0; ok && i < len; i++)
        if (t->sp_spaces && s[i] == ' ') memcpy(norm + nlen, TOKENIZER_SP_SPACE, 3), nlen += 3;
        else norm[nlen++] = s[i];
    int count = 0;
    for (size_t i = 0; ok && i < nlen;) {
        at[count] = i;
        cp[count++] = utf8_decode(norm, nlen, &i);
    }
    if (ok) at[count] = nlen;
    for (int i = 0; ok && i < count && !(max > 0 && out->n > max);) { // past max: no more
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
                m += utf8_encode(byte_code_point((unsigned char)norm[q]), mapped + m);
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
    return tokenizer_encode_max(t, text, 0, ids, n, path, err);
}

bool tokenizer_encode_max(const Tokenizer *t, const char *text, int max, int **ids, int *n,
                          const char *path, LessonError *err)
{
    size_t len = strlen(text);
    IdList out = {0};
    bool ok = true;
    memset(err, 0, sizeof *err);
    for (int i = 0; ok && i < t->nprefix; i++) ok = idlist_push(&out, t->prefix[i]);
    size_t plain = 0;
    for (size_t i = 0; ok && i <= len && !(max > 0 && out.n > max);) {
        size_t k = 0;
        int id = i < len ? added_at(t, text + i, len - i, &k) : -1;
        if (id < 0 && i < len) {
            i++;
            continue;
        }
        ok = encode_plain(t, text + plain, i - plain, plain == 0, max, &out, path, err);
        if (id < 0) break;
        if (ok) ok = idlist_push(&out, id) || hf_fail(err, path, NULL, "out of memory");
        i += k;
        plain = i;
    }
    for (int i = 0; ok && i < t->nsuffix; i++) ok = idlist_push(&out, t->suffix[i]);
    if (ok && max > 0 && out.n > max)
        ok = hf_fail(err, path, NULL, "the text is more than %d tokens: 1 to %d are traced", max,
                     max);
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
        else if (t->sp_spaces && i - from == 3 && memcmp(s + from, TOKENIZER_SP_SPACE, 3) == 0)
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
        if (c == ' ') memcpy(out + m, TOKENIZER_SP_SPACE, 3), m += 3;
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
