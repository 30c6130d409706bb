# The window: scene + SDL backend (mha_render), the mha-tracer program,
# and the install rules for its assets, the .desktop entry and the icon. Included when MHA_GUI is ON.

# Colour maps, scene layout and the SDL drawing backend (the scene's rooms, scene*.c, and colormap.c use no SDL).
add_library(mha_render STATIC
  src/render/colormap.c
  src/render/scene.c
  src/render/scene_ctx.c
  src/render/scene_text.c
  src/render/scene_grid.c
  src/render/scene_board.c
  src/render/scene_products.c
  src/render/scene_model.c
  src/render/scene_circuit.c
  src/render/scene_heatmap.c
  src/render/scene_chrome.c
  src/render/scene_panels.c
  src/render/scene_decode.c
  src/render/scene_tiles.c
  src/render/scene_cache.c
  src/render/scene_rope.c
  src/render/scene_pages.c
  src/render/scene_hit.c
  src/render/scene_build.c
  src/render/draw_sdl.c
  src/render/svg.c
  src/render/export.c
  src/render/export_jobs.c
  src/render/export_slide.c
  src/render/export_files.c
  src/render/export_png.c
  src/render/export_handout.c
  src/render/textrun.c
  src/platform/fontfind.c)
target_include_directories(mha_render PUBLIC src)
target_link_libraries(mha_render PUBLIC mha_model PkgConfig::SDL2 m)
# Fallback fonts for characters DejaVu lacks: fontconfig where there is one, else the system font folders.
pkg_check_modules(FONTCONFIG IMPORTED_TARGET fontconfig)
if(FONTCONFIG_FOUND)
  target_compile_definitions(mha_render PRIVATE MHA_HAVE_FONTCONFIG=1)
  target_link_libraries(mha_render PUBLIC PkgConfig::FONTCONFIG)
endif()

# The handout (--what handout): a PDF drawn by cairo's PDF surface, text shaped by HarfBuzz in FreeType faces
# and embedded as subsets. On for Linux and for Windows (tools/build-windows.sh cross-builds pixman and cairo);
# off for the page, which has no cairo: export_handout.c draws the same pages as SVG there, which the browser
# prints (web/index.html).
if(EMSCRIPTEN)
  set(MHA_HANDOUT_DEFAULT OFF)
else()
  set(MHA_HANDOUT_DEFAULT ON)
endif()
option(MHA_HANDOUT "Build the PDF handout (--what handout; needs cairo, cairo-ft, FreeType and HarfBuzz)" ${MHA_HANDOUT_DEFAULT})
if(MHA_HANDOUT)
  pkg_check_modules(CAIRO REQUIRED IMPORTED_TARGET cairo cairo-ft cairo-pdf freetype2 harfbuzz)
  target_sources(mha_render PRIVATE src/render/pdf.c)
  target_compile_definitions(mha_render PUBLIC MHA_HAVE_HANDOUT=1)
  target_link_libraries(mha_render PUBLIC PkgConfig::CAIRO)
endif()

# The window (a library, so a test program can drive the same code: mha-tracer-storm in gui_tests.cmake).
add_library(mha_gui STATIC src/app/gui.c src/app/gui_requests.c src/app/gui_lesson.c src/app/cli_layout.c src/app/gui_input.c src/app/gui_export.c src/app/gui_exporting.c src/app/gui_report.c src/app/gui_class.c src/app/gui_train.c)
target_link_libraries(mha_gui PUBLIC mha_render mha_cli)
# Where the window looks for its fonts: next to the program (../share/mha-tracer/assets), then the source
# tree it was built from, then the install prefix.
target_compile_definitions(mha_gui PRIVATE
  MHA_SOURCE_ASSETS="${CMAKE_CURRENT_SOURCE_DIR}/assets"
  MHA_INSTALL_ASSETS="${CMAKE_INSTALL_FULL_DATADIR}/mha-tracer/assets")

add_executable(mha-tracer src/app/main.c)
target_link_libraries(mha-tracer PRIVATE mha_cli mha_gui)
if(EMSCRIPTEN)
  # The page (tools/build-web.sh): static SDL2, SDL2_ttf (FreeType + HarfBuzz), SDL2_image and cJSON from
  # MHA_WEB_PREFIX; the fonts and the lesson library packed into mha-tracer.data, loaded into the page's
  # memory before main. No network; threads only with MHA_WEB_THREADS (below).
  set(MHA_WEB_PREFIX "" CACHE PATH "where build-web.sh installed the dependencies")
  set_target_properties(mha-tracer PROPERTIES SUFFIX ".js")
  target_link_libraries(mha-tracer PRIVATE ${MHA_WEB_PREFIX}/lib/libSDL2_ttf.a ${MHA_WEB_PREFIX}/lib/libSDL2_image.a
    ${MHA_WEB_PREFIX}/lib/libharfbuzz.a ${MHA_WEB_PREFIX}/lib/libfreetype.a ${MHA_WEB_PREFIX}/lib/libSDL2.a)
  # The page with threads (MHA_WEB_THREADS): mha-tracer-mt.js (and its .wasm, .data, .worker.js) beside the
  # one-thread page, its workers running the same script.
  set(MHA_WEB_ENV web)
  if(MHA_WEB_THREADS)
    set_target_properties(mha-tracer PROPERTIES OUTPUT_NAME mha-tracer-mt)
    set(MHA_WEB_ENV web,worker)
  endif()
  target_link_options(mha-tracer PRIVATE -sALLOW_MEMORY_GROWTH=1 -sENVIRONMENT=${MHA_WEB_ENV} -sEXIT_RUNTIME=0 -sLZ4=1
    -sEXPORTED_FUNCTIONS=_main,_mha_web_open,_mha_web_goto,_mha_web_bar_text,_mha_web_missing,_mha_web_cell,_mha_web_a11y_text,_mha_web_stage_key
    -sEXPORTED_RUNTIME_METHODS=FS,ccall,UTF8ToString
    --preload-file ${MHA_WEB_DATA}@/)
