// BERT's tokenizer as Hugging Face's tokenizers runs it: BertNormalizer (clean_text,
// handle_chinese_chars, strip_accents, lowercase: normalizers/bert.rs), BertPreTokenizer
// (whitespace, then each punctuation mark alone: pre_tokenizers/bert.rs) and WordPiece (the longest
// vocabulary entry from the left, "##" before a continuation, the unknown token for a word that
// cannot be cut: models/wordpiece/mod.rs).
#include "hf/wordpiece.h"

#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"
#include "hf/hf_error.h"
#include "hf/nfc.h"
#include "hf/unicode_bert.h"

// ---- code point lists ----

typedef struct {
    uint32_t *cp;
    int n, cap;
} CpList;

static bool cp_push(CpList *l, uint32_t c)
{
    void *items = l->cp;
    if (!list_reserve(&items, l->n, &l->cap, sizeof *l->cp, 64)) return false;
    l->cp = items;
    l->cp[l->n++] = c;
    return true;
}

// bert.rs: is_whitespace ('\t', '\n', '\r' and White_Space), is_control ("other" categories but
// those three).
static bool bert_space(uint32_t c)
{
    return c == '\t' || c == '\n' || c == '\r' || unicode_is_space(c);
}
static bool bert_control(uint32_t c)
{
    return c != '\t' && c != '\n' && c != '\r' && unicode_in(UNICODE_OTHER, UNICODE_OTHER_COUNT, c);
}

// bert.rs's is_chinese_char: the CJK Unified Ideographs blocks and their compatibility blocks.
static bool bert_chinese(uint32_t c)
{
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF)
           || (c >= 0x20000 && c <= 0x2A6DF) || (c >= 0x2A700 && c <= 0x2B73F)
           || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF)
           || (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

// pre_tokenizers/bert.rs's is_bert_punc: ASCII punctuation or the category P.
static bool bert_punct(uint32_t c)
{
    return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96)
           || (c >= 123 && c <= 126) || unicode_in(UNICODE_PUNCT, UNICODE_PUNCT_COUNT, c);
}

// NFD of c without its Mn marks (strip_accents), pushed onto out; Hangul syllables by Unicode's
// formula.
static bool push_stripped(CpList *out, uint32_t c)
{
    if (c >= 0xAC00 && c <= 0xD7A3) {
        uint32_t s = c - 0xAC00, t = s % 28;
        return cp_push(out, 0x1100 + s / 588) && cp_push(out, 0x1161 + s % 588 / 28)
               && (t == 0 || cp_push(out, 0x11A7 + t));
    }
    if (unicode_in(UNICODE_MARK_MN, UNICODE_MARK_MN_COUNT, c)) return true;
    const NfcDecomp *d = nfc_decomposition(c);
    if (!d) return cp_push(out, c);
    for (int k = 0; k < d->n; k++)
        if (!unicode_in(UNICODE_MARK_MN, UNICODE_MARK_MN_COUNT, d->to[k])
            && !cp_push(out, d->to[k]))
            return false;
    return true;
}

static bool push_lower(CpList *out, uint32_t c)
{
    const UnicodeMap *m = unicode_map(UNICODE_LOWER, UNICODE_LOWER_COUNT, c);
    if (!m) return cp_push(out, c);
    for (int k = 0; k < m->n; k++)
        if (!cp_push(out, m->to[k])) return false;
    return true;
}

// in -> out by BertNormalizer's steps in its order. false: no memory.
static bool normalize(const Tokenizer *t, const CpList *in, CpList *out)
{
    CpList a = {0}, b = {0};
    bool ok = true;
    for (int i = 0; ok && i < in->n; i++) { // clean_text, handle_chinese_chars
        uint32_t c = in->cp[i];
        if (t->bert_clean && (c == 0 || c == 0xFFFD || bert_control(c))) continue;
        if (t->bert_clean && bert_space(c)) c = ' ';
        if (t->bert_chinese && bert_chinese(c))
            ok = cp_push(&a, ' ') && cp_push(&a, c) && cp_push(&a, ' ');
        else ok = cp_push(&a, c);
    }
    for (int i = 0; ok && i < a.n; i++)
        ok = t->bert_strip ? push_stripped(&b, a.cp[i]) : cp_push(&b, a.cp[i]);
    for (int i = 0; ok && i < b.n; i++)
        ok = t->bert_lower ? push_lower(out, b.cp[i]) : cp_push(out, b.cp[i]);
    free(a.cp);
    free(b.cp);
    return ok;
}

// One word (code points w[0, n)) by WordPiece onto out.
static bool wordpiece_word(const Tokenizer *t, const uint32_t *w, int n, IdList *out,
                           const char *path, LessonError *err)
{
    size_t plen = strlen(t->wp_prefix);
    char *buf = malloc(plen + 4 * (size_t)n + 1);
    int *found = malloc(sizeof *found * (size_t)(n + 1));
    if (!buf || !found) {
        free(buf);
        free(found);
        return hf_fail(err, path, NULL, "out of memory");
    }
    int count = 0;
    bool bad = n > t->wp_max_chars;
    for (int start = 0; !bad && start < n;) {
        int id = -1, end = n;
        for (; end > start; end--) {
            size_t len = 0;
            if (start > 0) memcpy(buf, t->wp_prefix, len = plen);
            for (int k = start; k < end; k++) len += utf8_encode(w[k], buf + len);
            if ((id = strmap_get(&t->vocab, buf, len)) >= 0) break;
        }
        if (id < 0) bad = true;
        else found[count++] = id, start = end;
    }
    free(buf);
    bool ok = true;
    if (bad) {
        if (t->unk < 0)
            ok = hf_fail(err, path, "model.unk_token",
                         "a word has no pieces in the vocabulary and there is "
                         "no unknown token");
        else ok = idlist_push(out, t->unk);
    }
    for (int i = 0; ok && !bad && i < count; i++) ok = idlist_push(out, found[i]);
    free(found);
    return ok || err->message[0] ? ok : hf_fail(err, path, NULL, "out of memory");
}

bool wordpiece_encode(const Tokenizer *t, const char *s, size_t len, IdList *out, const char *path,
                      LessonError *err)
{
    CpList in = {0}, norm = {0};
    bool ok = true;
    for (size_t i = 0; ok && i < len;) ok = cp_push(&in, utf8_decode(s, len, &i));
    ok = ok && normalize(t, &in, &norm);
    free(in.cp);
    if (!ok) {
        free(norm.cp);
        return hf_fail(err, path, NULL, "out of memory");
    }
    // BertPreTokenizer: whitespace ends a word and is dropped; a punctuation mark is a word of its
    // own.
    for (int i = 0; ok && i < norm.n;) {
        uint32_t c = norm.cp[i];
        if (unicode_is_space(c) || c == '\t' || c == '\n' || c == '\r') {
            i++;
            continue;
        }
        int end = i + 1;
        if (!bert_punct(c))
            while (end < norm.n && !bert_punct(norm.cp[end]) && !unicode_is_space(norm.cp[end]))
                end++;
        ok = wordpiece_word(t, norm.cp + i, end - i, out, path, err);
        i = end;
    }
    free(norm.cp);
    return ok;
}
