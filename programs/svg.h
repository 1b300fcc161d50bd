/* svg.h -- the one SVG writer of the CLI: verify's heat maps, bars and
 * --swaps sweep, bench's plot.  A file is written to PATH.tmpXXXXXX and
 * renamed when whole, so a failed or interrupted run leaves nothing
 * half-written (pending.h). */
#ifndef FS_SVG_H
#define FS_SVG_H

#include <stdio.h>

/* Opens PATH.tmpXXXXXX; *tmp receives its name (NULL on failure). */
FILE *svg_open(const char *path, char **tmp);
/* Closes f and renames tmp to path; 0, or -1 (tmp removed) on error. */
int svg_close(FILE *f, char *tmp, const char *path);

/* s with < > & " escaped and control characters (but \n, \t) dropped. */
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