endif()
if(WIN32)
  # A window program: double-clicked, no console opens. Started from a console, it writes there
  # (platform_console_attach); redirected, to the file or pipe.
  set_target_properties(mha-tracer PROPERTIES WIN32_EXECUTABLE ON)
endif()

# DejaVu: installed for /usr on a system whose fonts-dejavu-core has it (Debian, Ubuntu: the .deb depends on
# it), assets/fonts is a link to the system's copy, the same files; elsewhere the bundled copy is installed.
set(MHA_DEJAVU_DIR /usr/share/fonts/truetype/dejavu)
if(CMAKE_INSTALL_PREFIX STREQUAL "/usr" AND EXISTS ${MHA_DEJAVU_DIR}/DejaVuSans.ttf)
  set(MHA_SYSTEM_DEJAVU ON)
  install(CODE "file(MAKE_DIRECTORY \"\$ENV{DESTDIR}${CMAKE_INSTALL_FULL_DATADIR}/mha-tracer/assets\")
    file(CREATE_LINK ../../fonts/truetype/dejavu \"\$ENV{DESTDIR}${CMAKE_INSTALL_FULL_DATADIR}/mha-tracer/assets/fonts\" SYMBOLIC)")
else()
  set(MHA_SYSTEM_DEJAVU OFF)
  install(DIRECTORY assets/fonts DESTINATION ${CMAKE_INSTALL_DATADIR}/mha-tracer/assets)
endif()
install(FILES assets/mha-tracer.png DESTINATION ${CMAKE_INSTALL_DATADIR}/mha-tracer/assets)
install(FILES assets/mha-tracer.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES assets/mha-tracer.svg DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
install(FILES assets/mha-tracer.png DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/256x256/apps)

# --- Linux package: cpack -G DEB in a build configured with -DCMAKE_INSTALL_PREFIX=/usr (docs/install.md, ".deb") ---
if(UNIX AND NOT APPLE)
  set(CPACK_PACKAGE_NAME mha-tracer)
  set(CPACK_PACKAGE_VENDOR "mha-tracer")
  set(CPACK_PACKAGE_CONTACT "mha-tracer maintainers <mha-tracer@users.noreply.invalid>")
  set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "teaches multi-head attention one stage at a time")
  set(CPACK_PACKAGE_DESCRIPTION [[A desktop program that steps through multi-head attention (projections,
scores, scaling, mask, softmax, weighted sum, concatenation, output
projection) with every number shown and each head's heatmap. Lessons are
JSON files; slides export as PNG and SVG.]]) # lines under 80 columns (lintian)
  set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # mha-tracer_VERSION_ARCH.deb
  set(CPACK_DEBIAN_PACKAGE_SECTION education)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON) # libsdl2, libsdl2-ttf, libsdl2-image, libcjson from the binary
  if(MHA_SYSTEM_DEJAVU)
    set(CPACK_DEBIAN_PACKAGE_DEPENDS fonts-dejavu-core) # with the libraries found above
  endif()
  # Debian's copyright file and changelog (packaging/), the changelog's top entry for this version.
  file(STRINGS packaging/changelog MHA_CHANGELOG_TOP LIMIT_COUNT 1)
  if(NOT MHA_CHANGELOG_TOP MATCHES "^mha-tracer \\(${PROJECT_VERSION}\\) ")
    message(FATAL_ERROR "packaging/changelog: its first entry is not version ${PROJECT_VERSION}: ${MHA_CHANGELOG_TOP}")
  endif()
  set(MHA_CHANGELOG_GZ ${CMAKE_CURRENT_BINARY_DIR}/changelog.gz)
  add_custom_command(OUTPUT ${MHA_CHANGELOG_GZ}
    COMMAND gzip -9nc ${CMAKE_CURRENT_SOURCE_DIR}/packaging/changelog > ${MHA_CHANGELOG_GZ}
    DEPENDS packaging/changelog)
  add_custom_target(mha-tracer-changelog ALL DEPENDS ${MHA_CHANGELOG_GZ})
  add_dependencies(mha-tracer mha-tracer-changelog)
  install(FILES packaging/copyright ${MHA_CHANGELOG_GZ} DESTINATION ${CMAKE_INSTALL_DOCDIR})
  set(CPACK_STRIP_FILES ON)
  set(CPACK_GENERATOR DEB)
  include(CPack)
endif()
