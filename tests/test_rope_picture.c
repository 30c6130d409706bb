// RoPE as a picture (issue 38, model/rope_picture.c, key W): every number the rotation panel draws
// against an independent computation with libm's pow, cos and sin from the trace's Q and K: each
// pair's coordinates in the lesson's convention, θ_i = base^(-2i/d_k), the angle p·θ_i, the pair
// before (Q) and after its turn (the trace's Q_rot, bit for bit), and the relative view's two
// scores (q at p and k at j; q at 0 and k at j − p), for both conventions, several bases and every
// head and token. Then the key W in the state machine.
#include "check.h"
#include "lesson_trace.h"

#include <math.h>

#include "model/rope_picture.h"
#include "model/view.h"

// Row r of x (d_k numbers) turned as at position pos, with pairs (2i, 2i+1) or (i, i + d_k/2):
// out[d_k].
static void turn_ref(double *out, const Matrix *x, int r, int pos, bool interleaved, double base)
{
    int d = x->cols;
    for (int i = 0; i < d / 2; i++) {
        int a = interleaved ? 2 * i : i, b = interleaved ? 2 * i + 1 : i + d / 2;
        double th = pow(base, -2.0 * i / d), al = pos * th, xa = mat_get(x, r, a),
               xb = mat_get(x, r, b);
        out[a] = xa * cos(al) - xb * sin(al);
        out[b] = xa * sin(al) + xb * cos(al);
    }
}

static int check_lesson(const Lesson *L, const Trace *T, const char *what, double *worst)
{
    const AttnParams *p = &L->params;
    bool il = p->rope == ROPE_INTERLEAVED;
    int checked = 0;
    for (int h = 0; h < p->heads; h++)
        for (int tok = 0; tok < p->n; tok++) {
            RopePicture rp;
            if (!model_rope_picture(&rp, p, T, h, tok)) {
                CHECK(false, "%s head %d token %d: a picture", what, h, tok);
                continue;
            }
            const HeadTrace *ht = &T->head[h];
            CHECK(rp.pairs == p->d_k / 2 && rp.token == tok && rp.head == h,
                  "%s: d_k/2 pairs of the token asked", what);
            double q[256], k[256], qm[256], km[256];
            turn_ref(q, &ht->Q, tok, tok, il, p->rope_base);
            for (int j = 0; j < rp.pairs; j++) {
                const RopePair *r = &rp.pair[j];
                int a = il ? 2 * j : j, b = il ? 2 * j + 1 : j + p->d_k / 2;
                double th = pow(p->rope_base, -2.0 * j / p->d_k);
                CHECK(r->a == a && r->b == b, "%s pair %d: coordinates (%d, %d), got (%d, %d)",
                      what, j, a, b, r->a, r->b);
                CHECK(fabs(r->theta - th) <= 1e-15 * th, "%s pair %d: theta %.17g, libm %.17g",
                      what, j, r->theta, th);
                CHECK(fabs(r->angle - tok * th) <= 1e-13 * (1 + tok * th),
                      "%s pair %d: angle %.17g", what, j, r->angle);
                CHECK(r->x == mat_get(&ht->Q, tok, a) && r->y == mat_get(&ht->Q, tok, b),
                      "%s pair %d: before = Q", what, j);
                CHECK(r->xr == mat_get(&ht->Q_rot, tok, a) && r->yr == mat_get(&ht->Q_rot, tok, b),
                      "%s pair %d: after = the trace's Q_rot", what, j);
                double d = fmax(fabs(r->xr - q[a]), fabs(r->yr - q[b]));
                CHECK(d < 1e-12,
                      "%s head %d token %d pair %d: after differs from libm's turn by %g", what, h,
                      tok, j, d);
                if (d > worst[0]) worst[0] = d;
            }
            const RopeRelative *rl = &rp.rel;
            int key = tok > 0 ? 0 : p->m - 1;
            int mq = tok > 0 ? 0 : tok - key, mk = tok > 0 ? key - tok : 0;
            CHECK(rl->query == tok && rl->key == key && rl->moved_q == mq && rl->moved_k == mk,
                  "%s: q at %d with k at %d, moved to %d and %d", what, tok, key, mq, mk);
            turn_ref(k, &ht->K, key, key, il, p->rope_base);
            turn_ref(qm, &ht->Q, tok, mq, il, p->rope_base);
            turn_ref(km, &ht->K, key, mk, il, p->rope_base);
            double s = 0, sm = 0;
            for (int c = 0; c < p->d_k; c++) s += q[c] * k[c], sm += qm[c] * km[c];
            CHECK(fabs(rl->score - s) < 1e-12 && fabs(rl->score_moved - sm) < 1e-12,
                  "%s head %d token %d: scores %.17g, %.17g; libm %.17g, %.17g", what, h, tok,
                  rl->score, rl->score_moved, s, sm);
            CHECK(rl->score == mat_get(&ht->scores, tok, key),
                  "%s: the score at the lesson's places is the trace's", what);
            double d = fabs(rl->score_moved - rl->score),
                   turn = fabs(remainder(rl->angle_moved - rl->angle, 6.283185307179586));
            CHECK(d < 1e-12 && turn < 1e-12,
                  "%s head %d token %d: moved, the score differs by %g, the angle by %g", what, h,
                  tok, d, turn);
            if (d > worst[1]) worst[1] = d;
            checked++;
        }
    return checked;
}

