// Tests src/core/utf8 and src/render/textrun: decoding, clusters (marks, emoji sequences, flags),
// scripts and directions, and the visual order of runs (an ellipsis after Arabic lands on its
// left).
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "core/utf8.h"
#include "render/textrun.h"

// Splits s into clusters and writes their byte lengths, comma-separated.
static void clusters(const char *s, char *out, size_t cap)
{
    size_t len = strlen(s), used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < len;) {
        size_t e = utf8_cluster_end(s, len, i);
        used += (size_t)snprintf(out + used, cap - used, "%s%zu", i ? "," : "", e - i);
        i = e;
    }
}

// Font 1 for the Arabic block, 2 for emoji, else 0 (stand-ins for DejaVu and two fallbacks).
static int two_fonts(void *user, uint32_t cp, bool emoji)
{
    (void)user;
    return emoji ? 2 : cp >= 0x600 && cp < 0x700 ? 1 : 0;
}

// The runs of s as "text|rtl" in visual order, joined by " / ".
static void runs_of(const char *s, char *out, size_t cap, bool *rtl)
{
    TextRun r[32];
    int n = textrun_split(s, two_fonts, NULL, r, 32, rtl);
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < n; i++)
        used += (size_t)snprintf(out + used, cap - used, "%s%.*s|%s", i ? " / " : "", (int)r[i].len,
                                 s + r[i].start, r[i].rtl ? "rtl" : "ltr");
}

static void put_str(void *ctx, const char *bytes, size_t n)
{
    size_t used = strlen((char *)ctx);
    if (used + n < 256) memcpy((char *)ctx + used, bytes, n), ((char *)ctx)[used + n] = '\0';
}

