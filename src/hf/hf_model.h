// A Hugging Face checkpoint opened offline (config.json, safetensors, tokenizer.json) and its
// forward pass in float64 (llama, mistral, qwen2, gpt2): a text's tokens, layer L's attention as an
// ordinary Lesson, the next token's probabilities.
#ifndef MHA_HF_MODEL_H
#define MHA_HF_MODEL_H

#include "hf/hf_config.h"
#include "hf/layer_stream.h"
#include "lesson/lesson.h"
#include "hf/safetensors.h"
#include "hf/tokenizer.h"

struct HfArchOps;

typedef struct {
    char dir[1024];
    const struct HfArchOps *ops; // the family's forward pass (hf_arch.h)
    char prefix[16]; // what comes before every tensor's name in this checkpoint ("transformer.")
    HfConfig cfg;
    StCheckpoint ck;
    Tokenizer tok;
} HfModel;

// Opens DIR: config.json, the tensors (every one the forward pass reads, its shape against the
// config and its dtype F32, F16, BF16 or F64, checked now) and tokenizer.json. false with err
// naming the file and the field or tensor. Close with hf_model_close.
bool hf_model_open(HfModel *m, const char *dir, LessonError *err);
void hf_model_close(HfModel *m);

#define HF_TOP 5

typedef struct {
    int id;
    char *token; // tokenizer_display's
    double p;
} HfNext;

typedef struct {
    int n;
    int *ids; // [n] the text's token ids
    Lesson lesson; // layer L's attention: its tokens, X = the normed input, the weights, RoPE, K/V
                   // heads, causal
    LayerStream *stream; // what surrounds the layer (hf_model_run_ex's want; NULL: not asked),
                         // borrowed by lesson.params.stream
    HfNext
        next[HF_TOP]; // the most probable next tokens after the last position, most probable first
} HfRun;

// What the window asks of a run beyond --json's (hf_model_run_ex): r->stream (the layer's
// input before its norm and the norm's weights, the next tokens at every position, every layer's
// attention weights).
typedef struct {
    bool stream; // keep the layer's input and its norm's weights, the top `top` next tokens at
                 // every position
    int top; // how many next tokens per position (at most HF_TOP_WINDOW)
    bool overview; // keep every layer's attention weights (as float; left out past HF_OVERVIEW_MAX
                   // numbers)
} HfRunWant;
#define HF_TOP_WINDOW 10
#define HF_OVERVIEW_MAX (32 * 1024 * 1024)

// The forward pass of text through every layer, keeping layer `layer`'s attention as r->lesson.
// false with err (an empty text, a layer out of range, no memory, numbers that overflow). Free with
// hf_run_free.
bool hf_model_run(HfRun *r, const HfModel *m, const char *text, int layer, LessonError *err);
// The same, keeping what want asks for in r->stream (want NULL: nothing more; the same
// numbers).
bool hf_model_run_ex(HfRun *r, const HfModel *m, const char *text, int layer, const HfRunWant *want,
                     LessonError *err);
// The same run on token ids instead of a text (--ids, and --head-scores' probe): n of them, each
// checked against the vocabulary.
bool hf_model_run_ids(HfRun *r, const HfModel *m, const int *ids, int n, int layer,
                      LessonError *err);
void hf_run_free(HfRun *r);

#endif
