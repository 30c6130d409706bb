// core_exp and core_log1p: the same bits everywhere. Fixed values (glibc's on x86-64 with FMA,
// including inputs where that differs from the correctly rounded result) checked on every platform;
// on glibc x86-64 with FMA, 10^6 random inputs per range against libm itself, bit for bit, and the
// count printed.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "core/exactmath.h"

static uint64_t bits(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

int main(void)
{
    // {x, glibc's exp(x)}: the first three are inputs where glibc is not correctly rounded.
    static const double EXP[][2] = {
        {-0x1.551f25bd8affp+2, 0x1.3d73e387364d5p-8},
        {-0x1.6f21001c20fp-1, 0x1.f3e85468ead2fp-2},
        {-0x1.0267ad79b8041p-10, 0x1.ff7edc7536694p-1},
        {-0x1.3c520de11281ap+9, 0x1.39685bb12e2dap-913},
        {-0x1.62a90ad70d845p+9, 0x0.65973c91fedfp-1022},
        {0x1.5df180343e282p+9, 0x1.a6967a19f081ap+1009},
        {0.0, 1.0},
        {1.0, 0x1.5bf0a8b145769p+1},
        {-746.0, 0.0},
        {710.0, INFINITY},
    };
    for (size_t i = 0; i < sizeof EXP / sizeof EXP[0]; i++)
        CHECK(bits(core_exp(EXP[i][0])) == bits(EXP[i][1]), "exp(%a) = %a, not %a", EXP[i][0],
              core_exp(EXP[i][0]), EXP[i][1]);
    // {x, glibc's log1p(x)}: the first three are inputs where glibc is not correctly rounded.
    static const double LOG1P[][2] = {
        {-0x1.7351782332de3p-1, -0x1.4ab4ff5bdc60ep+0},
        {-0x1.53ce7f185685ep-2, -0x1.9ce8a5027224fp-2},
        {0x1.f1d9e7df0a6f9p+1, 0x1.964b07bbf7654p+0},
        {0.0, 0.0},
        {-1.0, -INFINITY},
    };
    for (size_t i = 0; i < sizeof LOG1P / sizeof LOG1P[0]; i++)
        CHECK(bits(core_log1p(LOG1P[i][0])) == bits(LOG1P[i][1]), "log1p(%a) = %a, not %a",
              LOG1P[i][0], core_log1p(LOG1P[i][0]), LOG1P[i][1]);
    CHECK(isnan(core_exp(NAN)) && isnan(core_log1p(-2.0)), "NaN");
    // pow, sin, cos: glibc's values, also where they are not correctly rounded.
    CHECK(bits(core_pow(10000.0, 0x1.8cp-1)) == bits(0x1.363c0445ac06ep+10),
          "pow(10000, 0x1.8cp-1)");
    CHECK(bits(core_sin(0x1.db4c7760bcff5p-2)) == bits(0x1.ca6a3929f6b9cp-2),
          "sin(0x1.db4c7760bcff5p-2)");
    CHECK(bits(core_cos(200.0)) == bits(0x1.f2e1536cad6e8p-2), "cos(200) = %a", core_cos(200.0));
    CHECK(core_sin(0.0) == 0.0 && core_cos(0.0) == 1.0 && core_pow(10000.0, 0.0) == 1.0,
          "sin 0, cos 0, x^0");

#if defined(__GLIBC__) && defined(__x86_64__) && defined(__GNUC__)
    uint64_t state = UINT64_C(88172645463325252); // xorshift64
#define uniform()                                                                                  \
    (state ^= state << 13, state ^= state >> 7, state ^= state << 17,                              \
     (double)(state >> 11) * 0x1p-53)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2")) {
        // glibc's exp and log1p as they run on this machine (its FMA build): every bit the same.
        static const struct {
            const char *name;
            double lo, hi;
            int f;
        } RANGE[] = {
            {"exp on [-746, 0] (softmax)", -746, 0, 0},
            {"exp on [-709, 709]", -709, 709, 0},
            {"exp(-x^2/2), x in [0, 3.66] (ziggurat)", 0, 3.66, 1},
            {"exp on [-745.2, -708] (subnormal)", -745.2, -708, 0},
            {"log1p(-u), u in [0, 1) (ziggurat tail)", -1, 0, 2},
            {"log1p on [-0.999, 100]", -0.999, 100, 2},
        };
        const long n = 1000000;
        for (size_t r = 0; r < sizeof RANGE / sizeof RANGE[0]; r++) {
            long differ = 0;
            for (long i = 0; i < n; i++) {
                double x = RANGE[r].lo + (RANGE[r].hi - RANGE[r].lo) * uniform();
                if (RANGE[r].f == 1) x = -0.5 * x * x;
                double ours = RANGE[r].f == 2 ? core_log1p(x) : core_exp(x);
                double libm = RANGE[r].f == 2 ? log1p(x) : exp(x);
                if (bits(ours) != bits(libm)) {
                    if (differ < 3) fprintf(stderr, "  x = %a: ours %a, glibc %a\n", x, ours, libm);
                    differ++;
                }
            }
            printf("%-42s %ld of %ld differ from glibc\n", RANGE[r].name, differ, n);
            CHECK(differ == 0, "%s: %ld differ", RANGE[r].name, differ);
        }
        // pow, sin and cos on the sinusoidal positions' inputs pos / 10000^(2i/d), on 10^6 angles
        // up to 2000 and on 10^6 powers x^y, x in (0.01, 100), y in (-5, 5): every bit glibc's.
        long np = 0, dp = 0, ns = 0, dsin = 0, dcos = 0;
        for (int d = 2; d <= 1024; d *= 2)
            for (int i = 0; 2 * i < d; i++) {
                double y = (double)(2 * i) / (double)d, p = pow(10000.0, y);
                np++;
                dp += bits(p) != bits(core_pow(10000.0, y));
                for (int pos = 0; pos < 512; pos++) {
                    double a = (double)pos / p;
                    ns++;
                    dsin += bits(sin(a)) != bits(core_sin(a));
                    dcos += bits(cos(a)) != bits(core_cos(a));
                }
            }
        for (long i = 0; i < n; i++) {
            double a = (uniform() - 0.5) * 4000.0;
            ns++;
            dsin += bits(sin(a)) != bits(core_sin(a));
            dcos += bits(cos(a)) != bits(core_cos(a));
        }
        for (long i = 0; i < n; i++) {
            double x = 0.01 + 100.0 * uniform(), y = (uniform() - 0.5) * 10.0;
            np++;
            dp += bits(pow(x, y)) != bits(core_pow(x, y));
        }
        printf("sin %ld of %ld, cos %ld of %ld, pow %ld of %ld differ from glibc\n", dsin, ns, dcos,
               ns, dp, np);
        CHECK(dsin == 0 && dcos == 0 && dp == 0, "sin, cos, pow: %ld, %ld, %ld differ", dsin, dcos,
              dp);
    } else printf("no FMA: glibc runs its other build; only the fixed values were checked\n");
#endif
    return check_report("test_exactmath");
}
