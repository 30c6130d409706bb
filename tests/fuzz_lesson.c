// libFuzzer target: any bytes -> lesson parser + validator -> trace -> questions answered -> free.
// Must never crash or leak. The --check report runs on the same bytes: it must agree with
// lesson_parse on validity and first error (and build the lesson whenever lesson_parse does). Built
// with -DMHA_FUZZ=ON (clang); seeded with lessons/, tests/good/ and tests/bad/.
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/trace.h"
#include "lesson/lesson.h"
#include "model/questions.h"
#include "model/saturation.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Lesson l, lr;
    LessonError err;
    LessonReport rep;
    bool ok = lesson_parse(&l, (const char *)data, size, "fuzz.json", &err);
    bool rok = lesson_parse_report(&lr, (const char *)data, size, "fuzz.json", &rep);
    // The report builds the lesson too when only its questions' form is wrong (errors then, rok
    // true).
    if ((ok && (!rok || rep.errors)) || (!ok && rep.errors < 1)) abort();
    if (!ok && rok) lesson_free(&lr);
    if (!ok && rep.count > 0) {
        // The report keeps warnings in file order too (one may come before the error): the first
        // error it kept is the one lesson_parse stops at.
        int first = 0;
        while (first < rep.count && rep.items[first].warning) first++;
        char a[1400], b[1400];
        if (first < rep.count
            && strcmp(lesson_error_format(&err, a, sizeof a),
                      lesson_error_format(&rep.items[first], b, sizeof b))
                   != 0)
            abort();
        lesson_report_free(&rep);
        return 0;
    }
    lesson_report_free(&rep);
    if (!ok) return 0;
    Trace t;
    TraceError terr;
    if (trace_run(&t, &l.params, &terr)) {
        LessonReport w = {0};
        saturation_warn(&l, &t, "fuzz.json", &w);
        questions_check(&l, &t, "fuzz.json", &w); // every question resolved, answered and described
        for (int i = 0; i < l.question_count; i++) {
            QuestionAnswer a;
            LessonError e;
            char buf[600];
            if (!question_answer(&l, &t, &l.questions[i], i, &a, &e)) continue;
            question_describe(&l.questions[i], &a, &l, buf, sizeof buf);
            question_prompt(&l.questions[i], &a, buf, sizeof buf);
        }
        lesson_report_free(&w);
        trace_free(&t);
    }
    lesson_free(&l);
    lesson_free(&lr);
    return 0;
}
