// The interface in every language (en, es, fr, zh): the tables agree with each other (the same
// messages, the same printf conversions), every message the screens and exports ask for is in every
// table, no English is left on a translated screen, and every screen fits in every language at
// 1280x720 and 1920x1080 (nothing outside the window, no two texts overlapping), measured with the
// real fonts. Numbers and --json never change with the language (test_cli checks the CLI side).
#define _POSIX_C_SOURCE 200809L
#include <SDL.h>
#include <SDL_ttf.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "lesson_trace.h"
#include "core/compare.h"
#include "core/utf8.h"
#include "model/explain.h"
#include "model/i18n.h"
#include "model/questions.h"
#include "model/session.h"
#include "render/draw_sdl.h"
#include "render/export.h"
#include "render/scene.h"

// The printf conversions of s ("%%" is text).
static void conversions(const char *s, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = '\0';
    for (const char *p = s; *p; p++) {
        if (*p != '%') continue;
        p++;
        if (*p == '%') continue;
        char conv[16];
        size_t k = 0;
        while (*p && strchr("-+ #0123456789.*l", *p) && k < sizeof conv - 2) conv[k++] = *p++;
        conv[k++] = *p;
        conv[k] = '\0';
        n += (size_t)snprintf(out + n, cap - n, "%%%s", conv);
        if (!*p) break;
    }
}

// The message id of a key (msgctxt "\004" msgid).
static const char *msgid_of(const char *key)
{
    const char *eot = strchr(key, '\004');
    return eot ? eot + 1 : key;
}

static Lang lang_of(const char *code)
{
    Lang l = LANG_EN;
    CHECK(i18n_parse(code, &l), "%s is one of ours", code);
    return l;
}

