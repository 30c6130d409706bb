// GPT-2's, Llama 3's and Qwen2's pre-tokenizer patterns, as hand-written matchers with the same
// results as the regex engine (ordered alternatives, greedy runs, the (?!\S) look-ahead), over code
// points.
#include "hf/pretokenize.h"

#include <string.h>

#include "hf/unicode_classes.h"

static const char GPT2_PATTERN[] =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";
static const char LLAMA3_PATTERN[] = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|"
                                     "\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|"
                                     "\\s+(?!\\S)|\\s+";
static const char QWEN2_PATTERN[] = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|"
                                    "\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|"
                                    "\\s+(?!\\S)|\\s+";

static const struct {
    const char *pattern;
    PretokKind kind;
} PATTERNS[] = {
    {GPT2_PATTERN, PRETOK_GPT2}, {LLAMA3_PATTERN, PRETOK_LLAMA3}, {QWEN2_PATTERN, PRETOK_QWEN2}};

bool pretok_from_pattern(const char *regex, PretokKind *out)
{
    for (size_t i = 0; i < sizeof PATTERNS / sizeof PATTERNS[0]; i++)
        if (strcmp(regex, PATTERNS[i].pattern) == 0) {
            *out = PATTERNS[i].kind;
            return true;
        }
    return false;
}

static bool is_other(uint32_t c)
{
    return !unicode_is_space(c) && !unicode_is_letter(c) && !unicode_is_number(c);
}
static bool is_newline(uint32_t c) { return c == '\r' || c == '\n'; }

// The length of the run of code points from i that pass test.
static int run(bool (*test)(uint32_t), const uint32_t *cp, int n, int i)
{
    int j = i;
    while (j < n && test(cp[j])) j++;
    return j - i;
}

static uint32_t lower_ascii(uint32_t c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

// 's|'t|'re|'ve|'m|'ll|'d at i (icase: (?i:...)): its length, or 0.
static int contraction(const uint32_t *cp, int n, int i, bool icase)
{
    static const char *const ENDS[] = {"s", "t", "re", "ve", "m", "ll", "d"};
    if (cp[i] != '\'') return 0;
    for (size_t e = 0; e < sizeof ENDS / sizeof ENDS[0]; e++) {
        int k = (int)strlen(ENDS[e]), j = 0;
        while (j < k && i + 1 + j < n
               && (icase ? lower_ascii(cp[i + 1 + j]) : cp[i + 1 + j]) == (uint32_t)ENDS[e][j])
            j++;
        if (j == k) return k + 1;
    }
    return 0;
}

// \s+(?!\S)|\s+ at a space i: the run, less its last space when a non-space follows it (and it is
// longer than 1).
static int spaces(const uint32_t *cp, int n, int i)
{
    int r = run(unicode_is_space, cp, n, i);
    return i + r < n && r > 1 ? r - 1 : r;
}

static int match_gpt2(const uint32_t *cp, int n, int i)
{
    int k = contraction(cp, n, i, false);
    if (k) return k;
    int s = cp[i] == ' ' && i + 1 < n ? 1 : 0;
    if (unicode_is_letter(cp[i + s])) return s + run(unicode_is_letter, cp, n, i + s);
    if (unicode_is_number(cp[i + s])) return s + run(unicode_is_number, cp, n, i + s);
    if (is_other(cp[i + s])) return s + run(is_other, cp, n, i + s);
    return spaces(cp, n, i);
}

static int match_llama3(const uint32_t *cp, int n, int i, int digits)
{
    int k = contraction(cp, n, i, true);
    if (k) return k;
    uint32_t c = cp[i];
    if (!is_newline(c) && !unicode_is_letter(c) && !unicode_is_number(c) && i + 1 < n
        && unicode_is_letter(cp[i + 1]))
        return 1 + run(unicode_is_letter, cp, n, i + 1);
    if (unicode_is_letter(c)) return run(unicode_is_letter, cp, n, i);
    if (unicode_is_number(c)) {
        int r = run(unicode_is_number, cp, n, i);
        return r < digits ? r : digits;
    }
    int s = c == ' ' && i + 1 < n ? 1 : 0;
    if (is_other(cp[i + s])) {
        int j = i + s + run(is_other, cp, n, i + s);
        return j + run(is_newline, cp, n, j) - i;
    }
    int r = run(unicode_is_space, cp, n, i); // \s*[\r\n]+: up to the run's last newline
    for (int q = i + r - 1; q >= i; q--)
        if (is_newline(cp[q])) return q + 1 - i;
    return spaces(cp, n, i);
}

// From i up to the next "▁" (U+2581), which starts the next piece.
static int match_metaspace(const uint32_t *cp, int n, int i)
{
    int j = i + 1;
    while (j < n && cp[j] != 0x2581) j++;
    return j - i;
}

int pretok_match(PretokKind k, const uint32_t *cp, int n, int i)
{
    int m = k == PRETOK_GPT2        ? match_gpt2(cp, n, i)
            : k == PRETOK_LLAMA3    ? match_llama3(cp, n, i, 3)
            : k == PRETOK_QWEN2     ? match_llama3(cp, n, i, 1)
            : k == PRETOK_METASPACE ? match_metaspace(cp, n, i)
                                    : n - i;
    return m > 0 ? m : 1;
}
