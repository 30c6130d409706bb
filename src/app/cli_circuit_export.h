// --export of a lesson of layers (cli_circuit_export.c): any layer's slides (--layer L, heads
// switched off with --ablate L:H), and the circuit panel trained (--what circuit), with the loss
// of a lesson trained beside it (--beside LESSON).
#ifndef MHA_CLI_CIRCUIT_EXPORT_H
#define MHA_CLI_CIRCUIT_EXPORT_H

#include <stdbool.h>

#include "app/options.h"
#include "core/trace.h"
#include "lesson/lesson.h"
#include "render/export.h"

// What writes the slides of a lesson and prints their paths (main.c's): the exit status.
typedef int (*CliExportRun)(ExportRequest *req, const Lesson *l, const char *path, const Trace *t);

// --layer L of a lesson (a->value[OPT_LAYER]; -1 when not given): EXIT_OK, else the status after
// saying why.
int cli_layer_option(const Args *a, int *layer);

// Whether the export of lesson goes through cli_circuit_export: a lesson of layers, or an option
// only such a lesson takes (--layer, --beside, --steps, --what circuit: refused there).
bool cli_circuit_export_wanted(const Args *a, const ExportRequest *req, const Lesson *lesson);

// The export a asks for of the lesson at path (NULL: the built-in one; layers: it is a lesson of
// layers, else --layer, --beside and --steps are refused as for one layer), through run. The exit
// status, having printed any error.
int cli_circuit_export(const Args *a, const char *path, bool layers, ExportRequest *req,
                       CliExportRun run);

#endif
