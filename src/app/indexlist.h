// Comma-separated lists of indices on the command line: --shuffle's reordering of the tokens,
// --ablate's heads and --cell's pair, read against a lesson's sizes with a message saying what was
// wrong.
#ifndef MHA_INDEXLIST_H
#define MHA_INDEXLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// Reads "2,0,1" into perm (n entries): a permutation of 0..n-1. False with a message in msg
// otherwise.
bool indexlist_parse_permutation(const char *text, int n, int *perm, char *msg, size_t cap);
// Reads "0,2" into a set of heads (bits) of a lesson with `heads` heads. False with a message
// otherwise.
bool indexlist_parse_heads(const char *text, int heads, uint64_t *set, char *msg, size_t cap);
// Reads "ROW,COL" (--cell): exactly two whole numbers from 0 to 1000000, digits only (no sign, no
// space, nothing that wraps). False otherwise.
bool indexlist_parse_pair(const char *text, int *row, int *col);

#endif
