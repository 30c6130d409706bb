// libFuzzer target: any bytes -> lesson parser + validator -> trace -> free. Must never crash or leak.
// Built with -DMHA_FUZZ=ON (clang); seeded with lessons/, tests/good/ and tests/bad/.
#include <stddef.h>
#include <stdint.h>

#include "core/trace.h"
#include "lesson/lesson.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Lesson l;
    LessonError err;
    if (!lesson_parse(&l, (const char *)data, size, "fuzz.json", &err)) {
        char buf[1024];
        lesson_error_format(&err, buf, sizeof buf);
        return 0;
    }
    Trace t;
    TraceError terr;
    if (trace_run(&t, &l.params, &terr)) trace_free(&t);
    lesson_free(&l);
    return 0;
}
