// safetensors read through a read-only mapping: each header's JSON (cJSON) checked tensor by tensor
// against the file's size, so a truncated file or a lying header is refused before a byte of a
// tensor is read.
#include "hf/safetensors.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "hf/hf_error.h"

// The largest header read (the format's own limit is 100 MB).
#define ST_MAX_HEADER ((uint64_t)100 * 1000 * 1000)

static const struct {
    const char *name;
    StDtype dtype;
    size_t size;
} DTYPES[] = {{"F32", ST_F32, 4},    {"F16", ST_F16, 2},       {"BF16", ST_BF16, 2},
              {"F64", ST_F64, 8},    {"I64", ST_OTHER, 8},     {"I32", ST_OTHER, 4},
              {"I16", ST_OTHER, 2},  {"I8", ST_OTHER, 1},      {"U8", ST_OTHER, 1},
              {"BOOL", ST_OTHER, 1}, {"U16", ST_OTHER, 2},     {"U32", ST_OTHER, 4},
              {"U64", ST_OTHER, 8},  {"F8_E4M3", ST_OTHER, 1}, {"F8_E5M2", ST_OTHER, 1}};

size_t st_dtype_size(StDtype d)
{
    for (size_t i = 0; i < sizeof DTYPES / sizeof DTYPES[0]; i++)
        if (DTYPES[i].dtype == d) return DTYPES[i].size;
    return 0;
}

double st_half_to_double(uint16_t h)
{
    int sign = h >> 15, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
    double v;
    if (exp == 0) v = ldexp((double)frac, -24); // subnormal (and zero)
    else if (exp == 31) v = frac ? NAN : INFINITY;
    else v = ldexp((double)(frac | 0x400), exp - 25);
    return sign ? -v : v;
}

double st_bf16_to_double(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return (double)f;
}

// Little-endian loads from possibly unaligned bytes.
static uint16_t load16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t load32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t load64(const unsigned char *p)
{
    return (uint64_t)load32(p) | (uint64_t)load32(p + 4) << 32;
}

double st_get(const StTensor *t, size_t i)
{
    switch (t->dtype) {
    case ST_F32: {
        uint32_t b = load32(t->data + 4 * i);
        float f;
        memcpy(&f, &b, sizeof f);
        return (double)f;
    }
    case ST_F16: return st_half_to_double(load16(t->data + 2 * i));
    case ST_BF16: return st_bf16_to_double(load16(t->data + 2 * i));
    case ST_F64: {
        uint64_t b = load64(t->data + 8 * i);
        double d;
        memcpy(&d, &b, sizeof d);
        return d;
    }
    case ST_OTHER: break;
    }
    return NAN;
}

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
// BF16 to double 16 at a time with AVX-512 (x86 is little-endian): each 16-bit pattern put in the
// top half of a float, the floats widened to doubles: st_bf16_to_double's bits (widening a float is
// exact). The count done.
__attribute__((target("avx512f"))) static size_t bf16_avx512(double *out, const unsigned char *p,
                                                             size_t count)
{
    size_t k = 0;
    for (; k + 16 <= count; k += 16) {
        __m256i h = _mm256_loadu_si256((const __m256i *)(const void *)(p + 2 * k));
        __m512 f = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
        __m256 hi = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(f), 1));
        _mm512_storeu_pd(out + k, _mm512_cvtps_pd(_mm512_castps512_ps256(f)));
        _mm512_storeu_pd(out + k + 8, _mm512_cvtps_pd(hi));
    }
    return k;
}
#define BF16_X86 1
#endif

