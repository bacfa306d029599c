/*
 * report_png.h - `gpuwatch report --png DIR`: the report's charts (the HTML
 * page's) drawn as PNG files in DIR through chart/chart_png.c.
 *
 * Ownership: everything is borrowed. Threading: one thread.
 */
#ifndef GW_CMD_REPORT_PNG_H
#define GW_CMD_REPORT_PNG_H

#include "analysis/report.h"

/*
 * Make r->png_dir (and its missing parents) and write each chart there
 * (gw_report_chart_file names them). Errors go to err ("--png DIR: ...");
 * GW_ENOTSUP when the build has no PNG support, GW_ENOLIB without cairo.
 */
int gw_report_png_write(const struct gw_report *r, struct gw_err *err);

#endif
