// mha-manpage VERSION: prints the manual page mha-tracer.1 (troff) from the command line's option
// table, the rows --help prints; run at build time for the installed page (CMakeLists.txt, the
// .deb).
#include <stdio.h>

#include "app/options.h"

int main(int argc, char **argv)
{
    options_print_man(stdout, argc > 1 ? argv[1] : "dev");
    return fflush(stdout) != 0 || ferror(stdout) ? EXIT_IO : EXIT_OK;
}
