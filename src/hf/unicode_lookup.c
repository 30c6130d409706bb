// Look-ups in the generated Unicode tables (unicode_classes.c, generated/unicode_bert.c): a code
// point in sorted ranges, in a sorted map, and the classes the pre-tokenizer patterns name.
#include <stdlib.h>

#include "hf/unicode_bert.h"
#include "hf/unicode_classes.h"

bool unicode_in(const UnicodeRange *r, int count, uint32_t cp)
{
    int lo = 0, hi = count - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (cp < r[mid].first) hi = mid - 1;
        else if (cp > r[mid].last) lo = mid + 1;
        else return true;
    }
    return false;
}

// bsearch's order of a code point against a map entry.
static int map_order(const void *key, const void *entry)
{
    uint32_t a = *(const uint32_t *)key, b = ((const UnicodeMap *)entry)->cp;
    return (a > b) - (a < b);
}

const UnicodeMap *unicode_map(const UnicodeMap *m, int count, uint32_t cp)
{
    return bsearch(&cp, m, (size_t)count, sizeof *m, map_order);
}

bool unicode_is_letter(uint32_t cp)
{
    return unicode_in(UNICODE_LETTERS, UNICODE_LETTERS_COUNT, cp);
}

bool unicode_is_number(uint32_t cp)
{
    return unicode_in(UNICODE_NUMBERS, UNICODE_NUMBERS_COUNT, cp);
}

bool unicode_is_space(uint32_t cp)
{
    return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680
           || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F
           || cp == 0x205F || cp == 0x3000;
}
