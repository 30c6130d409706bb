#!/bin/sh
# The page in headless Chromium (tests/test_web.mjs): serves DIST (dist/web) with python3's http.server on
# 127.0.0.1 and drives Debian's chromium with puppeteer-core, a pinned version installed from npm into a cache
# outside the clone (MHA_CACHE, default /var/cache/mha-tracer). Screenshots go to SHOTS.
#   sh tests/test_web.sh SOURCE_DIR DIST SHOTS [LINUX_TRACER WEB_CLI_JS [WEB_MT_CLI_JS]]
# With LINUX_TRACER and WEB_CLI_JS: the WebAssembly build's --json (WEB_CLI_JS under Node, single-threaded) must
# equal the Linux build's byte for byte, for every lesson that ships and every one of tests/good; with
# WEB_MT_CLI_JS (build-web-cli-mt/mha-tracer.js: WebAssembly threads, a trace's heads over the cores) the same.
# The page is tested as served plainly (the one-thread build) and cross-origin isolated (the threaded one).
set -eu
SRC=$(cd "$1" && pwd)
DIST=$(cd "$2" && pwd)
mkdir -p "$3"
SHOTS=$(cd "$3" && pwd)
# same_json CLI_JS WHAT: that build's --json, --decode and --tiles equal the Linux build's ($LINUX), then its
# test_fastpaths (the WebAssembly SIMD kernel, and a trace split over the threads when it has them) under Node.
same_json() {
    n=0
    for l in "$SRC"/lessons/*.json "$SRC"/tests/good/*.json; do
        case "$l" in *lesson.schema.json) continue ;; esac
        "$LINUX" --json "$l" >"$SHOTS/linux.json"
        node "$1" --json "$l" >"$SHOTS/web.json"
        cmp -s "$SHOTS/linux.json" "$SHOTS/web.json" || { echo "FAIL --json of the $2 differs for $l"; exit 1; }
        n=$((n + 1))
    done
    echo "ok   --json of the $2 equals the Linux build's for $n lessons (lessons/, tests/good/)"
    # The decoding and the tiles of today's attention (issue 22), the same bytes.
    for args in "--decode kv-cache-decoding" "--decode llama-rope-gqa" "--tiles 2 mistral-sliding-window" \
        "--tiles 3 flash-tiles"; do
        opt=${args% *} lesson=${args##* }
        "$LINUX" --json $opt "$SRC/lessons/$lesson.json" >"$SHOTS/linux.json"
        node "$1" --json $opt "$SRC/lessons/$lesson.json" >"$SHOTS/web.json"
        cmp -s "$SHOTS/linux.json" "$SHOTS/web.json" || { echo "FAIL --json $opt of the $2 differs for $lesson"; exit 1; }
    done
    echo "ok   --json --decode and --tiles of the $2 equal the Linux build's"
    # The core's fast paths (the WebAssembly SIMD matrix kernel) against the plain loops, bit for bit, in Node.
    d=$(dirname "$1")
    [ -f "$d/test_fastpaths.js" ] || { echo "FAIL no $d/test_fastpaths.js"; exit 1; }
    node "$d/test_fastpaths.js" >"$SHOTS/fastpaths.txt" 2>&1 || { cat "$SHOTS/fastpaths.txt"; echo "FAIL test_fastpaths of the $2 under Node"; exit 1; }
    echo "ok   test_fastpaths of the $2 under Node: $(grep '^matmul: ' "$SHOTS/fastpaths.txt"); $(grep '^trace ' "$SHOTS/fastpaths.txt" | tail -1)"
}
WEB_MT=
if [ $# -ge 5 ]; then
    LINUX=$4
    same_json "$5" "WebAssembly build"
    if [ $# -ge 6 ]; then
        WEB_MT=$6
        same_json "$WEB_MT" "threaded WebAssembly build"
    else
        echo "skip --json and test_fastpaths of the threaded WebAssembly build: no WEB_MT_CLI_JS given"
    fi
    # The page's bert-base trace time beside the native build's (figures only, never a failure).
    WEB_DIR=$(dirname "$5")
    if [ -x "$(dirname "$4")/mha-bench" ] && [ -f "$WEB_DIR/mha-bench.js" ]; then
        sh "$SRC/tests/bench_web.sh" "$(dirname "$4")/mha-bench" "$WEB_DIR/mha-bench.js" \
            ${WEB_MT:+"$(dirname "$WEB_MT")/mha-bench.js"} 3 5 | sed 's/^/bench /' ||
            echo "bench (tests/bench_web.sh did not finish: not a test)"
    fi
fi
# Size: the page with everything it loads (the lesson library included) under 5.2 MB. (It was 5 MB until the
# lessons of layers: their code and the trained induction lesson, 66 KB of exact weights, took it to 5.07 MB.)
size=$(cat "$DIST/index.html" "$DIST/mha-tracer.js" "$DIST/mha-tracer.wasm" "$DIST/mha-tracer.data" | wc -c)
[ "$size" -lt 5200000 ] || { echo "FAIL the page is $size bytes (at most 5200000)"; exit 1; }
echo "ok   the page is $size bytes with its fonts and the lesson library (under 5.2 MB)"
size=$(cat "$DIST/index.html" "$DIST/mha-tracer-mt.js" "$DIST/mha-tracer-mt.worker.js" "$DIST/mha-tracer-mt.wasm" "$DIST/mha-tracer.data" | wc -c)
[ "$size" -lt 5200000 ] || { echo "FAIL the page with threads is $size bytes (at most 5200000)"; exit 1; }
echo "ok   the page with threads is $size bytes with its fonts and the lesson library (under 5.2 MB)"
PUPPETEER=21.11.0
AXE=4.10.2 # axe-core: the accessibility rules (WCAG 2.0/2.1/2.2 A and AA) run in the page
NODE_DIR=${MHA_CACHE:-/var/cache/mha-tracer}/web-test-node-$PUPPETEER-axe-$AXE
if [ ! -f "$NODE_DIR/node_modules/puppeteer-core/package.json" ] || [ ! -f "$NODE_DIR/node_modules/axe-core/axe.min.js" ]; then
    mkdir -p "$NODE_DIR"
    (cd "$NODE_DIR" && echo '{"private":true}' >package.json &&
        npm install --no-audit --no-fund --silent --save-exact "puppeteer-core@$PUPPETEER" "axe-core@$AXE" >/dev/null)
fi
# The accessibility tree's A_0 at the softmax is checked against the Linux build's --trace --stage (its table
# lines, "|" between them); without the Linux build that check fails as not run.
A0=
if [ $# -ge 4 ]; then
    A0=$("$4" --trace --stage softmax --head 0 "$SRC/lessons/the-cat-sat.json" |
        awk -F'\t' '/^A₀\t/ { f = 1 } f && NF > 1 { printf "%s%s", (n++ ? "|" : ""), $0 } f && NF <= 1 { exit }')
fi
# The panels' numbers in the text view (issue 38, tests/test_web_panels.mjs) against the Linux build's own output
# for the same lessons: the decoding, the tiles of 2, the comparison, the tokens reversed, every head.
PANELS=
if [ $# -ge 4 ]; then
    PANELS=$SHOTS/panels
    mkdir -p "$PANELS"
    "$4" --json --decode "$SRC/lessons/kv-cache-decoding.json" >"$PANELS/panels-decode.json"
    "$4" --json --tiles 2 "$SRC/lessons/flash-tiles.json" >"$PANELS/panels-tiles.json"
    "$4" --compare "$SRC/lessons/the-cat-sat.json" >"$PANELS/panels-compare.txt"
    "$4" --json --shuffle 2,1,0 "$SRC/lessons/the-cat-sat.json" >"$PANELS/panels-shuffle.json"
    "$4" --json "$SRC/lessons/the-cat-sat.json" >"$PANELS/panels-all.json"
fi
# The handout (the Handout button, printed by the browser): the Linux build's PDF handout of head 0 of the cat and of
# llama-rope-gqa, their page counts (pdfinfo) as "lesson:pages ..." (the page must print as many), and the cat's
# answers (--questions).
HANDOUT_PAGES=
HANDOUT_ANSWERS=
if [ $# -ge 4 ] && command -v pdfinfo >/dev/null 2>&1; then
    rm -rf "$SHOTS/handout-pdf"
    for l in the-cat-sat llama-rope-gqa; do
        "$4" --export "$SHOTS/handout-pdf" --what handout "$SRC/lessons/$l.json" >/dev/null ||
            { echo "FAIL the Linux build's handout of $l"; exit 1; }
        HANDOUT_PAGES="$HANDOUT_PAGES $l:$(pdfinfo "$SHOTS/handout-pdf/$l-handout-head0.pdf" | sed -n 's/^Pages: *//p')"
    done
    HANDOUT_ANSWERS=$("$4" --questions "$SRC/lessons/the-cat-sat.json" | sed -n 's/^  \(Answer: .*\)$/\1/p' | paste -sd'|')
elif [ "${MHA_REQUIRE_TOOLS:-}" = 1 ]; then
    echo "FAIL the printed handout: no pdfinfo (poppler-utils)"; exit 1
fi
# The expected colour: viridis at A_0[The, The] = 0.6111, from the program's own colour map.
cc -std=c11 -I"$SRC/src" "$SRC/tests/viridis_at.c" "$SRC/src/render/colormap.c" -lm -o "$SHOTS/viridis_at"
RGB=$("$SHOTS/viridis_at" 0.6111)
# Two servers of DIST on free ports (tools/serve-web.py: each binds port 0 and says which one it got): a plain
# one, and one that sends the headers that make the page cross-origin isolated, where it loads the build with
# threads.
SERVERS=
trap 'kill $SERVERS 2>/dev/null || true' EXIT
serve() { # serve NAME [--plain]: sets PORT
    rm -f "$SHOTS/port-$1"
    python3 -u "$SRC/tools/serve-web.py" --port 0 --bind 127.0.0.1 ${2:-} "$DIST" >"$SHOTS/port-$1" 2>"$SHOTS/server-$1.log" &
    SERVERS="$SERVERS $!"
    while [ ! -s "$SHOTS/port-$1" ]; do
        kill -0 $! 2>/dev/null || { cat "$SHOTS/server-$1.log"; exit 1; }
        sleep 0.1
    done
    PORT=$(head -1 "$SHOTS/port-$1")
}
serve plain --plain
PLAIN_PORT=$PORT
serve isolated
ISOLATED_PORT=$PORT
cp "$SRC/tests/test_web.mjs" "$SRC/tests/test_web_panels.mjs" "$NODE_DIR/" # resolves puppeteer-core from there
MHA_WEB_HANDOUT_PAGES=$HANDOUT_PAGES MHA_WEB_HANDOUT_ANSWERS=$HANDOUT_ANSWERS \
    MHA_AXE=$NODE_DIR/node_modules/axe-core/axe.min.js MHA_WEB_A0=$A0 MHA_WEB_DIST=$DIST MHA_WEB_PANELS=$PANELS \
    MHA_WEB_ISOLATED_URL="http://127.0.0.1:$ISOLATED_PORT/index.html" node "$NODE_DIR/test_web.mjs" "http://127.0.0.1:$PLAIN_PORT/index.html" "$SHOTS" "$RGB" "$SRC/tests/bad/d_k-zero.json" "$SRC/lessons/causal-decoder.json" \
    "$(ls "$SRC"/lessons/*.json | grep -vc "lesson.schema.json")"