void st_read(double *out, const StTensor *t, size_t first, size_t count)
{
    const unsigned char *p = t->data + first * st_dtype_size(t->dtype);
    size_t done = 0;
    switch (
        t->dtype) { // the dtype once, then a plain loop (a layer's weights are millions of these)
    case ST_BF16:
#ifdef BF16_X86
        if (__builtin_cpu_supports("avx512f")) done = bf16_avx512(out, p, count);
#endif
        for (size_t k = done; k < count; k++) out[k] = st_bf16_to_double(load16(p + 2 * k));
        return;
    case ST_F16:
        for (size_t k = 0; k < count; k++) out[k] = st_half_to_double(load16(p + 2 * k));
        return;
    case ST_F32:
        for (size_t k = 0; k < count; k++) {
            uint32_t b = load32(p + 4 * k);
            float f;
            memcpy(&f, &b, sizeof f);
            out[k] = (double)f;
        }
        return;
    case ST_F64:
    case ST_OTHER: break;
    }
    for (size_t k = 0; k < count; k++) out[k] = st_get(t, first + k);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const StTensor *)a)->name, ((const StTensor *)b)->name);
}

const StTensor *st_find(const StCheckpoint *c, const char *name)
{
    StTensor key = {.name = (char *)name};
    return c->count ? bsearch(&key, c->tensors, (size_t)c->count, sizeof key, by_name) : NULL;
}

// A whole number 0 <= v <= max from a JSON number, or false.
static bool whole(const cJSON *j, double max, uint64_t *out)
{
    if (!cJSON_IsNumber(j)) return false;
    double v = j->valuedouble;
    if (!(v >= 0 && v <= max) || v != (double)(uint64_t)v) return false;
    *out = (uint64_t)v;
    return true;
}

// One entry of the header into *t: its dtype, shape and data_offsets inside a data area of `avail`
// bytes.
static bool parse_tensor(StTensor *t, const cJSON *j, const unsigned char *area, uint64_t avail,
                         const char *path, LessonError *err)
{
    const char *name = j->string;
    const cJSON *dt = cJSON_GetObjectItemCaseSensitive(j, "dtype");
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(j, "shape");
    const cJSON *off = cJSON_GetObjectItemCaseSensitive(j, "data_offsets");
    if (!cJSON_IsObject(j) || !cJSON_IsString(dt) || !cJSON_IsArray(shape) || !cJSON_IsArray(off)
        || cJSON_GetArraySize(off) != 2)
        return hf_fail(
            err, path, name,
            "the header's entry needs \"dtype\", \"shape\" and \"data_offsets\" [begin, end]");
    size_t size = 0;
    for (size_t i = 0; i < sizeof DTYPES / sizeof DTYPES[0]; i++)
        if (strcmp(dt->valuestring, DTYPES[i].name) == 0)
            t->dtype = DTYPES[i].dtype, size = DTYPES[i].size;
    if (!size) return hf_fail(err, path, name, "unknown dtype \"%.20s\"", dt->valuestring);
    snprintf(t->dtype_name, sizeof t->dtype_name, "%s", dt->valuestring);
    int ndim = cJSON_GetArraySize(shape);
    if (ndim > ST_MAX_DIMS)
        return hf_fail(err, path, name, "%d dimensions (at most %d)", ndim, ST_MAX_DIMS);
    uint64_t count = 1, begin, end;
    for (int d = 0; d < ndim; d++) {
        uint64_t v;
        if (!whole(cJSON_GetArrayItem(shape, d), 9007199254740991.0, &v))
            return hf_fail(err, path, name, "shape[%d] is not a whole number >= 0", d);
        if (v && count > UINT64_MAX / v)
            return hf_fail(err, path, name, "its shape's product overflows");
        count *= v;
        t->shape[d] = (int64_t)v;
    }
    t->ndim = ndim;
    if (!whole(cJSON_GetArrayItem(off, 0), 9007199254740991.0, &begin)
        || !whole(cJSON_GetArrayItem(off, 1), 9007199254740991.0, &end) || begin > end)
        return hf_fail(err, path, name, "data_offsets is not [begin, end] with 0 <= begin <= end");
    if (end > avail)
        return hf_fail(
            err, path, name,
            "data_offsets [%llu, %llu] reach past the end of the file (%llu bytes of tensor "
            "data): a truncated file or a wrong header",
            (unsigned long long)begin, (unsigned long long)end, (unsigned long long)avail);
    if (count > UINT64_MAX / size || end - begin != count * size)
        return hf_fail(err, path, name,
                       "data_offsets hold %llu bytes, but its shape and dtype %s need %llu",
                       (unsigned long long)(end - begin), t->dtype_name,
                       count > UINT64_MAX / size ? 0ull : (unsigned long long)(count * size));
    t->count = (size_t)count;
    t->data = area + begin;
    return true;
}

