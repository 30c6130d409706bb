// UTF-8 decoding, clusters and the script and direction of each code point (a table of Unicode
// blocks).
#include "core/utf8.h"

#include <stdio.h>
#include <string.h>

uint32_t utf8_decode(const char *str, size_t len, size_t *i)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t k = *i;
    unsigned c = s[k];
    int n = c < 0x80             ? 0
            : (c & 0xE0) == 0xC0 ? 1
            : (c & 0xF0) == 0xE0 ? 2
            : (c & 0xF8) == 0xF0 ? 3
                                 : -1;
    if (n == 0) {
        *i = k + 1;
        return c;
    }
    if (n < 0 || k + (size_t)n >= len) {
        *i = k + 1;
        return 0xFFFD;
    }
    uint32_t cp = n == 0 ? c : n == 1 ? (c & 0x1F) : n == 2 ? (c & 0x0F) : (c & 0x07);
    for (int j = 1; j <= n; j++) {
        if ((s[k + (size_t)j] & 0xC0) != 0x80) {
            *i = k + 1;
            return 0xFFFD;
        }
        cp = cp << 6 | (s[k + (size_t)j] & 0x3F);
    }
    static const uint32_t least[4] = {0, 0x80, 0x800, 0x10000};
    if (cp < least[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        *i = k + 1;
        return 0xFFFD;
    }
    *i = k + (size_t)n + 1;
    return cp;
}

size_t utf8_invalid_at(const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < len;) {
        unsigned c = u[i];
        int more = c < 0x80                 ? 0
                   : c >= 0xC2 && c <= 0xDF ? 1
                   : c >= 0xE0 && c <= 0xEF ? 2
                   : c >= 0xF0 && c <= 0xF4 ? 3
                                            : -1;
        if (more < 0 || len - i <= (size_t)more) return i;
        // The second byte's range narrows after E0, ED (surrogates), F0 and F4 (past U+10FFFF).
        unsigned lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
        unsigned hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
        for (int k = 1; k <= more; k++) {
            unsigned b = u[i + (size_t)k];
            if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) return i;
        }
        i += (size_t)more + 1;
    }
    return len;
}

size_t utf8_encode(uint32_t cp, char *out)
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

// One row per block (or part of a block): code points lo..hi are of this class, script and
// direction. In code point order; a code point in no row is neutral and common. Marks of a script
// come before its block row and win (the first row that holds the code point is used).
typedef struct {
    uint32_t lo, hi;
    UClass cls;
    bool rtl, emoji;
    const char *script;
} Block;

