// libFuzzer target for the real-model readers: any bytes -> a safetensors header (st_parse: every
// tensor accepted lies inside the bytes, and each of its elements converts), the same bytes as
// config.json (hf_config_parse) and as tokenizer.json (tokenizer_parse, then a text with spaces,
// digits, non-ASCII and an added token encoded, and the bytes themselves as a text when they are
// UTF-8, under the token limit; every id shown). Must never crash, read outside the bytes, leak or
// take more than linear time. Seeds: tests/fuzz-seeds/hf/. Built with -DMHA_FUZZ=ON (clang).
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"
#include "hf/hf_config.h"
#include "hf/safetensors.h"
#include "hf/tokenizer.h"

static void fuzz_safetensors(const uint8_t *data, size_t size)
{
    StCheckpoint c;
    LessonError err;
    memset(&c, 0, sizeof c);
    if (st_parse(&c, data, size, 0, "fuzz.safetensors", &err))
        for (int i = 0; i < c.count; i++) {
            const StTensor *t = &c.tensors[i];
            if (t->data + t->count * st_dtype_size(t->dtype) > data + size) abort();
            if (t->dtype != ST_OTHER && t->count > 0) {
                volatile double v = st_get(t, 0) + st_get(t, t->count - 1);
                (void)v;
            }
        }
    for (int i = 0; i < c.count; i++) free(c.tensors[i].name);
    free(c.tensors);
}

static void fuzz_tokenizer(const uint8_t *data, size_t size)
{
    Tokenizer t;
    LessonError err;
    if (!tokenizer_parse(&t, (const char *)data, size, "fuzz.json", &err)) return;
    int *ids = NULL, n = 0;
    if (tokenizer_encode(&t, "The cat's 2024 caf\xc3\xa9 \xe4\xb8\xad\n\n  <s> x", &ids, &n,
                         "fuzz.json", &err)) {
        for (int i = 0; i < n; i++) free(tokenizer_display(&t, ids[i]));
        free(ids);
    }
    char *text = malloc(size + 1); // the bytes as a text too, as --text would give them
    if (text) {
        memcpy(text, data, size);
        text[size] = '\0';
        ids = NULL;
        if (utf8_invalid_at(text, strlen(text)) == strlen(text)
            && tokenizer_encode_max(&t, text, 512, &ids, &n, "fuzz.json", &err))
            free(ids);
        free(text);
    }
    tokenizer_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    // One copy of exactly size bytes: ASan sees any read past them.
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy) return 0;
    memcpy(copy, data, size);
    fuzz_safetensors(copy, size);
    HfConfig cfg;
    LessonError err;
    hf_config_parse(&cfg, (const char *)copy, size, "fuzz-config.json", &err);
    fuzz_tokenizer(copy, size);
    free(copy);
    return 0;
}
