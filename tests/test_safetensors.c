// Tests src/hf/safetensors: headers parsed from bytes in memory, the dtypes converted exactly,
// and every kind of bad header (short file, header past the end, offsets past the end, shapes that
// disagree with the bytes, overflowing shapes, not JSON) refused naming the tensor; a file cut at
// every length never accepted with a tensor reaching outside it; on POSIX, a file that shrinks
// while it is mapped read as zeros and named (no SIGBUS), a FIFO or a folder in place of the
// weights or the index refused as I/O failures without waiting.
#define _POSIX_C_SOURCE 200809L // mkdtemp, truncate, mkfifo
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "hf/safetensors.h"

// header (JSON) + data into a safetensors file in buf; its size.
static size_t make_file(unsigned char *buf, const char *header, const unsigned char *data,
                        size_t data_len)
{
    size_t n = strlen(header);
    for (int i = 0; i < 8; i++) buf[i] = (unsigned char)((uint64_t)n >> (8 * i));
    memcpy(buf + 8, header, n);
    memcpy(buf + 8 + n, data, data_len);
    return 8 + n + data_len;
}

static bool parse(const unsigned char *bytes, size_t size, StCheckpoint *c, LessonError *err)
{
    memset(c, 0, sizeof *c);
    return st_parse(c, bytes, size, 0, "mem.safetensors", err);
}

static void free_parsed(StCheckpoint *c)
{
    for (int i = 0; i < c->count; i++) free(c->tensors[i].name);
    free(c->tensors);
    memset(c, 0, sizeof *c);
}

// A header that must be refused, naming field (NULL: no tensor) in err.path and word in the
// message.
static void refused(const char *header, size_t data_len, const char *field, const char *word)
{
    unsigned char buf[4096], data[256] = {0};
    size_t size = make_file(buf, header, data, data_len);
    StCheckpoint c;
    LessonError err;
    bool ok = parse(buf, size, &c, &err);
    CHECK(!ok, "accepted %s", header);
    if (!ok) {
        CHECK(strcmp(err.file, "mem.safetensors") == 0, "file %s", err.file);
        CHECK(!field || strcmp(err.path, field) == 0, "%s: path %s, expected %s", header, err.path,
              field);
        CHECK(strstr(err.message, word) != NULL, "%s: message %s lacks %s", header, err.message,
              word);
    }
    free_parsed(&c);
}

