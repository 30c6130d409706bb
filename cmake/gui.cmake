# The window: scene + SDL backend (mha_render), the mha-tracer program,
# and the install rules for its assets, the .desktop entry and the icon. Included when MHA_GUI is ON.

# Colour maps, scene layout and the SDL drawing backend (scene.c and colormap.c use no SDL).
add_library(mha_render STATIC
  src/render/colormap.c
  src/render/scene.c
  src/render/draw_sdl.c
  src/render/svg.c
  src/render/export.c
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


# The window (a library, so a test program can drive the same code: mha-tracer-storm in gui_tests.cmake).
add_library(mha_gui STATIC src/app/gui.c)
target_link_libraries(mha_gui PUBLIC mha_render mha_cli)
# Where the window looks for its fonts: next to the program (../share/mha-tracer/assets), then the source
# tree it was built from, then the install prefix.
target_compile_definitions(mha_gui PRIVATE
  MHA_SOURCE_ASSETS="${CMAKE_CURRENT_SOURCE_DIR}/assets"
  MHA_INSTALL_ASSETS="${CMAKE_INSTALL_FULL_DATADIR}/mha-tracer/assets")

add_executable(mha-tracer src/app/main.c)
target_link_libraries(mha-tracer PRIVATE mha_cli mha_gui)

install(DIRECTORY assets/fonts DESTINATION ${CMAKE_INSTALL_DATADIR}/mha-tracer/assets)
install(FILES assets/mha-tracer.png DESTINATION ${CMAKE_INSTALL_DATADIR}/mha-tracer/assets)
install(FILES assets/mha-tracer.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES assets/mha-tracer.svg DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
install(FILES assets/mha-tracer.png DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/256x256/apps)
