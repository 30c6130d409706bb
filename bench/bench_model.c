// mha-bench --model DIR: a Hugging Face checkpoint (bench/make_checkpoint.py makes full-size random
// ones) timed as the teacher meets it: mha-tracer --model --json from start to its last byte (a
// separate process: wall time and peak memory, printing every number of the layer included), then
// in this process the open, the open to the next token (open and the first forward pass: everything
// a first frame needs, nothing printed), the forward pass on the text (the fastest of reps), and
// the memory beyond the mapped file; NumPy's float64 forward of the same ids (bench/numpy_bench.py
// --model) in the same run, and the ratio.
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE // wait4
#include "bench_model.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hf/hf_model.h"

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

// A field of /proc/self/status in MB (VmHWM: the peak resident set; RssFile: the mapped files'
// pages now resident; RssAnon: the rest), -1 where there is no /proc.
static double status_mb(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[256];
    double kb = -1;
    size_t n = strlen(field);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, field, n) == 0 && line[n] == ':') kb = atof(line + n + 1);
    fclose(f);
    return kb < 0 ? -1 : kb / 1024.0;
}

// mha-tracer --model DIR --text T --json > /dev/null as a child: its wall time and peak resident
// set (MB).
static bool run_tracer(const char *tracer, const char *dir, const char *text, double *seconds,
                       double *peak_mb)
{
    double t0 = now_seconds();
    pid_t pid = fork();
    if (pid < 0) return false;
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) dup2(null, 1);
        execl(tracer, tracer, "--model", dir, "--text", text, "--json", (char *)NULL);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid) return false;
    *seconds = now_seconds() - t0;
    *peak_mb = (double)ru.ru_maxrss / 1024.0;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// bench/numpy_bench.py --model DIR --ids a,b,c: NumPy's seconds for the same forward pass (-1 if it
// failed).
static double numpy_forward(const char *python, const char *script, const char *dir, const int *ids,
                            int n, int reps)
{
    char cmd[4096];
    int k = snprintf(
        cmd, sizeof cmd,
        "env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE '%s' '%s' --model '%s' --reps %d --ids ",
        python, script, dir, reps);
    for (int i = 0; i < n && k < (int)sizeof cmd - 16; i++)
        k += snprintf(cmd + k, sizeof cmd - (size_t)k, "%s%d", i ? "," : "", ids[i]);
    FILE *f = popen(cmd, "r");
    if (!f) return -1;
    char line[2048];
    double secs = -1;
    while (fgets(line, sizeof line, f)) {
        const char *at = strstr(line, "seconds_per_forward=");
        if (at) secs = atof(at + strlen("seconds_per_forward="));
        else if (strncmp(line, "numpy=", 6) == 0) printf("# %s", line);
    }
    return pclose(f) == 0 ? secs : -1;
}

int bench_model(const BenchModelSpec *s)
{
    if (strchr(s->dir, '\'')) {
        fprintf(stderr, "mha-bench: --model: a folder with ' in its name\n");
        return 2;
    }
    double wall = 0, child_peak = 0;
    if (!run_tracer(s->tracer, s->dir, s->text, &wall, &child_peak)) {
        fprintf(stderr, "mha-bench: %s --model %s --text \"%s\" --json failed\n", s->tracer, s->dir,
                s->text);
        return 1;
    }
    HfModel m;
    LessonError err;
    double t0 = now_seconds();
    if (!hf_model_open(&m, s->dir, &err)) {
        fprintf(stderr, "mha-bench: %s: %s\n", err.file, err.message);
        return 1;
    }
    double open_s = now_seconds() - t0, best = 1e30, first = 0;
    HfRun r = {0};
    for (int k = 0; k < s->reps; k++) {
        hf_run_free(&r);
        t0 = now_seconds();
        if (!hf_model_run(&r, &m, s->text, s->layer, &err)) {
            fprintf(stderr, "mha-bench: %s: %s\n", err.file, err.message);
            hf_model_close(&m);
            return 1;
        }
        double dt = now_seconds() - t0;
        if (k == 0) first = dt;
        if (dt < best) best = dt;
    }
    double peak = status_mb("VmHWM"), file = status_mb("RssFile"), anon = status_mb("RssAnon");
    double params = 0;
    for (int i = 0; i < m.ck.count; i++) params += (double)m.ck.tensors[i].count;
    printf("case=model dir=%s layers=%d hidden=%d heads=%d kv_heads=%d params_m=%.1f tokens=%d\n",
           s->dir, m.cfg.layers, m.cfg.hidden, m.cfg.heads, m.cfg.kv_heads, params / 1e6, r.n);
    printf("case=model_json seconds_open_to_output=%.3f peak_rss_mb=%.1f\n", wall, child_peak);
    printf("case=model_open seconds=%.4f\n", open_s);
    printf("case=model_open_to_output seconds=%.3f\n",
           open_s + first); // the first run: the file's pages come in
    printf("case=model_forward tokens=%d seconds_per_forward=%.4f\n", r.n, best);
    printf("case=model_memory peak_rss_mb=%.1f mapped_resident_mb=%.1f beyond_mapping_mb=%.1f "
           "anon_now_mb=%.1f\n",
           peak, file, peak - file, anon);
    fflush(stdout);
    if (s->python) {
        double np = numpy_forward(s->python, s->numpy_script, s->dir, r.ids, r.n, s->numpy_reps);
        if (np > 0)
            printf("case=model_forward mha_seconds=%.4f numpy_seconds=%.4f ratio=%.2f\n", best, np,
                   best / np);
        else printf("# numpy's forward failed\n");
    }
    hf_run_free(&r);
    hf_model_close(&m);
    return 0;
}
