// Text in the board's notation: '^' raises what follows it, lines cut to a width with "…" (token
// labels keeping their index), and word-wrapping (Chinese and Japanese between characters).
#include "render/scene_text.h"
#include "core/utf8.h"

// Copies t into buf, cut (with "…") so it measures at most max_w.
void fit_text(const Ctx *c, FontRole f, int size, const char *t, int max_w, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s", t);
    if (text_w(c, f, size, buf) <= max_w) return;
    size_t n = strlen(buf);
    while (n > 0) {
        n--;
        while (n > 0 && ((unsigned char)buf[n] & 0xC0) == 0x80) n--; // stay on a UTF-8 boundary
        if (n + 4 > cap) continue;
        memcpy(buf + n, "\xe2\x80\xa6", 4);
        if (text_w(c, f, size, buf) <= max_w) return;
    }
    buf[0] = '\0';
}

// A token label cut to max_w keeps its subscript index ("was…₁₁"): two cut "was" must stay apart.
void fit_label(const Ctx *c, FontRole f, int size, const char *t, int max_w, char *buf, size_t cap)
{
    size_t len = strlen(t), sub = len;
    while (sub >= 3 && (unsigned char)t[sub - 3] == 0xE2 && (unsigned char)t[sub - 2] == 0x82
           && (unsigned char)t[sub - 1] >= 0x80 && (unsigned char)t[sub - 1] <= 0x89)
        sub -= 3;
    if (sub == len || sub == 0 || text_w(c, f, size, t) <= max_w) {
        fit_text(c, f, size, t, max_w, buf, cap);
        return;
    }
    char stem[256];
    int sw = text_w(c, f, size, t + sub);
    snprintf(stem, sizeof stem, "%.*s", (int)sub, t);
    fit_text(c, f, size, stem, max_w - sw, buf, cap);
    if (!buf[0]) snprintf(buf, cap, "\xe2\x80\xa6");
    snprintf(buf + strlen(buf), cap - strlen(buf), "%s", t + sub);
}

// Chinese, Japanese and Korean text has no spaces: a line may break after any of its characters
// (the cluster p[at..end)), except before closing punctuation (，。、：；）」』！？) and after
// opening punctuation (（「『).
static bool line_break_after(const char *p, size_t at, size_t end)
{
    size_t i = at, n = strlen(p + at) + at;
    uint32_t cp = utf8_decode(p, n, &i);
    bool wide = (cp >= 0x2E80 && cp <= 0x9FFF) || (cp >= 0xAC00 && cp <= 0xD7AF)
                || (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFF00 && cp <= 0xFF60)
                || (cp >= 0x20000 && cp <= 0x3134F);
    if (!wide || !p[end] || cp == 0xFF08 || cp == 0x300C || cp == 0x300E) return false;
    size_t j = end;
    uint32_t nx = utf8_decode(p, n, &j);
    static const uint32_t NO_START[] = {0xFF0C, 0x3002, 0x3001, 0xFF1A, 0xFF1B, 0xFF09,
                                        0x300D, 0x300F, 0xFF01, 0xFF1F, 0x2014};
    for (size_t k = 0; k < sizeof NO_START / sizeof NO_START[0]; k++)
        if (nx == NO_START[k]) return false;
    return true;
}

// In a right-to-left paragraph each stretch of left-to-right text (from a Latin letter to the last
// letter or digit before the next right-to-left letter) becomes an isolate (U+2066 ... U+2069):
// "(d_k = 4)" in Arabic notes stays "(d_k = 4)" instead of reading "(4 = d_k)", where the digits
// and the sign take the paragraph's side.
static void isolate_ltr(const char *t, char *out, size_t cap)
{
    size_t len = strlen(t), o = 0, i = 0, start = 0, end = 0, from = 0;
    bool open = false;
    out[0] = '\0';
    while (i <= len) {
        size_t at = i;
        UInfo u = {0};
        if (i < len) u = utf8_info(utf8_decode(t, len, &i));
        else i++;
        bool rtl = at < len && u.cls == UCLASS_STRONG && u.rtl,
             ltr = at < len && u.cls == UCLASS_STRONG && !u.rtl;
        if (at < len
            && (u.cls == UCLASS_ISOLATE
                || u.cls == UCLASS_POP)) { // isolated already: left as it is
            snprintf(out, cap, "%s", t);
            return;
        }
        if (ltr && !open) open = true, start = at;
        if (open && (ltr || (at < len && u.cls == UCLASS_NUMBER))) end = i;
        if (open
            && (rtl
                || at >= len)) { // the stretch [start, end) isolated, then what follows it as it is
            int n = snprintf(out + o, cap - o, "%.*s\xe2\x81\xa6%.*s\xe2\x81\xa9",
                             (int)(start - from), t + from, (int)(end - start), t + start);
            if (n < 0 || (size_t)n >= cap - o) {
                snprintf(out, cap, "%s", t);
                return;
            }
            o += (size_t)n;
            from = end;
            open = false;
        }
    }
    snprintf(out + o, cap - o, "%s", t + from);
}

// Word-wraps t (in the board's notation: '^' raises) into lines no wider than w from (x, y);
// returns the height used (at most max_lines). A right-to-left paragraph (Arabic notes) is aligned
// right, its Latin stretches isolated (isolate_ltr), its lines a quarter further apart.
int wrap_text(Ctx *c, FontRole f, int size, Rgba color, int x, int y, int w, int max_lines,
              const char *t, bool draw)
{
    WrapRequest rq = {f, size, color, x, y, w, -1, max_lines};
    return wrap_text_page(c, &rq, t, draw, NULL);
}

