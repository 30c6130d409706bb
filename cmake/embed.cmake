# Turns a file into a C array (lesson_builtin_text) so the built-in lesson needs no file at run time.
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" hexlen)
math(EXPR len "${hexlen} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE ${OUT} "// Generated from lessons/the-cat-sat.json by cmake/embed.cmake. Do not edit.\n#include <stddef.h>\nconst char lesson_builtin_text[] = {${bytes}0x00};\nconst size_t lesson_builtin_len = ${len};\n")
