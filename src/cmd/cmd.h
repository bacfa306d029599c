/*
 * cmd.h - what every command gets from main() and the helpers they share.
 *
 * main.c parses the global options (--sim, --help, --version) and hands the
 * rest of argv to one command from its table. Commands alone print to the
 * user and decide the exit code.
 */
#ifndef GW_CMD_H
#define GW_CMD_H

#include "nvml/binding.h"

#include <stdio.h>

struct gw_cli {
	const char *sim; /* --sim SPEC, or NULL for the real driver */
	const char *argv0;
};

/* nvidia-smi's exit codes, which smi/dmon/pmon reproduce. */
#define GW_EXIT_OK 0
#define GW_EXIT_BADARG 2
#define GW_EXIT_NOTAVAIL 3
#define GW_EXIT_NOPERM 4
#define GW_EXIT_QUERY_FAILED 6
#define GW_EXIT_NODRIVER 9
#define GW_EXIT_NOLIB 12
#define GW_EXIT_GPULOST 15
#define GW_EXIT_OTHER 255

/*
 * Open NVML (or the simulator) for a command. On failure prints nvidia-smi's
 * message for the cause plus a hint on stderr, and returns the exit code to
 * use (9, 12, 255); returns 0 and sets *nv on success.
 */
int gw_cli_open_nvml(const struct gw_cli *cli, struct gw_nvml **nv);

/* Flush stdout and report a failed write (EPIPE, full disk): 0 or exit code. */
int gw_cli_finish_stdout(void);

int gw_cmd_smi(int argc, char **argv, const struct gw_cli *cli);
int gw_cmd_dmon(int argc, char **argv, const struct gw_cli *cli);
int gw_cmd_pmon(int argc, char **argv, const struct gw_cli *cli);
int gw_cmd_agent(int argc, char **argv, const struct gw_cli *cli);
int gw_cmd_health(int argc, char **argv, const struct gw_cli *cli);
int gw_cmd_diag(int argc, char **argv, const struct gw_cli *cli);
int gw_cmd_query(int argc, char **argv, const struct gw_cli *cli);
int gw_cmd_serve(int argc, char **argv, const struct gw_cli *cli);
int gw_cmd_import(int argc, char **argv, const struct gw_cli *cli);
int gw_cmd_export(int argc, char **argv, const struct gw_cli *cli);
int gw_cmd_top(int argc, char **argv, const struct gw_cli *cli);
int gw_cmd_sim(int argc, char **argv, const struct gw_cli *cli);
int gw_cmd_rules(int argc, char **argv, const struct gw_cli *cli);
int gw_cmd_mfu(int argc, char **argv, const struct gw_cli *cli);
int gw_cmd_memplan(int argc, char **argv, const struct gw_cli *cli);
int gw_cmd_report(int argc, char **argv, const struct gw_cli *cli);
int gw_cmd_anomalies(int argc, char **argv, const struct gw_cli *cli);
int gw_cmd_record(int argc, char **argv, const struct gw_cli *cli);

/* A daemon's log line on stderr: "ts=... level=LEVEL " then fmt (key=value pairs). */
void gw_cli_log(const char *level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