static void test_numbers(void)
{
    static const char *const files[] = {"lessons/llama-rope-gqa.json",
                                        "lessons/mistral-sliding-window.json"};
    static const RopeKind kinds[] = {ROPE_HALVES, ROPE_INTERLEAVED};
    static const double bases[] = {10000.0, 500000.0, 100.0};
    double worst[2] = {0, 0};
    int checked = 0;
    for (size_t f = 0; f < 2; f++) {
        Lesson L;
        Trace T;
        if (!load(files[f], &L, &T)) continue;
        trace_free(&T);
        for (int ki = 0; ki < 2; ki++)
            for (int bi = 0; bi < 3; bi++) {
                L.params.rope = kinds[ki], L.params.rope_base = bases[bi];
                TraceError err;
                if (!trace_run(&T, &L.params, &err)) {
                    CHECK(false, "trace: %s", err.message);
                    continue;
                }
                char what[160];
                snprintf(what, sizeof what, "%s %s base %g", files[f],
                         ki ? "interleaved" : "halves", bases[bi]);
                checked += check_lesson(&L, &T, what, worst);
                trace_free(&T);
            }
        lesson_free(&L);
    }
    // d_k = 8 (4 pairs), one head, Llama 3's base and interleaved pairs, from a lesson written
    // here.
    static const char json[] =
        "{\"title\": \"eight\", \"tokens\": [\"a\", \"b\", \"c\", \"d\", \"e\"], "
        "\"embeddings\": [[1,0,0.5,0,0,0,0,0.3],[0,1,0,0,0.2,0,0,0],[0,0,1,0,0,0,-1,0],"
        "[0.4,0,0,1,0,0,0,0],[0,0,0,0,1,0.5,0,0]], \"heads\": 1, \"mask\": \"causal\", "
        "\"weights\": {\"random\": {\"seed\": 7}}, "
        "\"rope\": {\"base\": 500000, \"pairs\": \"interleaved\"}}";
    Lesson E;
    Trace ET;
    if (parse(json, &E, &ET)) {
        CHECK(E.params.d_k == 8 && E.params.rope == ROPE_INTERLEAVED,
              "the written lesson: d_k 8, interleaved");
        checked += check_lesson(&E, &ET, "eight", worst);
        trace_free(&ET);
        lesson_free(&E);
    }
    CHECK(checked == 3 * 2 * (4 * 7 + 2 * 8) + 5, "every convention, base, head and token (%d)",
          checked);
    printf("largest difference from libm: the turned pairs %.2g, the moved score %.2g\n", worst[0],
           worst[1]);
    // Without RoPE there is no picture.
    Lesson L;
    Trace T;
    if (load("lessons/the-cat-sat.json", &L, &T)) {
        RopePicture rp;
        CHECK(!model_rope_picture(&rp, &L.params, &T, 0, 0), "no RoPE, no picture");
        trace_free(&T);
        lesson_free(&L);
    }
    double th[3];
    model_rope_thetas(th, 500000.0, 4, 2);
    CHECK(th[0] == 1.0 && fabs(th[1] - 1.0 / sqrt(500000.0)) < 1e-18,
          "θ for 500,000 and d_k 4: 1, %.17g", th[1]);
}

static ViewEvent key(ViewKey k)
{
    ViewEvent e = {0};
    e.kind = VIEW_EV_KEY;
    e.key = k;
    return e;
}

// W opens the panel at the last token, or at the token of the cell pointed at; ← → step the token;
// W or Esc closes it; a lesson without RoPE has no panel.
static void test_key(void)
{
    ViewDims d = {.n = 7, .m = 7, .d_model = 8, .heads = 4, .d_k = 4, .causal = true, .rope = true};
    ViewState st;
    view_init(&st, &d);
    ViewEvent w = key(VIEW_KEY_W), left = key(VIEW_KEY_LEFT), right = key(VIEW_KEY_RIGHT);
    CHECK(view_handle(&st, &w) && st.panel == PANEL_ROPE && st.rope_t == 6,
          "W: the panel at the last token");
    int stage = st.stage_index;
    view_handle(&st, &left);
    view_handle(&st, &left);
    CHECK(st.rope_t == 4 && st.stage_index == stage, "← two tokens back, the stage stays (%d)",
          st.rope_t);
    for (int i = 0; i < 9; i++) view_handle(&st, &right);
    CHECK(st.rope_t == 6, "→ stops at the last token");
    view_handle(&st, &w);
    CHECK(st.panel == PANEL_NONE, "W again closes it");
    st.pinned = (CellRef){MAT_QROT, 1, 3, 2};
    view_handle(&st, &w);
    CHECK(st.panel == PANEL_ROPE && st.rope_t == 3,
          "W at a pinned cell of Q_rot: its row's token (%d)", st.rope_t);
    ViewEvent esc = key(VIEW_KEY_ESCAPE);
    view_handle(&st, &esc);
    CHECK(st.panel == PANEL_NONE, "Esc closes it");
    d.rope = false;
    view_init(&st, &d);
    CHECK(!view_handle(&st, &w) && st.panel == PANEL_NONE, "no RoPE: W does nothing");
}

int main(void)
{
    test_numbers();
    test_key();
    return check_report("test_rope_picture");
}
