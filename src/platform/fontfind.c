// Fallback fonts from the system: fontconfig where it is (MHA_HAVE_FONTCONFIG), else a scan of the
// system font folders (Windows: %WINDIR%\Fonts; macOS: /System/Library/Fonts, /Library/Fonts,
// ~/Library/Fonts).
#include "platform/fontfind.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool skipped(const char *path, const char *const *skip, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(skip[i], path) == 0) return true;
    return false;
}

#if defined(MHA_HAVE_FONTCONFIG)
#include <fontconfig/fontconfig.h>

struct FontFind {
    FcConfig *
        cfg; // loaded at the first question: text DejaVu shows never pays for reading the font list
    bool tried;
};

FontFind *fontfind_open(void) { return calloc(1, sizeof(FontFind)); }

void fontfind_close(FontFind *f)
{
    if (!f) return;
    if (f->cfg) FcConfigDestroy(f->cfg);
    free(f);
}

bool fontfind_for(FontFind *f, const FontWanted *want, char *path, size_t cap, int *index)
{
    uint32_t cp = want->cp;
    if (!f) return false;
    if (!f->tried) {
        f->tried = true;
        f->cfg = FcInitLoadConfigAndFonts(); // our own configuration: nothing global to tear down
    }
    if (!f->cfg) return false;
    FcPattern *pat = FcPatternCreate();
    FcCharSet *cs = FcCharSetCreate();
    bool found = false;
    if (pat && cs && FcCharSetAddChar(cs, cp)) {
        FcPatternAddCharSet(pat, FC_CHARSET, cs);
        FcPatternAddString(pat, FC_FAMILY, (const FcChar8 *)(want->emoji ? "emoji" : "sans-serif"));
        if (want->emoji) FcPatternAddBool(pat, FC_COLOR, FcTrue);
        FcConfigSubstitute(f->cfg, pat, FcMatchPattern);
        FcDefaultSubstitute(pat);
        FcResult res;
        FcFontSet *set = FcFontSort(f->cfg, pat, FcFalse, NULL, &res);
        for (int i = 0; set && i < set->nfont && !found; i++) {
            FcCharSet *have = NULL;
            FcChar8 *file = NULL;
            int idx = 0;
            if (FcPatternGetCharSet(set->fonts[i], FC_CHARSET, 0, &have) != FcResultMatch
                || !FcCharSetHasChar(have, cp))
                continue;
            if (FcPatternGetString(set->fonts[i], FC_FILE, 0, &file) != FcResultMatch) continue;
            if (FcPatternGetInteger(set->fonts[i], FC_INDEX, 0, &idx) != FcResultMatch) idx = 0;
            if (strlen((const char *)file) >= cap
                || skipped((const char *)file, want->skip, want->n_skip))
                continue;
            if (!want->covers(want->user, (const char *)file, idx, cp)) continue;
            snprintf(path, cap, "%s", (const char *)file);
            *index = idx;
            found = true;
        }
        if (set) FcFontSetDestroy(set);
    }
    if (cs) FcCharSetDestroy(cs);
    if (pat) FcPatternDestroy(pat);
    return found;
}

#else
#include <dirent.h>

struct FontFind {
    char dirs[4][1024];
    int count;
};

FontFind *fontfind_open(void)
{
    FontFind *f = calloc(1, sizeof *f);
    if (!f) return NULL;
#if defined(_WIN32)
    const char *win = getenv("WINDIR");
    snprintf(f->dirs[f->count++], sizeof f->dirs[0], "%s\\Fonts", win ? win : "C:\\Windows");
    const char *local = getenv("LOCALAPPDATA");
    if (local)
        snprintf(f->dirs[f->count++], sizeof f->dirs[0], "%s\\Microsoft\\Windows\\Fonts", local);
#else
    snprintf(f->dirs[f->count++], sizeof f->dirs[0], "/System/Library/Fonts");
    snprintf(f->dirs[f->count++], sizeof f->dirs[0], "/Library/Fonts");
    const char *home = getenv("HOME");
    if (home) snprintf(f->dirs[f->count++], sizeof f->dirs[0], "%s/Library/Fonts", home);
#endif
    return f;
}

void fontfind_close(FontFind *f) { free(f); }

static bool font_file(const char *name)
{
    const char *dot = strrchr(name, '.');
    if (!dot) return false;
    static const char *const EXT[] = {".ttf", ".otf", ".ttc", ".TTF", ".OTF", ".TTC"};
    for (size_t i = 0; i < sizeof EXT / sizeof EXT[0]; i++)
        if (strcmp(dot, EXT[i]) == 0) return true;
    return false;
}

bool fontfind_for(FontFind *f, const FontWanted *want, char *path, size_t cap, int *index)
{
    uint32_t cp = want->cp;
    // (want->emoji: the folders have no notion of colour; the first file showing cp wins)
    if (!f) return false;
    for (int d = 0; d < f->count; d++) {
        DIR *dir = opendir(f->dirs[d]);
        if (!dir) continue;
        struct dirent *e;
        while ((e = readdir(dir)) != NULL) {
            if (!font_file(e->d_name)) continue;
            char p[2048];
            int n = snprintf(p, sizeof p, "%s/%s", f->dirs[d], e->d_name);
            if (n < 0 || (size_t)n >= cap || (size_t)n >= sizeof p
                || skipped(p, want->skip, want->n_skip))
                continue;
            if (want->covers(want->user, p, 0, cp)) {
                snprintf(path, cap, "%s", p);
                *index = 0;
                closedir(dir);
                return true;
            }
        }
        closedir(dir);
    }
    return false;
}
#endif

// What to install, by block: one row per range (first match wins). N_ marks a message for the
// catalogues (po/): the window shows it translated (draw_sdl.c), the platform layer knows no
// language.
#define N_(s) s
static const struct {
    uint32_t lo, hi;
    const char *hint;
} HINTS[] = {
#if defined(MHA_HAVE_FONTCONFIG)
    {0x1100, 0x11FF, N_("a Korean font such as fonts-noto-cjk")},
    {0x2E80, 0x9FFF, N_("a CJK font such as fonts-noto-cjk")},
    {0xAC00, 0xD7AF, N_("a Korean font such as fonts-noto-cjk")},
    {0xF900, 0xFAFF, N_("a CJK font such as fonts-noto-cjk")},
    {0xFF00, 0xFFEF, N_("a CJK font such as fonts-noto-cjk")},
    {0x20000, 0x3134F, N_("a CJK font such as fonts-noto-cjk")},
    {0x1F000, 0x1FAFF, N_("a colour emoji font such as fonts-noto-color-emoji")},
    {0, 0x10FFFF, N_("a font for its script such as fonts-noto-core")},
#else
    {0x2E80, 0x9FFF, N_("a CJK font such as Noto Sans CJK")},
    {0x1F000, 0x1FAFF, N_("a colour emoji font such as Noto Color Emoji")},
    {0, 0x10FFFF, N_("a font for its script, such as one of the Noto fonts")},
#endif
};

const char *fontfind_install_hint(uint32_t cp)
{
    for (size_t i = 0; i < sizeof HINTS / sizeof HINTS[0]; i++)
        if (cp >= HINTS[i].lo && cp <= HINTS[i].hi) return HINTS[i].hint;
    return HINTS[sizeof HINTS / sizeof HINTS[0] - 1].hint;
}
