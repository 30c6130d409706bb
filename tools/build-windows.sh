#!/usr/bin/env bash
# Cross-compiles mha-tracer for 64-bit Windows on Debian 12 and writes dist/mha-tracer-windows-x64.zip.
# SDL2, FreeType, HarfBuzz, SDL2_ttf, SDL2_image, cJSON, and pixman and cairo (the PDF handout) are built from
# Debian's own source packages (apt-get source) with mingw-w64 into a cache outside the clone, keyed by their
# source versions, so a second run only rebuilds mha-tracer. zlib (cairo's PDF streams) is Debian's own build
# for mingw-w64 (libz-mingw-w64-dev), its version in the key too.
#
#   tools/build-windows.sh            deps (cached) + mha-tracer + the zip
#   MHA_CACHE=/some/dir               where the dependency builds live (default /var/cache/mha-tracer)
#   JOBS=2                            parallel compile jobs
# Prints the prefix it used as the last line "prefix: DIR" (tests/test_windows.sh reads the same cache).
set -euo pipefail
. "$(dirname "$0")/debian-deps.sh"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE_BASE=${MHA_CACHE:-/var/cache/mha-tracer}
JOBS=${JOBS:-2}
TRIPLET=x86_64-w64-mingw32
# Bump when the recipe below changes: it is part of the cache key.
RECIPE=3

# --- 1. Tools, and deb-src lines in a sources file of our own (the same mirrors as the system's deb lines) ---
need_pkgs="gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64 binutils-mingw-w64-x86-64 mingw-w64-x86-64-dev cmake pkg-config dpkg-dev zip python3
           make libz-mingw-w64-dev"
deps_enable_sources
deps_install $need_pkgs

# --- 2. The cache key: the source versions, the compiler, the recipe ---
SRC_PKGS="cjson libsdl2 freetype harfbuzz libsdl2-ttf libsdl2-image pixman cairo"
key_text="recipe=$RECIPE gcc=$($TRIPLET-gcc -dumpfullversion 2>/dev/null || $TRIPLET-gcc -dumpversion)"
key_text="$key_text zlib=$(dpkg-query -W -f='${Version}' libz-mingw-w64-dev)"
deps_versions $SRC_PKGS
KEY=$(printf '%s' "$key_text" | sha256sum | cut -c1-16)
CACHE="$CACHE_BASE/windows-$KEY"
PREFIX="$CACHE/prefix"
say "dependencies: $key_text"
say "cache: $CACHE"

# --- 3. The dependencies, each once per key (a stamp file says it is complete) ---
TOOLCHAIN="$ROOT/cmake/mingw-w64-x86_64.cmake"
dep_cmake() { # dep_cmake SRC_DIR BUILD_DIR cmake-args...
    local src=$1 bld=$2
    shift 2
    $NICE cmake -S "$src" -B "$bld" -DCMAKE_TOOLCHAIN_FILE="$TOOLCHAIN" -DMHA_WINDOWS_PREFIX="$PREFIX" \
        -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$PREFIX" -DCMAKE_PREFIX_PATH="$PREFIX" \
        -DBUILD_SHARED_LIBS=ON "$@" >"$bld.configure.log" 2>&1 || { tail -40 "$bld.configure.log"; return 1; }
    $NICE cmake --build "$bld" -j"$JOBS" >"$bld.build.log" 2>&1 || { tail -40 "$bld.build.log"; return 1; }
    cmake --install "$bld" >"$bld.install.log" 2>&1 || { tail -40 "$bld.install.log"; return 1; }
}
# dep_autotools SRC_DIR BUILD_DIR configure-args...: a library released with its configure script (pixman,
# cairo), configured for the mingw host outside its source, its library folder (src/, pixman/) built and
# installed. The shipped configure and Makefile.in are used as they are (Debian's patches to cairo's
# configure.ac and Makefile.am only add its perf tools and a symbol list for Linux): touched, so make does not
# try to run automake.
dep_autotools() {
    local src=$1 bld=$2 sub
    shift 2
    sub=$(basename "$(dirname "$(find "$src" -maxdepth 2 -name "$AUTOTOOLS_LIB" | head -1)")")
    find "$src" \( -name aclocal.m4 -o -name configure -o -name config.h.in -o -name Makefile.in \) -exec touch {} +
    mkdir -p "$bld"
    (cd "$bld" && $NICE "$src/configure" --host=$TRIPLET --prefix="$PREFIX" --enable-shared --disable-static \
        PKG_CONFIG=pkg-config CPPFLAGS="-I$PREFIX/include" LDFLAGS="-L$PREFIX/lib" "$@") >"$bld.configure.log" 2>&1 \
        || { tail -40 "$bld.configure.log"; return 1; }
    $NICE make -C "$bld/$sub" -j"$JOBS" >"$bld.build.log" 2>&1 || { tail -40 "$bld.build.log"; return 1; }
    make -C "$bld/$sub" install >"$bld.install.log" 2>&1 || { tail -40 "$bld.install.log"; return 1; }
    [ ! -f "$bld/$AUTOTOOLS_PC" ] || install -m 644 "$bld/$AUTOTOOLS_PC" "$PREFIX/lib/pkgconfig/"
}
mkdir -p "$CACHE"
export PKG_CONFIG_LIBDIR="$PREFIX/lib/pkgconfig:/usr/$TRIPLET/lib/pkgconfig" PKG_CONFIG_PATH=""
t_deps=$SECONDS
build_dep cjson -DENABLE_CJSON_TEST=OFF -DENABLE_CJSON_UTILS=OFF -DENABLE_CUSTOM_COMPILER_FLAGS=OFF \
    -DENABLE_HIDDEN_SYMBOLS=OFF
