/* svg.c -- the one SVG writer of the CLI (see svg.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fairshuf.h"
#include "json.h"
#include "pending.h"
#include "svg.h"

FILE *svg_open(const char *path, fs__outfile *o)
{
    fs__outfile_init(o, path, pending_on_temp, NULL);
    int rc = fs__outfile_open(o);
    if (rc != FS_OK) {
        if (rc == FS_ENOMEM)
            errno = ENOMEM;
        return NULL;
    }
    int fd = dup(o->fd); /* stdio closes its own; o keeps one to commit */
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (f == NULL) {
        if (fd >= 0)
            close(fd);
        fs__outfile_abort(o);
    }
    return f;
}

int svg_close(FILE *f, fs__outfile *o)
{
    int bad = ferror(f);
    errno = 0;
    if (fflush(f) != 0)
        bad = 1;
    int err = errno ? errno : EIO; /* a failed flush says why */
    if (fclose(f) != 0 && !bad) {
        bad = 1;
        err = errno;
    }
    if (bad) {
        fs__outfile_abort(o);
        errno = err;
        return -1;
    }
    return fs__outfile_commit(o) == FS_OK ? 0 : -1;
}

void svg_esc(FILE *f, const char *s)
{
    for (; *s; s++) {
        if ((unsigned char)*s >= 0x80) {
            size_t k = utf8_valid_len(s);
            if (k == 0) {
                fputs("\xef\xbf\xbd", f); /* U+FFFD for a stray byte */
            } else {
                fwrite(s, 1, k, f);
                s += k - 1;
            }
            continue;
        }
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default:
            if ((unsigned char)*s >= 0x20 || *s == '\n' || *s == '\t')
                fputc(*s, f);
        }
    }
}

void svg_begin(FILE *f, double w, double h, const char *title, int xml_decl)
{
    svg_begin_class(f, w, h, title, xml_decl, NULL);
}

void svg_begin_class(FILE *f, double w, double h, const char *title,
                     int xml_decl, const char *cls)
{
    if (xml_decl)
        fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" ");
    if (cls)
        fprintf(f, "class=\"%s\" ", cls);
    fprintf(f, "width=\"%g\" height=\"%g\" viewBox=\"0 0 %g %g\" "
               "font-family=\"sans-serif\" font-size=\"12\">\n<title>",
            w, h, w, h);
    svg_esc(f, title);
    fprintf(f, "</title>\n<rect width=\"100%%\" height=\"100%%\" "
               "fill=\"white\"/>\n");
}

void svg_end(FILE *f)
{
    fprintf(f, "</svg>\n");
}

void svg_rect(FILE *f, double x, double y, double w, double h,
              const char *fill, const char *stroke)
{
    fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
               "fill=\"%s\"",
            x, y, w, h, fill);
    if (stroke)
        fprintf(f, " stroke=\"%s\"", stroke);
    fprintf(f, "/>\n");
}

void svg_rect_tip(FILE *f, double x, double y, double w, double h,
                  const char *fill, const char *tip)
{
    fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
               "fill=\"%s\"><title>",
            x, y, w, h, fill);
    svg_esc(f, tip);
    fprintf(f, "</title></rect>\n");
}

void svg_line(FILE *f, double x1, double y1, double x2, double y2,
              const char *stroke, double width, const char *dash)
{
    fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" "
               "stroke=\"%s\" stroke-width=\"%g\"",
            x1, y1, x2, y2, stroke, width);
    if (dash)
        fprintf(f, " stroke-dasharray=\"%s\"", dash);
    fprintf(f, "/>\n");
}

void svg_text(FILE *f, double x, double y, double size, const char *anchor,
              const char *fill, const char *s)
{
    fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"%g\" "
               "text-anchor=\"%s\"",
            x, y, size, anchor);
    if (fill)
        fprintf(f, " fill=\"%s\"", fill);
    fputc('>', f);
    svg_esc(f, s);
    fprintf(f, "</text>\n");
}

void svg_circle(FILE *f, double x, double y, double r, const char *fill)
{
    fprintf(f, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%g\" fill=\"%s\"/>\n", x,
            y, r, fill);
}

void svg_poly_begin(FILE *f, const char *stroke, double width)
{
    fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%g\" "
               "points=\"",
            stroke, width);
}

void svg_poly_point(FILE *f, double x, double y)
{
    fprintf(f, "%.2f,%.2f ", x, y);
}

void svg_poly_end(FILE *f)
{
    fprintf(f, "\"/>\n");
}