static void test_dtypes(void)
{
    // F32 1.5, -2; F16 1, -2, 2^-24 (the least subnormal), inf; BF16 1, 3.140625; F64 0.1
    unsigned char data[64];
    float f[2] = {1.5f, -2.0f};
    memcpy(data, f, 8); // little-endian machines only (as the format)
    uint16_t h[4] = {0x3c00, 0xc000, 0x0001, 0x7c00}, b[2] = {0x3f80, 0x4049};
    memcpy(data + 8, h, 8);
    memcpy(data + 16, b, 4);
    double d = 0.1;
    memcpy(data + 20, &d, 8);
    const char *header = "{\"__metadata__\":{\"format\":\"pt\"},"
                         "\"f\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                         "\"h\":{\"dtype\":\"F16\",\"shape\":[2,2],\"data_offsets\":[8,16]},"
                         "\"b\":{\"dtype\":\"BF16\",\"shape\":[2],\"data_offsets\":[16,20]},"
                         "\"d\":{\"dtype\":\"F64\",\"shape\":[1],\"data_offsets\":[20,28]},"
                         "\"e\":{\"dtype\":\"I64\",\"shape\":[0],\"data_offsets\":[28,28]}}";
    unsigned char buf[1024];
    size_t size = make_file(buf, header, data, 28);
    StCheckpoint c;
    LessonError err;
    bool ok = parse(buf, size, &c, &err);
    CHECK(ok, "%s", err.message);
    if (!ok) return;
    CHECK(c.count == 5, "%d tensors", c.count);
    const StTensor *t = NULL;
    for (int i = 0; i < c.count; i++)
        if (strcmp(c.tensors[i].name, "h") == 0) t = &c.tensors[i];
    CHECK(t && t->ndim == 2 && t->shape[0] == 2 && t->count == 4, "h's shape");
    if (t) {
        CHECK(st_get(t, 0) == 1.0 && st_get(t, 1) == -2.0 && st_get(t, 2) == ldexp(1.0, -24)
                  && isinf(st_get(t, 3)),
              "F16 values %g %g %g %g", st_get(t, 0), st_get(t, 1), st_get(t, 2), st_get(t, 3));
    }
    for (int i = 0; i < c.count; i++) {
        const StTensor *x = &c.tensors[i];
        if (!strcmp(x->name, "f")) CHECK(st_get(x, 0) == 1.5 && st_get(x, 1) == -2.0, "F32");
        if (!strcmp(x->name, "b"))
            CHECK(st_get(x, 0) == 1.0 && st_get(x, 1) == 3.140625, "BF16 %g", st_get(x, 1));
        if (!strcmp(x->name, "d")) CHECK(st_get(x, 0) == 0.1, "F64");
        if (!strcmp(x->name, "e"))
            CHECK(x->dtype == ST_OTHER && x->count == 0, "I64 kept, not read");
    }
    CHECK(st_half_to_double(0x7bff) == 65504.0 && st_half_to_double(0x0400) == ldexp(1.0, -14),
          "F16 range");
    CHECK(isnan(st_half_to_double(0x7e00)) && st_half_to_double(0x8000) == 0.0
              && signbit(st_half_to_double(0x8000)),
          "F16 NaN, -0");
    free_parsed(&c);
}

static void test_refused(void)
{
    refused("{\"t\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}", 12, "t",
            "past the end");
    refused("{\"t\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,12]}}", 16, "t",
            "need 16");
    refused("{\"t\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[8,4]}}", 16, "t",
            "begin <= end");
    refused("{\"t\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,16]}}",
            16, "t", "overflow");
    refused("{\"t\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,0]}}", 16, "t",
            "shape[0]");
    refused("{\"t\":{\"dtype\":\"F32\",\"shape\":[1.5],\"data_offsets\":[0,4]}}", 16, "t",
            "shape[0]");
    refused("{\"t\":{\"dtype\":\"Q4\",\"shape\":[1],\"data_offsets\":[0,4]}}", 16, "t", "dtype");
    refused("{\"t\":{\"dtype\":\"F32\",\"shape\":[1]}}", 16, "t", "data_offsets");
    refused("{\"t\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,1e300]}}", 16, "t",
            "data_offsets");
    refused("[1, 2]", 0, NULL, "not a JSON object");
    refused("{\"t\": ", 0, NULL, "not a JSON object");
    // A header length past the file, and a file shorter than the length itself.
    unsigned char buf[64] = {0xff, 0xff, 0, 0, 0, 0, 0, 0, '{', '}'};
    StCheckpoint c;
    LessonError err;
    CHECK(!parse(buf, 10, &c, &err) && strstr(err.message, "header's length"), "%s", err.message);
    free_parsed(&c);
    CHECK(!parse(buf, 5, &c, &err) && strstr(err.message, "8 bytes"), "%s", err.message);
    free_parsed(&c);
}

