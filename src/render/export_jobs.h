// Private to the exporter (export*.c): the list of slides a whole export makes (a job each: its
// file name, title, and a board's view or a heatmap's spec), named in lesson order; the plan of a
// whole export and what its slides are laid out from.
#ifndef MHA_EXPORT_JOBS_H
#define MHA_EXPORT_JOBS_H

#include "render/export.h"

typedef struct {
    char name[300]; // without extension
    char title[400]; // for the SVG <title>
    bool board;
    ViewState st; // board
    const LessonQuestion *question; // a board that asks or answers this question (NULL: none)
    bool parts; // a board of a whole stage: one slide per sub-step when the stage shows its
                // equations in parts
    bool pinned_named; // the pinned cell was asked for (--cell): every part keeps it
    HeatmapSpec spec; // heatmap
} Job;

typedef struct {
    Job *jobs;
    size_t count, cap;
} Jobs;

// What every slide of an export is laid out from: the request (its view: what the window shows
// beyond the lesson, NULL: nothing; its scale and background), the lesson, its trace and the fonts'
// metrics.
typedef struct {
    const ExportRequest *req;
    const Lesson *L;
    const Trace *T;
    const TextMetrics *tm;
} SlideSource;

// The cell a slide with no pointer works out (a position > 0 at the rotation); fallback when there
// is none.
CellRef export_slide_cell(const ViewState *st, CellRef fallback);

// Appends a job: the heatmap of mat for head (all heads: -1), the board of the view st (name_cell:
// its file name says the pinned cell), or the boards of the lesson's questions on st's stage
// (asked, then answered). False when out of memory (add_questions: with err filled).
bool export_add_heatmap(Jobs *jobs, const ExportRequest *req, const char *prefix, const Lesson *L,
                        MatId mat, int head);
bool export_add_board(Jobs *jobs, const char *prefix, const Lesson *L, const ViewState *st,
                      bool name_cell);
bool export_add_questions(Jobs *jobs, const char *prefix, const Lesson *L, const Trace *T,
                          const ViewState *st, ExportError *err);
// out = in with each board of a whole stage that shows its equations in parts replaced by one job
// per part.
bool export_expand_parts(const Jobs *in, Jobs *out, const SlideSource *src, Scene *scene);

// A whole export once its request is checked: the request, the lesson and its trace, the view the
// slides start from (the head asked for, the colormap; the stage under a panel), the stages to
// export (first .. last, indices of st's stages) and the files' name prefix.
typedef struct {
    const ExportRequest *req;
    const Lesson *L;
    const Trace *T;
    ViewState st;
    int first, last;
    char prefix[128];
} ExportPlan;

// --what handout: the PDF of the plan's stages of its head, named PREFIX-handout[-notes]-headH.pdf,
// written all or nothing into req->dir (export_handout.c).
bool export_handout(const ExportPlan *plan, ExportResult *out, ExportError *err);
// The same PDF in memory (f->data malloc'd: free it) and its file name, for a write of several
// files (Shift+E: the board and the handout, all or nothing). False with err filled.
typedef struct {
    char name[300];
    unsigned char *data;
    size_t size;
    char missing[256];
} ExportHandoutFile;
bool export_handout_pdf(const ExportPlan *plan, ExportHandoutFile *f, ExportError *err);
// The same pages as SVG, each handed to plan->req->handout_page (no file written).
bool export_handout_pages(const ExportPlan *plan, ExportResult *out, ExportError *err);

#endif
