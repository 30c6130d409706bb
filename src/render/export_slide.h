// Private to the exporter (export.c, export_jobs.c, export_slide.c): one slide's board laid out
// with what the window shows beyond the lesson. The public slides (export_build_heatmap,
// export_build_board) are in export.h.
#ifndef MHA_EXPORT_SLIDE_H
#define MHA_EXPORT_SLIDE_H

#include "render/export_jobs.h"

// The board of export_build_board for the view st, with what the window shows beyond the lesson
// (edit marks, the comparison: src->req->view) and the question a slide asks or answers (NULL:
// none).
bool export_board_scene(Scene *s, const SlideSource *src, const ViewState *st,
                        const LessonQuestion *question);

#endif
