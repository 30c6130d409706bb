#!/bin/sh
# The lists of stages written by hand are checked against the table of stages (STAGE_TABLE in
# src/core/stage_table.h, read by tests/stage_table.sh): --stage's entry in --help (and so the manual page,
# made from the same option rows), the schema's question "stage", docs/lesson-format.md's question stage,
# docs/slides.md's --what board list and web/index.html's address comment each name every stage's key as a
# word, in the table's order ("input", which computes nothing, is no question's stage). A stage added to the
# table fails this until each list names it. The stages only a checkpoint's layer has (MODEL_STAGE_KEYS:
# --model in the window) are no lesson's, so the lists need not name them.
# usage: test_stage_lists.sh SOURCE_DIR MHA_TRACER
src=$1
bin=$2
. "$src/tests/check.sh"
. "$src/tests/stage_table.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
lesson_stage_keys "$src" >"$tmp/keys"
[ "$(wc -l <"$tmp/keys")" -ge 10 ] && ok || bad "tests/stage_table.sh reads $(wc -l <"$tmp/keys") keys from the table"

# in_order WHAT FILE [SKIP]: every key but SKIP is a word of FILE (its first line with it), in the table's order.
in_order() {
    _what=$1 _file=$2 _skip=$3 _last=0 _fine=1
    while read -r _key; do
        [ "$_key" = "$_skip" ] && continue
        # The key's first place as a word: its byte offset in the text joined into one line.
        _at=$(tr '\n' ' ' <"$_file" | awk -v k="$_key" '{
            s = $0; off = 0
            while ((i = index(s, k)) > 0) {
                before = i > 1 ? substr(s, i - 1, 1) : " "; after = substr(s, i + length(k), 1)
                if (before !~ /[a-z_-]/ && after !~ /[a-z_-]/) { print off + i; exit }
                s = substr(s, i + length(k)); off += i + length(k) - 1
            }
            print 0 }')
        if [ "$_at" -eq 0 ]; then bad "$_what does not name the stage \"$_key\""; _fine=0
        elif [ "$_at" -lt "$_last" ]; then bad "$_what names \"$_key\" out of the table's order"; _fine=0
        else _last=$_at; fi
    done <"$tmp/keys"
    [ "$_fine" -eq 1 ] && ok
}

# --help: --stage's entry, from "board:" to the end of the sentence (";").
"$bin" --help >"$tmp/help" 2>&1 && ok || bad "--help failed"
sed -n '/^ *--stage /,/^ *--[a-z]/p' "$tmp/help" | tr '\n' ' ' | sed -n 's/.*board: \([^;]*\);.*/\1/p' >"$tmp/list"
[ -s "$tmp/list" ] && ok || bad "--help's --stage entry has no \"board: ...;\" list"
in_order "--help (--stage)" "$tmp/list"

# The schema's question "stage" and the lesson format's: every stage with a result.
sed -n '/"question": {/,/"head": {/p' "$src/lessons/lesson.schema.json" | grep '"description"' >"$tmp/list"
[ -s "$tmp/list" ] && ok || bad "lessons/lesson.schema.json: no description of a question's stage"
in_order "lessons/lesson.schema.json (question stage)" "$tmp/list" input
grep '^| `stage` |' "$src/docs/lesson-format.md" >"$tmp/list"
[ -s "$tmp/list" ] && ok || bad "docs/lesson-format.md: no row for a question's stage"
in_order "docs/lesson-format.md (question stage)" "$tmp/list" input

# The slides' --what board list and the page's address.
sed -n '/--what board/,/for one slide per stage/p' "$src/docs/slides.md" | sed -n '/takes every stage name/,$p' >"$tmp/list"
[ -s "$tmp/list" ] && ok || bad "docs/slides.md: no list of --what board's stages"
in_order "docs/slides.md (--what board)" "$tmp/list"
sed -n '/The address: #lesson=/,/heads count from 0/p' "$src/web/index.html" >"$tmp/list"
[ -s "$tmp/list" ] && ok || bad "web/index.html: no comment on the address's stage keys"
in_order "web/index.html (the address)" "$tmp/list"
check_done test_stage_lists
