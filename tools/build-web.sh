#!/usr/bin/env bash
# Builds mha-tracer as a WebAssembly page on Debian 12 and writes dist/web/ (index.html, mha-tracer.js,
# mha-tracer.wasm, mha-tracer.data with the fonts and the lesson library; mha-tracer-mt.js, .wasm and .worker.js,
# the build with WebAssembly threads that index.html loads when the page is cross-origin isolated, the same
# data): serve it from any static server (tools/serve-web.py: isolated, so with threads). SDL2, FreeType,
# HarfBuzz, SDL2_ttf, SDL2_image and cJSON are built from Debian's own source packages with Debian's emscripten
# (emcmake) into a cache outside the clone, keyed by their source versions (its ports would download them),
# twice (one thread; -pthread), so a second run only rebuilds mha-tracer. Also the command line under Node
# (build-web-cli/, build-web-cli-mt/: tests/test_web.sh compares their numbers with the Linux build's).
#
#   tools/build-web.sh            deps (cached) + mha-tracer + dist/web
#   MHA_CACHE=/some/dir           where the dependency builds live (default /var/cache/mha-tracer)
#   JOBS=2                        parallel compile jobs
# Prints the prefix it used as the last line "prefix: DIR".
set -euo pipefail
. "$(dirname "$0")/debian-deps.sh"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE_BASE=${MHA_CACHE:-/var/cache/mha-tracer}
JOBS=${JOBS:-2}
# Bump when the recipe below changes what is built: it is part of the cache key. (Seeding emscripten's cache
# whole and unfrozen changed no library built, so the key stayed: a cache of the old recipe is reseeded.)
RECIPE=1
# emscripten's optimizer (-O2) needs Debian's acorn; a newer Node elsewhere on PATH does not have it.
export NODE_PATH=/usr/share/nodejs

# --- 1. Tools, and deb-src lines in a sources file of our own (the same mirrors as the system's deb lines) ---
need_pkgs="emscripten cmake pkg-config dpkg-dev python3 python3-fonttools fonts-noto-core fonts-noto-cjk"
deps_enable_sources
deps_install $need_pkgs

# --- 2. The cache key: the source versions, the compiler, the recipe ---
SRC_PKGS="cjson libsdl2 freetype harfbuzz libsdl2-ttf libsdl2-image"
key_text="recipe=$RECIPE emscripten=$(dpkg-query -W -f='${Version}' emscripten)"
deps_versions $SRC_PKGS
# Two sets of the libraries: one thread, and threads (-pthread: shared memory, so every library of that
# build must be compiled with it too), each under its own key.
BASE_KEY_TEXT=$key_text
EM_SEED=/usr/share/emscripten/cache
deps_flavour() { # deps_flavour st|mt: sets CACHE, PREFIX, EM_CACHE and builds (or finds) that set
    local flavour=$1 cflags=""
    key_text=$BASE_KEY_TEXT
    if [ "$flavour" = mt ]; then
        key_text="$key_text threads=pthread"
        cflags="-pthread"
    fi
    KEY=$(printf '%s' "$key_text" | sha256sum | cut -c1-16)
    CACHE="$CACHE_BASE/web-$KEY"
    PREFIX="$CACHE/prefix"
    DEP_CFLAGS=$cflags
    say "dependencies ($flavour): $key_text"
    say "cache: $CACHE"
    # emscripten writes its own cache (system libraries it compiles once) beside the dependencies, seeded from
    # Debian's /usr/share/emscripten/cache (read-only, and frozen by Debian's config: FROZEN_CACHE = True, so
    # a library it lacks, such as the C library with threads, is an error there). Ours is not frozen
    # (EM_FROZEN_CACHE empty overrides the config): emcc builds what the seed lacks into it, once. The seed is
    # copied whole before its stamp is written, so a run stopped half way seeds again rather than leaving an
    # empty cache behind.
    export EM_CACHE="$CACHE/emcache" EM_FROZEN_CACHE=""
    if [ ! -f "$CACHE/emcache.seeded" ]; then
        [ -d "$EM_SEED/sysroot" ] || { echo "build-web: no emscripten cache at $EM_SEED to seed from" >&2; exit 1; }
        rm -rf "$EM_CACHE" && mkdir -p "$CACHE" && cp -r "$EM_SEED" "$EM_CACHE"
        rm -f "$EM_CACHE/cache.lock"
        touch "$CACHE/emcache.seeded"
    fi
    mkdir -p "$CACHE"
    export PKG_CONFIG_LIBDIR="$PREFIX/lib/pkgconfig:$PREFIX/share/pkgconfig" PKG_CONFIG_PATH=""
    local t_deps=$SECONDS
    build_dep cjson -DENABLE_CJSON_TEST=OFF -DENABLE_CJSON_UTILS=OFF -DENABLE_CUSTOM_COMPILER_FLAGS=OFF \
        -DENABLE_HIDDEN_SYMBOLS=OFF -DBUILD_SHARED_AND_STATIC_LIBS=OFF
    build_dep libsdl2 -DSDL_SHARED=OFF -DSDL_STATIC=ON -DSDL_TEST=OFF -DSDL_TESTS=OFF -DSDL_PTHREADS=OFF \
        -DSDL_THREADS=OFF
    build_dep freetype -DFT_DISABLE_ZLIB=ON -DFT_DISABLE_BZIP2=ON -DFT_DISABLE_PNG=ON -DFT_DISABLE_HARFBUZZ=ON \
        -DFT_DISABLE_BROTLI=ON
    build_dep harfbuzz -DHB_HAVE_FREETYPE=ON -DHB_HAVE_GLIB=OFF -DHB_HAVE_ICU=OFF -DHB_HAVE_GOBJECT=OFF \
        -DHB_HAVE_GRAPHITE2=OFF -DHB_BUILD_UTILS=OFF -DHB_BUILD_SUBSET=OFF -DHB_BUILD_TESTS=OFF
    build_dep libsdl2-ttf -DSDL2TTF_VENDORED=OFF -DSDL2TTF_HARFBUZZ=ON -DSDL2TTF_SAMPLES=OFF
    build_dep libsdl2-image -DSDL2IMAGE_VENDORED=OFF -DSDL2IMAGE_BACKEND_STB=ON -DSDL2IMAGE_SAMPLES=OFF \
        -DSDL2IMAGE_TESTS=OFF -DSDL2IMAGE_AVIF=OFF -DSDL2IMAGE_JXL=OFF -DSDL2IMAGE_TIF=OFF -DSDL2IMAGE_WEBP=OFF \
        -DSDL2IMAGE_DEPS_SHARED=OFF
    say "dependencies ($flavour) ready in $((SECONDS - t_deps)) s (0 when cached)"
}

