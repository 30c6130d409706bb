// Test helper: a lesson (from a file under the source tree, or from memory) with its trace,
// recording a failed check when either step fails. Include after check.h.
#ifndef MHA_TEST_LESSON_TRACE_H
#define MHA_TEST_LESSON_TRACE_H

#include <stdio.h>
#include <string.h>

#include "lesson/lesson.h"

// rel: a path under MHA_SOURCE_DIR, e.g. "lessons/the-cat-sat.json". Free with trace_free and
// lesson_free.
static inline bool load(const char *rel, Lesson *L, Trace *T)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", MHA_SOURCE_DIR, rel);
    LessonError err;
    TraceError terr;
    if (!lesson_load(L, path, &err)) {
        CHECK(false, "%s loads: %s", rel, err.message);
        return false;
    }
    if (!trace_run(T, &L->params, &terr)) {
        CHECK(false, "%s traces: %s", rel, terr.message);
        lesson_free(L);
        return false;
    }
    return true;
}

// A lesson written out in the test.
static inline bool parse(const char *json, Lesson *L, Trace *T)
{
    LessonError err;
    TraceError terr;
    if (!lesson_parse(L, json, strlen(json), "<test>", &err)) {
        CHECK(false, "in-memory lesson parses: %s: %s", err.path, err.message);
        return false;
    }
    if (!trace_run(T, &L->params, &terr)) {
        CHECK(false, "in-memory lesson traces: %s", terr.message);
        lesson_free(L);
        return false;
    }
    return true;
}

#endif