static void test_tables(void)
{
    Lang l;
    const Lang es = lang_of("es"), fr = lang_of("fr"), zh = lang_of("zh");
    CHECK(i18n_parse("es_ES.UTF-8", &l) && l == es, "es_ES.UTF-8 is Spanish");
    CHECK(i18n_parse("zh_CN.UTF-8", &l) && l == zh && i18n_parse("zh-Hans", &l) && l == zh,
          "zh_CN, zh-Hans");
    CHECK(i18n_parse("fr-CA", &l) && l == fr && i18n_parse("en_US", &l) && l == LANG_EN,
          "fr-CA, en_US");
    CHECK(!i18n_parse("C", &l) && !i18n_parse("POSIX", &l) && !i18n_parse("de_DE", &l)
              && !i18n_parse("esx", &l),
          "C, POSIX, de_DE and esx are none of ours");
    CHECK(i18n_choose("fr", "es") == fr && i18n_choose(NULL, "es-MX") == es,
          "--lang first, then the lesson");
    setenv("LANG", "zh_CN.UTF-8", 1);
    unsetenv("LC_ALL");
    unsetenv("LC_MESSAGES");
    CHECK(i18n_choose(NULL, "ja") == zh && i18n_choose(NULL, NULL) == zh, "then LANG");
    setenv("LANG", "C.UTF-8", 1);
    CHECK(i18n_choose(NULL, NULL) == LANG_EN, "else English");
    // The one list (po/LINGUAS) gives the codes --lang names, and each catalogue its language's own
    // name.
    char want[256] = "en", word[64];
    int langs = 1;
    FILE *list = fopen(MHA_SOURCE_DIR "/po/LINGUAS", "r");
    CHECK(list != NULL, "po/LINGUAS opens");
    while (list && fscanf(list, " %63s", word) == 1) {
        if (word[0] == '#') { // a comment, to the end of its line
            for (int ch = 0; ch != '\n' && ch != EOF;) ch = fgetc(list);
            continue;
        }
        snprintf(want + strlen(want), sizeof want - strlen(want), ", %s", word);
        langs++;
    }
    if (list) fclose(list);
    CHECK(strcmp(i18n_codes(), want) == 0 && i18n_count() == langs,
          "languages: %s (po/LINGUAS: %s)", i18n_codes(), want);
    CHECK(strcmp(i18n_table(es)->name, "espa\xc3\xb1ol") == 0
              && strcmp(i18n_table(zh)->name, "\xe4\xb8\xad\xe6\x96\x87") == 0,
          "names from the catalogues: %s, %s", i18n_table(es)->name, i18n_table(zh)->name);
    CHECK(i18n_table(es)->nplurals == 2 && i18n_table(fr)->nplurals == 2
              && i18n_table(zh)->nplurals == 1,
          "nplurals");
    for (Lang k = 1; k < i18n_count(); k++) {
        const LangTable *t = i18n_table(k);
        CHECK(t->count > 100, "%s: %zu messages", t->code, t->count);
        int bad = 0, order = 0, found = 0;
        for (size_t i = 0; i < t->count; i++) {
            const I18nMessage *m = &t->messages[i];
            if (i && strcmp(t->messages[i - 1].key, m->key) >= 0 && order++ < 3)
                fprintf(stderr, "  %s: '%s' after '%s': not sorted\n", t->code, m->key,
                        t->messages[i - 1].key);
            found += i18n_find(t, m->key) == m; // the binary search finds every key
            char a[128], b[128];
            conversions(msgid_of(m->key), a, sizeof a);
            int forms = m->forms[1] ? t->nplurals : 1; // a plural message has every form
            for (int f = 0; f < I18N_MAX_FORMS; f++) {
                if ((f < forms) != (m->forms[f] != NULL) || (f < forms && !m->forms[f][0])) {
                    if (bad++ < 3)
                        fprintf(stderr, "  %s: '%s': form %d missing, empty or extra\n", t->code,
                                m->key, f);
                    continue;
                }
                if (f >= forms) continue;
                conversions(m->forms[f], b, sizeof b);
                if (strcmp(a, b) != 0 && bad++ < 3)
                    fprintf(stderr, "  %s: '%s': %s vs %s\n", t->code, m->key, a, b);
            }
        }
        CHECK(bad == 0, "%s: %d translations with other conversions, or forms missing", t->code,
              bad);
        CHECK(order == 0 && found == (int)t->count, "%s: sorted (%d out of order), %d of %zu found",
              t->code, order, found, t->count);
        CHECK(!i18n_find(t, "no such message"), "%s: an unknown message is not found", t->code);
    }
    i18n_use(fr);
    CHECK(strcmp(TR("Input"), "Entr\xc3\xa9"
                              "e")
                  == 0
              && strcmp(TR("QK^T"), "QK^T") == 0,
          "lookups (symbols stay)");
    // Plurals by each catalogue's Plural-Forms: French says 0 and 1 alike, Spanish 0 as 2, Chinese
    // has one form.
    static const char *const ONE = "Saved %d edit as %s", *const MANY = "Saved %d edits as %s";
    CHECK(strstr(TRN(ONE, MANY, 0), "modification)") && strstr(TRN(ONE, MANY, 1), "modification)")
              && strstr(TRN(ONE, MANY, 2), "modifications)"),
          "fr: %s / %s / %s", TRN(ONE, MANY, 0), TRN(ONE, MANY, 1), TRN(ONE, MANY, 2));
    i18n_use(es);
    CHECK(strstr(TRN(ONE, MANY, 0), "cambios)") && strstr(TRN(ONE, MANY, 1), "cambio)")
              && strstr(TRN(ONE, MANY, 5), "cambios)"),
          "es: %s / %s / %s", TRN(ONE, MANY, 0), TRN(ONE, MANY, 1), TRN(ONE, MANY, 5));
    // One English message, two meanings: the context picks the translation (" off": a head,
    // feminine in Spanish).
    i18n_missing_reset();
    CHECK(strcmp(TRC("a head", " off"), " desactivada") == 0 && i18n_missing(NULL) == 0,
          "es: the context's translation");
    CHECK(strcmp(TR(" off"), " off") == 0 && i18n_missing(NULL) == 1,
          "es: ' off' without its context is not the same message");
    i18n_missing_reset();
    i18n_use(zh);
    CHECK(TRN(ONE, MANY, 1) == TRN(ONE, MANY, 7) && strcmp(TRN(ONE, MANY, 1), ONE) != 0,
          "zh: one form for every n");
    i18n_use(LANG_EN);
    CHECK(strcmp(TR("Input"), "Input") == 0 && TRN(ONE, MANY, 1) == ONE && TRN(ONE, MANY, 0) == MANY
              && TRN(ONE, MANY, 2) == MANY,
          "English is the message, n == 1 the singular");
}

// ---------------------------------------------------------------------------------------------------
// English that the catalogue holds, left on a translated screen: a text of the screen that holds a
// piece of a message (its text between conversions, of two words or more), or a line that is part
// of one (a wrapped message), when the language's translations do not hold that piece too (a
// formula, "d_model = ").

typedef struct {
    char **pieces; // the messages' pieces between conversions, of two words or more
    size_t count;
    char *translations; // every form of every message of the language, one after the other
    char **seen; // texts already looked at (open addressing, SEEN_CAP slots)
} English;

enum { SEEN_CAP = 1 << 15 };

static bool wordy(const char *s) // two words of two lower-case letters or more
{
    int words = 0;
    for (const char *p = s; p[0] && p[1]; p++)
        if (p[0] >= 'a' && p[0] <= 'z' && p[1] >= 'a' && p[1] <= 'z'
            && (p == s || !(p[-1] >= 'a' && p[-1] <= 'z')))
            words++;
    return words >= 2;
}

