// A Hugging Face checkpoint's tensors (safetensors: an 8-byte header length, a JSON header, raw
// little-endian tensors), one file or shards named by model.safetensors.index.json, mapped read
// only; nothing converted here.
#ifndef MHA_SAFETENSORS_H
#define MHA_SAFETENSORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lesson/lesson.h"
#include "platform/platform.h"

typedef enum { ST_F32, ST_F16, ST_BF16, ST_F64, ST_OTHER } StDtype;

#define ST_MAX_DIMS 8

typedef struct {
    char *name; // "model.layers.0.self_attn.q_proj.weight"
    StDtype dtype;
    char dtype_name[12]; // as the header writes it ("BF16")
    int ndim;
    int64_t shape[ST_MAX_DIMS];
    size_t count; // elements: the product of the shape
    const unsigned char
        *data; // count elements inside the mapping (checked against the file's size)
    int file; // which of the checkpoint's files holds it
} StTensor;

typedef struct {
    int nfiles;
    char **paths; // [nfiles] "DIR/model.safetensors"
    PlatformMap *maps; // [nfiles]
    StTensor *tensors; // [count] sorted by name
    int count;
    char source[1024]; // what names the tensors: DIR/model.safetensors or
                       // DIR/model.safetensors.index.json
} StCheckpoint;

// Opens DIR/model.safetensors, or the shards DIR/model.safetensors.index.json names. Every header
// is checked: its length and each tensor's dtype, shape and data_offsets against the file's size,
// so no tensor reaches outside its file. false with err (file, the tensor as path) and *c empty.
// Free with st_close.
bool st_open_dir(StCheckpoint *c, const char *dir, LessonError *err);
// Parses one file's mapped bytes (tests call it on bytes in memory): its tensors appended to c,
// file index `file`.
bool st_parse(StCheckpoint *c, const unsigned char *bytes, size_t size, int file, const char *path,
              LessonError *err);
void st_close(StCheckpoint *c);
// The tensor named name, or NULL.
const StTensor *st_find(const StCheckpoint *c, const char *name);
// Element i (< t->count) of a F32, F16, BF16 or F64 tensor as a double.
double st_get(const StTensor *t, size_t i);
// out[k] = element first + k, k < count, converted.
void st_read(double *out, const StTensor *t, size_t first, size_t count);
// The file (its number) that shrank while it was mapped, so that a read of it found no bytes
// (read as zeros: platform_map_faulted), or -1 when none did.
int st_changed(const StCheckpoint *c);
// The bytes of one element of dtype d (0 for ST_OTHER).
size_t st_dtype_size(StDtype d);
// IEEE half and bfloat16 bits as doubles (exactly: every value of both is a double).
double st_half_to_double(uint16_t h);
double st_bf16_to_double(uint16_t h);

#endif
