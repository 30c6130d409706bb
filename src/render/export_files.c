// Slide export, the files: which files are ours (a PNG with our chunk, an SVG as svg.c writes it)
// and may be replaced, and the writing of an export's files all or nothing, checked first, through
// the platform's writer.
#include "render/export_files.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/platform.h"
#include "render/svg.h"
#ifdef MHA_HAVE_HANDOUT
#include "render/pdf.h"
#endif

// The fixed start of every SVG we write (svg.c), up to the first number.
static const char SVG_HEAD[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" SVG_MARK
    "\n<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"";
static const char SVG_TAIL[] = "</svg>\n";
#define TAIL_BYTES 64

// A file of ours, from its first bytes (head, hn: 64 KiB is enough) and its last (tail, tn): a PNG
// of ours (export_png_is_ours), a handout of ours (pdf_is_ours), or an SVG that starts exactly as
// svg.c writes it (declaration, our comment, the svg element) and ends with </svg>. A comment
// alone, or a PNG someone else wrote, is not enough.
static bool is_ours(const unsigned char *head, size_t hn, const unsigned char *tail, size_t tn)
{
    if (export_png_is_ours(head, hn, tail, tn)) return true;
#ifdef MHA_HAVE_HANDOUT
    if (pdf_is_ours(head, hn, tail, tn)) return true;
#endif
    size_t h = sizeof SVG_HEAD - 1, t = sizeof SVG_TAIL - 1;
    return hn >= h && memcmp(head, SVG_HEAD, h) == 0 && tn >= t
           && memcmp(tail + tn - t, SVG_TAIL, t) == 0;
}

bool export_bytes_are_ours(const unsigned char *head, size_t n)
{
    size_t tn = n < TAIL_BYTES ? n : TAIL_BYTES;
    return is_ours(head, n, head + n - tn, tn);
}

static bool read_fully(FILE *f, unsigned char *buf, size_t cap, size_t *got)
{
    *got = fread(buf, 1, cap, f);
    return *got == cap || !ferror(f);
}

// Is the file at path (size bytes; never followed through a link) an export of ours? Its first 64
// KiB and its last bytes.
static bool file_is_ours(const char *path, long long size)
{
    static unsigned char head[65536];
    unsigned char tail[TAIL_BYTES];
    size_t hn = 0, tn = 0;
    FILE *f = platform_fopen_nofollow(path);
    bool read_ok = f && read_fully(f, head, sizeof head, &hn);
    if (read_ok && (long long)hn < size) { // the last bytes, from where they are
        long long at = size > TAIL_BYTES ? size - TAIL_BYTES : 0;
        read_ok = at <= LONG_MAX && fseek(f, (long)at, SEEK_SET) == 0
                  && read_fully(f, tail, sizeof tail, &tn);
    } else if (read_ok) {
        tn = hn < TAIL_BYTES ? hn : TAIL_BYTES;
        memcpy(tail, head + hn - tn, tn);
    }
    if (f) fclose(f);
    return read_ok && is_ours(head, hn, tail, tn);
}

// May path be replaced? Only when it does not exist, or is a regular file exported by us that this
// user may replace. *exists says which.
static bool may_replace(const char *path, const PlatformStat *dir_sb, bool *exists,
                        ExportError *err)
{
    PlatformStat sb;
    *exists = false;
    if (!platform_stat(path, false, &sb)) {
        if (errno == ENOENT) return true;
        export_fail(err, true, "cannot check %s: %s; nothing was written", path, strerror(errno));
        return false;
    }
    *exists = true;
    if (sb.kind != PLATFORM_REGULAR) {
        export_fail(err, true, "%s exists and is not a file; nothing was written", path);
        return false;
    }
    // In a sticky directory (like /tmp) only a file's owner, the directory's owner or root may
    // replace it: the rename would fail after others had been replaced.
    long long me = platform_user();
    if (dir_sb->sticky && me != 0 && sb.owner != me && dir_sb->owner != me) {
        export_fail(
            err, true,
            "%s belongs to another user in a directory where only owners may replace files; "
            "nothing was written",
            path);
        return false;
    }
    if (!file_is_ours(path, sb.size)) {
        export_fail(
            err, true,
            "%s exists and is not an mha-tracer export; it was left alone and nothing was written",
            path);
        return false;
    }
    return true;
}

// The recovery's judge (platform_sets_recover): a plain file at path exported by us.
static bool ours_at(const char *path, void *ctx)
{
    (void)ctx;
    PlatformStat sb;
    return platform_stat(path, false, &sb) && sb.kind == PLATFORM_REGULAR
           && file_is_ours(path, sb.size);
}

struct ExportWriter {
    char dir[EXPORT_PATH_MAX];
    size_t count;
    PlatformWriter
        *files; // the targets dir/names[i], their temporaries and the copies of what they replace
    bool *exists; // [count] a file of ours is at the target: kept until every rename is done
};

static void writer_free(ExportWriter *w)
{
    if (!w) return;
    platform_writer_close(w->files);
    free(w->exists);
    free(w);
}

ExportWriter *export_writer_begin(const char *dir, bool create_dir, const char *const *names,
                                  size_t count, ExportError *err)
{
    PlatformStat sb;
    if (strlen(dir) >= EXPORT_PATH_MAX - 2) {
        export_fail(
            err, true,
            "cannot write to %.200s…: the folder's path is too long (%zu bytes; the limit is %d)",
            dir, strlen(dir), EXPORT_PATH_MAX - 1);
        return NULL;
    }
    if (!platform_stat(dir, true, &sb)) {
        int e = errno;
        if (e == ENOENT && create_dir && platform_mkdir(dir) && platform_stat(dir, true, &sb)) {
            // made it
        } else {
            if (e == ENOENT && create_dir) e = errno;
            export_fail(err, true, "cannot write to %s: %s%s", dir, strerror(e),
                        e == ENOENT ? " (the directory must exist)" : "");
            return NULL;
        }
    } else if (sb.kind != PLATFORM_DIRECTORY) {
        export_fail(err, true, "cannot write to %s: not a directory", dir);
        return NULL;
    }
    // A set that an export killed midway switched to is finished first (or put back): the targets
    // are then as that export left them, a whole set, when they are checked below.
    platform_sets_recover(dir, ours_at, NULL);
    ExportWriter *w = calloc(1, sizeof *w);
    if (!w || !(w->exists = calloc(count ? count : 1, sizeof *w->exists))
        || !(w->files = platform_writer_begin(dir, names, count))) {
        writer_free(w);
        export_fail(err, true, "out of memory");
        return NULL;
    }
    snprintf(w->dir, sizeof w->dir, "%s", dir);
    w->count = count;
    for (size_t i = 0; i < count; i++) {
        // The longest temporary (the last try's) must fit as a name and as a path, like the target
        // itself.
        char tmp_name[EXPORT_NAME_MAX + 64], path[EXPORT_PATH_MAX];
        bool fits = platform_temporary_name(tmp_name, sizeof tmp_name, names[i], "tmp",
                                            PLATFORM_TEMPORARY_TRIES - 1)
                    && strlen(tmp_name) <= EXPORT_NAME_MAX
                    && platform_path_join(path, sizeof path, dir, names[i])
                    && platform_path_join(path, sizeof path, dir, tmp_name);
        if (!fits) {
            export_fail(
                err, true,
                "cannot write %.200s… in %.200s…: the path is too long (file names up to %d bytes, "
                "paths up to %d); nothing was written",
                names[i], dir, EXPORT_NAME_MAX - 20, EXPORT_PATH_MAX - 1);
            writer_free(w);
            return NULL;
        }
        if (!may_replace(platform_writer_path(w->files, i), &sb, &w->exists[i], err)) {
            writer_free(w);
            return NULL;
        }
    }
    return w;
}

bool export_writer_add(ExportWriter *w, size_t i, const unsigned char *data, size_t size,
                       ExportError *err)
{
    if (i >= w->count || platform_writer_temporary(w->files, i)) {
        export_fail(err, false, "file %zu written twice", i);
        return false;
    }
    PlatformWriteFailure f;
    if (platform_writer_add(w->files, i, data, size, &f)) return true;
    if (f.step == PLATFORM_WRITE_CREATE)
        export_fail(err, true, "cannot write in %s: %s; nothing was written", w->dir,
                    strerror(f.error));
    else
        export_fail(err, true, "cannot write %s: %s; nothing was written",
                    platform_writer_path(w->files, i), strerror(f.error));
    return false;
}

void export_writer_abort(ExportWriter *w) { writer_free(w); }

bool export_writer_commit(ExportWriter *w, ExportError *err)
{
    for (size_t i = 0; i < w->count; i++)
        if (!platform_writer_temporary(w->files, i)) {
            export_fail(err, false, "%s was never written", platform_writer_path(w->files, i));
            writer_free(w);
            return false;
        }
    PlatformWriteFailure f;
    bool ok = platform_writer_commit(w->files, w->exists, &f);
    if (!ok && f.step == PLATFORM_WRITE_JOURNAL)
        export_fail(err, true, "cannot write in %s: %s; nothing was written", w->dir,
                    strerror(f.error));
    else if (!ok && f.step == PLATFORM_WRITE_KEEP)
        export_fail(err, true, "cannot replace %s: %s; nothing was written",
                    platform_writer_path(w->files, f.index), strerror(f.error));
    else if (!ok)
        export_fail(
            err, true,
            "cannot write %s: %s; nothing was written (the files already replaced were put back)",
            platform_writer_path(w->files, f.index), strerror(f.error));
    writer_free(w);
    return ok;
}

bool export_write_files(const char *dir, bool create_dir, const ExportFile *files, size_t count,
                        ExportError *err)
{
    const char **names = calloc(count ? count : 1, sizeof *names);
    if (!names) {
        export_fail(err, true, "out of memory");
        return false;
    }
    for (size_t i = 0; i < count; i++) names[i] = files[i].name;
    ExportWriter *w = export_writer_begin(dir, create_dir, names, count, err);
    free(names);
    if (!w) return false;
    for (size_t i = 0; i < count; i++)
        if (!export_writer_add(w, i, files[i].data, files[i].size, err)) {
            export_writer_abort(w);
            return false;
        }
    return export_writer_commit(w, err);
}

// --- the size of an export, before it is written ---

// Per element, more than svg.c writes: a cell's rect with its data attributes (about 130 bytes), a
// line, a frame; a text's element (about 200) and its characters, each at most 6 bytes escaped; a
// hatch, a line every few pixels across its box.
#define SVG_RECT_BYTES 192.0
#define SVG_TEXT_BYTES 320.0
#define SVG_HATCH_LINE_BYTES 96.0

double export_svg_estimate(const Scene *s, size_t title_len)
{
    double bytes =
        512.0 + 6.0 * (double)title_len; // the declaration, our mark, the svg element, the title
    for (size_t i = 0; i < s->count; i++) {
        const DrawCmd *c = &s->cmds[i];
        if (c->kind == CMD_TEXT) bytes += SVG_TEXT_BYTES + 6.0 * (double)strlen(scene_text(s, c));
        else if (c->kind == CMD_HATCH)
            bytes += SVG_HATCH_LINE_BYTES * ((double)c->w + (double)c->h + 2.0);
        else bytes += SVG_RECT_BYTES;
    }
    return bytes;
}

// bytes as a person reads them: "864 MB", "5.4 GB" (decimal units, like a file manager's).
static const char *bytes_text(double bytes, char *buf, size_t cap)
{
    if (bytes >= 1e9) snprintf(buf, cap, "%.1f GB", bytes / 1e9);
    else snprintf(buf, cap, "%.0f MB", bytes / 1e6);
    return buf;
}

bool export_svg_budget(double bytes, const char *name, double *total, double *largest,
                       char *largest_name, size_t cap, ExportError *err)
{
    *total += bytes;
    if (bytes > *largest) {
        *largest = bytes;
        snprintf(largest_name, cap, "%s", name);
    }
    if (*total <= EXPORT_MAX_SVG_BYTES && *largest <= EXPORT_MAX_SVG_FILE_BYTES) return true;
    char a[32], b[32], one[32], all[32];
    bytes_text(EXPORT_MAX_SVG_FILE_BYTES, one, sizeof one);
    bytes_text(EXPORT_MAX_SVG_BYTES, all, sizeof all);
    if (*largest > EXPORT_MAX_SVG_FILE_BYTES)
        export_fail(err, false,
                    "%s.svg would be about %s of SVG (an element for every cell), above the cap of "
                    "%s for one SVG (%s "
                    "for an export): export it as PNG (--format png) or fewer stages (--stage); "
                    "nothing was written",
                    largest_name, bytes_text(*largest, a, sizeof a), one, all);
    else
        export_fail(err, false,
                    "the SVGs would be about %s so far (the largest %s.svg, %s), above the cap of "
                    "%s for an export (%s "
                    "for one SVG): export them as PNG (--format png) or fewer stages (--stage); "
                    "nothing was written",
                    bytes_text(*total, a, sizeof a), largest_name,
                    bytes_text(*largest, b, sizeof b), all, one);
    return false;
}
