# Tests of the window: the state machine and the scene headless, then the real window under Xvfb.
mha_test(test_view mha_model)
mha_test(test_view_walk mha_model)
mha_test(test_edit mha_model)
mha_test(test_scene mha_render)
# The scene's panels (K, M, W, Shift+K, grouped heads), the heatmaps' labels, the teaching screens
# (notes, questions, training): the same headless checks (tests/scene_checks.h), one program per area.
mha_test(test_scene_panels mha_render)
mha_test(test_scene_heat mha_render)
mha_test(test_scene_teach mha_render)
# The KV-cache decoding and FlashAttention tiles panels (keys G and B, issue 22): the decoder's numbers, legible.
mha_test(test_decode_panels mha_render)
# Small lessons (<= 8 tokens, d_model <= 8) whole on every stage at 1280x720, window and boards (issue 25).
mha_test(test_layout_whole mha_render)
mha_test(test_contrast mha_render)
# The help (H) for the back row: 2.6 % letters in pages, every language, both projector sizes (issue 25).
mha_test(test_help mha_render)
# The questions before edits are lost (quit, a dropped lesson) decided without a window (issue 25).
mha_test(test_gui_class mha_gui)
mha_test(test_explain_text mha_render)
# Grouped K/V heads named after their K/V head on every screen, sum, export and answer (issue 36).
mha_test(test_kv_names mha_render)
# The heatmap beside the board legible: its texts at the floor, no label one letter a line (issue 36).
mha_test(test_heat_labels mha_render)
# Training in the window without a window: keys, the session trainer, the strip on the scene (issue 15).
mha_test(test_train_window mha_render)

# Slide export headless: PNG decoded from memory, SVG checked as XML, all-or-nothing writes; then the
# command line (--export) with no display.
mha_test(test_export mha_render)
# An export set killed at every step: the old set or the new one, never part of each (issue 39; the kill
# shim as test_save_kill's, on Linux and, under Wine, on Windows).
if(CMAKE_SYSTEM_NAME STREQUAL "Linux" OR WIN32)
  mha_test(test_export_kill mha_render ${CMAKE_DL_LIBS})
  target_sources(test_export_kill PRIVATE tests/kill_shim.c)
endif()
# The panels as slides with the real fonts (issue 36): the KV caches and the tiles' scores whole at 1280x720 and
# 1920x1080, the cost sheet's numbers at the floor, the files --what decode|tiles|cost|compare|shuffle|all-heads write.
mha_test(test_panel_slides mha_render)
# Format marks, joiners and variation selectors (a token of one U+200B) drawn as a label, never an error.
mha_test(test_text_marks mha_render)
add_test(NAME test_export_cli
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_export_cli.sh $<TARGET_FILE:mha-tracer>
                 ${CMAKE_CURRENT_SOURCE_DIR})
# Skipped (77) when a part lacks its tool (python3, xmllint, timeout).
set_tests_properties(test_export_cli PROPERTIES SKIP_RETURN_CODE 77)
# An SVG export above its size cap refused before a byte is written (issue 27).
add_test(NAME test_export_cap COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_export_cap.sh $<TARGET_FILE:mha-tracer>)
if(MHA_SANITIZE) # AddressSanitizer's shadow memory: the peak is printed, the bound of docs/lesson-format.md held in the plain build
  set_tests_properties(test_export_cap PROPERTIES ENVIRONMENT MHA_SANITIZED=1)
  # The layout sweep on a quarter of its made lessons (all of them in the plain build).
  set_tests_properties(test_layout_whole PROPERTIES ENVIRONMENT MHA_SANITIZED=1)
endif()

# Real window under xvfb-run, keys from xdotool, screenshots with ImageMagick's import.
# Exits 77 (skipped) only when xvfb-run is absent. The window tests wait on the program's progress (tests/gui_frames.sh);
# their TIMEOUTs are only a backstop for a machine that is stuck, far above a busy machine's run under ASan.
add_test(NAME test_gui_xvfb
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_gui_xvfb.sh $<TARGET_FILE:mha-tracer>
                 ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/gui-shots)
set_tests_properties(test_gui_xvfb PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1800)

# Issue 25 in the real window: Esc never quits, Q and the close button ask before unsaved edits are lost, the
# notes on the first stage, questions where their inputs show, --fullscreen on a bare X server.
add_test(NAME test_gui_keys
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_gui_keys.sh $<TARGET_FILE:mha-tracer>
                 ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/keys-shots)