int main(void)
{
    // The one JSON string writer: quotes, backslash, \n \r \t, C0, DEL, C1 and reordering code
    // points escaped, the rest of UTF-8 as it is.
    char js[256] = "";
    utf8_json_string(put_str, js,
                     "a\"b\\c\n\r\t\x01\x7f\xc2\x9b\xe2\x80\xae\xd8\x9c caf\xc3\xa9 \xe7\x8c\xab");
    CHECK(
        strcmp(
            js,
            "\"a\\\"b\\\\c\\n\\r\\t\\u0001\\u007f\\u009b\\u202e\\u061c caf\xc3\xa9 \xe7\x8c\xab\"")
            == 0,
        "utf8_json_string: %s", js);
    // Decoding: every length, and malformed bytes one at a time.
    const char *s = "a\xc3\xa9\xe7\x8c\xab\xf0\x9f\x90\xb1\xff\xe7\x8c";
    size_t len = strlen(s), i = 0;
    uint32_t want[] = {'a', 0xE9, 0x732B, 0x1F431, 0xFFFD, 0xFFFD, 0xFFFD};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        uint32_t cp = utf8_decode(s, len, &i);
        CHECK(cp == want[k], "code point %zu: U+%04X, expected U+%04X", k, (unsigned)cp,
              (unsigned)want[k]);
    }
    CHECK(i == len, "decoded to %zu of %zu bytes", i, len);
    size_t j = 0;
    CHECK(utf8_decode("\xc0\xaf", 2, &j) == 0xFFFD && j == 1, "an overlong form is U+FFFD");

    // Clusters: e + combining acute; a ZWJ family; a thumb with a skin tone; a heart with VS16; a
    // flag; Devanagari with its vowel sign; Thai with its tone mark.
    char buf[512];
    clusters("e\xcc\x81x", buf, sizeof buf);
    CHECK(strcmp(buf, "3,1") == 0, "e + U+0301: %s", buf);
    clusters("\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x91\xa7!", buf,
             sizeof buf);
    CHECK(strcmp(buf, "18,1") == 0, "a ZWJ family: %s", buf);
    clusters("\xf0\x9f\x91\x8d\xf0\x9f\x8f\xbd", buf, sizeof buf);
    CHECK(strcmp(buf, "8") == 0, "thumb + skin tone: %s", buf);
    clusters("\xe2\x9d\xa4\xef\xb8\x8f\xe2\x9d\xa4", buf, sizeof buf);
    CHECK(strcmp(buf, "6,3") == 0, "heart + VS16, heart: %s", buf);
    clusters("\xf0\x9f\x87\xaf\xf0\x9f\x87\xb5\xf0\x9f\x87\xab", buf, sizeof buf);
    CHECK(strcmp(buf, "8,4") == 0, "a flag, then a lone indicator: %s", buf);
    clusters("\xe0\xa4\xb9\xe0\xa4\xbf\xe0\xa4\x82", buf, sizeof buf); // हिं
    CHECK(strcmp(buf, "9") == 0, "Devanagari ha + i + anusvara: %s", buf);
    clusters("\xe0\xb8\x81\xe0\xb9\x88\xe0\xb8\xb2", buf, sizeof buf); // ก่า
    CHECK(strcmp(buf, "6,3") == 0, "Thai ko + tone mark, then aa: %s", buf);
    clusters("\xe7\x8c\xab\xe3\x81\x8c", buf, sizeof buf);
    CHECK(strcmp(buf, "3,3") == 0, "猫が: %s", buf);

    // Scripts and directions.
    CHECK(strcmp(utf8_info(0x732B).script, "Hani") == 0, "猫 is Han");
    CHECK(strcmp(utf8_info(0x304C).script, "Hira") == 0, "が is Hiragana");
    UInfo ar = utf8_info(0x0642), he = utf8_info(0x05E9), th = utf8_info(0x0E01);
    CHECK(ar.rtl && strcmp(ar.script, "Arab") == 0 && ar.cls == UCLASS_STRONG,
          "ق is a right-to-left Arabic letter");
    CHECK(he.rtl && strcmp(he.script, "Hebr") == 0, "ש is right-to-left Hebrew");
    CHECK(!th.rtl && strcmp(th.script, "Thai") == 0, "ก is Thai");
    CHECK(utf8_info(0x1F431).emoji && utf8_info(0x2081).cls == UCLASS_NUMBER,
          "🐱 an emoji, ₁ a digit");
    CHECK(utf8_is_rtl("\xd9\x82\xd8\xb7\xd8\xa9 cat")
              && !utf8_is_rtl("cat \xd9\x82\xd8\xb7\xd8\xa9") && !utf8_is_rtl("123"),
          "paragraph direction from the first letter");

    // Runs in visual order.
    bool rtl;
    runs_of("\xd9\x82\xd8\xb7\xd8\xa9\xe2\x80\xa6", buf, sizeof buf, &rtl); // قطة…
    // The ellipsis is a different font here (font 0), so it is its own run, and it comes first: on
    // the left.
    CHECK(strcmp(buf, "\xe2\x80\xa6|rtl / \xd9\x82\xd8\xb7\xd8\xa9|rtl") == 0,
          "قطة… in visual order: %s", buf);
    runs_of("\xd9\x82\xd8\xb7\xd8\xa9\xe2\x82\x81\xe2\x82\x82", buf, sizeof buf, &rtl); // قطة₁₂
    CHECK(strcmp(buf, "\xe2\x82\x81\xe2\x82\x82|ltr / \xd9\x82\xd8\xb7\xd8\xa9|rtl") == 0,
          "قطة₁₂: the index left of the word, its digits in order: %s", buf);
    runs_of("A\xe2\x82\x80[\xd9\x82\xd8\xb7\xd8\xa9] = 1", buf, sizeof buf, &rtl);
    CHECK(!rtl
              && strcmp(buf, "A\xe2\x82\x80[|ltr / \xd9\x82\xd8\xb7\xd8\xa9|rtl / ] = |ltr / 1|ltr")
                     == 0,
          "a left-to-right line keeps its order around an Arabic word: %s", buf);
    runs_of("\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d \xd7\xa2\xd7\x95\xd7\x9c\xd7\x9d", buf, sizeof buf,
            &rtl); // שלום עולם
    CHECK(
        rtl
            && strcmp(buf, "\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d \xd7\xa2\xd7\x95\xd7\x9c\xd7\x9d|rtl")
                   == 0,
        "Hebrew with a space is one run: %s", buf);
    runs_of("cat \xf0\x9f\x90\xb1", buf, sizeof buf, &rtl);
    CHECK(strcmp(buf, "cat |ltr / \xf0\x9f\x90\xb1|ltr") == 0, "an emoji is its own run: %s", buf);
    // Isolates (U+2068 ... U+2069): each Arabic token keeps its place in "A[row, col]"; the marks
    // are in no run.
    runs_of("A[\xe2\x81\xa8\xd9\x82\xd8\xb7\xd8\xa9\xe2\x81\xa9, "
            "\xe2\x81\xa8\xd8\xb9\xd9\x84\xd9\x89\xe2\x81\xa9]",
            buf, sizeof buf, &rtl);
    CHECK(!rtl
              && strcmp(buf, "A[|ltr / \xd9\x82\xd8\xb7\xd8\xa9|rtl / , |ltr / "
                             "\xd8\xb9\xd9\x84\xd9\x89|rtl / ]|ltr")
                     == 0,
          "A[⁨قطة⁩, ⁨على⁩] keeps row then column: %s", buf);
    runs_of("\xe2\x81\xa8\xd9\x82\xd8\xb7\xd8\xa9\xe2\x81\xa9\xe2\x81\xa8\xd8\xb9\xd9\x84\xd9\x89"
            "\xe2\x81\xa9 x",
            buf, sizeof buf, &rtl);
    CHECK(!rtl
              && strcmp(buf, "\xd9\x82\xd8\xb7\xd8\xa9|rtl / \xd8\xb9\xd9\x84\xd9\x89|rtl /  x|ltr")
                     == 0,
          "two isolates side by side stay in order, the line is left to right: %s", buf);
    runs_of("\xd9\x82\xd8\xb7\xd8\xa9, \xd8\xb9\xd9\x84\xd9\x89", buf, sizeof buf, &rtl);
    CHECK(rtl
              && strcmp(buf, "\xd8\xb9\xd9\x84\xd9\x89|rtl / , |rtl / \xd9\x82\xd8\xb7\xd8\xa9|rtl")
                     == 0,
          "without isolates two Arabic words are one right-to-left stretch: %s", buf);
    CHECK(utf8_invisible(0x2068) && utf8_invisible(0x200F) && !utf8_invisible(0x732B),
          "invisible formatting characters");
    TextRun few[2];
    CHECK(textrun_split("a\xd9\x82"
                        "b\xd9\x82",
                        two_fonts, NULL, few, 2, NULL)
              == -1,
          "too many runs: -1");
    CHECK(textrun_split("", two_fonts, NULL, few, 2, NULL) == 0, "no text, no runs");
    return check_report("test_utf8");
}
