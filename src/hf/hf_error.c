// The one way the real-model readers report a problem (hf_error.h) and read a JSON file.
#include "hf/hf_error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "lesson/json_locate.h"
#include "platform/platform.h"

static void fail_v(LessonError *e, const char *file, const char *field, const char *fmt, va_list ap)
{
    memset(e, 0, sizeof *e);
    lesson_error_set_file(e, file);
    if (field) snprintf(e->path, sizeof e->path, "%s", field);
    vsnprintf(e->message, sizeof e->message, fmt, ap);
}

bool hf_fail(LessonError *e, const char *file, const char *field, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_v(e, file, field, fmt, ap);
    va_end(ap);
    return false;
}

bool hf_fail_io(LessonError *e, const char *file, const char *field, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_v(e, file, field, fmt, ap);
    va_end(ap);
    e->io = true;
    return false;
}

// What is at a path that is not a file, in words.
static const char *kind_name(PlatformKind k)
{
    static const char *const NAMES[] = {
        [PLATFORM_REGULAR] = "a file",  [PLATFORM_DIRECTORY] = "a folder",
        [PLATFORM_LINK] = "a link",     [PLATFORM_FIFO] = "a FIFO",
        [PLATFORM_SOCKET] = "a socket", [PLATFORM_DEVICE] = "a device"};
    return (unsigned)k < sizeof NAMES / sizeof NAMES[0] ? NAMES[k] : "not a file";
}

char *hf_read_file(const char *path, size_t *len, LessonError *err)
{
    PlatformStat st;
    bool opened = true;
    FILE *f = platform_open_regular(path, &st, &opened);
    if (!f) {
        if (opened && st.kind != PLATFORM_REGULAR)
            hf_fail_io(err, path, NULL, "cannot be read: not a file but %s", kind_name(st.kind));
        else hf_fail_io(err, path, NULL, "cannot be read: %s", strerror(errno));
        return NULL;
    }
    char *text = NULL;
    size_t used = 0, cap = 0;
    bool big = false;
    for (;;) {
        if (used + 65536 + 1 > cap) {
            char *g =
                (big = cap > HF_MAX_JSON_BYTES) ? NULL : realloc(text, cap = 2 * cap + 65536 + 1);
            if (!g) {
                free(text);
                fclose(f);
                if (big)
                    hf_fail_io(err, path, NULL, "cannot be read: more than %u MiB",
                               HF_MAX_JSON_BYTES >> 20);
                else hf_fail(err, path, NULL, "out of memory");
                return NULL;
            }
            text = g;
        }
        size_t got = fread(text + used, 1, cap - used - 1, f);
        used += got;
        if (got == 0) break;
    }
    bool bad = ferror(f);
    fclose(f);
    if (bad || used > HF_MAX_JSON_BYTES) {
        free(text);
        hf_fail_io(err, path, NULL, "cannot be read: %s",
                   bad ? "an I/O error" : "more than the limit");
        return NULL;
    }
    text[used] = '\0';
    *len = used;
    return text;
}

cJSON *hf_parse_json(const char *text, size_t len, const char *path, LessonError *err)
{
    cJSON *j = cJSON_ParseWithLength(text, len);
    if (j) return j;
    JsonSyntaxError syn = {0};
    bool found = !json_check(text, len, &syn);
    hf_fail(err, path, NULL, "not JSON: %s", found ? syn.message : "cannot be parsed");
    if (found && syn.has_offset) json_line_col(text, len, syn.offset, &err->line, &err->col);
    return NULL;
}
