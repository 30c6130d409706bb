// Tests the cost figures: the document's table (d_model 512, n 10, h = 1 and h = 8), the cat
// lesson's figures, cross-attention and the document's formatting of a row.
#include <string.h>

#include "check.h"
#include "core/cost.h"
#include "core/compare.h"
#include "core/params.h"

static void test_document_table(void)
{
    CostFigures one = cost_compute(512, 10, 1, 512);
    CostFigures eight = cost_compute(512, 10, 8, 64);
    CHECK(one.d_k == 512 && eight.d_k == 64, "d_k %lld and %lld", (long long)one.d_k,
          (long long)eight.d_k);
    CHECK(one.projection_weights == 1048576, "h = 1 weights %lld",
          (long long)one.projection_weights);
    CHECK(eight.projection_weights == 1048576, "h = 8 weights %lld",
          (long long)eight.projection_weights);
    CHECK(one.projection_weights == 4 * 512 * 512, "4 x 512 x 512");
    CHECK(one.score_multiplications == 51200, "h = 1 mults %lld",
          (long long)one.score_multiplications);
    CHECK(eight.score_multiplications == 51200, "h = 8 mults %lld",
          (long long)eight.score_multiplications);
    CHECK(one.attention_matrices == 1 && eight.attention_matrices == 8, "matrix counts");
    CHECK(one.matrix_rows == 10 && one.matrix_cols == 10 && eight.matrix_rows == 10
              && eight.matrix_cols == 10,
          "10 x 10 matrices");

    // The document's two printed lines, character for character.
    char buf[256];
    cost_format(buf, sizeof buf, &one);
    CHECK(
        strcmp(buf,
               "h = 1: d_k = 512, projection weights = 1,048,576, score multiplications = 51,200, "
               "attention matrices = 1 x (10, 10)")
            == 0,
        "h = 1 line: %s", buf);
    cost_format(buf, sizeof buf, &eight);
    CHECK(
        strcmp(buf,
               "h = 8: d_k =  64, projection weights = 1,048,576, score multiplications = 51,200, "
               "attention matrices = 8 x (10, 10)")
            == 0,
        "h = 8 line: %s", buf);
}

// "The cat sat": d_model 4, n 3, h 2 of d_k 2 (and its single head of 4).
static void test_cat_lesson(void)
{
    CostFigures two = cost_compute(4, 3, 2, 2);
    CostFigures one = cost_compute(4, 3, 1, 4);
    CHECK(two.projection_weights == 64 && one.projection_weights == 64, "weights %lld / %lld",
          (long long)two.projection_weights, (long long)one.projection_weights);
    CHECK(two.score_multiplications == 36 && one.score_multiplications == 36, "mults %lld / %lld",
          (long long)two.score_multiplications, (long long)one.score_multiplications);
    char buf[256];
    cost_format(buf, sizeof buf, &two);
    CHECK(strcmp(buf, "h = 2: d_k =   2, projection weights = 64, score multiplications = 36, "
                      "attention matrices = 2 x (3, 3)")
              == 0,
          "cat line: %s", buf);
}

static void test_cross_and_large(void)
{
    // Cross-attention: 3 queries over 5 source tokens.
    CostFigures c = cost_compute_cross(8, 3, 5, 2, 4);
    CHECK(c.score_multiplications == 2 * 3 * 5 * 4, "cross mults %lld",
          (long long)c.score_multiplications);
    CHECK(c.matrix_rows == 3 && c.matrix_cols == 5, "cross matrices (3, 5)");
    // The largest lesson: d_model 4096, 512 tokens, 64 heads of 64: beyond 32-bit counts.
    CostFigures big = cost_compute(4096, 512, 64, 64);
    CHECK(big.projection_weights == (int64_t)4 * 4096 * 4096, "big weights %lld",
          (long long)big.projection_weights);
    CHECK(big.score_multiplications == (int64_t)512 * 512 * 4096, "big mults %lld",
          (long long)big.score_multiplications);
    // BERT-base's shape: 12 heads of 64 = one head of 768.
    CostFigures b12 = cost_compute(768, 7, 12, 64), b1 = cost_compute(768, 7, 1, 768);
    CHECK(b12.projection_weights == b1.projection_weights
              && b12.projection_weights == 4 * 768 * 768,
          "BERT weights");
    CHECK(b12.score_multiplications == b1.score_multiplications, "BERT mults");
}

static void test_format_int(void)
{
    static const struct {
        long long v;
        const char *s;
    } cases[] = {
        {0, "0"},
        {7, "7"},
        {999, "999"},
        {1000, "1,000"},
        {51200, "51,200"},
        {100000, "100,000"},
        {1048576, "1,048,576"},
        {9007199254740991LL, "9,007,199,254,740,991"},
        {-1234, "-1234"},
    };
    char buf[32];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cost_format_int(buf, sizeof buf, cases[i].v);
        CHECK(strcmp(buf, cases[i].s) == 0, "%lld -> '%s', expected '%s'", cases[i].v, buf,
              cases[i].s);
    }
    // Truncation keeps the string terminated.
    char small[4];
    cost_format_int(small, sizeof small, 1048576);
    CHECK(strlen(small) == 3, "truncated to '%s'", small);
    char line[16];
    CostFigures one = cost_compute(512, 10, 1, 512);
    cost_format(line, sizeof line, &one);
    CHECK(strlen(line) == 15, "truncated line '%s'", line);
}