static void english_init(English *e, const LangTable *t)
{
    memset(e, 0, sizeof *e);
    size_t len = 1;
    for (size_t i = 0; i < t->count; i++)
        for (int f = 0; f < I18N_MAX_FORMS && t->messages[i].forms[f]; f++)
            len += strlen(t->messages[i].forms[f]) + 1;
    e->translations = calloc(len, 1);
    e->pieces = calloc(4 * t->count + 1, sizeof *e->pieces);
    e->seen = calloc(SEEN_CAP, sizeof *e->seen);
    for (size_t i = 0; i < t->count; i++) {
        for (int f = 0; f < I18N_MAX_FORMS && t->messages[i].forms[f]; f++) {
            strcat(e->translations, t->messages[i].forms[f]);
            strcat(e->translations, "\n");
        }
        // The pieces of the message between its conversions.
        const char *id = msgid_of(t->messages[i].key);
        for (const char *p = id; *p && e->count < 4 * t->count;) {
            const char *q = p;
            while (*q && !(q[0] == '%' && q[1] && q[1] != '%')) q++;
            size_t n = (size_t)(q - p);
            char *piece = malloc(n + 1);
            memcpy(piece, p, n);
            piece[n] = '\0';
            if (wordy(piece)) e->pieces[e->count++] = piece;
            else free(piece);
            if (!*q) break;
            q++;
            while (*q && strchr("-+ #0123456789.*l", *q)) q++;
            p = *q ? q + 1 : q;
        }
    }
}

static void english_free(English *e)
{
    for (size_t i = 0; i < e->count; i++) free(e->pieces[i]);
    for (size_t i = 0; i < SEEN_CAP; i++) free(e->seen[i]);
    free(e->pieces);
    free(e->seen);
    free(e->translations);
}

// The first piece of English in text t, or NULL. Each text is looked at once (the screens repeat
// them).
static const char *english_in(English *e, const char *t)
{
    if (!wordy(t)) return NULL;
    size_t h = 5381;
    for (const char *p = t; *p; p++) h = h * 33 + (unsigned char)*p;
    for (size_t k = 0; k < SEEN_CAP; k++) {
        char **slot = &e->seen[(h + k) & (SEEN_CAP - 1)];
        if (*slot && strcmp(*slot, t) == 0) return NULL; // looked at, and reported then if English
        if (*slot) continue;
        if (k < SEEN_CAP / 2) {
            *slot = malloc(strlen(t) + 1);
            if (*slot) strcpy(*slot, t);
        }
        break;
    }
    // A line of a wrapped message: the text, less the spaces at its ends and what an ellipsis cut.
    char line[1024];
    snprintf(line, sizeof line, "%s", t);
    char *cut = strstr(line, "\xe2\x80\xa6");
    if (cut) *cut = '\0';
    char *a = line, *z = line + strlen(line);
    while (*a == ' ') a++;
    while (z > a && z[-1] == ' ') *--z = '\0';
    for (size_t i = 0; i < e->count; i++) {
        const char *piece = e->pieces[i];
        if (strstr(t, piece) && !strstr(e->translations, piece)) return piece;
        if (wordy(a) && strstr(piece, a) && !strstr(e->translations, a)) return piece;
    }
    return NULL;
}

// ---------------------------------------------------------------------------------------------------
// Every screen in every language

// A window-sized canvas the screens of a right-to-left lesson are drawn on, to look at the labels'
// ink.
typedef struct {
    SDL_Surface *surf;
    SDL_Renderer *ren;
    DrawSdl *d;
} Canvas;

typedef struct {
    TextMetrics tm;
    Canvas
        *ink; // not NULL: draw each screen and measure the gap between a label's ink and the matrix
    English *en; // the catalogue's English, for the language in use (NULL in English)
    const Lesson *L;
    const char *what;
    int screens, overlaps, outside, english, touching;
} Fit;

static bool content(const Lesson *L, const char *t)
{
    // Lesson text (title, notes, tokens) is the teacher's, in the lesson's language: not ours to
    // translate.
    char stem[512];
    snprintf(stem, sizeof stem, "%s", t);
    char *cut = strstr(stem, "\xe2\x80\xa6");
    if (cut) *cut = '\0';
    if (!stem[0]) return true;
    if ((L->title && strstr(L->title, stem)) || (L->notes && strstr(L->notes, stem))) return true;
    // So are its questions: a line inside one, or a line whose end (after our "Question 1 of 3: ")
    // begins one.
    for (int i = 0; i < L->question_count; i++) {
        const char *qt = L->questions[i].text;
        if (strstr(qt, stem)) return true;
        for (size_t j = 0, n = strlen(stem); j + 8 <= n; j++)
            if (strncmp(stem + j, qt, n - j) == 0) return true;
    }
    return false;
}