build_dep libsdl2 -DSDL_SHARED=ON -DSDL_STATIC=OFF -DSDL_TEST=OFF -DSDL_TESTS=OFF
build_dep freetype -DFT_DISABLE_ZLIB=ON -DFT_DISABLE_BZIP2=ON -DFT_DISABLE_PNG=ON -DFT_DISABLE_HARFBUZZ=ON \
    -DFT_DISABLE_BROTLI=ON
# HarfBuzz shapes the text as Debian's SDL2_ttf does on Linux (kerning): the same widths, the same SVGs.
build_dep harfbuzz -DHB_HAVE_FREETYPE=ON -DHB_HAVE_GLIB=OFF -DHB_HAVE_ICU=OFF -DHB_HAVE_GOBJECT=OFF \
    -DHB_HAVE_GRAPHITE2=OFF -DHB_BUILD_UTILS=OFF -DHB_BUILD_SUBSET=OFF -DHB_BUILD_TESTS=OFF
build_dep libsdl2-ttf -DSDL2TTF_VENDORED=OFF -DSDL2TTF_HARFBUZZ=ON -DSDL2TTF_SAMPLES=OFF
# PNG (and JPEG) through the stb_image backend bundled with SDL2_image, saving through its bundled miniz:
# no libpng or zlib to build.
build_dep libsdl2-image -DSDL2IMAGE_VENDORED=OFF -DSDL2IMAGE_BACKEND_STB=ON -DSDL2IMAGE_SAMPLES=OFF \
    -DSDL2IMAGE_TESTS=OFF -DSDL2IMAGE_AVIF=OFF -DSDL2IMAGE_JXL=OFF -DSDL2IMAGE_TIF=OFF -DSDL2IMAGE_WEBP=OFF \
    -DSDL2IMAGE_DEPS_SHARED=OFF
# The handout's PDF: pixman (cairo's pixels; SIMD as x86-64 has it, no tests or demos), then cairo with its PDF
# surface and FreeType fonts (HarfBuzz shapes in mha-tracer), no fontconfig (the faces are opened by path), no
# PNG, SVG, PostScript or X11. AUTOTOOLS_LIB finds the folder holding the library's sources.
AUTOTOOLS_LIB=pixman.c AUTOTOOLS_PC=pixman-1.pc DEP_BUILDER=dep_autotools build_dep pixman \
    --disable-gtk --disable-libpng --disable-openmp --disable-loongson-mmi --disable-arm-simd --disable-arm-neon \
    --disable-arm-iwmmxt --disable-mips-dspr2 --disable-vmx
# cairo's configure adds -Wp,-D_FORTIFY_SOURCE=2, whose checked copies (__memcpy_chk) mingw-w64 has only in GCC's
# libssp (another DLL to ship): undefined again after it (CFLAGS come last on the compile line).
AUTOTOOLS_LIB=cairo.c AUTOTOOLS_PC="" DEP_BUILDER=dep_autotools build_dep cairo CFLAGS="-O2 -Wp,-U_FORTIFY_SOURCE" \
    --enable-ft --disable-fc --enable-pdf --disable-png --disable-svg --disable-ps --disable-script \
    --disable-interpreter --disable-trace --disable-xlib --disable-xcb --disable-xlib-xrender --disable-gobject \
    --disable-full-testing --disable-gtk-doc
