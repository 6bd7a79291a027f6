/* CSV helpers shared by the CSV views (run, summary tables, fleet). */
#ifndef GC_REPORT_CSV_H
#define GC_REPORT_CSV_H

#include <stdio.h>

/* Writes s as one RFC 4180 field: quoted when it holds a comma, a quote or a
 * line break, quotes inside doubled. NULL is the empty field. */
void gc__csv_text(FILE *f, const char *s);

#endif