// Is where texts i and j meet hidden under a (nearly) opaque rectangle drawn after i and before j
// (an overlay: help, the cost panel)? Then only j is seen there.
static bool covered(const Scene *s, size_t i, size_t j)
{
    const DrawCmd *a = &s->cmds[i], *b = &s->cmds[j];
    int x0 = a->x > b->x ? a->x : b->x, y0 = a->y > b->y ? a->y : b->y;
    int x1 = a->x + a->w < b->x + b->w ? a->x + a->w : b->x + b->w,
        y1 = a->y + a->h < b->y + b->h ? a->y + a->h : b->y + b->h;
    for (size_t k = i + 1; k < j; k++) {
        const DrawCmd *r = &s->cmds[k];
        if (r->kind == CMD_RECT && r->color.a >= 200 && r->x <= x0 && r->y <= y0
            && r->x + r->w >= x1 && r->y + r->h >= y1)
            return true;
    }
    return false;
}

// Is text i, even in part, under an overlay drawn after it (a dimming layer or a panel)?
static bool hidden(const Scene *s, size_t i)
{
    const DrawCmd *a = &s->cmds[i];
    for (size_t k = i + 1; k < s->count; k++) {
        const DrawCmd *r = &s->cmds[k];
        if (r->kind == CMD_RECT && r->color.a >= 40 && r->color.a < 255 && r->x < a->x + a->w
            && a->x < r->x + r->w && r->y < a->y + a->h && a->y < r->y + r->h)
            return true; // a dimming layer (help, cost panel) over it
        if (r->kind == CMD_RECT && r->color.a == 255 && r->x < a->x + a->w && a->x < r->x + r->w
            && r->y < a->y + a->h && a->y < r->y + r->h && r->role != ROLE_CELL)
            return true; // an overlay's panel over it, even in part
    }
    return false;
}

static void check_fit(Fit *f, const Scene *s, int w, int h, const char *screen)
{
    f->screens++;
    if (f->ink) {
        SDL_SetRenderDrawColor(f->ink->ren, s->background.r, s->background.g, s->background.b, 255);
        SDL_RenderClear(f->ink->ren);
        draw_sdl_scene(f->ink->d, s);
        SDL_RenderPresent(f->ink->ren);
    }
    Lang lang = i18n_current();
    for (size_t i = 0; i < s->count; i++) {
        const DrawCmd *a = &s->cmds[i];
        if (a->kind == CMD_CLIP) continue;
        if (a->x < 0 || a->y < 0 || a->x + a->w > w || a->y + a->h > h) {
            if (f->outside++ < 4)
                fprintf(stderr, "  %s %s %s %dx%d: '%s' at %d,%d %dx%d is outside\n",
                        i18n_table(lang)->code, f->what, screen, w, h,
                        a->kind == CMD_TEXT ? scene_text(s, a) : "(shape)", a->x, a->y, a->w, a->h);
        }
        if (a->kind != CMD_TEXT) continue;
        const char *ta = scene_text(s, a);
        // The lesson's tokens are its own words ("the cat sleeps → cat the sleeps" in the shuffle
        // test): left out.
        char plain[1024];
        snprintf(plain, sizeof plain, " %s ", ta);
        for (int t = 0; t < f->L->params.n; t++) {
            char word[128];
            snprintf(word, sizeof word, " %s ", f->L->tokens[t]);
            for (char *q; (q = strstr(plain, word)) != NULL;)
                memmove(q, q + strlen(word) - 1, strlen(q + strlen(word) - 1) + 1);
        }
        const char *piece = f->en && !content(f->L, ta) ? english_in(f->en, ta) : NULL;
        if (piece && f->english++ < 4)
            fprintf(stderr,
                    "  %s %s %s: English of the catalogue left: '%s' (the message's '%s')\n",
                    i18n_table(lang)->code, f->what, screen, ta, piece);
        if (lang != LANG_EN && !content(f->L, ta)
            && (strstr(plain, " the ") || strstr(ta, "The ") == ta || strstr(plain, " of the")
                || strstr(plain, " and ") || strstr(plain, " is "))) {
            if (f->english++ < 4)
                fprintf(stderr, "  %s %s %s: English left: '%s'\n", i18n_table(lang)->code, f->what,
                        screen, ta);
        }
        // A token's row label stays clear of the cells and frames to its right: 3 pixels of page at
        // least between its ink and them (an Arabic label ends at its first letter, whose ink
        // reaches past its box).
        bool token = false;
        for (int t = 0; t < f->L->params.n && !token; t++) token = strcmp(ta, f->L->tokens[t]) == 0;
        if (token && hidden(s, i)) token = false;
        // The nearest cell or frame to its right, on its line, close enough to be the matrix it
        // labels.
        const DrawCmd *r = NULL;
        for (size_t j = 0; token && j < s->count; j++) {
            const DrawCmd *q = &s->cmds[j];
            if (!(q->kind == CMD_FRAME || (q->kind == CMD_RECT && q->role == ROLE_CELL))) continue;
            if (q->y < a->y + a->h && a->y < q->y + q->h && q->x >= a->x + a->w / 2
                && (!r || q->x < r->x))
                r = q;
        }
        if (r && r->x - (a->x + a->w) <= a->h) {
            int end = a->x + a->w; // the box's right edge, or the ink's when the screen is drawn
            if (f->ink && r->x <= f->ink->surf->w) {
                end = a->x;
                for (int y = a->y > r->y ? a->y : r->y;
                     y < a->y + a->h && y < r->y + r->h && y < f->ink->surf->h; y++)
                    for (int xx = a->x; xx < r->x; xx++) {
                        Uint32 p = ((Uint32 *)((Uint8 *)f->ink->surf->pixels
                                               + y * f->ink->surf->pitch))[xx];
                        if (((p >> 16 & 255) + (p >> 8 & 255) + (p & 255)) < 3 * 190
                            && xx + 1 > end)
                            end = xx + 1;
                    }
            }
            if (r->x - end < 3 && f->touching++ < 4)
                fprintf(stderr, "  %s %s %s: label '%s' (%d..%d) touches what starts at x %d\n",
                        i18n_table(lang)->code, f->what, screen, ta, a->x, end, r->x);
        }
        for (size_t j = i + 1; j < s->count; j++) {
            const DrawCmd *b = &s->cmds[j];
            if (b->kind != CMD_TEXT) continue;
            int ox = (a->x + a->w < b->x + b->w ? a->x + a->w : b->x + b->w)
                     - (a->x > b->x ? a->x : b->x);
            int oy = (a->y + a->h < b->y + b->h ? a->y + a->h : b->y + b->h)
                     - (a->y > b->y ? a->y : b->y);
            // Lines of text touch (line height) and raised notation sits on its base: only ink-deep
            // overlaps count.
            if (ox > 2 && oy > (a->h < b->h ? a->h : b->h) / 2 && !covered(s, i, j)) {
                if (f->overlaps++ < 6)
                    fprintf(stderr,
                            "  %s %s %s %dx%d: '%s' (%d,%d %dx%d) overlaps '%s' (%d,%d %dx%d)\n",
                            i18n_table(lang)->code, f->what, screen, w, h, ta, a->x, a->y, a->w,
                            a->h, scene_text(s, b), b->x, b->y, b->w, b->h);
            }
        }
    }
}

