// What is under the pointer: the hit regions, the header's strip of stages, the scale slider and
// the training strip of a scene, from the places its layout recorded (no layout here).
#include "render/scene.h"

#include <math.h>

bool scene_hit(const Scene *s, int x, int y, CellRef *cell, int *head)
{
    for (size_t i = s->hit_count; i-- > 0;) {
        const HitRegion *r = &s->hits[i];
        if (x >= r->x && y >= r->y && x < r->x + r->w && y < r->y + r->h) {
            *cell = r->cell;
            *head = r->head;
            return true;
        }
    }
    return false;
}

bool scene_train_at(const Scene *s, int x, int y, int *step)
{
    if (s->train_w <= 0 || y < s->train_y || y >= s->train_y + s->train_h
        || x < s->train_x - s->train_h / 2 || x > s->train_x + s->train_w + s->train_h / 2)
        return false;
    double t = (double)(x - s->train_x) / s->train_w;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    *step = (int)lround(t * s->train_steps);
    return true;
}

bool scene_stage_at(const Scene *s, int x, int y, int *stage_index)
{
    if (s->strip_n <= 0 || s->strip_seg <= 0 || y < s->strip_y || y >= s->strip_y + s->strip_h
        || x < s->strip_x)
        return false;
    int step = s->strip_seg + s->strip_gap, i = (x - s->strip_x) / step;
    if (i >= s->strip_n || x - s->strip_x - i * step >= s->strip_seg)
        return false; // past the end, or in a gap
    *stage_index = i;
    return true;
}

bool scene_slider_at(const Scene *s, int x, int y, double *scale)
{
    int pad = s->slider_h / 2;
    if (s->slider_w <= 0 || y < s->slider_y || y >= s->slider_y + s->slider_h
        || x < s->slider_x - pad || x > s->slider_x + s->slider_w + pad)
        return false;
    double lo = view_scale_min(s->slider_d_k), hi = VIEW_SCALE_MAX, stops[VIEW_SCALE_STOPS];
    view_scale_stops(s->slider_d_k, stops);
    double t = (double)(x - s->slider_x) / s->slider_w;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double v = exp(log(lo) + t * (log(hi) - log(lo)));
    for (int i = 0; i < VIEW_SCALE_STOPS;
         i++) { // near a stop: the stop itself (1/sqrt(d_k) is the default, exactly)
        double sx = s->slider_x + (log(stops[i]) - log(lo)) / (log(hi) - log(lo)) * s->slider_w;
        if (fabs(sx - x) <= s->slider_h / 4.0) v = stops[i];
    }
    *scale = v;
    return true;
}