# --- 3. The dependencies, each once per key (a stamp file says it is complete) ---
dep_cmake() { # dep_cmake SRC_DIR BUILD_DIR cmake-args...
    local src=$1 bld=$2
    shift 2
    $NICE emcmake cmake -S "$src" -B "$bld" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$PREFIX" \
        -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_FIND_ROOT_PATH="$PREFIX" -DBUILD_SHARED_LIBS=OFF \
        ${DEP_CFLAGS:+-DCMAKE_C_FLAGS=$DEP_CFLAGS -DCMAKE_CXX_FLAGS=$DEP_CFLAGS} "$@" \
        >"$bld.configure.log" 2>&1 || { tail -40 "$bld.configure.log"; return 1; }
    $NICE cmake --build "$bld" -j"$JOBS" >"$bld.build.log" 2>&1 || { tail -40 "$bld.build.log"; return 1; }
    cmake --install "$bld" >"$bld.install.log" 2>&1 || { tail -40 "$bld.install.log"; return 1; }
}
deps_flavour mt
MT_PREFIX=$PREFIX MT_EM_CACHE=$EM_CACHE
deps_flavour st
if [ "${MHA_WEB_DEPS_ONLY:-0}" = 1 ]; then echo "prefix: $PREFIX"; exit 0; fi

