// A tiny test harness shared by the test programs: CHECK records a failure and goes on.
#ifndef MHA_TEST_CHECK_H
#define MHA_TEST_CHECK_H

#include <stdio.h>

static int check_failures = 0, check_count = 0;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        check_count++;                                                                             \
        if (!(cond)) {                                                                             \
            check_failures++;                                                                      \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

// Prints the summary line and returns the process status: a failure when a check failed, and also
// when no check ran at all (a program that checked nothing has not passed).
static inline int check_report(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
    if (check_count == 0) {
        fprintf(stderr, "%s: no check ran: nothing was tested\n", name);
        return 1;
    }
    return check_failures ? 1 : 0;
}

#endif
