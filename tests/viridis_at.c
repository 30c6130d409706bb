// Prints the colour map's colour at t as "R G B" (0..255): the browser test's expected pixel.
#include <stdio.h>
#include <stdlib.h>
#include "render/colormap.h"
int main(int argc, char **argv)
{
    Rgba c = colormap_rgb(COLORMAP_VIRIDIS, argc > 1 ? atof(argv[1]) : 0.0);
    printf("%d %d %d\n", c.r, c.g, c.b);
    return 0;
}
