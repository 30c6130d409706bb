// Internal to the RNG: NumPy's 256-layer ziggurat tables for the standard normal
// (ziggurat_tables.c). Numeric constants from NumPy (BSD-3-Clause, see
// LICENSES/numpy-BSD-3-Clause.txt).
#ifndef MHA_ZIGGURAT_TABLES_H
#define MHA_ZIGGURAT_TABLES_H

#include <stdint.h>

extern const uint64_t zig_ki[256]; // integer acceptance thresholds per layer
extern const double zig_wi[256]; // layer widths scaled by 2^-52
extern const double zig_fi[256]; // exp(-x*x/2) at each layer edge
extern const double zig_r; // start of the tail, 3.6541528853610088
extern const double zig_inv_r; // 1/r as NumPy stores it (not computed, to stay bit exact)

#endif
