// --check FILE...: lessons checked without the window (cli_check.c).
#ifndef MHA_CLI_CHECK_H
#define MHA_CLI_CHECK_H

// --check: every independent error of each file with its line:column and field, then the count;
// warnings (which leave the file valid) from the lesson and from its numbers. A file named like
// lesson.schema.json is skipped when it is a JSON Schema. Returns the exit status: 2 when a file is
// invalid, else 1 when one cannot be read or standard output cannot be written, else 0.
int cli_check_files(char **paths, int count);

#endif
