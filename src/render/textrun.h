// One line of text as runs to shape: each run is one font, one script and one direction, and the
// runs come in visual order (left to right on the screen), so a backend shapes each run with
// HarfBuzz and places them side by side. A simplified Unicode bidi: a paragraph's direction is its
// first strong letter's; digits stay left to right; punctuation takes the direction of the letters
// around it. No SDL here.
#ifndef MHA_TEXTRUN_H
#define MHA_TEXTRUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "platform/fontfind.h"

typedef struct {
    size_t start, len; // bytes of the text
    int font; // what font_of chose for its clusters
    char script[5]; // ISO 15924 ("Latn", "Arab", "Hani", "Zyyy")
    bool rtl; // shaped right to left
} TextRun;

// Picks the font for a cluster: cp is its first code point, emoji whether it is a pictograph.
typedef int (*TextFontOf)(void *user, uint32_t cp, bool emoji);

// Splits the UTF-8 text t into at most max runs in visual order. *rtl_paragraph (may be NULL) tells
// whether the text reads right to left. Returns the number of runs, 0 for "", or -1 when there
// would be more than max runs or memory ran out.
int textrun_split(const char *t, TextFontOf font_of, void *user, TextRun *runs, int max,
                  bool *rtl_paragraph);

// What a text of marks alone (format marks, joiners, variation selectors: no glyph in any font, so
// nothing a class could see, e.g. a token that is one U+200B) is drawn as: its code points named,
// "\u27e8U+200B\u27e9" or "\u27e8U+200D U+FE0F\u27e9", written into out (cap bytes). Returns false
// (out untouched) when t is "" or has a character that shows. Every backend draws and measures the
// label.
bool textrun_mark_label(const char *t, char *out, size_t cap);

// Which font a backend found for a code point in a role (DejaVu's three files cover different sets;
// asking the system, fontfind, is slow), remembered in TEXT_FONT_SLOTS open-addressed slots that
// are emptied when half full.
#define TEXT_FONT_SLOTS 4096 // a power of two
typedef struct {
    uint32_t cp; // 0: an empty slot
    int role;
    bool emoji;
    int font; // -1: none shows it
} TextFontEntry;
typedef struct {
    TextFontEntry *slots;
    size_t count;
    uint32_t missing; // the first code point no font on the computer shows (0: none yet)
    char missing_msg[256]; // its sentence (textrun_memo_missing), made when first asked
} TextFontMemo;

bool textrun_memo_init(TextFontMemo *m); // false: out of memory
void textrun_memo_free(TextFontMemo *m);
// The entry remembered for (cp, role, emoji); its cp is 0 when there is none.
const TextFontEntry *textrun_memo_find(const TextFontMemo *m, uint32_t cp, int role, bool emoji);
// Remembers e.font for (e.cp, e.role, e.emoji) and returns the font to draw it in: e.font, else the
// role's own. A code point that no font shows (not a control, a mark or a joiner) is kept in
// m->missing when it is the first.
int textrun_memo_put(TextFontMemo *m, TextFontEntry e);
// The sentence for m->missing (textrun_missing_sentence); "" when every character had a font.
const char *textrun_memo_missing(TextFontMemo *m);

// What textrun_font_for asks a backend (the window's SDL_ttf, the PDF's FreeType) of its fonts,
// each handed the backend's user pointer.
typedef struct {
    bool (*shows)(void *user, int font, uint32_t cp); // font shows cp
    bool (*color)(void *user, int font); // the fallback is a colour font (an emoji's first choice)
    const char *(*path)(void *user, int font); // the font's file
    int (*add)(void *user, const char *path,
               int index); // opens a file as a fallback: its font, or -1
    FontCovers covers; // fontfind's check, with the backend's fonts
} TextFontOps;

// The fonts a backend has: below first the roles' own (DejaVu's files), first .. *count-1 the
// fallbacks opened so far (*count <= TEXT_FONT_FILES; read at each question, as a line's split
// may open one); which shows a code point in a role is remembered in memo.
#define TEXT_FONT_FILES 64
typedef struct {
    const TextFontOps *ops;
    void *user; // handed to ops
    int role, first;
    const int *count;
    FontFind *find;
    TextFontMemo *memo;
} TextFontAsk;

// The font that shows cp (emoji: a pictograph) in a->role, the same in every backend: the role's
// own, else a fallback already open (an emoji: a colour one first), else a file fontfind finds,
// opened as a fallback. None: the role's own (a box), and cp is remembered to be told.
int textrun_font_for(const TextFontAsk *a, uint32_t cp, bool emoji);
// The same as a TextFontOf for textrun_split: user is the TextFontAsk.
int textrun_font_of(void *user, uint32_t cp, bool emoji);

// The sentence a backend says when no font on the computer shows cp, in the interface's language:
// "no font on this computer shows 猫 (U+732B) — install a CJK font such as fonts-noto-cjk".
void textrun_missing_sentence(uint32_t cp, char *out, size_t cap);

#endif