bool st_parse(StCheckpoint *c, const unsigned char *bytes, size_t size, int file, const char *path,
              LessonError *err)
{
    if (size < 8)
        return hf_fail(
            err, path, NULL,
            "%zu bytes: not a safetensors file (it starts with 8 bytes of header length)", size);
    uint64_t n = load64(bytes);
    if (n > size - 8 || n > ST_MAX_HEADER)
        return hf_fail(err, path, NULL, "the header's length %llu passes the file's %zu bytes%s",
                       (unsigned long long)n, size,
                       n > ST_MAX_HEADER ? " or the 100 MB limit" : ": a truncated file");
    cJSON *root = cJSON_ParseWithLength((const char *)bytes + 8, (size_t)n);
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return hf_fail(err, path, NULL, "the header is not a JSON object");
    }
    int entries = cJSON_GetArraySize(root);
    StTensor *grown = realloc(c->tensors, sizeof *grown * (size_t)(c->count + entries + 1));
    if (!grown) {
        cJSON_Delete(root);
        return hf_fail(err, path, NULL, "out of memory");
    }
    c->tensors = grown;
    const unsigned char *area = bytes + 8 + n;
    uint64_t avail = (uint64_t)size - 8 - n;
    bool ok = true;
    for (const cJSON *j = root->child; ok && j; j = j->next) {
        if (strcmp(j->string, "__metadata__") == 0) continue;
        StTensor *t = &c->tensors[c->count];
        memset(t, 0, sizeof *t);
        ok = parse_tensor(t, j, area, avail, path, err);
        if (ok && !(t->name = malloc(strlen(j->string) + 1)))
            ok = hf_fail(err, path, NULL, "out of memory");
        if (ok) {
            strcpy(t->name, j->string);
            t->file = file;
            c->count++;
        }
    }
    cJSON_Delete(root);
    return ok;
}

void st_close(StCheckpoint *c)
{
    for (int i = 0; i < c->count; i++) free(c->tensors[i].name);
    for (int f = 0; f < c->nfiles; f++) {
        if (c->maps) platform_unmap_file(&c->maps[f]);
        if (c->paths) free(c->paths[f]);
    }
    free(c->tensors);
    free(c->maps);
    free(c->paths);
    memset(c, 0, sizeof *c);
}

// Maps DIR/name as file number c->nfiles and parses its header.
static bool add_file(StCheckpoint *c, const char *dir, const char *name, const char *named_by,
                     LessonError *err)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char **paths = realloc(c->paths, sizeof *paths * (size_t)(c->nfiles + 1));
    if (paths) c->paths = paths;
    PlatformMap *maps = paths ? realloc(c->maps, sizeof *maps * (size_t)(c->nfiles + 1)) : NULL;
    if (maps) c->maps = maps;
    char *copy = maps ? malloc(strlen(path) + 1) : NULL;
    if (!copy) return hf_fail(err, path, NULL, "out of memory");
    strcpy(copy, path);
    PlatformMap *m = &c->maps[c->nfiles];
    PlatformStat st;
    bool there = platform_stat(path, true, &st);
    if (there && st.kind != PLATFORM_REGULAR) { // a folder, a FIFO, a device: never mapped
        free(copy);
        if (named_by)
            return hf_fail_io(err, named_by, name, "the shard %s cannot be read: not a file", path);
        return hf_fail_io(err, path, NULL, "cannot be read: not a file");
    }
    if (!platform_map_file(path, m)) {
        int e = errno;
        free(copy);
        if (named_by)
            return hf_fail_io(err, named_by, name, "the shard %s cannot be read: %s", path,
                              strerror(e));
        return hf_fail_io(err, path, NULL, "cannot be read: %s", strerror(e));
    }
    c->paths[c->nfiles] = copy;
    int file = c->nfiles++;
    return st_parse(c, m->data, m->size, file, path, err);
}