static void press(ViewState *st, ViewKey k)
{
    ViewEvent e = {.kind = VIEW_EV_KEY, .key = k, .head = -1};
    view_handle(st, &e);
}

// Every stage from the first, one frame each (the last sub-step of each).
static void press_all(ViewState *st, const Lesson *L, const Trace *T, Fit *f, Scene *s,
                      const SceneExtras *ex, int w, int h, const char *what)
{
    press(st, VIEW_KEY_HOME);
    char name[96];
    for (int guard = 0; guard < 64; guard++) {
        scene_build_ex(
            s, &(SceneRequest){
                   .st = st, .lesson = L, .trace = T, .ex = ex, .w = w, .h = h, .tm = &f->tm});
        snprintf(name, sizeof name, "%s, stage %d.%d", what, st->stage_index, st->substep);
        check_fit(f, s, w, h, name);
        view_set_substeps(st, s->substeps, s->substep);
        int at = st->stage_index, sub = st->substep;
        press(st, VIEW_KEY_RIGHT);
        if (st->stage_index == at && st->substep == sub) break;
    }
}

// The board with the pointer on one cell of each matrix it shows: the explanation under it (hover
// arithmetic).
static void hovers(Fit *f, ViewState *st, Scene *s, const Lesson *L, const Trace *T,
                   const SceneExtras *ex, int w, int h, const char *what)
{
    CellRef cells[MAT_COUNT];
    int n = 0;
    for (size_t i = 0; i < s->hit_count && n < MAT_COUNT; i++) {
        CellRef c = s->hits[i].cell;
        bool seen = c.mat == MAT_NONE;
        for (int k = 0; k < n && !seen; k++)
            seen = cells[k].mat == c.mat && cells[k].head == c.head;
        if (!seen) cells[n++] = c;
    }
    CellRef none = st->hover;
    char name[96];
    for (int k = 0; k < n; k++) {
        st->hover = cells[k];
        scene_build_ex(
            s, &(SceneRequest){
                   .st = st, .lesson = L, .trace = T, .ex = ex, .w = w, .h = h, .tm = &f->tm});
        snprintf(name, sizeof name, "%s, pointer on %s", what, mat_info(cells[k].mat)->key);
        check_fit(f, s, w, h, name);
    }
    st->hover = none;
}