int wrap_text_page(Ctx *c, const WrapRequest *rq, const char *t, bool draw, bool *more)
{
    FontRole f = rq->font;
    int size = rq->size, x = rq->x, y = rq->y, w = rq->w, skip = rq->skip,
        max_lines = rq->max_lines;
    Rgba color = rq->color;
    bool paged = skip >= 0;
    if (skip < 0) skip = 0;
    if (more) *more = false;
    int lh = line_h(c, f, size), used = 0, lines = 0, index = 0;
    char line[512], marked[2048];
    bool rtl = utf8_is_rtl(t);
    if (rtl) {
        isolate_ltr(t, marked, sizeof marked);
        t = marked;
        lh +=
            lh
            / 4; // Arabic letters reach higher and lower than the Latin font's line: room for both
    }
    const char *p = t;
    while (*p && lines < max_lines) {
        size_t len = 0, best = 0;
        bool shown = index++ >= skip;
        for (;;) {
            size_t next = len;
            while (p[next] == ' ') next++;
            while (p[next] && p[next] != ' ' && p[next] != '\n') {
                const char *pop = strncmp(p + next, "\xe2\x81\xa6", 3) == 0
                                      ? strstr(p + next, "\xe2\x81\xa9")
                                      : NULL;
                if (pop) { // an isolate (isolate_ltr's "d_k = 4") is never broken: it is one word
                    next = (size_t)(pop - p) + 3;
                    continue;
                }
                const char *close =
                    p[next] == '^' && p[next + 1] == '(' ? strchr(p + next + 2, ')') : NULL;
                if (close) { // a raised group ("e^(s − m)") is never broken either: its ")" would
                             // show
                    next = (size_t)(close - p) + 1;
                    continue;
                }
                size_t at = next;
                next = utf8_cluster_end(p, strlen(p + at) + at, at);
                if (line_break_after(p, at, next))
                    break; // Chinese and Japanese break between characters
            }
            if (next >= sizeof line) break;
            memcpy(line, p, next);
            line[next] = '\0';
            if (math_w(c, f, size, line) > w && best > 0) break;
            best = next;
            len = next;
            if (!p[next] || p[next] == '\n') break;
        }
        if (best == 0) best = strlen(p) < sizeof line - 1 ? strlen(p) : sizeof line - 1;
        memcpy(line, p, best);
        line[best] = '\0';
        if (!paged && lines == max_lines - 1 && p[best]) {
            char cut[512];
            fit_text(c, f, size, p, w, cut, sizeof cut);
            snprintf(line, sizeof line, "%s", cut);
        }
        if (shown) {
            if (draw)
                math_at(c, f, size, color, rtl ? x + w - math_w(c, f, size, line) : x, y + used,
                        line);
            used += lh;
            lines++;
        }
        p += best;
        while (*p == ' ' || *p == '\n') p++;
    }
    if (more) *more = *p != '\0';
    return used;
}

// Text in the board's notation: '^' raises what follows it (one character, or a group in
// parentheses, drawn without them: 10000^(2i/d)), smaller and higher: W₀^Q. Returns the width;
// draws when `draw`.
static int math_run(Ctx *c, FontRole f, int size, Rgba color, int x, int y, const char *t,
                    bool draw)
{
    char seg[512];
    int w = 0;
    const char *p = t;
    int small = size * 2 / 3 > 6 ? size * 2 / 3 : 6;
    while (*p) {
        const char *caret = strchr(p, '^');
        size_t n = caret ? (size_t)(caret - p) : strlen(p);
        if (n >= sizeof seg) n = sizeof seg - 1;
        if (n > 0) {
            memcpy(seg, p, n);
            seg[n] = '\0';
            int sw = text_w(c, f, size, seg);
            if (draw)
                scene_push_text(c->s, f, size, color, (Box){x + w, y, sw, line_h(c, f, size)}, seg);
            w += sw;
        }
        if (!caret) break;
        p = caret + 1;
        // What the caret raises: a group in parentheses, ^(2i/d), drawn without them; else one
        // (UTF-8) character.
        const char *close = p[0] == '(' ? strchr(p, ')') : NULL, *from = p, *next;
        size_t k = 0;
        if (close && close - p > 1 && close - p < (ptrdiff_t)sizeof seg) {
            from = p + 1;
            k = (size_t)(close - p - 1);
            next = close + 1;
        } else {
            if ((unsigned char)p[0] >= 0x80) { // one UTF-8 character
                k = 1;
                while (((unsigned char)p[k] & 0xC0) == 0x80) k++;
            } else if (p[0]) {
                k = 1;
            }
            next = p + k;
        }
        if (k == 0) break;
        memcpy(seg, from, k);
        seg[k] = '\0';
        int sw = text_w(c, f, small, seg);
        if (draw)
            scene_push_text(c->s, f, small, color,
                            (Box){x + w + 1, y - size / 8, sw, line_h(c, f, small)}, seg);
        w += sw + 2;
        p = next;
    }
    return w;
}
int math_w(const Ctx *c, FontRole f, int size, const char *t)
{
    return math_run((Ctx *)c, f, size, (Rgba){0, 0, 0, 0}, 0, 0, t, false);
}
int math_at(Ctx *c, FontRole f, int size, Rgba color, int x, int y, const char *t)
{
    return math_run(c, f, size, color, x, y, t, true);
}

int panel_say(Ctx *c, FontRole f, Rgba color, int x, int y, int w, const char *text)
{
    return wrap_text(c, f, c->num_font, color, x, y, w, 3, text, true);
}
