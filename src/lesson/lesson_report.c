// What --check collects about a lesson (its errors and warnings), and fields of a lesson's text
// positioned by name (lesson_locate: "questions[2].answer.cell" -> line:column).
#include "lesson/lesson_ctx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson/json_locate.h"

void lesson_report_add(LessonReport *r, const LessonError *e)
{
    if (e->warning) r->warnings++;
    else r->errors++;
    if (r->count >= LESSON_REPORT_MAX) return;
    LessonError *items = realloc(r->items, sizeof *items * (size_t)(r->count + 1));
    if (!items) return; // counted, not kept
    r->items = items;
    r->items[r->count++] = *e;
}

void lesson_report_free(LessonReport *r)
{
    if (!r) return;
    free(r->items);
    memset(r, 0, sizeof *r);
}

// The value at path (at_key: the key of its member) into e's line:column.
static void locate(const Lesson *l, const char *path, bool at_key, LessonError *e)
{
    snprintf(e->path, sizeof e->path, "%s", path);
    e->line = e->col = 0;
    if (!l->text) return;
    cJSON *root = cJSON_ParseWithLength(l->text, l->text_len);
    if (!root) return;
    // Turns the names into member positions (json_locate walks positions), then finds the value or
    // its key.
    int idx[MAX_PATH], depth = 0;
    const cJSON *at = root;
    const char *p = path;
    bool ok = true;
    while (*p && ok && depth < MAX_PATH) {
        if (*p == '.') p++;
        if (*p == '[') {
            char *end;
            long i = strtol(p + 1, &end, 10);
            ok = *end == ']' && cJSON_IsArray(at) && i >= 0 && i < cJSON_GetArraySize(at);
            if (ok) {
                at = cJSON_GetArrayItem(at, (int)i);
                idx[depth++] = (int)i;
                p = end + 1;
            }
        } else {
            size_t n = strcspn(p, ".[");
            int k = 0;
            const cJSON *ch = cJSON_IsObject(at) ? at->child : NULL;
            for (; ch; ch = ch->next, k++)
                if (ch->string && strlen(ch->string) == n && strncmp(ch->string, p, n) == 0) break;
            ok = ch != NULL;
            if (ok) {
                at = ch;
                idx[depth++] = k;
                p += n;
            }
        }
    }
    size_t off;
    if (ok && !*p && json_locate(l->text, l->text_len, idx, depth, at_key, &off))
        json_line_col(l->text, l->text_len, off, &e->line, &e->col);
    cJSON_Delete(root);
}

void lesson_locate(const Lesson *l, const char *path, LessonError *e) { locate(l, path, false, e); }

void lesson_locate_key(const Lesson *l, const char *path, LessonError *e)
{
    locate(l, path, true, e);
}