// The arithmetic of every cell of every matrix, for each head, as the window explains it (with the
// edit hint).
static void explanations(Fit *f, const Lesson *L, const Trace *T)
{
    char lines[8][256];
    for (int m = MAT_NONE + 1; m < MAT_COUNT; m++) {
        const MatInfo *mi = mat_info((MatId)m);
        int rows, cols;
        model_mat_shape(&L->params, (MatId)m, &rows, &cols);
        for (int head = 0; head < (mi->per_head ? L->params.heads : 1); head++)
            for (int r = 0; r < rows; r++)
                for (int c = 0; c < cols; c++) {
                    int n = model_explain(L, T, (CellRef){(MatId)m, head, r, c}, lines, 8, true);
                    for (int i = 0; i < n; i++) {
                        const char *piece =
                            f->en && !content(f->L, lines[i]) ? english_in(f->en, lines[i]) : NULL;
                        if (piece && f->english++ < 4)
                            fprintf(stderr,
                                    "  %s %s: the explanation of %s[%d, %d] keeps English: '%s' "
                                    "(the message's '%s')\n",
                                    i18n_table(i18n_current())->code, f->what, mi->key, r, c,
                                    lines[i], piece);
                    }
                }
    }
}

static void screens(Fit *f, const Lesson *L, const Trace *T, int w, int h)
{
    Scene s;
    scene_init(&s);
    ViewDims dims = view_dims_from_params(&L->params);
    ViewState st;
    view_init(&st, &dims);
    st.width = w;
    st.height = h;
    Comparison cmp;
    TraceError terr;
    bool have_cmp = compare_run(&cmp, &L->params, &terr);
    SceneExtras ex = {.compare = have_cmp ? &cmp : NULL,
                      .status = TR("Nothing to revert: no value is edited")};
    char name[64];
    // Every stage and sub-step, one head; then the same with all heads.
    for (int view = 0; view < 2; view++) {
        press(&st, VIEW_KEY_HOME);
        for (int guard = 0; guard < 64; guard++) {
            scene_build_ex(
                &s,
                &(SceneRequest){
                    .st = &st, .lesson = L, .trace = T, .ex = &ex, .w = w, .h = h, .tm = &f->tm});
            snprintf(name, sizeof name, "%s stage %d.%d", view ? "all heads" : "one head",
                     st.stage_index, st.substep);
            check_fit(f, &s, w, h, name);
            view_set_substeps(&st, s.substeps, s.substep);
            hovers(f, &st, &s, L, T, &ex, w, h, name);
            int at = st.stage_index, sub = st.substep;
            press(&st, VIEW_KEY_RIGHT);
            if (st.stage_index == at && st.substep == sub) break;
        }
        press(&st, VIEW_KEY_A);
    }
    // Each other head, every stage.
    for (int head = 1; head < L->params.heads; head++) {
        press(&st, VIEW_KEY_TAB);
        snprintf(name, sizeof name, "head %d", st.head);
        press_all(&st, L, T, f, &s, &ex, w, h, name);
    }
    for (int guard = 0; st.head != 0 && guard < 16; guard++) press(&st, VIEW_KEY_TAB);
    press(&st, VIEW_KEY_A);
    press(&st, VIEW_KEY_HOME);
    // Help, notes, the cost panel, the comparison, a banner.
    st.help = true;
    scene_build_ex(
        &s, &(SceneRequest){
                .st = &st, .lesson = L, .trace = T, .ex = &ex, .w = w, .h = h, .tm = &f->tm});
    check_fit(f, &s, w, h, "help");
    st.help = false;
    st.notes = true;
    scene_build_ex(
        &s, &(SceneRequest){
                .st = &st, .lesson = L, .trace = T, .ex = &ex, .w = w, .h = h, .tm = &f->tm});
    check_fit(f, &s, w, h, "notes");
    st.notes = false;
    for (int k = 0; k < 4; k++) press(&st, VIEW_KEY_RIGHT);
    st.panel = PANEL_COST;
    scene_build_ex(
        &s, &(SceneRequest){
                .st = &st, .lesson = L, .trace = T, .ex = &ex, .w = w, .h = h, .tm = &f->tm});
    check_fit(f, &s, w, h, "cost panel");
    if (have_cmp) {
        st.panel = PANEL_COMPARE;
        scene_build_ex(
            &s, &(SceneRequest){
                    .st = &st, .lesson = L, .trace = T, .ex = &ex, .w = w, .h = h, .tm = &f->tm});
        check_fit(f, &s, w, h, "comparison");
    }
    st.panel = PANEL_NONE;
    char banner[300];
    snprintf(banner, sizeof banner, TR("%s   (still showing the last good lesson)"),
             "lessons/x.json:3:5: error");
    scene_build_ex(&s, &(SceneRequest){.st = &st,
                                       .lesson = L,
                                       .trace = T,
                                       .ex = &ex,
                                       .w = w,
                                       .h = h,
                                       .tm = &f->tm,
                                       .banner = banner});
    check_fit(f, &s, w, h, "banner");
    if (have_cmp) compare_free(&cmp);
    scene_free(&s);
}

