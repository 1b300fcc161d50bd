/* svg.h -- the one SVG writer of the CLI: verify's heat maps, bars and
 * --swaps sweep, its HTML report, bench's plot.  Files are written by
 * lib/outfile.h's rules, as `lines -o`: a regular file is replaced only
 * when whole (a new file beside it, renamed over it), so a failed or
 * interrupted run leaves nothing half-written (pending.h); a symbolic link
 * is followed; a device or FIFO is written in place, never replaced. */
#ifndef FS_SVG_H
#define FS_SVG_H

#include <stdio.h>

#include "outfile.h"

/* Opens path for writing (o is the caller's); NULL with errno set. */
FILE *svg_open(const char *path, fs__outfile *o);
/* Closes f and puts the file in place; 0, or -1 with errno set (the new
 * file removed, path as it was). */
int svg_close(FILE *f, fs__outfile *o);

/* s with < > & " escaped, control characters (but \n, \t) dropped and a
 * byte that is not valid UTF-8 written as U+FFFD: valid XML text. */
void svg_esc(FILE *f, const char *s);
/* <svg> of w x h with a <title> and a white background; xml_decl: also
 * the <?xml?> line (a standalone file, not inline in HTML). */
void svg_begin(FILE *f, double w, double h, const char *title, int xml_decl);
/* svg_begin with a class attribute (cls not NULL), for inline pictures. */
void svg_begin_class(FILE *f, double w, double h, const char *title,
                     int xml_decl, const char *cls);
void svg_end(FILE *f);
/* stroke: NULL for none. */
void svg_rect(FILE *f, double x, double y, double w, double h,
              const char *fill, const char *stroke);
/* A filled rect with a tooltip (its <title>, escaped). */
void svg_rect_tip(FILE *f, double x, double y, double w, double h,
                  const char *fill, const char *tip);
/* dash: NULL for a solid line, else a stroke-dasharray ("4 3"). */
void svg_line(FILE *f, double x1, double y1, double x2, double y2,
              const char *stroke, double width, const char *dash);
/* anchor: "start", "middle" or "end"; fill NULL: black; s escaped. */
void svg_text(FILE *f, double x, double y, double size, const char *anchor,
              const char *fill, const char *s);
void svg_circle(FILE *f, double x, double y, double r, const char *fill);
/* A polyline: begin, one point per call, end. */
void svg_poly_begin(FILE *f, const char *stroke, double width);
void svg_poly_point(FILE *f, double x, double y);
void svg_poly_end(FILE *f);

#endif
