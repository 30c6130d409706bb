// A small JSON scanner that knows byte positions: the exact place and cause of a syntax error
// (cJSON 1.7 sometimes reports one byte late and accepts 01, 1. and raw tabs in strings), and the
// position of a value reached by a path, for semantic errors. Iterative, bounded by len everywhere.
#include "lesson/json_locate.h"

#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const unsigned char *s;
    size_t len, pos;
    JsonSyntaxError *err;
} Scanner;

static bool fail_at(Scanner *sc, size_t offset, const char *fmt, ...)
{
    sc->err->offset = offset;
    sc->err->has_offset = true;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sc->err->message, sizeof sc->err->message, fmt, ap);
    va_end(ap);
    return false;
}

static bool is_ws(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
static bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
static bool is_word(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_' || c == '.'
           || c == '+' || c == '-';
}

static void skip_ws(Scanner *sc)
{
    while (sc->pos < sc->len && is_ws(sc->s[sc->pos])) sc->pos++;
}

// Length of the valid UTF-8 sequence at s[i] (1..4), or 0 when s[i] starts no valid sequence
// (Unicode table 3-7: no overlong forms, no UTF-16 surrogates, nothing above U+10FFFF).
static size_t utf8_seq_len(const unsigned char *s, size_t len, size_t i)
{
    unsigned char c = s[i];
    if (c < 0x80) return 1;
    size_t n = c >= 0xC2 && c <= 0xDF   ? 2
               : c >= 0xE0 && c <= 0xEF ? 3
               : c >= 0xF0 && c <= 0xF4 ? 4
                                        : 0;
    if (n == 0 || len - i < n) return 0;
    unsigned char lo = 0x80, hi = 0xBF; // the allowed range of the second byte
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
    if (s[i + 1] < lo || s[i + 1] > hi) return 0;
    for (size_t k = 2; k < n; k++)
        if (s[i + k] < 0x80 || s[i + k] > 0xBF) return 0;
    return n;
}

// "'x'", "'é'" or "control character U+0001" for the character at pos; "end of file" past the end.
static const char *describe_char(const Scanner *sc, size_t pos, char *buf, size_t cap)
{
    if (pos >= sc->len) {
        snprintf(buf, cap, "end of file");
        return buf;
    }
    unsigned char c = sc->s[pos];
    if (c < 0x20 || c == 0x7f) {
        snprintf(buf, cap, "control character U+%04X", (unsigned)c);
    } else {
        size_t n = utf8_seq_len(sc->s, sc->len, pos);
        if (n == 0) n = 1;
        snprintf(buf, cap, "'%.*s'", (int)n, (const char *)sc->s + pos);
    }
    return buf;
}

// The word (letters, digits, _ . + -) at pos, at most 24 bytes, as "'NaN'"; else describe_char.
static const char *describe_word(const Scanner *sc, size_t pos, char *buf, size_t cap)
{
    size_t end = pos;
    while (end < sc->len && end - pos < 24 && is_word(sc->s[end])) end++;
    if (end == pos) return describe_char(sc, pos, buf, cap);
    snprintf(buf, cap, "'%.*s'", (int)(end - pos), (const char *)sc->s + pos);
    return buf;
}

static bool word_equals(const Scanner *sc, size_t pos, const char *word, bool ignore_case)
{
    size_t n = strlen(word), end = pos;
    while (end < sc->len && is_word(sc->s[end])) end++;
    if (end - pos != n) return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char a = sc->s[pos + i], b = (unsigned char)word[i];
        if (ignore_case) {
            if (a >= 'A' && a <= 'Z') a = (unsigned char)(a - 'A' + 'a');
            if (b >= 'A' && b <= 'Z') b = (unsigned char)(b - 'A' + 'a');
        }
        if (a != b) return false;
    }
    return true;
}

// End of the last non-white-space byte: where "unexpected end of file" points.
static size_t content_end(const Scanner *sc)
{
    size_t e = sc->len;
    while (e > 0 && is_ws(sc->s[e - 1])) e--;
    return e;
}

static bool fail_eof(Scanner *sc, int depth, const unsigned char *types, const size_t *opened)
{
    if (depth == 0) return fail_at(sc, content_end(sc), "unexpected end of file");
    int line, col;
    size_t at = opened[depth - 1];
    json_line_col((const char *)sc->s, sc->len, at, &line, &col);
    return fail_at(
        sc, content_end(sc),
        "unexpected end of file: the %s opened with '%c' at line %d, column %d is not closed",
        types[depth - 1] == '{' ? "object" : "array", types[depth - 1], line, col);
}