// Each question of the lesson (and an automatic one) asked, a value typed, then revealed, right and
// wrong; and as slides (asked, then answered).
static void question_screens(Fit *f, const Lesson *L, const Trace *T, int w, int h)
{
    Scene s;
    scene_init(&s);
    ViewDims dims = view_dims_from_params(&L->params);
    LessonQuestion autoq;
    bool have_auto = question_auto(&autoq, L, T, 0, 1);
    for (int i = -1; i < L->question_count; i++) {
        const LessonQuestion *q = i < 0 ? (have_auto ? &autoq : NULL) : &L->questions[i];
        QuestionAnswer a;
        LessonError err;
        if (!q || !question_answer(L, T, q, i < 0 ? 0 : i, &a, &err)) continue;
        ViewQuestion vq = question_view(q, &a);
        ViewState st;
        view_init(&st, &dims);
        st.width = w;
        st.height = h;
        view_quiz_ask(&st, &vq, i < 0 ? VIEW_QUIZ_AUTO : i);
        snprintf(st.quiz_input, sizeof st.quiz_input, "0.5");
        SceneExtras ex = {.question = q};
        for (int k = 0; k < 5; k++) {
            ViewState shown = st;
            if (k >= 2) {
                shown.quiz_phase = QUIZ_JUDGING;
                shown.quiz_cell = a.cell;
                shown.quiz_value = 0.5;
                shown.quiz_choice = 0;
                CellRef cell, through;
                question_reveal_cells(q, &a, &L->params, &cell, &through);
                view_quiz_judged(&shown, k == 2, cell, through);
            }
            SceneExtras e = ex;
            e.slide = k == 1 || k == 4;
            scene_build_ex(
                &s,
                &(SceneRequest){
                    .st = &shown, .lesson = L, .trace = T, .ex = &e, .w = w, .h = h, .tm = &f->tm});
            static const char *const what[5] = {"question asked", "question slide",
                                                "question right", "question wrong", "answer slide"};
            check_fit(f, &s, w, h, what[k]);
        }
    }
    if (have_auto) lesson_question_free(&autoq);
    scene_free(&s);
}

// The shuffle test (key X) and a head switched off (key O), as the window's session computes them.
static void session_screens(Fit *f, const char *rel, int w, int h)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", MHA_SOURCE_DIR, rel);
    Session doc;
    session_init(&doc);
    SessionError err;
    CHECK(session_load(&doc, path, &err), "%s loads: %s", rel, err.message);
    if (!doc.loaded) return;
    Scene s;
    scene_init(&s);
    ViewDims dims = view_dims_from_params(&doc.lesson.params);
    ViewState st;
    view_init(&st, &dims);
    st.width = w;
    st.height = h;
    if (session_shuffle(&doc, 1, &err)) {
        Lesson shown = session_shown(&doc);
        SceneExtras ex = {.shuffle = session_shuffled(&doc)};
        st.panel = PANEL_SHUFFLE;
        st.shuffle = 1;
        scene_build_ex(&s, &(SceneRequest){.st = &st,
                                           .lesson = &shown,
                                           .trace = &doc.trace,
                                           .ex = &ex,
                                           .w = w,
                                           .h = h,
                                           .tm = &f->tm});
        check_fit(f, &s, w, h, "shuffle test");
        st.panel = PANEL_NONE;
    } else {
        CHECK(false, "%s: the shuffle test computes: %s", rel, err.message);
    }
    if (doc.lesson.params.heads > 1 && session_toggle_head(&doc, 1, &err)) {
        Lesson shown = session_shown(&doc);
        SceneExtras ex = {0};
        press_all(&st, &shown, &doc.trace, f, &s, &ex, w, h, "head 1 off");
    }
    scene_free(&s);
    session_free(&doc);
}

