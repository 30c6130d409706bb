// json_close A.json B.json TOL: exit 0 when the two JSON documents have the same structure, the
// same strings, and numbers within TOL (absolute); otherwise prints the first difference with its
// path. Keys present in B but not in A are ignored, so A may be a reference with fewer keys.
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "read_all.h"

static double worst = 0.0;

static int compare(const cJSON *a, const cJSON *b, char *path, size_t cap, double tol)
{
    size_t len = strlen(path);
    if (cJSON_IsNumber(a) && cJSON_IsNumber(b)) {
        double d = fabs(a->valuedouble - b->valuedouble);
        if (d > worst) worst = d;
        if (!(d <= tol)) {
            printf("%s: %.17g vs %.17g (difference %.3g)\n", path, a->valuedouble, b->valuedouble,
                   d);
            return 1;
        }
        return 0;
    }
    if ((a->type & 0xFF) != (b->type & 0xFF)) {
        printf("%s: different JSON types\n", path);
        return 1;
    }
    if (cJSON_IsString(a)) {
        if (strcmp(a->valuestring, b->valuestring) != 0) {
            printf("%s: \"%s\" vs \"%s\"\n", path, a->valuestring, b->valuestring);
            return 1;
        }
        return 0;
    }
    if (cJSON_IsArray(a)) {
        if (cJSON_GetArraySize(a) != cJSON_GetArraySize(b)) {
            printf("%s: %d vs %d elements\n", path, cJSON_GetArraySize(a), cJSON_GetArraySize(b));
            return 1;
        }
        int i = 0;
        const cJSON *y = b->child;
        for (const cJSON *x = a->child; x; x = x->next, y = y->next, i++) {
            snprintf(path + len, cap - len, "[%d]", i);
            if (compare(x, y, path, cap, tol)) return 1;
        }
        path[len] = '\0';
        return 0;
    }
    if (cJSON_IsObject(a)) {
        for (const cJSON *x = a->child; x; x = x->next) {
            const cJSON *y = cJSON_GetObjectItemCaseSensitive(b, x->string);
            snprintf(path + len, cap - len, "%s%s", len ? "." : "", x->string);
            if (!y) {
                printf("%s: missing\n", path);
                return 1;
            }
            if (compare(x, y, path, cap, tol)) return 1;
        }
        path[len] = '\0';
        return 0;
    }
    return 0; // null, true, false: same type is enough
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: json_close REFERENCE.json ACTUAL.json TOLERANCE\n");
        return 2;
    }
    char *ta = read_all(argv[1], NULL), *tb = read_all(argv[2], NULL);
    cJSON *a = ta ? cJSON_Parse(ta) : NULL, *b = tb ? cJSON_Parse(tb) : NULL;
    if (!a || !b) {
        printf("cannot read or parse %s\n", !a ? argv[1] : argv[2]);
        return 2;
    }
    char path[1024] = "";
    int diff = compare(a, b, path, sizeof path, strtod(argv[3], NULL));
    if (!diff) printf("same within %s (largest difference %.3g)\n", argv[3], worst);
    cJSON_Delete(a);
    cJSON_Delete(b);
    free(ta);
    free(tb);
    return diff;
}