set_tests_properties(test_gui_keys PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1800)

# --model DIR in the window (issue 40): a tiny generated checkpoint's layer with the norm, residual and
# next-token stages, at 1280x720 and 1920x1080 (screenshots in model-shots).
add_test(NAME test_gui_model
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_gui_model.sh $<TARGET_FILE:mha-tracer>
                 ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/model-shots)
set_tests_properties(test_gui_model PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1800)

# Shift+E in a panel exports that panel, named after it (issue 36).
add_test(NAME test_gui_panel_export
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_gui_panel_export.sh $<TARGET_FILE:mha-tracer>
                 ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(test_gui_panel_export PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)

# RoPE's point (issue 22): S shifts every position, the frame line and the board say by how much.
add_test(NAME test_gui_rope_shift
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_gui_rope_shift.sh $<TARGET_FILE:mha-tracer>
                 ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/rope-shift-shots)
set_tests_properties(test_gui_rope_shift PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)

# 10,000 random events through the real window's event path under Xvfb (issue 6); skipped without xvfb-run.
# The storm is a test program of its own (the window's code, driven from tests/gui_storm.c), so none of it
# ships in mha-tracer.
add_executable(mha-tracer-storm tests/gui_storm.c)
target_include_directories(mha-tracer-storm PRIVATE tests)
target_link_libraries(mha-tracer-storm PRIVATE mha_gui)
add_test(NAME test_gui_storm
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_gui_storm.sh $<TARGET_FILE:mha-tracer-storm>
                 ${CMAKE_CURRENT_SOURCE_DIR} $<TARGET_FILE:mha-tracer>)
set_tests_properties(test_gui_storm PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1800)

# Training in the real window under Xvfb (issue 15): live heatmaps, pause, checkpoints, reset, export.
add_test(NAME test_gui_train
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_gui_train.sh $<TARGET_FILE:mha-tracer>
                 ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/train-shots)
set_tests_properties(test_gui_train PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1800)
# A lesson of layers in the window: the walk across layers, Y, U's circuit panel, T, O, Ctrl+S.
add_test(NAME test_gui_circuit
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_gui_circuit.sh $<TARGET_FILE:mha-tracer>
                 ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/circuit-shots)
set_tests_properties(test_gui_circuit PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1800)
# The window's loop sleeps while the worker trains (issue 27): its thread's CPU against the worker's.
add_test(NAME test_gui_train_idle
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_gui_train_idle.sh $<TARGET_FILE:mha-tracer> ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(test_gui_train_idle PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1800)

# The clipboard key (Ctrl+C: the stage as tab-separated text, issue 24) under Xvfb, read back with xclip.
add_test(NAME test_gui_clipboard
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_gui_clipboard.sh $<TARGET_FILE:mha-tracer> ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(test_gui_clipboard PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)

# The window's exports on a worker thread (issue 27): frames and keys go on while a large lesson's export is
# written; a second E waits, Q waits for the files, a second Q stops the export before it writes.
add_test(NAME test_gui_export_worker
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_gui_export_worker.sh $<TARGET_FILE:mha-tracer>
                 ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(test_gui_export_worker PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)

# The layout audit (issue 36): every screen of every shipped lesson, tests/good and lessons made in the test, at
# 1280x720 and 1920x1080, en and fr, checked against the board's rules (every operand on screen in order, one
# part count, no window where the floor shows a matrix whole, equations together where they fit, the floor,
# no overlap, nothing moved by a banner or the notes); the self-test drops one operand and must fail.
# Each screen is one short run of the program, so the audit moves on its own; its TIMEOUT is a backstop for a
# machine that is stuck, set far above the 514 s it took on a busy CI machine under the sanitizers.
if(MHA_SANITIZE)
  # Ten times slower under the sanitizers: English at 1280x720 on a sample (the plain build checks everything).
  set(MHA_AUDIT_QUICK --quick)
endif()
add_test(NAME test_layout_audit COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/with_python.sh json
         ${CMAKE_CURRENT_SOURCE_DIR}/tests/layout_audit.py $<TARGET_FILE:mha-tracer> ${CMAKE_CURRENT_SOURCE_DIR}
         ${MHA_AUDIT_QUICK})
set_tests_properties(test_layout_audit PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 5400)
# The same rules on a checkpoint's layers (--layout --model): tiny Llama (grouped K/V heads), Mistral (sliding
# window) and GPT-2 checkpoints made by tests/test_hf_models.py, first and last layer, with their own stages (the
# norm, the residual, the next token's chart) and the overview. Needs NumPy to make the checkpoints.
if(NOT WIN32)
  add_test(NAME test_layout_models COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/with_python.sh numpy
           ${CMAKE_CURRENT_SOURCE_DIR}/tests/layout_audit.py $<TARGET_FILE:mha-tracer> ${CMAKE_CURRENT_SOURCE_DIR}
           --models)
  set_tests_properties(test_layout_models PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 5400)
  # Its self-test: a next-token chart one bar short of what it announces must fail.
  add_test(NAME test_layout_chart_catches COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/with_python.sh numpy
           ${CMAKE_CURRENT_SOURCE_DIR}/tests/layout_audit.py $<TARGET_FILE:mha-tracer> ${CMAKE_CURRENT_SOURCE_DIR}
           --models --drop-chart)
  set_tests_properties(test_layout_chart_catches PROPERTIES WILL_FAIL TRUE SKIP_RETURN_CODE 77 TIMEOUT 5400)
endif()
# The audit's own self-test (its rules catch a dropped operand): Python's, so the plain build's only.
if(NOT MHA_SANITIZE)
  add_test(NAME test_layout_audit_catches COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/with_python.sh json
           ${CMAKE_CURRENT_SOURCE_DIR}/tests/layout_audit.py $<TARGET_FILE:mha-tracer> ${CMAKE_CURRENT_SOURCE_DIR}
           --drop-operand)
  set_tests_properties(test_layout_audit_catches PROPERTIES WILL_FAIL TRUE TIMEOUT 5400)
  # ... and a walk that skips the part before a question (→ going to the question's part at once).
  add_test(NAME test_layout_walk_catches COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/with_python.sh json
           ${CMAKE_CURRENT_SOURCE_DIR}/tests/layout_audit.py $<TARGET_FILE:mha-tracer> ${CMAKE_CURRENT_SOURCE_DIR}
           --drop-walk)
  set_tests_properties(test_layout_walk_catches PROPERTIES WILL_FAIL TRUE TIMEOUT 5400)
  # ... and a compare or shuffle panel that windows an output though both fit whole at the floor.
  add_test(NAME test_layout_panel_catches COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/with_python.sh json
           ${CMAKE_CURRENT_SOURCE_DIR}/tests/layout_audit.py $<TARGET_FILE:mha-tracer> ${CMAKE_CURRENT_SOURCE_DIR}
           --drop-panel)
  set_tests_properties(test_layout_panel_catches PROPERTIES WILL_FAIL TRUE TIMEOUT 5400)
  # ... and a product whose operands fit on one screen shown one operand a part (the old planner's cut).
  add_test(NAME test_layout_products_catches COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/with_python.sh json
           ${CMAKE_CURRENT_SOURCE_DIR}/tests/layout_audit.py $<TARGET_FILE:mha-tracer> ${CMAKE_CURRENT_SOURCE_DIR}
           --drop-products)
  set_tests_properties(test_layout_products_catches PROPERTIES WILL_FAIL TRUE TIMEOUT 5400)
  # ... and the tiles of a small lesson with S' windowed and V dropped (the tiles' old defects).
  add_test(NAME test_layout_tiles_catches COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/with_python.sh json
           ${CMAKE_CURRENT_SOURCE_DIR}/tests/layout_audit.py $<TARGET_FILE:mha-tracer> ${CMAKE_CURRENT_SOURCE_DIR}
           --drop-tiles)
  set_tests_properties(test_layout_tiles_catches PROPERTIES WILL_FAIL TRUE TIMEOUT 5400)
endif()

# Each window test starts its own X server with xvfb-run -a, which takes the first display number without a lock
# file in /tmp: two starting at once can take the same one. Under ctest -j (.ci/run) they run one at a time.
set_tests_properties(test_gui_xvfb test_gui_keys test_gui_rope_shift test_gui_storm test_gui_train
                     test_gui_train_idle test_gui_clipboard test_gui_export_worker test_gui_model
                     PROPERTIES RESOURCE_LOCK xserver)
# RoPE as a picture (issue 38): --json's Q_rot against NumPy, and the rotation slide's numbers against --json.
add_test(NAME test_rope_picture_numpy COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/with_python.sh numpy
         ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_rope_picture.py $<TARGET_FILE:mha-tracer> ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(test_rope_picture_numpy PROPERTIES SKIP_RETURN_CODE 77)