// Slides: every stage's board and the weights' heatmaps, at scale 1.
static void slides(Fit *f, const Lesson *L, const Trace *T)
{
    Scene s;
    scene_init(&s);
    ViewDims dims = view_dims_from_params(&L->params);
    ViewState st;
    view_init(&st, &dims);
    for (int k = 0; k < st.stage_count; k++) {
        st.stage_index = k;
        export_build_board(&s, &st, L, T, 1.0, EXPORT_BG_WHITE, &f->tm);
        check_fit(f, &s, s.width, s.height, "board slide");
    }
    for (int head = -1; head < L->params.heads && head < 2; head++) {
        HeatmapSpec spec = {MAT_WEIGHTS, head, 1.0, COLORMAP_VIRIDIS, EXPORT_BG_WHITE};
        export_build_heatmap(&s, &spec, L, T, &f->tm);
        check_fit(f, &s, s.width, s.height, "heatmap slide");
    }
    scene_free(&s);
}

int main(void)
{
    (void)parse;
    test_tables();
    if (TTF_Init() != 0) return 1;
    SDL_Surface *base = SDL_CreateRGBSurfaceWithFormat(0, 1, 1, 32, SDL_PIXELFORMAT_ARGB8888);
    SDL_Renderer *ren = base ? SDL_CreateSoftwareRenderer(base) : NULL;
    char err[600];
    DrawSdl *d = ren ? draw_sdl_create(ren, MHA_SOURCE_DIR "/assets/fonts", err, sizeof err) : NULL;
    CHECK(d != NULL, "fonts: %s", err);
    if (!d) return check_report("test_i18n");
    Canvas ink = {SDL_CreateRGBSurfaceWithFormat(0, 1920, 1080, 32, SDL_PIXELFORMAT_ARGB8888), NULL,
                  NULL};
    ink.ren = ink.surf ? SDL_CreateSoftwareRenderer(ink.surf) : NULL;
    ink.d =
        ink.ren ? draw_sdl_create(ink.ren, MHA_SOURCE_DIR "/assets/fonts", err, sizeof err) : NULL;
    CHECK(ink.d != NULL, "canvas: %s", err);
    static const char *const FILES[] = {
        "lessons/the-cat-sat.json",         "lessons/causal-decoder.json",
        "lessons/cross-attention.json",     "lessons/mao-zuo-zai-dianzi-shang.json",
        "lessons/the-dog-bit-the-man.json", "lessons/jalasat-al-qitta.json"};
    static const int SIZES[][2] = {{1280, 720}, {1920, 1080}};
    for (Lang lang = 0; lang < i18n_count(); lang++) {
        i18n_use(lang);
        i18n_missing_reset();
        English en;
        english_init(&en, i18n_table(lang));
        Fit f = {draw_sdl_metrics(d), NULL, lang == LANG_EN ? NULL : &en, NULL, "", 0, 0, 0, 0, 0};
        for (size_t k = 0; k < sizeof FILES / sizeof FILES[0]; k++) {
            Lesson L;
            Trace T;
            if (!load(FILES[k], &L, &T)) continue;
            f.L = &L;
            f.what = FILES[k] + 8;
            f.ink =
                utf8_is_rtl(L.tokens[0]) && ink.d ? &ink : NULL; // the right-to-left lesson, drawn
            for (size_t z = 0; z < sizeof SIZES / sizeof SIZES[0]; z++) {
                screens(&f, &L, &T, SIZES[z][0], SIZES[z][1]);
                question_screens(&f, &L, &T, SIZES[z][0], SIZES[z][1]);
                session_screens(&f, FILES[k], SIZES[z][0], SIZES[z][1]);
            }
            slides(&f, &L, &T);
            explanations(&f, &L, &T);
            trace_free(&T);
            lesson_free(&L);
        }
        const char *first = NULL;
        size_t missing = i18n_missing(&first);
        english_free(&en);
        const char *code = i18n_table(lang)->code;
        CHECK(missing == 0, "%s: %zu messages not in the table, the first: '%s'", code, missing,
              first ? first : "");
        CHECK(f.outside == 0, "%s: %d commands outside the window in %d screens", code, f.outside,
              f.screens);
        CHECK(f.overlaps == 0, "%s: %d overlapping texts in %d screens", code, f.overlaps,
              f.screens);
        CHECK(f.english == 0, "%s: %d texts still in English", code, f.english);
        CHECK(f.touching == 0, "%s: %d token labels touching a matrix", code, f.touching);
        printf("%s: %d screens and slides checked\n", code, f.screens);
    }
    i18n_use(LANG_EN);
    draw_sdl_destroy(ink.d);
    if (ink.ren) SDL_DestroyRenderer(ink.ren);
    if (ink.surf) SDL_FreeSurface(ink.surf);
    draw_sdl_destroy(d);
    SDL_DestroyRenderer(ren);
    SDL_FreeSurface(base);
    TTF_Quit();
    SDL_Quit();
    return check_report("test_i18n");
}
