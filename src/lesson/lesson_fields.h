// The lesson-field table's outputs for the other layers: a lesson's settings (AttnConfig and
// "language") as
// --json and --trace print them, each from its row of src/lesson/lesson_fields.c.
#ifndef MHA_LESSON_FIELDS_H
#define MHA_LESSON_FIELDS_H

#include "lesson/lesson.h"
#include "lesson/strbuf.h"

// When a row is read, and where a saved lesson writes it: with the title ("language"), with the
// shape (after "d_model": "heads", "d_k", "mask", ...), or with the matrices (its own code:
// "positions").
typedef enum { FIELDS_WITH_TITLE = 0, FIELDS_WITH_SHAPE, FIELDS_WITH_MATRICES } LessonFieldPart;

// A saved lesson's settings of one part: ",\n  \"heads\": 2" for each it writes, in their save
// order. p: the parameters saved (an edited copy of l->params, or l->params).
void lesson_fields_save(StrBuf *o, const Lesson *l, const AttnParams *p, LessonFieldPart part);
// The shortest of %.15g, %.16g, %.17g that reads back to the same double: a saved lesson's numbers.
void lesson_put_number(StrBuf *o, double v);
// A saved lesson's JSON string (escaped as utf8_json_string does) and row of numbers: [a, b].
void lesson_put_string(StrBuf *o, const char *s);
void lesson_put_row(StrBuf *o, const double *v, int n);

// --json's sizes and settings: "  \"d_model\": 4,\n", then one line per field that --json prints
// ("  \"heads\": 2,\n", ...), in the table's order.
void lesson_fields_json(StrBuf *o, const Lesson *l);
// --trace's: "d_model = 4, heads = 2, d_k = 2, mask = none" (with ", cross-attention"), then a line
// per setting the lesson uses ("window = 2: ...").
void lesson_fields_trace(StrBuf *o, const Lesson *l);

#endif
