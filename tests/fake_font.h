// Test helper: a fixed-width fake font for the scene's layouts without SDL_ttf. Every character
// (UTF-8 code point) is 0.6 em wide and a line is 1.2 em; the digits of the fonts shipped are 0.73
// of the line high. Include after render/scene.h.
#ifndef MHA_TEST_FAKE_FONT_H
#define MHA_TEST_FAKE_FONT_H

#include <math.h>

static int fake_width(void *user, FontRole f, int size, const char *t)
{
    (void)user;
    (void)f;
    int n = 0;
    for (const unsigned char *p = (const unsigned char *)t; *p; p++)
        if ((*p & 0xC0) != 0x80) n++;
    return (int)lround(n * size * 0.6);
}

static int fake_height(void *user, FontRole f, int size)
{
    (void)user;
    (void)f;
    return (int)lround(size * 1.2);
}

static const TextMetrics TM = {NULL, fake_width, fake_height};

#endif
