/* Pieces of the HTML pages (report/html.c) that other pages share: the
 * page frame with its style sheet, escaping and inlined SVG figures. */
#ifndef GC_REPORT_HTML_H
#define GC_REPORT_HTML_H

#include <stdio.h>

/* Writes s with &, <, >, " and ' escaped. */
void gc__html_esc(FILE *f, const char *s);

/* The page up to the start of <main>: head, style, title and subtitle. */
void gc__html_page_start(FILE *f, const char *title, const char *subtitle);

/* The footer line and the end of the page. */
void gc__html_page_end(FILE *f, const char *footer);

/* Copies gnuplot's SVG file into the page with its ids prefixed by figure
 * number idx. GC_EIO when the file cannot be read. */
int gc__html_embed_svg(FILE *out, const char *svg_path, int idx, const char *title);

#endif