// Grouped-query attention (issue 22): W_K and W_V are kv_heads matrices, not heads; the scores do
// not change.
static void test_grouped(void)
{
    // The Llama lesson's shape: d_model 8, 7 tokens, 4 query heads of 4 sharing 2 K/V heads.
    CostFigures g = cost_compute_grouped(8, 7, 7, 4, 2, 4),
                full = cost_compute_cross(8, 7, 7, 4, 4);
    CHECK(g.projection_weights == 4 * 8 * 4 + 2 * 2 * 8 * 4 + 4 * 4 * 8, "grouped weights %lld",
          (long long)g.projection_weights);
    CHECK(g.projection_weights == 384 && full.projection_weights == 512,
          "384 beside 512: %lld, %lld", (long long)g.projection_weights,
          (long long)full.projection_weights);
    CHECK(g.score_multiplications == full.score_multiplications, "the scores cost the same");
    CHECK(g.kv_heads == 2 && full.kv_heads == 4, "kv_heads %lld / %lld", (long long)g.kv_heads,
          (long long)full.kv_heads);
    // Multi-query (one K/V head) with Llama-2-70B's head shape: 64 query heads of 128, d_model
    // 8192.
    CostFigures mq = cost_compute_grouped(8192, 1, 1, 64, 1, 128);
    CHECK(mq.projection_weights == (int64_t)64 * 8192 * 128 * 2 + (int64_t)2 * 8192 * 128,
          "MQA weights %lld", (long long)mq.projection_weights);
    char buf[256];
    cost_format(buf, sizeof buf, &g);
    CHECK(strcmp(buf,
                 "h = 4, G = 2: d_k =   4, projection weights = 384, score multiplications = 784, "
                 "attention matrices = 4 x (7, 7)")
              == 0,
          "grouped line: %s", buf);
    // The lesson's parameters: compare_costs reads kv_heads.
    AttnParams p;
    CHECK(params_init_grouped(&p, 7, 7, 8, 4, 2, 4), "params");
    CostFigures one, multi;
    compare_costs(&one, &multi, &p);
    CHECK(multi.projection_weights == 384 && multi.kv_heads == 2, "compare_costs multi %lld",
          (long long)multi.projection_weights);
    CHECK(one.projection_weights == 512 && one.heads == 1, "the single head of h*d_k %lld",
          (long long)one.projection_weights);
    params_free(&p);
}

// Issue 38: the KV cache's bytes, against the published figures worked by hand: Llama-3-8B (32
// layers, 8 K/V heads of 128, bfloat16) keeps 2·32·8·128·2 = 131,072 bytes (128 KiB) a token, 1 GiB
// for its 8,192-token context; with a K/V head per query head (32) 512 KiB and 4 GiB; with one K/V
// head 16 KiB and 128 MiB; Mistral-7B's window of 4,096 stops it at 512 MiB.
static void test_kv_cache(void)
{
    int count = 0;
    const CacheShape *s = cost_cache_shapes(&count);
    CHECK(count == 2 && !strcmp(s[0].name, "Llama-3-8B") && s[0].layers == 32 && s[0].heads == 32
              && s[0].kv_heads == 8 && s[0].d_k == 128 && s[0].bytes == 2 && s[0].window == 0,
          "Llama-3-8B's shape");
    CHECK(count == 2 && !strcmp(s[1].name, "Mistral-7B") && s[1].kv_heads == 8
              && s[1].window == 4096,
          "Mistral-7B's shape");
    CHECK(cost_kv_cache_bytes(32, 8, 128, 2, 1, 0) == 131072, "GQA: 128 KiB a token");
    CHECK(cost_kv_cache_bytes(32, 8, 128, 2, 8192, 0) == (int64_t)1 << 30,
          "GQA: 1 GiB for 8,192 tokens");
    CHECK(cost_kv_cache_bytes(32, 32, 128, 2, 8192, 0) == (int64_t)4 << 30, "MHA: 4 GiB");
    CHECK(cost_kv_cache_bytes(32, 1, 128, 2, 8192, 0) == (int64_t)128 << 20, "MQA: 128 MiB");
    CHECK(cost_kv_cache_bytes(32, 8, 128, 2, 8192, 4096) == (int64_t)512 << 20,
          "a window of 4,096: 512 MiB");
    CHECK(cost_kv_cache_bytes(32, 8, 128, 2, 100, 4096) == 100 * 131072,
          "under the window: every token");
    CHECK(cost_kv_cache_bytes(1, 1, 4, 2, 8, 3) == 48,
          "the Mistral lesson's window: 2·1·1·4·2·3 = 48 bytes");
    char buf[32];
    CHECK(!strcmp(cost_format_bytes(buf, sizeof buf, (int64_t)4 << 30), "4 GiB"), "4 GiB: %s", buf);
    CHECK(!strcmp(cost_format_bytes(buf, sizeof buf, 131072), "128 KiB"), "128 KiB: %s", buf);
    CHECK(!strcmp(cost_format_bytes(buf, sizeof buf, 48), "48 B"), "48 B: %s", buf);
    CHECK(!strcmp(cost_format_bytes(buf, sizeof buf, 1536), "1.5 KiB"), "1.5 KiB: %s", buf);
    CHECK(!strcmp(cost_format_bytes(buf, sizeof buf, 1023), "1023 B"), "1023 B: %s", buf);
}

int main(void)
{
    test_kv_cache();
    test_grouped();
    test_document_table();
    test_cat_lesson();
    test_cross_and_large();
    test_format_int();
    return check_report("test_cost");
}
