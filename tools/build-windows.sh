#!/usr/bin/env bash
# Cross-compiles mha-tracer for 64-bit Windows on Debian 12 and writes dist/mha-tracer-windows-x64.zip.
# SDL2, FreeType, SDL2_ttf, SDL2_image and cJSON are built from Debian's own source packages (apt-get source)
# with mingw-w64 into a cache outside the clone, keyed by their source versions, so a second run only
# rebuilds mha-tracer.
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
RECIPE=2

# --- 1. Tools, and deb-src lines in a sources file of our own (the same mirrors as the system's deb lines) ---
need_pkgs="gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64 binutils-mingw-w64-x86-64 mingw-w64-x86-64-dev cmake pkg-config dpkg-dev zip python3"
deps_enable_sources
deps_install $need_pkgs

# --- 2. The cache key: the source versions, the compiler, the recipe ---
SRC_PKGS="cjson libsdl2 freetype harfbuzz libsdl2-ttf libsdl2-image"
key_text="recipe=$RECIPE gcc=$($TRIPLET-gcc -dumpfullversion 2>/dev/null || $TRIPLET-gcc -dumpversion)"
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
mkdir -p "$CACHE"
export PKG_CONFIG_LIBDIR="$PREFIX/lib/pkgconfig" PKG_CONFIG_PATH=""
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
say "dependencies ready in $((SECONDS - t_deps)) s (0 when cached)"

# --- 4. mha-tracer itself ---
BUILD="$ROOT/build-windows"
export PKG_CONFIG_LIBDIR="$PREFIX/lib/pkgconfig"
export PKG_CONFIG_PATH=""
# No PDF handout in the zip yet: cairo (with pixman and zlib) is not cross-built here, so --what handout says
# it is not built in (-DMHA_HANDOUT=OFF).
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_TOOLCHAIN_FILE="$TOOLCHAIN" -DMHA_WINDOWS_PREFIX="$PREFIX" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$PREFIX" -DMHA_HANDOUT=OFF >"$CACHE/mha-configure.log" 2>&1 \
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
for p in $SRC_PKGS; do # each dependency's own copyright file, from its Debian source
    src=$(find "$CACHE/src/$p" -mindepth 1 -maxdepth 1 -type d | head -1)
    [ -f "$src/debian/copyright" ] && cp "$src/debian/copyright" "$STAGE/licenses/$p.copyright.txt"
done
mkdir -p "$ROOT/dist"
rm -f "$ROOT/dist/mha-tracer-windows-x64.zip"
(cd "$BUILD/zip" && zip -qr9 "$ROOT/dist/mha-tracer-windows-x64.zip" mha-tracer)
say "wrote dist/mha-tracer-windows-x64.zip ($(du -k "$ROOT/dist/mha-tracer-windows-x64.zip" | cut -f1) KB):" \
    "$(cd "$STAGE" && ls *.exe *.dll | tr '\n' ' ')"
echo "prefix: $PREFIX"
