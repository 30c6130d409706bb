// Finding a font on this computer that shows a character the shipped DejaVu fonts lack: through
// fontconfig on Linux and the BSDs, in the system font folders elsewhere (Windows, macOS). The only
// OS-specific part of text drawing; the renderer asks, opens what it gets with SDL_ttf and checks
// the glyph itself.
#ifndef MHA_FONTFIND_H
#define MHA_FONTFIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct FontFind FontFind;

// Does the font file at path (face index in a collection) show cp? The renderer's answer, with its
// fonts.
typedef bool (*FontCovers)(void *user, const char *path, int index, uint32_t cp);

// Opens the system's font list (fontconfig's configuration, or the folders to scan). NULL when out
// of memory.
FontFind *fontfind_open(void);
void fontfind_close(FontFind *f);

// What a font is looked for: the character cp (emoji: a colour emoji font is preferred), checked
// with covers (handed user); the files in skip (n_skip paths) are not offered again.
typedef struct {
    uint32_t cp;
    bool emoji;
    FontCovers covers;
    void *user;
    const char *const *skip;
    int n_skip;
} FontWanted;

// A font file (into path, cap bytes) and face index that shows want->cp. False when no font on the
// computer shows it.
bool fontfind_for(FontFind *f, const FontWanted *want, char *path, size_t cap, int *index);

// What to install when no font shows cp, e.g. "a CJK font such as fonts-noto-cjk".
const char *fontfind_install_hint(uint32_t cp);

#endif