static int hex_value(unsigned char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// Reads the 4 hex digits after "\u" at pos (pos points at the backslash). -1 when malformed.
static long read_u_escape(const Scanner *sc, size_t pos)
{
    if (pos > sc->len || sc->len - pos < 6 || sc->s[pos] != '\\' || sc->s[pos + 1] != 'u')
        return -1;
    long v = 0;
    for (int k = 0; k < 4; k++) {
        int h = hex_value(sc->s[pos + 2 + (size_t)k]);
        if (h < 0) return -1;
        v = v * 16 + h;
    }
    return v;
}

// A string starting at sc->pos (the opening quote). On success sc->pos is past the closing quote.
static bool scan_string(Scanner *sc, bool *eof)
{
    sc->pos++;
    *eof = false;
    while (sc->pos < sc->len) {
        unsigned char c = sc->s[sc->pos];
        if (c == '"') {
            sc->pos++;
            return true;
        }
        if (c == '\n' || c == '\r')
            return fail_at(sc, sc->pos,
                           "line break inside a string: is a closing '\"' missing? (write \\n for "
                           "a new line)");
        if (c < 0x20)
            return fail_at(
                sc, sc->pos,
                "control character U+%04X inside a string (write it as an escape such as \\t)",
                (unsigned)c);
        if (c != '\\') {
            sc->pos++;
            continue;
        }
        size_t esc = sc->pos;
        if (esc + 1 >= sc->len) break;
        unsigned char e = sc->s[esc + 1];
        if (strchr("\"\\/bfnrt", e) && e != 0) {
            sc->pos += 2;
            continue;
        }
        if (e != 'u') {
            char d[48];
            return fail_at(sc, esc,
                           "invalid escape in a string: '\\' followed by %s (valid escapes: \\\" "
                           "\\\\ \\/ \\b \\f \\n "
                           "\\r \\t \\uXXXX)",
                           describe_char(sc, esc + 1, d, sizeof d));
        }
        long u = read_u_escape(sc, esc);
        if (u < 0) return fail_at(sc, esc, "invalid \\u escape: expected 4 hex digits after \\u");
        if (u == 0) return fail_at(sc, esc, "\\u0000 (a NUL character) is not allowed in a lesson");
        if (u >= 0xDC00 && u <= 0xDFFF)
            return fail_at(sc, esc,
                           "invalid \\u escape: \\u%04lX is the second half of a surrogate pair "
                           "with no first half",
                           u);
        if (u >= 0xD800 && u <= 0xDBFF) {
            long lo = read_u_escape(sc, esc + 6);
            if (lo < 0xDC00 || lo > 0xDFFF)
                return fail_at(sc, esc,
                               "invalid \\u escape: \\u%04lX must be followed by a low surrogate "
                               "\\uDC00..\\uDFFF",
                               u);
            sc->pos += 12;
        } else {
            sc->pos += 6;
        }
    }
    *eof = true;
    return false;
}

// Overflow check for a number token that strtod could turn into inf. Uses the locale's decimal
// point, like cJSON does, so a program that set LC_NUMERIC still agrees with cJSON.
static bool number_overflows(const unsigned char *tok, size_t n)
{
    char small[128];
    char *buf = n < sizeof small ? small : malloc(n + 1);
    if (!buf)
        return false; // cannot check: let cJSON parse it; the loader still rejects non-finite
                      // values
    memcpy(buf, tok, n);
    buf[n] = '\0';
    const struct lconv *lc = localeconv();
    char point = (lc && lc->decimal_point && lc->decimal_point[0]) ? lc->decimal_point[0] : '.';
    for (size_t i = 0; i < n; i++)
        if (buf[i] == '.') buf[i] = point;
    double v = strtod(buf, NULL);
    if (buf != small) free(buf);
    return isinf(v);
}

// A number starting at sc->pos (a '-' or a digit), strict RFC 8259 grammar.
static bool scan_number(Scanner *sc, bool *eof)
{
    const unsigned char *s = sc->s;
    size_t start = sc->pos, p = sc->pos;
    char w[48];
    *eof = false;
    if (s[p] == '-') {
        p++;
        if (p >= sc->len) {
            *eof = true;
            return false;
        }
        if ((s[p] == 'I' || s[p] == 'i')
            && (word_equals(sc, p, "Infinity", true) || word_equals(sc, p, "inf", true)))
            return fail_at(sc, start,
                           "invalid JSON: expected a value near %s (JSON has no NaN or Infinity; "
                           "write a number)",
                           describe_word(sc, start, w, sizeof w));
        if (!is_digit(s[p]))
            return fail_at(sc, start, "invalid number near %s: expected a digit after '-'",
                           describe_word(sc, start, w, sizeof w));
    }
    if (s[p] == '0') {
        p++;
        if (p < sc->len && is_digit(s[p]))
            return fail_at(sc, start, "invalid number near %s: leading zeros are not allowed",
                           describe_word(sc, start, w, sizeof w));
    } else {
        while (p < sc->len && is_digit(s[p])) p++;
    }
    size_t int_digits = p - start;
    bool has_exp = false;
    if (p < sc->len && s[p] == '.') {
        p++;
        if (p >= sc->len || !is_digit(s[p]))
            return fail_at(sc, start, "invalid number near %s: expected a digit after '.'",
                           describe_word(sc, start, w, sizeof w));
        while (p < sc->len && is_digit(s[p])) p++;
    }
    if (p < sc->len && (s[p] == 'e' || s[p] == 'E')) {
        has_exp = true;
        p++;
        if (p < sc->len && (s[p] == '+' || s[p] == '-')) p++;
        if (p >= sc->len || !is_digit(s[p]))
            return fail_at(sc, start, "invalid number near %s: expected a digit in the exponent",
                           describe_word(sc, start, w, sizeof w));
        while (p < sc->len && is_digit(s[p])) p++;
    }
    // Without an exponent only a number of more than 308 integer digits can overflow.
    if ((has_exp || int_digits > 300) && number_overflows(s + start, p - start))
        return fail_at(sc, start,
                       "number out of range near %s (a double holds at most about 1.8e308)",
                       describe_word(sc, start, w, sizeof w));
    sc->pos = p;
    return true;
}

// Any value other than an object or array, at sc->pos (not past the end).
static bool scan_scalar(Scanner *sc, bool *eof)
{
    unsigned char c = sc->s[sc->pos];
    size_t at = sc->pos;
    char w[48];
    *eof = false;
    if (c == '"') return scan_string(sc, eof);
    if (c == '-' || is_digit(c)) return scan_number(sc, eof);
    if (word_equals(sc, at, "true", false) || word_equals(sc, at, "null", false)) {
        sc->pos += 4;
        return true;
    }
    if (word_equals(sc, at, "false", false)) {
        sc->pos += 5;
        return true;
    }
    if (c == '\'')
        return fail_at(sc, at, "invalid JSON: strings must be in double quotes, not single quotes");
    if (c == '/') return fail_at(sc, at, "invalid JSON: JSON has no comments");
    if (word_equals(sc, at, "NaN", true) || word_equals(sc, at, "Infinity", true)
        || word_equals(sc, at, "inf", true))
        return fail_at(
            sc, at,
            "invalid JSON: expected a value near %s (JSON has no NaN or Infinity; write a number)",
            describe_word(sc, at, w, sizeof w));
    if (word_equals(sc, at, "true", true) || word_equals(sc, at, "false", true)
        || word_equals(sc, at, "null", true) || word_equals(sc, at, "none", true))
        return fail_at(sc, at,
                       "invalid JSON: expected a value near %s (the JSON literals are true, false "
                       "and null, in lower case)",
                       describe_word(sc, at, w, sizeof w));
    if (c == '+')
        return fail_at(sc, at, "invalid number near %s: JSON numbers cannot start with '+'",
                       describe_word(sc, at, w, sizeof w));
    if (c == '.')
        return fail_at(sc, at, "invalid number near %s: write a digit before the '.' (0.5, not .5)",
                       describe_word(sc, at, w, sizeof w));
    return fail_at(sc, at, "invalid JSON: expected a value near %s",
                   describe_word(sc, at, w, sizeof w));
}

static bool value_start(unsigned char c)
{
    return c == '"' || c == '{' || c == '[' || c == '-' || is_digit(c) || c == 't' || c == 'f'
           || c == 'n';
}

// Whole-file checks: emptiness, byte order marks, NUL bytes, UTF-8.
static bool check_bytes(Scanner *sc)
{
    const unsigned char *s = sc->s;
    size_t len = sc->len;
    if (len == 0) {
        sc->err->has_offset = false;
        snprintf(sc->err->message, sizeof sc->err->message, "file is empty");
        return false;
    }
    if (len >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF)
        return fail_at(sc, 0,
                       "file starts with a UTF-8 byte order mark; save it as UTF-8 without BOM");
    if (len >= 2 && ((s[0] == 0xFF && s[1] == 0xFE) || (s[0] == 0xFE && s[1] == 0xFF)))
        return fail_at(sc, 0,
                       "file starts with a UTF-16 byte order mark; save it as UTF-8 (without BOM)");
    for (size_t i = 0; i < len;) {
        if (s[i] == 0)
            return fail_at(
                sc, i,
                "file contains a NUL byte; a lesson is UTF-8 text (is it UTF-16 or binary?)");
        size_t n = utf8_seq_len(s, len, i);
        if (n == 0)
            return fail_at(sc, i, "invalid UTF-8 (byte 0x%02X); save the file as UTF-8",
                           (unsigned)s[i]);
        i += n;
    }
    return true;
}

// The state of json_check's walk: the open containers and the current top-level member.
typedef struct {
    Scanner sc;
    unsigned char types[JSON_MAX_DEPTH]; // '{' or '[' for each open container
    size_t opened[JSON_MAX_DEPTH]; // offset of its bracket
    int depth;
    long values; // values begun so far (bounded by JSON_MAX_VALUES)
    size_t top_key,
        top_key_end; // the current member of the top-level object (offsets of its key)
} Checker;

// Where json_check's walk is: the three places of the grammar, and the end of the text.
typedef enum { AT_VALUE, AT_KEY, AFTER_VALUE, CHECK_DONE } CheckStep;

static bool check_eof(Checker *ck) { return fail_eof(&ck->sc, ck->depth, ck->types, ck->opened); }

// Counts one more value; past JSON_MAX_VALUES, fails naming the top-level member it is in.
static bool count_value(Checker *ck)
{
    if (++ck->values <= JSON_MAX_VALUES) return true;
    // Name the top-level member the values are in: that is where a teacher looks ("$schema",
    // "weights").
    int key_len = (int)(ck->top_key_end - ck->top_key);
    if (ck->depth >= 2 && ck->types[0] == '{' && key_len > 0 && key_len <= 64)
        return fail_at(&ck->sc, ck->sc.pos,
                       "too many values: more than %d numbers, strings, arrays and objects in one "
                       "file (the limit); this one is inside \"%.*s\" — give large matrices as "
                       "{\"random\": {...}}",
                       JSON_MAX_VALUES, key_len, (const char *)ck->sc.s + ck->top_key);
    return fail_at(&ck->sc, ck->sc.pos,
                   "too many values: more than %d numbers, strings, arrays and objects in one "
                   "file (the limit); give large matrices as {\"random\": {...}}",
                   JSON_MAX_VALUES);
}

// At a '{' or '[': opens the container; an empty one is closed at once.
static bool check_open(Checker *ck, CheckStep *next)
{
    Scanner *sc = &ck->sc;
    if (ck->depth >= JSON_MAX_DEPTH)
        return fail_at(sc, sc->pos, "nesting too deep: more than %d levels of '[' and '{'",
                       JSON_MAX_DEPTH);
    unsigned char open = sc->s[sc->pos];
    ck->types[ck->depth] = open;
    ck->opened[ck->depth++] = sc->pos++;
    skip_ws(sc);
    if (sc->pos >= sc->len) return check_eof(ck);
    if (sc->s[sc->pos] == (open == '{' ? '}' : ']')) {
        ck->depth--;
        sc->pos++;
        *next = AFTER_VALUE;
        return true;
    }
    *next = open == '{' ? AT_KEY : AT_VALUE;
    return true;
}

// At a value (sc.pos is where one must start): a container opens, a scalar is scanned.
static bool check_value(Checker *ck, CheckStep *next)
{
    Scanner *sc = &ck->sc;
    skip_ws(sc);
    if (sc->pos >= sc->len) return check_eof(ck);
    if (!count_value(ck)) return false;
    if (sc->s[sc->pos] == '{' || sc->s[sc->pos] == '[') return check_open(ck, next);
    size_t at = sc->pos; // where the value starts
    bool eof = false;
    if (!scan_scalar(sc, &eof)) {
        if (eof) {
            if (sc->s[at] == '"') {
                int line, col;
                json_line_col((const char *)sc->s, sc->len, at, &line, &col);
                return fail_at(
                    sc, content_end(sc),
                    "unexpected end of file inside the string that starts at line %d, column %d",
                    line, col);
            }
            return check_eof(ck);
        }
        return false;
    }
    *next = AFTER_VALUE;
    return true;
}

// Names what stands where a key in double quotes should be.
static bool fail_not_key(Scanner *sc)
{
    char d[48];
    unsigned char c = sc->s[sc->pos];
    if (c == '\'')
        return fail_at(sc, sc->pos,
                       "invalid JSON: keys must be in double quotes, not single quotes");
    if (c == '/') return fail_at(sc, sc->pos, "invalid JSON: JSON has no comments");
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$')
        return fail_at(sc, sc->pos, "invalid JSON: expected a key in double quotes near %s",
                       describe_word(sc, sc->pos, d, sizeof d));
    return fail_at(sc, sc->pos, "invalid JSON: expected a key in double quotes, got %s",
                   describe_char(sc, sc->pos, d, sizeof d));
}

// At a key: inside an object, after '{' or ',' (white space not yet skipped); scans the key
// and its ':'.
static bool check_key(Checker *ck, CheckStep *next)
{
    Scanner *sc = &ck->sc;
    char d[48];
    bool eof = false;
    skip_ws(sc);
    if (sc->pos >= sc->len) return check_eof(ck);
    if (sc->s[sc->pos] != '"') return fail_not_key(sc);
    size_t at = sc->pos; // where the key starts
    if (!scan_string(sc, &eof)) {
        if (eof) {
            int line, col;
            json_line_col((const char *)sc->s, sc->len, at, &line, &col);
            return fail_at(
                sc, content_end(sc),
                "unexpected end of file inside the key that starts at line %d, column %d", line,
                col);
        }
        return false;
    }
    if (ck->depth == 1) { // the key's text without its quotes
        ck->top_key = at + 1;
        ck->top_key_end = sc->pos - 1;
    }
    skip_ws(sc);
    if (sc->pos >= sc->len) return check_eof(ck);
    if (sc->s[sc->pos] != ':')
        return fail_at(sc, sc->pos, "invalid JSON: expected ':' after the key, got %s",
                       describe_char(sc, sc->pos, d, sizeof d));
    sc->pos++;
    *next = AT_VALUE;
    return true;
}

// After a value inside a container: a close, a comma, or the error that names what is missing.
static bool check_separator(Checker *ck, CheckStep *next)
{
    Scanner *sc = &ck->sc;
    char d[48];
    unsigned char c = sc->s[sc->pos];
    bool in_object = ck->types[ck->depth - 1] == '{';
    unsigned char close = in_object ? '}' : ']';
    if (c == close) {
        ck->depth--;
        sc->pos++;
        *next = AFTER_VALUE;
        return true;
    }
    if (c == ',') {
        size_t comma = sc->pos++;
        skip_ws(sc);
        if (sc->pos < sc->len && (sc->s[sc->pos] == '}' || sc->s[sc->pos] == ']'))
            return fail_at(sc, comma,
                           "trailing comma before '%c': JSON allows no comma after the last %s",
                           sc->s[sc->pos], in_object ? "member" : "element");
        *next = in_object ? AT_KEY : AT_VALUE;
        return true;
    }
    if (c == '/') return fail_at(sc, sc->pos, "invalid JSON: JSON has no comments");
    if (in_object && c == '"')
        return fail_at(
            sc, sc->pos,
            "invalid JSON: expected ',' or '}' before the next key (is a comma missing?)");
    if (!in_object && value_start(c))
        return fail_at(
            sc, sc->pos,
            "invalid JSON: expected ',' or ']' before the next element (is a comma missing?)");
    return fail_at(sc, sc->pos, "invalid JSON: expected ',' or '%c' after %s, got %s", close,
                   in_object ? "a member" : "an element", describe_char(sc, sc->pos, d, sizeof d));
}

// After a value: the end of the text at depth 0, else the separator of its container.
static bool check_after_value(Checker *ck, CheckStep *next)
{
    Scanner *sc = &ck->sc;
    char d[48];
    skip_ws(sc);
    if (ck->depth == 0) {
        if (sc->pos < sc->len)
            return fail_at(
                sc, sc->pos,
                "unexpected %s after the end of the JSON value (one file holds one lesson object)",
                describe_char(sc, sc->pos, d, sizeof d));
        *next = CHECK_DONE;
        return true;
    }
    if (sc->pos >= sc->len) return check_eof(ck);
    return check_separator(ck, next);
}

// A step of the walk: false with err set, else true with *next the place it reached.
typedef bool CheckStepFn(Checker *ck, CheckStep *next);
// The step for each place of the walk, indexed by CheckStep.
static CheckStepFn *const check_steps[] = {check_value, check_key, check_after_value};

bool json_check(const char *text, size_t len, JsonSyntaxError *err)
{
    Checker ck;
    ck.sc = (Scanner){(const unsigned char *)text, len, 0, err};
    ck.depth = 0;
    ck.values = 0;
    ck.top_key = ck.top_key_end = 0;
    memset(err, 0, sizeof *err);
    if (!check_bytes(&ck.sc)) return false;
    skip_ws(&ck.sc);
    if (ck.sc.pos >= len) {
        err->has_offset = false;
        snprintf(err->message, sizeof err->message, "file is empty (only white space)");
        return false;
    }
    for (CheckStep step = AT_VALUE; step != CHECK_DONE;)
        if (!check_steps[step](&ck, &step)) return false;
    return true;
}

// --- json_locate: walking checked text ---

static void skip_string_raw(Scanner *sc)
{
    sc->pos++; // opening quote
    while (sc->pos < sc->len) {
        unsigned char c = sc->s[sc->pos];
        if (c == '\\') sc->pos += (sc->len - sc->pos >= 2) ? 2 : 1;
        else if (c == '"') {
            sc->pos++;
            return;
        } else sc->pos++;
    }
}

// Skips one value at sc->pos (after white space); nested containers by counting brackets outside
// strings.
static void skip_value_raw(Scanner *sc)
{
    if (sc->pos >= sc->len) return;
    unsigned char c = sc->s[sc->pos];
    if (c == '"') {
        skip_string_raw(sc);
        return;
    }
    if (c == '{' || c == '[') {
        size_t level = 0;
        while (sc->pos < sc->len) {
            c = sc->s[sc->pos];
            if (c == '"') {
                skip_string_raw(sc);
                continue;
            }
            if (c == '{' || c == '[') level++;
            else if (c == '}' || c == ']') {
                level--;
                if (level == 0) {
                    sc->pos++;
                    return;
                }
            }
            sc->pos++;
        }
        return;
    }
    while (sc->pos < sc->len && !is_ws(sc->s[sc->pos]) && sc->s[sc->pos] != ','
           && sc->s[sc->pos] != ']' && sc->s[sc->pos] != '}')
        sc->pos++;
}

bool json_locate(const char *text, size_t len, const int *path, int depth, bool want_key,
                 size_t *offset)
{
    JsonSyntaxError unused;
    Scanner sc = {(const unsigned char *)text, len, 0, &unused};
    skip_ws(&sc);
    for (int i = 0; i < depth; i++) {
        if (sc.pos >= len || path[i] < 0) return false;
        unsigned char open = sc.s[sc.pos];
        if (open != '{' && open != '[') return false;
        sc.pos++;
        for (int k = 0;; k++) {
            skip_ws(&sc);
            if (sc.pos >= len || sc.s[sc.pos] == '}' || sc.s[sc.pos] == ']') return false;
            size_t key_at = sc.pos;
            if (open == '{') {
                if (sc.s[sc.pos] != '"') return false;
                skip_string_raw(&sc);
                skip_ws(&sc);
                if (sc.pos >= len || sc.s[sc.pos] != ':') return false;
                sc.pos++;
                skip_ws(&sc);
            }
            if (k == path[i]) {
                if (i == depth - 1 && want_key) {
                    if (open != '{') return false;
                    *offset = key_at;
                    return true;
                }
                break;
            }
            skip_value_raw(&sc);
            skip_ws(&sc);
            if (sc.pos >= len || sc.s[sc.pos] != ',') return false;
            sc.pos++;
        }
    }
    if (want_key && depth == 0) return false;
    skip_ws(&sc);
    if (sc.pos >= len) return false;
    *offset = sc.pos;
    return true;
}

void json_line_col(const char *text, size_t len, size_t offset, int *line, int *col)
{
    const unsigned char *s = (const unsigned char *)text;
    if (offset > len) offset = len;
    long l = 1, c = 1;
    for (size_t i = 0; i < offset; i++) {
        if (s[i] == '\n' || (s[i] == '\r' && (i + 1 >= len || s[i + 1] != '\n'))) {
            l++;
            c = 1;
        } else if (s[i] == '\r') {
            // the \r of \r\n: the \n ends the line
        } else if ((s[i] & 0xC0) != 0x80) {
            c++;
        }
    }
    *line = l > 2147483647L ? 2147483647 : (int)l;
    *col = c > 2147483647L ? 2147483647 : (int)c;
}
