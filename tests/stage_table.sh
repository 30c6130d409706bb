# The keys of the table of stages (STAGE_TABLE in src/core/stage_table.h), in its order: the shell tests that
# check the order or the number of stages take them from here, so a stage added to the table changes no test.
# The tests compare them with what the program prints (its list of stages, its file names, its frames), so a
# table this reads wrong fails them.
#   . "$SRC/tests/stage_table.sh"
#   stage_keys SRC                  every row's key, one a line
#   lesson_stage_keys SRC KEY...    the same without the keys given (the stages a lesson lacks) and without the
#                                   stages only a checkpoint's layer has (--model in the window: MODEL_STAGE_KEYS)
#   stage_count SRC KEY...          how many lesson_stage_keys prints
#   last_stage_key SRC KEY...       the last of them (where End goes)
#   stage_file SRC KEY KEY...       "stageNN-KEY" of the first KEY among the lesson's (the second KEY on are
#                                   the stages the lesson lacks), as exported file names number it
stage_keys() {
    sed -n -e 's/^ *STAGE(STAGE_[A-Z_]*, "\([a-z-]*\)".*/\1/p' -e 's/^ *SHOWN(STAGE_[A-Z_]*, "\([a-z-]*\)".*/\1/p' \
        "$1/src/core/stage_table.h"
}
MODEL_STAGE_KEYS="input-norm residual next-token"
lesson_stage_keys() {
    _st_src=$1
    shift
    stage_keys "$_st_src" | while read -r _st_key; do
        _st_skip=
        for _st_absent in $MODEL_STAGE_KEYS "$@"; do [ "$_st_key" = "$_st_absent" ] && _st_skip=1; done
        [ -n "$_st_skip" ] || echo "$_st_key"
    done
}
stage_count() { lesson_stage_keys "$@" | wc -l | tr -d ' '; }
last_stage_key() { lesson_stage_keys "$@" | tail -n 1; }
stage_file() {
    _st_src=$1 _st_want=$2
    shift 2
    lesson_stage_keys "$_st_src" "$@" | awk -v k="$_st_want" '$0 == k { printf "stage%02d-%s\n", NR, k; exit }'
}