# --- 4. mha-tracer itself: the page's data (fonts, the lesson library) packed beside it ---
BUILD="$ROOT/build-web"
DATA="$BUILD/data"
mkdir -p "$BUILD"
rm -rf "$DATA" && mkdir -p "$DATA/assets/fonts" "$DATA/lessons" "$DATA/Library/Fonts"
cp "$ROOT"/assets/fonts/*.ttf "$DATA/assets/fonts/"
cp "$ROOT/assets/mha-tracer.png" "$DATA/assets/"
cp "$ROOT"/lessons/*.json "$DATA/lessons/"
# No fontconfig in a browser: fallback fonts sit in /Library/Fonts, a folder fontfind searches without it.
# Arabic and Hebrew: Debian's Noto fonts whole (240 KB). Chinese: Noto Sans CJK SC is 19 MB, so the page has
# a subset of it with the characters of the shipped lessons and of the translations, po/*.po (about 140 KB);
# other CJK characters (a teacher's own Chinese, Japanese or Korean file) show as boxes, with the status line
# naming the font the desktop program would need.
for f in /usr/share/fonts/truetype/noto/NotoSansArabic-Regular.ttf /usr/share/fonts/truetype/noto/NotoSansHebrew-Regular.ttf; do
    cp "$f" "$DATA/Library/Fonts/"
done
/usr/bin/python3 - "$ROOT" "$BUILD/cjk-chars.txt" <<'PY'
import glob, sys
root, out = sys.argv[1], sys.argv[2]
chars = set()
for f in glob.glob(root + "/lessons/*.json") + glob.glob(root + "/po/*.po"):
    chars |= {c for c in open(f, encoding="utf-8").read() if ord(c) >= 0x2E80}
open(out, "w", encoding="utf-8").write("".join(sorted(chars)))
PY
/usr/bin/python3 -m fontTools.subset /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc --font-number=2 \
    --text-file="$BUILD/cjk-chars.txt" --layout-features='*' --output-file="$DATA/Library/Fonts/NotoSansCJKsc-lessons.otf"
t_app=$SECONDS
# app_build SUFFIX PREFIX EM_CACHE [cmake-args]: the page in build-webSUFFIX and the command line under Node in
# build-web-cliSUFFIX, over that set of libraries ("" one thread, "-mt" threads: MHA_WEB_THREADS).
app_build() {
    local sfx=$1 prefix=$2 log="$CACHE_BASE/web-app$1"
    export EM_CACHE=$3
    shift 3
    mkdir -p "$log"
    emcmake cmake -S "$ROOT" -B "$ROOT/build-web$sfx" -DCMAKE_BUILD_TYPE=Release -DMHA_WEB_PREFIX="$prefix" \
        -DMHA_WEB_DATA="$DATA" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_ROOT_PATH="$prefix" "$@" \
        >"$log/mha-configure.log" 2>&1 || { tail -40 "$log/mha-configure.log"; exit 1; }
    rm -f "$ROOT/build-web$sfx"/mha-tracer*.js # the data is packed at link time: always link again
    $NICE cmake --build "$ROOT/build-web$sfx" -j"$JOBS" --target mha-tracer >"$log/mha-build.log" 2>&1 \
        || { tail -60 "$log/mha-build.log"; exit 1; }
    say "mha-tracer$sfx (the page): $((SECONDS - t_app)) s"
    # The same sources as a command-line program under Node (no window): tests/test_web.sh compares its --json
    # with the Linux build's, bit for bit, runs test_fastpaths there and times mha-bench beside the native one.
    emcmake cmake -S "$ROOT" -B "$ROOT/build-web-cli$sfx" -DCMAKE_BUILD_TYPE=Release -DMHA_GUI=OFF \
        -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_ROOT_PATH="$prefix" "$@" >"$log/cli-configure.log" 2>&1 \
        || { tail -40 "$log/cli-configure.log"; exit 1; }
    $NICE cmake --build "$ROOT/build-web-cli$sfx" -j"$JOBS" --target mha-tracer mha-bench test_fastpaths \
        >"$log/cli-build.log" 2>&1 || { tail -60 "$log/cli-build.log"; exit 1; }
    say "mha-tracer$sfx (page and Node command line): $((SECONDS - t_app)) s"
}
app_build "" "$PREFIX" "$EM_CACHE"
app_build -mt "$MT_PREFIX" "$MT_EM_CACHE" -DMHA_WEB_THREADS=ON

# --- 5. dist/web: the page, the program, its data, the licences ---
OUT="$ROOT/dist/web"
rm -rf "$OUT" && mkdir -p "$OUT/licenses"
cp "$ROOT/web/index.html" "$BUILD/mha-tracer.js" "$BUILD/mha-tracer.wasm" "$BUILD/mha-tracer.data" "$OUT/"
# The page with threads (index.html loads it where the server made the page cross-origin isolated). Its data is
# the same bytes (the same files packed the same way): index.html points it at mha-tracer.data, one copy.
MT="$ROOT/build-web-mt"
cmp -s "$MT/mha-tracer-mt.data" "$BUILD/mha-tracer.data" ||
    { echo "build-web: mha-tracer-mt.data differs from mha-tracer.data (index.html loads the one for both)" >&2; exit 1; }
cp "$MT/mha-tracer-mt.js" "$MT/mha-tracer-mt.wasm" "$MT/mha-tracer-mt.worker.js" "$OUT/"
cp -r "$ROOT/LICENSES/." "$OUT/licenses/" 2>/dev/null || true
cp "$ROOT/assets/fonts/LICENSE-DejaVu.txt" "$OUT/licenses/"
cp /usr/share/doc/fonts-noto-core/copyright "$OUT/licenses/fonts-noto-core.copyright.txt"
cp /usr/share/doc/fonts-noto-cjk/copyright "$OUT/licenses/fonts-noto-cjk.copyright.txt"
# The libraries in the .wasm: each one's copyright file from its Debian source, and emscripten's (its C library,
# musl, and the rest of its runtime, threads included).
for p in $SRC_PKGS; do
    src=$(find "$CACHE/src/$p" -mindepth 1 -maxdepth 1 -type d | head -1)
    cp "$src/debian/copyright" "$OUT/licenses/$p.copyright.txt"
done
cp /usr/share/doc/emscripten/copyright "$OUT/licenses/emscripten.copyright.txt"
deps_versions $SRC_PKGS
say "wrote dist/web: $(cd "$OUT" && du -b index.html mha-tracer*.js mha-tracer*.wasm mha-tracer.data | awk '{printf "%s %d KB, ", $2, $1/1024}')" \
    "lessons $(du -cb "$DATA/lessons" | tail -1 | cut -f1) bytes of the data"
echo "prefix: $PREFIX"