#define S UCLASS_STRONG
#define N UCLASS_NEUTRAL
#define D UCLASS_NUMBER
#define M UCLASS_MARK
static const Block BLOCKS[] = {
    {0x0030, 0x0039, D, false, false, "Zyyy"},
    {0x0041, 0x005A, S, false, false, "Latn"},
    {0x0061, 0x007A, S, false, false, "Latn"},
    {0x00AA, 0x00AA, S, false, false, "Latn"},
    {0x00B2, 0x00B3, D, false, false, "Zyyy"},
    {0x00B9, 0x00B9, D, false, false, "Zyyy"},
    {0x00BA, 0x00BA, S, false, false, "Latn"},
    {0x00C0, 0x00D6, S, false, false, "Latn"},
    {0x00D8, 0x00F6, S, false, false, "Latn"},
    {0x00F8, 0x02AF, S, false, false, "Latn"},
    {0x0300, 0x036F, M, false, false, "Zinh"},
    {0x0370, 0x03FF, S, false, false, "Grek"},
    {0x0483, 0x0489, M, false, false, "Cyrl"},
    {0x0400, 0x052F, S, false, false, "Cyrl"},
    {0x0530, 0x058F, S, false, false, "Armn"},
    {0x0591, 0x05BD, M, false, false, "Hebr"},
    {0x05BF, 0x05BF, M, false, false, "Hebr"},
    {0x05C1, 0x05C2, M, false, false, "Hebr"},
    {0x05C4, 0x05C5, M, false, false, "Hebr"},
    {0x05C7, 0x05C7, M, false, false, "Hebr"},
    {0x0590, 0x05FF, S, true, false, "Hebr"},
    {0x0610, 0x061A, M, false, false, "Arab"},
    {0x064B, 0x065F, M, false, false, "Arab"},
    {0x0660, 0x0669, D, false, false, "Arab"},
    {0x0670, 0x0670, M, false, false, "Arab"},
    {0x06D6, 0x06DC, M, false, false, "Arab"},
    {0x06DF, 0x06E4, M, false, false, "Arab"},
    {0x06E7, 0x06E8, M, false, false, "Arab"},
    {0x06EA, 0x06ED, M, false, false, "Arab"},
    {0x06F0, 0x06F9, D, false, false, "Arab"},
    {0x0600, 0x06FF, S, true, false, "Arab"},
    {0x0700, 0x074F, S, true, false, "Syrc"},
    {0x0750, 0x077F, S, true, false, "Arab"},
    {0x0780, 0x07BF, S, true, false, "Thaa"},
    {0x08A0, 0x08FF, S, true, false, "Arab"},
    {0x0900, 0x0903, M, false, false, "Deva"},
    {0x093A, 0x093C, M, false, false, "Deva"},
    {0x093E, 0x094F, M, false, false, "Deva"},
    {0x0951, 0x0957, M, false, false, "Deva"},
    {0x0962, 0x0963, M, false, false, "Deva"},
    {0x0966, 0x096F, D, false, false, "Deva"},
    {0x0900, 0x097F, S, false, false, "Deva"},
    {0x0981, 0x0983, M, false, false, "Beng"},
    {0x09BC, 0x09BC, M, false, false, "Beng"},
    {0x09BE, 0x09CD, M, false, false, "Beng"},
    {0x0980, 0x09FF, S, false, false, "Beng"},
    {0x0A00, 0x0A7F, S, false, false, "Guru"},
    {0x0A80, 0x0AFF, S, false, false, "Gujr"},
    {0x0B00, 0x0B7F, S, false, false, "Orya"},
    {0x0B80, 0x0BFF, S, false, false, "Taml"},
    {0x0C00, 0x0C7F, S, false, false, "Telu"},
    {0x0C80, 0x0CFF, S, false, false, "Knda"},
    {0x0D00, 0x0D7F, S, false, false, "Mlym"},
    {0x0D80, 0x0DFF, S, false, false, "Sinh"},
    {0x0E31, 0x0E31, M, false, false, "Thai"},
    {0x0E34, 0x0E3A, M, false, false, "Thai"},
    {0x0E47, 0x0E4E, M, false, false, "Thai"},
    {0x0E50, 0x0E59, D, false, false, "Thai"},
    {0x0E00, 0x0E7F, S, false, false, "Thai"},
    {0x0EB1, 0x0EB1, M, false, false, "Laoo"},
    {0x0EB4, 0x0EBC, M, false, false, "Laoo"},
    {0x0EC8, 0x0ECD, M, false, false, "Laoo"},
    {0x0E80, 0x0EFF, S, false, false, "Laoo"},
    {0x0F00, 0x0FFF, S, false, false, "Tibt"},
    {0x1000, 0x109F, S, false, false, "Mymr"},
    {0x10A0, 0x10FF, S, false, false, "Geor"},
    {0x1100, 0x11FF, S, false, false, "Hang"},
    {0x1200, 0x139F, S, false, false, "Ethi"},
    {0x1780, 0x17FF, S, false, false, "Khmr"},
    {0x1AB0, 0x1AFF, M, false, false, "Zinh"},
    {0x1DC0, 0x1DFF, M, false, false, "Zinh"},
    {0x1E00, 0x1EFF, S, false, false, "Latn"},
    {0x1F00, 0x1FFF, S, false, false, "Grek"},
    {0x200C, 0x200C, M, false, false, "Zinh"},
    {0x200D, 0x200D, UCLASS_JOINER, false, false, "Zinh"},
    {0x200E, 0x200E, S, false, false, "Zyyy"},
    {0x200F, 0x200F, S, true, false, "Zyyy"},
    {0x2066, 0x2068, UCLASS_ISOLATE, false, false, "Zyyy"},
    {0x2069, 0x2069, UCLASS_POP, false, false, "Zyyy"},
    {0x2070, 0x2070, D, false, false, "Zyyy"},
    {0x2074, 0x2079, D, false, false, "Zyyy"},
    {0x2080, 0x2089, D, false, false, "Zyyy"},
    {0x20D0, 0x20FF, M, false, false, "Zinh"},
    {0x2600, 0x27BF, N, false, false, "Zyyy"},
    {0x2B00, 0x2BFF, N, false, false, "Zyyy"},
    {0x2E80, 0x2FDF, S, false, false, "Hani"},
    {0x3005, 0x3007, S, false, false, "Hani"},
    {0x3021, 0x3029, S, false, false, "Hani"},
    {0x3099, 0x309A, M, false, false, "Hira"},
    {0x3040, 0x309F, S, false, false, "Hira"},
    {0x30A0, 0x30FF, S, false, false, "Kana"},
    {0x3100, 0x312F, S, false, false, "Bopo"},
    {0x3130, 0x318F, S, false, false, "Hang"},
    {0x31F0, 0x31FF, S, false, false, "Kana"},
    {0x3400, 0x4DBF, S, false, false, "Hani"},
    {0x4E00, 0x9FFF, S, false, false, "Hani"},
    {0xA000, 0xA4CF, S, false, false, "Yiii"},
    {0xAC00, 0xD7AF, S, false, false, "Hang"},
    {0xF900, 0xFAFF, S, false, false, "Hani"},
    {0xFB1D, 0xFB4F, S, true, false, "Hebr"},
    {0xFB50, 0xFDFF, S, true, false, "Arab"},
    {0xFE00, 0xFE0F, M, false, false, "Zinh"},
    {0xFE20, 0xFE2F, M, false, false, "Zinh"},
    {0xFE70, 0xFEFC, S, true, false, "Arab"},
    {0xFF10, 0xFF19, D, false, false, "Zyyy"},
    {0xFF21, 0xFF3A, S, false, false, "Latn"},
    {0xFF41, 0xFF5A, S, false, false, "Latn"},
    {0xFF66, 0xFF9D, S, false, false, "Kana"},
    {0xFF9E, 0xFF9F, M, false, false, "Kana"},
    {0xFFA0, 0xFFDC, S, false, false, "Hang"},
    {0x1F1E6, 0x1F1FF, N, false, true, "Zyyy"},
    {0x1F3FB, 0x1F3FF, M, false, true, "Zyyy"},
    {0x1F000, 0x1FAFF, N, false, true, "Zyyy"},
    {0x20000, 0x3134F, S, false, false, "Hani"},
    {0xE0020, 0xE007F, M, false, false, "Zinh"},
    {0xE0100, 0xE01EF, M, false, false, "Zinh"},
};
#undef S
#undef N
#undef D
#undef M

