# Tests of the window: the state machine and the scene headless, then the real window under Xvfb.
mha_test(test_view mha_model)
mha_test(test_edit mha_model)
mha_test(test_scene mha_render)

# Slide export headless: PNG decoded from memory, SVG checked as XML, all-or-nothing writes; then the
# command line (--export) with no display.
mha_test(test_export mha_render)
add_test(NAME test_export_cli
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_export_cli.sh $<TARGET_FILE:mha-tracer>
                 ${CMAKE_CURRENT_SOURCE_DIR})

# Real window under xvfb-run, keys from xdotool, screenshots with ImageMagick's import.
# Exits 77 (skipped) only when xvfb-run is absent.
add_test(NAME test_gui_xvfb
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_gui_xvfb.sh $<TARGET_FILE:mha-tracer>
                 ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/gui-shots)
set_tests_properties(test_gui_xvfb PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 180)

# 10,000 random events through the real window's event path under Xvfb (issue 6); skipped without xvfb-run.
add_test(NAME test_gui_storm
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_gui_storm.sh $<TARGET_FILE:mha-tracer>
                 ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(test_gui_storm PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)