// A valid file cut at every length: each accepted prefix keeps every tensor inside it.
static void test_every_cut(void)
{
    unsigned char data[48] = {0};
    const char *header = "{\"a\":{\"dtype\":\"BF16\",\"shape\":[3,4],\"data_offsets\":[0,24]},"
                         "\"b\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[24,48]}}";
    unsigned char buf[512];
    size_t size = make_file(buf, header, data, 48);
    int accepted = 0;
    for (size_t cut = 0; cut <= size; cut++) {
        unsigned char *copy =
            malloc(cut ? cut : 1); // exactly cut bytes: ASan sees any read past them
        memcpy(copy, buf, cut);
        StCheckpoint c;
        LessonError err;
        if (parse(copy, cut, &c, &err)) {
            accepted++;
            for (int i = 0; i < c.count; i++) {
                const StTensor *t = &c.tensors[i];
                CHECK(t->data + t->count * st_dtype_size(t->dtype) <= copy + cut,
                      "cut %zu: %s outside", cut, t->name);
                for (size_t k = 0; k < t->count; k++) (void)st_get(t, k);
            }
        }
        free_parsed(&c);
        free(copy);
    }
    CHECK(accepted == 1, "%d cuts accepted (only the whole file)", accepted);
}

#ifndef _WIN32
#include <sys/stat.h>
#include <unistd.h>

// DIR/name written with bytes.
static void write_bytes(const char *dir, const char *name, const void *bytes, size_t n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(bytes, 1, n, f) == n, "cannot write %s", path);
    if (f) fclose(f);
}

// A weights file cut short after it was mapped: its tensors read as zeros instead of a SIGBUS,
// and st_changed names the file.
static void test_shrinking(void)
{
    char dir[] = "/tmp/mha-st-XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(false, "mkdtemp");
        return;
    }
    long page = sysconf(_SC_PAGESIZE);
    size_t count = (size_t)(4 * page) / 4; // four pages of F32
    unsigned char *file = calloc(1, 4096 + 4 * (size_t)page);
    float *data = malloc(sizeof *data * count);
    char header[128];
    snprintf(header, sizeof header,
             "{\"w\":{\"dtype\":\"F32\",\"shape\":[%zu],\"data_offsets\":[0,%zu]}}", count,
             4 * count);
    for (size_t i = 0; i < count; i++) data[i] = 1.0f;
    size_t size = make_file(file, header, (const unsigned char *)data, 4 * count);
    write_bytes(dir, "model.safetensors", file, size);
    StCheckpoint c;
    LessonError err;
    CHECK(st_open_dir(&c, dir, &err), "open: %s", err.message);
    char path[600];
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    CHECK(truncate(path, 100) == 0, "truncate %s", path);
    double *out = malloc(sizeof *out * count);
    const StTensor *t = c.count ? st_find(&c, "w") : NULL;
    if (t) st_read(out, t, 0, count); // past the file's new end: zeros, not a bus error
    CHECK(t && out[count - 1] == 0.0, "the lost bytes read as %g", t ? out[count - 1] : -1.0);
    CHECK(st_changed(&c) == 0, "the shrunk file is not named: %d", st_changed(&c));
    st_close(&c);
    remove(path);
    // A FIFO as the weights, a folder as the index: refused at once, as I/O failures.
    CHECK(mkfifo(path, 0600) == 0, "mkfifo %s", path);
    CHECK(!st_open_dir(&c, dir, &err) && err.io && strstr(err.message, "not a file"),
          "a FIFO as model.safetensors: %s", err.message);
    remove(path);
    snprintf(path, sizeof path, "%s/model.safetensors.index.json", dir);
    CHECK(mkdir(path, 0700) == 0, "mkdir %s", path);
    CHECK(!st_open_dir(&c, dir, &err) && err.io && strstr(err.message, "not a file"),
          "a folder as the index: %s", err.message);
    rmdir(path);
    CHECK(mkfifo(path, 0600) == 0, "mkfifo %s", path);
    CHECK(!st_open_dir(&c, dir, &err) && err.io && strstr(err.message, "not a file"),
          "a FIFO as the index: %s", err.message);
    remove(path);
    rmdir(dir);
    free(out);
    free(data);
    free(file);
}
#endif

int main(void)
{
    test_dtypes();
    test_refused();
    test_every_cut();
#ifndef _WIN32
    test_shrinking();
#endif
    return check_report("test_safetensors");
}