UInfo utf8_info(uint32_t cp)
{
    UInfo u = {UCLASS_NEUTRAL, false, false, "Zyyy"};
    for (size_t k = 0; k < sizeof BLOCKS / sizeof BLOCKS[0]; k++) {
        const Block *b = &BLOCKS[k];
        if (cp >= b->lo && cp <= b->hi) {
            u.cls = b->cls;
            u.rtl = b->rtl;
            u.emoji = b->emoji;
            memcpy(u.script, b->script, 5);
            break;
        }
    }
    return u;
}

static bool regional(uint32_t cp) { return cp >= 0x1F1E6 && cp <= 0x1F1FF; }

size_t utf8_cluster_end(const char *s, size_t len, size_t i)
{
    if (i >= len) return len;
    size_t j = i;
    uint32_t first = utf8_decode(s, len, &j);
    if (regional(first) && j < len) { // a flag is two regional indicators
        size_t k = j;
        if (regional(utf8_decode(s, len, &k))) j = k;
    }
    while (j < len) {
        size_t k = j;
        uint32_t cp = utf8_decode(s, len, &k);
        UClass c = utf8_info(cp).cls;
        if (c == UCLASS_MARK) {
            j = k;
        } else if (c == UCLASS_JOINER) {
            j = k;
            if (j < len) (void)utf8_decode(s, len, &j); // the code point it joins
        } else {
            break;
        }
    }
    return j;
}

