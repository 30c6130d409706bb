// One slide's scene, with the theme of the background asked for: a heatmap on a page sized for the
// lesson, or the window's board (export_build_heatmap, export_build_board; export.h). Below the
// whole exports (export.c) and their list of slides (export_jobs.c), which both lay slides out
// here.
#include "render/export_slide.h"

#include <math.h>
#include <stdio.h>

MatId export_stage_matrix(Stage stage, const Lesson *lesson)
{
    return model_stage_heatmap(&lesson->params, stage);
}

const char *export_matrix_key(MatId mat)
{
    const MatInfo *mi = mat_info(mat);
    return mi ? mi->key : "matrix";
}

// ---------------------------------------------------------------------------------------------------
// Themes: the background asked for is a Theme handed to the scene, never a repaint of a finished
// frame. White: the light theme on a white page (the print theme for the grey colour map); dark:
// the dark theme; transparent: the light theme with a page of alpha 0 (the PNG gets an alpha
// channel, the SVG no page).

static Theme export_theme(ExportBackground b, ColormapId colormap)
{
    if (b == EXPORT_BG_DARK) return THEME_DARK;
    Theme t = b == EXPORT_BG_WHITE && colormap == COLORMAP_GREY ? THEME_PRINT : THEME_LIGHT;
    t.bg = (Rgba){255, 255, 255, b == EXPORT_BG_TRANSPARENT ? 0 : 255};
    return t;
}

// ---------------------------------------------------------------------------------------------------
// Heatmap images: the window's heatmap (a part: scene_build_ex) on a page sized for the lesson. The
// page is worked out at scale 1 (the sizes of a 1280x720 window) and multiplied by the scale, so
// that scale 2 is exactly twice scale 1; the scene lays the heatmap out in it at that scale and
// fills it.

bool export_build_heatmap(Scene *s, const HeatmapSpec *spec, const Lesson *L, const Trace *T,
                          const TextMetrics *tm)
{
    scene_clear(s);
    const AttnParams *p = &L->params;
    if (!mat_info(spec->mat) || spec->head >= p->heads) return false;
    ViewDims dims = view_dims_from_params(p);
    ViewState st;
    view_init(&st, &dims);
    // The first stage whose heatmap is the matrix asked for (the scene draws the stage's heatmap).
    int stage = -1;
    for (int i = 0; i < st.stage_count && stage < 0; i++)
        if (model_stage_heatmap(p, st.stages[i]) == spec->mat) stage = i;
    if (stage < 0) return false;
    st.stage_index = stage;
    st.colormap = spec->colormap;
    st.view = spec->head < 0 ? VIEW_ALL_HEADS : VIEW_ONE_HEAD;
    st.head = spec->head < 0 ? -1 : spec->head; // all heads: none is marked as the current one
    int w1, h1;
    scene_heatmap_page(L, T, spec->mat, spec->head, 1.0, tm, &w1, &h1);
    double k = spec->scale > 0.0 ? spec->scale : 1.0;
    if (w1 * k > EXPORT_MAX_SIDE) k = floor((double)EXPORT_MAX_SIDE / w1 * 64.0) / 64.0;
    if (h1 * k > EXPORT_MAX_SIDE) k = floor((double)EXPORT_MAX_SIDE / h1 * 64.0) / 64.0;
    if ((double)w1 * h1 * k * k > EXPORT_MAX_PIXELS)
        k = floor(sqrt(EXPORT_MAX_PIXELS / ((double)w1 * h1)) * 64.0) / 64.0;
    // The scale-1 size times k, rounded once: scale 2 is exactly twice scale 1.
    int w = (int)lround(w1 * k), h = (int)lround(h1 * k);
    // Small scales: the scene's fonts stop shrinking, so the page is measured at k as well; when
    // that page is over the pixel limit, smaller scales are tried (down to 1/16).
    for (int tries = 0; k < 1.0 && tries < 8; tries++) {
        int wk, hk;
        scene_heatmap_page(L, T, spec->mat, spec->head, k, tm, &wk, &hk);
        w = (int)lround(w1 * k), h = (int)lround(h1 * k);
        w = w > wk ? w : wk;
        h = h > hk ? h : hk;
        if ((double)w * h <= EXPORT_MAX_PIXELS || k <= 1.0 / 16.0) break;
        double smaller = floor(k * sqrt(EXPORT_MAX_PIXELS / ((double)w * h)) * 64.0) / 64.0;
        k = smaller < k ? (smaller > 1.0 / 16.0 ? smaller : 1.0 / 16.0) : k - 1.0 / 64.0;
    }
    st.width = w;
    st.height = h;
    Theme theme = export_theme(spec->background, spec->colormap);
    SceneExtras ex = {.slide = true, .theme = &theme};
    SceneRequest rq = {.st = &st,
                       .lesson = L,
                       .trace = T,
                       .ex = &ex,
                       .w = w,
                       .h = h,
                       .tm = tm,
                       .part = spec->head < 0 ? SCENE_PART_ALL_HEADS : SCENE_PART_HEATMAP,
                       .scale = k};
    return scene_build_ex(s, &rq);
}

// ---------------------------------------------------------------------------------------------------
// Boards: the window's screen, laid out with the theme of the background asked for

// The board of export_build_board with what the window shows beyond the lesson (edit marks, the
// comparison); ex may be NULL. A slide has no pointer and no keys: their hints and any status line
// are left out.
bool export_board_scene(Scene *s, const SlideSource *src, const ViewState *st,
                        const LessonQuestion *question)
{
    const SceneExtras *ex = src->req->view;
    double scale = src->req->scale;
    ViewState view = *st;
    view.help = false;
    view.zoom = 1.0;
    double k = scale > 0.0 ? scale : 1.0;
    if (1280.0 * k > EXPORT_MAX_SIDE) k = EXPORT_MAX_SIDE / 1280.0;
    if (1280.0 * 720.0 * k * k > EXPORT_MAX_PIXELS)
        k = floor(sqrt(EXPORT_MAX_PIXELS / (1280.0 * 720.0)) * 64.0) / 64.0;
    int w = (int)lround(1280.0 * k), h = (int)lround(720.0 * k);
    view.width = w;
    view.height = h;
    Theme theme = export_theme(src->req->background, st->colormap);
    SceneExtras slide = {0};
    if (ex) slide = *ex;
    slide.status = NULL;
    slide.slide = true;
    slide.theme = &theme;
    if (question)
        slide.question =
            question; // a question slide: asked (the result hidden) or answered (st->quiz_phase)
    if (view.panel == PANEL_COMPARE && !slide.compare)
        view.panel = PANEL_NONE; // nothing to compare with
    SceneRequest rq = {.st = &view,
                       .lesson = src->L,
                       .trace = src->T,
                       .ex = &slide,
                       .w = w,
                       .h = h,
                       .tm = src->tm};
    return scene_build_ex(s, &rq);
}

bool export_build_board(Scene *s, const ViewState *st, const Lesson *L, const Trace *T,
                        double scale, ExportBackground background, const TextMetrics *tm)
{
    ExportRequest req = {.scale = scale, .background = background};
    SlideSource src = {&req, L, T, tm};
    return export_board_scene(s, &src, st, NULL);
}
