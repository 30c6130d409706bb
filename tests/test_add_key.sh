#!/bin/sh
# "How to add a key" (docs/architecture.md), checked: docs/add-a-key.patch (I: the class starts again at the
# first stage, head 0, the board fit) touches at most 2 source files (the table's rows in src/model/keys.def,
# the action in src/model/view_keys.c) and besides them only docs and the catalogues, no test; it applies to a
# copy of the sources; tests/test_keys_doc.py passes on the copy (the key in the help's lines and in both
# tables of docs/keys.md, the "At a glance" one as the table makes it); and a program built on the copy's model
# (without the window) finds VIEW_KEY_I, presses it on a view moved away (a later stage, another head, zoomed,
# a panel open) and gets the first stage, head 0, one head, the board fit and nothing open, and finds the key's
# line among the help's (view_help_text).
# usage: test_add_key.sh SOURCE_DIR [CMAKE [C_COMPILER]]
# Exit 77 (skipped) without python3, or without both git and patch.
src=$1
cmake=${2:-cmake}
cc=$3
. "$src/tests/check.sh"
patchfile=$src/docs/add-a-key.patch
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

py=
for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1; then py=$p; break; fi
done
. "$(dirname "$0")/require.sh"
[ -n "$py" ] || missing_tool "python3 (Debian: python3)"
if command -v git >/dev/null 2>&1; then
    GIT_CEILING_DIRECTORIES=$tmp # the copy is no repository's subdirectory, even under a TMPDIR in one
    export GIT_CEILING_DIRECTORIES
    patch_check() { git apply --check "$1"; }
    patch_apply() { git apply "$1"; }
elif command -v patch >/dev/null 2>&1; then
    patch_check() { patch -p1 -s -N --dry-run <"$1"; }
    patch_apply() { patch -p1 -s -N <"$1"; }
else missing_tool "git or patch (Debian: git)"; fi
[ -f "$patchfile" ] || { echo "FAIL: no $patchfile"; exit 1; }

# The files it touches: at most 2 under src/ (the rows, the action), else only docs/ and po/.
sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' "$patchfile" | sort >"$tmp/touched"
nsrc=$(grep -c '^src/' "$tmp/touched")
[ "$nsrc" -le 2 ] && ok || bad "the patch touches $nsrc source files (at most 2): $(tr '\n' ' ' <"$tmp/touched")"
grep -qx 'src/model/keys.def' "$tmp/touched" && ok || bad "the patch does not add rows to src/model/keys.def"
others=$(grep -v -e '^src/' -e '^docs/' -e '^po/' "$tmp/touched")
[ -z "$others" ] && ok || bad "the patch touches $others (only sources, docs and the catalogues)"
echo "the patch: $(wc -l <"$tmp/touched" | tr -d ' ') files, $nsrc of them sources ($(tr '\n' ' ' <"$tmp/touched"))"
# The recipe in docs/architecture.md names the files.
sed -n '/^### How to add a key/,/^##* [^H]/p' "$src/docs/architecture.md" >"$tmp/recipe"
[ -s "$tmp/recipe" ] && ok || bad "docs/architecture.md has no \"### How to add a key\""
for f in $(grep '^src/' "$tmp/touched"); do
    grep -qF "$f" "$tmp/recipe" && ok || bad "the recipe in docs/architecture.md does not name $f"
done

# A copy of the sources (no build directory, no .git), the patch applied.
mkdir "$tmp/tree"
for f in "$src"/*; do
    [ -f "$f/CMakeCache.txt" ] && continue # a build directory
    cp -R "$f" "$tmp/tree/" || bad "copying $f"
done
if (cd "$tmp/tree" && patch_check "$patchfile" && patch_apply "$patchfile") >"$tmp/apply.log" 2>&1; then ok
else bad "the patch does not apply: $(head -c 600 "$tmp/apply.log")"; check_done test_add_key; fi
grep -q '^KEY(I,' "$tmp/tree/src/model/keys.def" && ok || bad "the copy has no KEY(I, ...) row after the patch"

# The docs: the key in the help's lines and both tables of docs/keys.md, the made one as the table gives it.
"$py" "$tmp/tree/tests/test_keys_doc.py" "$tmp/tree" >"$tmp/doc.log" 2>&1 && ok ||
    bad "test_keys_doc on the copy: $(grep FAIL "$tmp/doc.log")"
sed -n '/<!-- keys: begin/,/<!-- keys: end/p' "$tmp/tree/docs/keys.md" | grep -q '^| I | start again' && ok ||
    bad "docs/keys.md's \"At a glance\" has no line for I"

# A program on the copy's model (no window): the key does what its row says, and the help has its line.
cat >"$tmp/tree/key_probe.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include "model/view.h"

int main(void)
{
    ViewDims dims = {.n = 3, .m = 3, .d_model = 4, .heads = 2, .d_k = 2};
    ViewState s;
    view_init(&s, &dims);
    ViewEvent ev = {.kind = VIEW_EV_KEY, .head = -1};
    ViewKey moves[] = {VIEW_KEY_END, VIEW_KEY_TAB, VIEW_KEY_PLUS, VIEW_KEY_K};
    for (size_t i = 0; i < sizeof moves / sizeof moves[0]; i++) {
        ev.key = moves[i];
        view_handle(&s, &ev);
    }
    if (s.stage_index == 0 || s.head != 1 || s.zoom <= 1.0 || s.panel != PANEL_COST) {
        printf("FAIL: the view did not move away (stage %d, head %d, zoom %g, panel %d)\n",
               s.stage_index, s.head, s.zoom, (int)s.panel);
        return 1;
    }
    ev.key = VIEW_KEY_I;
    bool changed = view_handle(&s, &ev);
    if (!changed || s.stage_index != 0 || s.head != 0 || s.view != VIEW_ONE_HEAD || s.zoom != 1.0
        || s.panel != PANEL_NONE) {
        printf("FAIL: I gave stage %d, head %d, view %d, zoom %g, panel %d (changed %d)\n",
               s.stage_index, s.head, (int)s.view, s.zoom, (int)s.panel, (int)changed);
        return 1;
    }
    for (int i = 0; i < VIEW_HELP_ROWS; i++)
        if (strcmp(view_help_text(i, 0), "I") == 0) {
            printf("I: back to the first stage, head 0, the board fit; help line %d: %s\n", i,
                   view_help_text(i, 1));
            return 0;
        }
    printf("FAIL: no help line for I\n");
    return 1;
}
EOF
printf '\nadd_executable(key_probe key_probe.c)\ntarget_link_libraries(key_probe mha_model)\n' >>"$tmp/tree/CMakeLists.txt"
"$cmake" -S "$tmp/tree" -B "$tmp/build" -DMHA_GUI=OFF -DCMAKE_BUILD_TYPE=Release ${cc:+-DCMAKE_C_COMPILER="$cc"} \
    >"$tmp/cmake.log" 2>&1 && ok || { bad "configure: $(tail -c 800 "$tmp/cmake.log")"; check_done test_add_key; }
"$cmake" --build "$tmp/build" --target key_probe -j2 >"$tmp/build.log" 2>&1 && ok ||
    { bad "build: $(grep -m5 -i 'error' "$tmp/build.log")"; check_done test_add_key; }
probe=$(find "$tmp/build" -name 'key_probe' -type f | head -n 1)
"$probe" && ok || bad "the key on the copy (above)"
check_done test_add_key