bool utf8_is_rtl(const char *s)
{
    size_t len = strlen(s), i = 0;
    int depth = 0;
    while (i < len) {
        UInfo u = utf8_info(utf8_decode(s, len, &i));
        if (u.cls == UCLASS_ISOLATE) depth++;
        if (u.cls == UCLASS_POP && depth > 0) depth--;
        if (u.cls == UCLASS_STRONG && depth == 0) return u.rtl;
    }
    return false;
}

bool utf8_invisible(uint32_t cp)
{
    return (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x202A && cp <= 0x202E)
           || (cp >= 0x2060 && cp <= 0x2069) || cp == 0xFEFF;
}

bool utf8_reorders(uint32_t cp)
{
    return cp == 0x061C || cp == 0x200E || cp == 0x200F || cp == 0x2028 || cp == 0x2029
           || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

// The code point of a (valid) two- or three-byte sequence.
static uint32_t two_bytes(const unsigned char *p)
{
    return (uint32_t)(p[0] & 0x1F) << 6 | (uint32_t)(p[1] & 0x3F);
}
static uint32_t three_bytes(const unsigned char *p)
{
    return (uint32_t)(p[0] & 0x0F) << 12 | (uint32_t)(p[1] & 0x3F) << 6 | (uint32_t)(p[2] & 0x3F);
}

void utf8_json_string(Utf8JsonPut put, void *ctx, const char *s)
{
    static const struct {
        unsigned char c;
        const char *esc;
    } SHORT[] = {{'"', "\\\""}, {'\\', "\\\\"}, {'\n', "\\n"}, {'\r', "\\r"}, {'\t', "\\t"}};
    char esc[8];
    put(ctx, "\"", 1);
    const unsigned char *run = (const unsigned char *)s,
                        *p = run; // bytes as they are, from run to p
    for (; *p; p++) {
        const char *out = NULL;
        size_t skip = 0; // the sequence's bytes after the first
        for (size_t k = 0; k < sizeof SHORT / sizeof SHORT[0] && !out; k++)
            if (*p == SHORT[k].c) out = SHORT[k].esc;
        uint32_t cp = 0;
        if (!out && (*p < 0x20 || *p == 0x7F)) cp = *p, out = esc;
        else if (!out && *p == 0xC2 && p[1] >= 0x80 && p[1] < 0xA0)
            cp = p[1], skip = 1, out = esc; // C1, e.g. CSI
        else if (!out && (*p & 0xE0) == 0xC0 && *p >= 0xC2 && (p[1] & 0xC0) == 0x80
                 && utf8_reorders(two_bytes(p)))
            cp = two_bytes(p), skip = 1, out = esc; // ALM
        else if (!out && (*p & 0xF0) == 0xE0 && (p[1] & 0xC0) == 0x80 && (p[2] & 0xC0) == 0x80
                 && utf8_reorders(three_bytes(p)))
            cp = three_bytes(p), skip = 2,
            out = esc; // the same code point: only the terminal sees less
        if (!out) continue;
        if (p > run) put(ctx, (const char *)run, (size_t)(p - run));
        if (out == esc) snprintf(esc, sizeof esc, "\\u%04x", (unsigned)cp);
        put(ctx, out, strlen(out));
        p += skip;
        run = p + 1;
    }
    if (p > run) put(ctx, (const char *)run, (size_t)(p - run));
    put(ctx, "\"", 1);
}
