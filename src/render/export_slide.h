// Private to the exporter (export.c, export_jobs.c, export_slide.c): one slide's board laid out
// with what the window shows beyond the lesson. The public slides (export_build_heatmap,
// export_build_board) are in export.h.
#ifndef MHA_EXPORT_SLIDE_H
#define MHA_EXPORT_SLIDE_H

#include "render/export.h"

// The board of export_build_board with what the window shows beyond the lesson (edit marks, the
// comparison; ex may be NULL) and the question a slide asks or answers (NULL: none).
bool export_board_scene(Scene *s, const ViewState *st, const Lesson *L, const Trace *T,
                        const SceneExtras *ex, const LessonQuestion *question, double scale,
                        ExportBackground background, const TextMetrics *tm);

#endif
