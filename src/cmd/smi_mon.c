#include "cmd/smi_mon.h"

#include <string.h>

/* Column ids are the index in the table; dmon.c / pmon.c switch on them. */
static const struct gw_mon_col dmon_cols[] = {
	{'p', "pwr", "W", 0},      {'p', "gtemp", "C", 1},     {'p', "mtemp", "C", 2},
	{'u', "sm", "%", 3},       {'u', "mem", "%", 4},       {'u', "enc", "%", 5},
	{'u', "dec", "%", 6},      {'u', "jpg", "%", 7},       {'u', "ofa", "%", 8},
	{'c', "mclk", "MHz", 9},   {'c', "pclk", "MHz", 10},   {'v', "pviol", "%", 11},
	{'v', "tviol", "bool", 12}, {'m', "fb", "MB", 13},     {'m', "bar1", "MB", 14},
	{'m', "ccpm", "MB", 15},   {'e', "sbecc", "errs", 16}, {'e', "dbecc", "errs", 17},
	{'e', "pci", "errs", 18},  {'t', "rxpci", "MB/s", 19}, {'t', "txpci", "MB/s", 20},
};

/* pmon prints memory before utilisation whatever order -s gives. */
static const struct gw_mon_col pmon_cols[] = {
	{'m', "fb", "MB", 0},  {'m', "ccpm", "MB", 1}, {'u', "sm", "%", 2},  {'u', "mem", "%", 3},
	{'u', "enc", "%", 4},  {'u', "dec", "%", 5},   {'u', "jpg", "%", 6}, {'u', "ofa", "%", 7},
};

const struct gw_mon_col *gw_dmon_cols(size_t *n)
{
	*n = sizeof(dmon_cols) / sizeof(dmon_cols[0]);
	return dmon_cols;
}

const struct gw_mon_col *gw_pmon_cols(size_t *n)
{
	*n = sizeof(pmon_cols) / sizeof(pmon_cols[0]);
	return pmon_cols;
}

static bool known_group(const struct gw_mon_col *t, size_t n, char g)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].group == g)
			return true;
	return false;
}

int gw_mon_select(const struct gw_mon_col *t, size_t n, const char *letters, bool in_given_order,
		  const struct gw_mon_col **out, size_t *nout, char *bad)
{
	*nout = 0;
	for (const char *p = letters; *p; p++) {
		if (!known_group(t, n, *p)) {
			*bad = *p;
			return -1;
		}
	}
	if (in_given_order) {
		for (const char *p = letters; *p; p++) {
			if (strchr(letters, *p) != p) /* a letter given twice selects once */
				continue;
			for (size_t i = 0; i < n && *nout < GW_MON_MAX_COLS; i++)
				if (t[i].group == *p)
					out[(*nout)++] = &t[i];
		}
	} else {
		for (size_t i = 0; i < n && *nout < GW_MON_MAX_COLS; i++)
			if (strchr(letters, t[i].group))
				out[(*nout)++] = &t[i];
	}
	return 0;
}

int gw_mon_parse_options(const char *s, struct gw_mon_opts *o)
{
	for (; *s; s++) {
		if (*s == 'D')
			o->date = true;
		else if (*s == 'T')
			o->time = true;
		else
			return -1;
	}
	return 0;
}

/* Leading '#' or ' ', then date and time columns of 12 (text) or none (CSV). */
static void prefix(FILE *out, const struct gw_mon_opts *o, char lead, const char *date, const char *tim)
{
	if (o->csv) {
		if (lead == '#')
			fputc('#', out);
		if (o->date)
			fprintf(out, "%s, ", date);
		if (o->time)
			fprintf(out, "%s, ", tim);
		return;
	}
	fputc(lead, out);
	if (o->date)
		fprintf(out, "%-12s", date);
	if (o->time)
		fprintf(out, "%-12s", tim);
}