say "dependencies ready in $((SECONDS - t_deps)) s (0 when cached)"

# --- 4. mha-tracer itself ---
BUILD="$ROOT/build-windows"
export PKG_CONFIG_LIBDIR="$PREFIX/lib/pkgconfig:/usr/$TRIPLET/lib/pkgconfig"
export PKG_CONFIG_PATH=""
# With the PDF handout (cairo, above).
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_TOOLCHAIN_FILE="$TOOLCHAIN" -DMHA_WINDOWS_PREFIX="$PREFIX" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$PREFIX" -DMHA_HANDOUT=ON >"$CACHE/mha-configure.log" 2>&1 \
    || { tail -40 "$CACHE/mha-configure.log"; exit 1; }
# The program, and the test programs that need no POSIX (links, FIFOs, modes, setenv are Linux' tests).
WIN_TESTS="test_matrix test_rng test_exactmath test_trace test_lesson test_bad_lessons test_model test_cost test_utf8
           test_compare test_view test_edit test_scene test_scene_panels test_scene_heat
           test_scene_teach json_close test_save_kill test_export_kill"
$NICE cmake --build "$BUILD" -j"$JOBS" --target mha-tracer $WIN_TESTS >"$CACHE/mha-build.log" 2>&1 \
    || { tail -60 "$CACHE/mha-build.log"; exit 1; }

# --- 5. The zip: mha-tracer/ with the exe, the DLLs it loads (found by walking the imports), assets,
# lessons, the README with the docs/ pages it links to, and the licences ---
STAGE="$BUILD/zip/mha-tracer"
rm -rf "$BUILD/zip" && mkdir -p "$STAGE/licenses"
cp "$BUILD/mha-tracer.exe" "$STAGE/"
$TRIPLET-strip "$STAGE/mha-tracer.exe"
MINGW_DLL_DIRS="$PREFIX/bin $(dirname "$($TRIPLET-gcc -print-libgcc-file-name)") /usr/$TRIPLET/lib"
queue="$STAGE/mha-tracer.exe"
while [ -n "$queue" ]; do
    next=""
    for f in $queue; do
        for dll in $($TRIPLET-objdump -p "$f" | sed -n 's/^\s*DLL Name: //p'); do
            [ -f "$STAGE/$dll" ] && continue
            for d in $MINGW_DLL_DIRS; do
                if [ -f "$d/$dll" ]; then
                    cp "$d/$dll" "$STAGE/" && $TRIPLET-strip "$STAGE/$dll" && next="$next $STAGE/$dll"
                    break
                fi
            done # not found: a system DLL (KERNEL32.dll, ...)
        done
    done
    queue=$next
done
mkdir -p "$STAGE/assets"
cp -r "$ROOT/assets/fonts" "$ROOT/assets/mha-tracer.png" "$STAGE/assets/"
cp -r "$ROOT/lessons" "$STAGE/lessons"
cp "$ROOT/README.md" "$STAGE/README.md"
mkdir -p "$STAGE/docs"
cp "$ROOT"/docs/*.md "$ROOT"/docs/*.png "$STAGE/docs/"
cp -r "$ROOT/LICENSES/." "$STAGE/licenses/" 2>/dev/null || true
cp "$ROOT/assets/fonts/LICENSE-DejaVu.txt" "$STAGE/licenses/"
for p in $SRC_PKGS; do # each dependency's own copyright file, from its Debian source (its COPYING without one)
    src=$(find "$CACHE/src/$p" -mindepth 1 -maxdepth 1 -type d | head -1)
    if [ -f "$src/debian/copyright" ]; then cp "$src/debian/copyright" "$STAGE/licenses/$p.copyright.txt"
    elif [ -f "$src/COPYING" ]; then cp "$src/COPYING" "$STAGE/licenses/$p.copyright.txt"; fi
done
cp /usr/share/doc/libz-mingw-w64-dev/copyright "$STAGE/licenses/zlib.copyright.txt"
mkdir -p "$ROOT/dist"
rm -f "$ROOT/dist/mha-tracer-windows-x64.zip"
(cd "$BUILD/zip" && zip -qr9 "$ROOT/dist/mha-tracer-windows-x64.zip" mha-tracer)
say "wrote dist/mha-tracer-windows-x64.zip ($(du -k "$ROOT/dist/mha-tracer-windows-x64.zip" | cut -f1) KB):" \
    "$(cd "$STAGE" && ls *.exe *.dll | tr '\n' ' ')"
echo "prefix: $PREFIX"