// The shards weight_map names, each once, in order of first mention; the names stay in the folder.
static bool open_shards(StCheckpoint *c, const char *dir, const char *index, LessonError *err)
{
    size_t len = 0;
    char *text = hf_read_file(index, &len, err); // a regular file, bounded: never a FIFO's wait
    if (!text) return false;
    cJSON *root = hf_parse_json(text, len, index, err);
    free(text);
    if (!root) return false;
    const cJSON *map = cJSON_GetObjectItemCaseSensitive(root, "weight_map");
    bool ok = cJSON_IsObject(map)
              || hf_fail(err, index, "weight_map", "missing: an object from tensor to shard file");
    for (const cJSON *j = ok ? map->child : NULL; ok && j; j = j->next) {
        const char *shard = cJSON_GetStringValue(j);
        if (!shard || !shard[0] || strchr(shard, '/') || strchr(shard, '\\')
            || strcmp(shard, "..") == 0) {
            ok = hf_fail(err, index, j->string, "names no shard file in the folder");
            break;
        }
        bool seen = false;
        for (const cJSON *k = map->child; k != j && !seen; k = k->next)
            seen = strcmp(cJSON_GetStringValue(k), shard) == 0;
        if (!seen) ok = add_file(c, dir, shard, index, err);
    }
    if (ok) qsort(c->tensors, (size_t)c->count, sizeof *c->tensors, by_name);
    for (const cJSON *j = ok ? map->child : NULL; ok && j;
         j = j->next) { // every tensor in the shard it is said to be in
        const StTensor *t = st_find(c, j->string);
        char shard[1024];
        snprintf(shard, sizeof shard, "%s/%s", dir, cJSON_GetStringValue(j));
        if (!t || strcmp(c->paths[t->file], shard) != 0)
            ok = hf_fail(err, shard, j->string,
                         "the tensor is missing, though %s names this shard for it", index);
    }
    cJSON_Delete(root);
    return ok;
}

bool st_open_dir(StCheckpoint *c, const char *dir, LessonError *err)
{
    memset(c, 0, sizeof *c);
    char index[1024], single[1024];
    snprintf(index, sizeof index, "%s/model.safetensors.index.json", dir);
    snprintf(single, sizeof single, "%s/model.safetensors", dir);
    PlatformStat st;
    bool ok;
    if (platform_stat(single, true, &st) || !platform_stat(index, true, &st)) {
        ok = add_file(c, dir, "model.safetensors", NULL, err);
        if (ok) qsort(c->tensors, (size_t)c->count, sizeof *c->tensors, by_name);
        snprintf(c->source, sizeof c->source, "%s", single);
    } else {
        ok = open_shards(c, dir, index, err);
        snprintf(c->source, sizeof c->source, "%s", index);
    }
    for (int i = 1; ok && i < c->count; i++)
        if (strcmp(c->tensors[i - 1].name, c->tensors[i].name) == 0)
            ok = hf_fail(err, c->paths[c->tensors[i].file], c->tensors[i].name,
                         "the tensor is stored twice");
    if (!ok) st_close(c);
    return ok;
}

int st_changed(const StCheckpoint *c)
{
    for (int f = 0; f < c->nfiles; f++)
        if (platform_map_faulted(&c->maps[f])) return f;
    return -1;
}