static void stamp(const struct tm *now, char *date, size_t dn, char *tim, size_t tn)
{
	if (!now || strftime(date, dn, "%Y%m%d", now) == 0)
		snprintf(date, dn, "-");
	if (!now || strftime(tim, tn, "%H:%M:%S", now) == 0)
		snprintf(tim, tn, "-");
}

void gw_dmon_header(FILE *out, const struct gw_mon_opts *o, const struct gw_mon_col *const *cols, size_t n)
{
	if (o->csv && o->noheader)
		return;
	for (int line = 0; line < 2; line++) {
		if (line == 1 && o->csv && o->nounits)
			break;
		prefix(out, o, '#', line ? "YYYYMMDD" : "Date", line ? "HH:MM:SS" : "Time");
		const char *first = line ? "Idx" : "gpu";
		fprintf(out, o->csv ? "%s" : "%4s", first);
		for (size_t i = 0; i < n; i++) {
			const char *s = line ? cols[i]->unit : cols[i]->name;
			fprintf(out, o->csv ? ", %s" : "%7s", s);
		}
		fputs(o->csv ? "\n" : " \n", out);
	}
}

void gw_dmon_row(FILE *out, const struct gw_mon_opts *o, const struct tm *now, unsigned int gpu,
		 const char (*cells)[GW_MON_CELL], size_t n)
{
	char date[16], tim[16];
	stamp(now, date, sizeof(date), tim, sizeof(tim));
	prefix(out, o, ' ', date, tim);
	fprintf(out, o->csv ? "%u" : "%4u", gpu);
	for (size_t i = 0; i < n; i++)
		fprintf(out, o->csv ? ", %s" : "%7s", cells[i]);
	fputs(o->csv ? "\n" : " \n", out);
}

void gw_pmon_header(FILE *out, const struct gw_mon_opts *o, const struct gw_mon_col *const *cols, size_t n)
{
	if (o->csv && o->noheader)
		return;
	for (int line = 0; line < 2; line++) {
		if (line == 1 && o->csv && o->nounits)
			break;
		prefix(out, o, '#', line ? "YYYYMMDD" : "Date", line ? "HH:MM:SS" : "Time");
		if (o->csv)
			fprintf(out, "%s, %s, %s", line ? "Idx" : "gpu", line ? "#" : "pid", line ? "C/G" : "type");
		else
			fprintf(out, "%4s%12s%7s", line ? "Idx" : "gpu", line ? "#" : "pid", line ? "C/G" : "type");
		for (size_t i = 0; i < n; i++)
			fprintf(out, o->csv ? ", %s" : "%7s", line ? cols[i]->unit : cols[i]->name);
		if (o->csv)
			fprintf(out, ", %s\n", line ? "name" : "command");
		else
			fprintf(out, "    %s \n", line ? "name" : "command");
	}
}

void gw_pmon_row(FILE *out, const struct gw_mon_opts *o, const struct tm *now, unsigned int gpu,
		 const unsigned int *pid, const char *type, const char (*cells)[GW_MON_CELL], size_t n,
		 const char *name)
{
	char date[16], tim[16], pidbuf[16];
	stamp(now, date, sizeof(date), tim, sizeof(tim));
	prefix(out, o, ' ', date, tim);
	if (pid)
		snprintf(pidbuf, sizeof(pidbuf), "%u", *pid);
	else
		snprintf(pidbuf, sizeof(pidbuf), "-");
	const char *base = pid && name && *name ? strrchr(name, '/') : NULL;
	const char *cmd = !pid || !name || !*name ? "-" : base ? base + 1 : name;
	if (o->csv) {
		fprintf(out, "%u, %s, %s", gpu, pidbuf, pid ? type : "-");
		for (size_t i = 0; i < n; i++)
			fprintf(out, ", %s", pid ? cells[i] : "-");
		fprintf(out, ", %s\n", cmd);
		return;
	}
	fprintf(out, "%4u%11s%6s", gpu, pidbuf, pid ? type : "-");
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%7s", pid ? cells[i] : "-");
	/* the command column is 15 wide and cut, not widened */
	fprintf(out, "    %-15.15s\n", cmd);
}
