// NFC as UAX #15 defines it (and as Hugging Face's NFC normalizer runs it, through the
// unicode-normalization crate): the full canonical decomposition of every code point, canonical
// ordering of each run of marks by their combining class, then canonical composition of each
// starter with the marks and the starter after it that are not blocked. Hangul syllables by
// Unicode's formula (chapter 3.12).
#include "hf/nfc.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"

enum {
    S_BASE = 0xAC00,
    L_BASE = 0x1100,
    V_BASE = 0x1161,
    T_BASE = 0x11A7,
    L_COUNT = 19,
    V_COUNT = 21,
    T_COUNT = 28,
    N_COUNT = V_COUNT * T_COUNT,
    S_COUNT = L_COUNT * N_COUNT
};
// A byte that is no UTF-8 stays that byte: it travels as RAW + the byte, a starter that nothing
// composes with.
#define RAW 0x110000u

static int ccc(uint32_t c)
{
    int lo = 0, hi = NFC_CCC_COUNT - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (c < NFC_CCC[mid].first) hi = mid - 1;
        else if (c > NFC_CCC[mid].last) lo = mid + 1;
        else return NFC_CCC[mid].ccc;
    }
    return 0;
}

// bsearch's order of a code point against a decomposition.
static int decomp_order(const void *key, const void *entry)
{
    uint32_t a = *(const uint32_t *)key, b = ((const NfcDecomp *)entry)->cp;
    return (a > b) - (a < b);
}

const NfcDecomp *nfc_decomposition(uint32_t c)
{
    return bsearch(&c, NFC_DECOMP, (size_t)NFC_DECOMP_COUNT, sizeof *NFC_DECOMP, decomp_order);
}

// The primary composite of a and b, or 0.
static uint32_t composite(uint32_t a, uint32_t b)
{
    if (a >= L_BASE && a < L_BASE + L_COUNT && b >= V_BASE && b < V_BASE + V_COUNT)
        return S_BASE + ((a - L_BASE) * V_COUNT + (b - V_BASE)) * T_COUNT;
    if (a >= S_BASE && a < S_BASE + S_COUNT && (a - S_BASE) % T_COUNT == 0 && b > T_BASE
        && b < T_BASE + T_COUNT)
        return a + (b - T_BASE);
    int lo = 0, hi = NFC_COMPOSE_COUNT - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        const NfcPair *p = &NFC_COMPOSE[mid];
        if (a < p->first || (a == p->first && b < p->second)) hi = mid - 1;
        else if (a > p->first || b > p->second) lo = mid + 1;
        else return p->composite;
    }
    return 0;
}

// c's full canonical decomposition appended to out[*n] (at most 4 code points).
static void decompose(uint32_t *out, size_t *n, uint32_t c)
{
    const NfcDecomp *d;
    if (c >= S_BASE && c < S_BASE + S_COUNT) {
        uint32_t s = c - S_BASE, t = s % T_COUNT;
        out[(*n)++] = L_BASE + s / N_COUNT;
        out[(*n)++] = V_BASE + s % N_COUNT / T_COUNT;
        if (t) out[(*n)++] = T_BASE + t;
    } else if ((d = nfc_decomposition(c)) != NULL) {
        for (int k = 0; k < d->n; k++) out[(*n)++] = d->to[k];
    } else out[(*n)++] = c;
}

// Canonical ordering: each run of non-starters sorted by combining class, stably (equal classes
// keep their order).
static void reorder(uint32_t *cp, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        uint32_t c = cp[i];
        int k = ccc(c);
        size_t j = i;
        while (k && j > 0 && ccc(cp[j - 1]) > k) cp[j] = cp[j - 1], j--;
        cp[j] = c;
    }
}

// Canonical composition in place (UAX #15's algorithm): a code point joins the last starter when a
// composite exists and nothing between them blocks it (a mark of the same or a higher class, or a
// starter). The new length.
static size_t compose(uint32_t *cp, size_t n)
{
    if (n == 0) return 0;
    size_t starter = 0, out = 1;
    int last = ccc(cp[0]) ? 256 : 0;
    for (size_t i = 1; i < n; i++) {
        uint32_t c = cp[i], joined;
        int k = ccc(c);
        if ((last < k || last == 0) && (joined = composite(cp[starter], c)) != 0) {
            cp[starter] = joined;
            continue;
        }
        if (k == 0) starter = out;
        last = k;
        cp[out++] = c;
    }
    return out;
}

// cp as UTF-8 into out, a RAW byte as itself: the count.
static size_t put_utf8(char *out, uint32_t cp)
{
    if (cp >= RAW) return out[0] = (char)(cp - RAW), 1;
    return utf8_encode(cp, out);
}

char *unicode_nfc(const char *s, size_t len, size_t *out_len)
{
    // A byte decomposes to at most 4 code points (a 1-byte code point has no decomposition; the
    // longest, 4, come from 2 or 3 bytes), each written back in at most 4 bytes.
    uint32_t *cp = malloc(sizeof *cp * (4 * len + 1));
    char *out = malloc(4 * 4 * len + 1);
    if (!cp || !out) {
        free(cp);
        free(out);
        return NULL;
    }
    size_t n = 0;
    for (size_t i = 0; i < len;) {
        size_t from = i;
        uint32_t c = utf8_decode(s, len, &i);
        bool raw = c == 0xFFFD && !(i - from == 3 && memcmp(s + from, "\xef\xbf\xbd", 3) == 0);
        if (raw) cp[n++] = RAW + (unsigned char)s[from];
        else decompose(cp, &n, c);
    }
    reorder(cp, n);
    n = compose(cp, n);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) m += put_utf8(out + m, cp[i]);
    out[m] = '\0';
    free(cp);
    *out_len = m;
    return out;
}
