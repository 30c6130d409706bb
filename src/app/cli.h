// The command line's printing: a trace as aligned text (--trace) or as JSON (--json).
#ifndef MHA_CLI_H
#define MHA_CLI_H

#include <stdio.h>
#include "../lesson/lesson.h"

// Every stage of every head, then concat and output, rounded to 4 decimals and labelled with tokens.
void cli_print_trace(FILE *out, const Lesson *l, const Trace *t);
// The whole trace as one JSON object, numbers with 17 significant digits; masked scores are null.
void cli_print_json(FILE *out, const Lesson *l, const Trace *t);

#endif
