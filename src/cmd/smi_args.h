/*
 * smi_args.h - how `gpuwatch smi` refuses arguments: nvidia-smi's own
 * message on standard output, exactly as nvidia-smi prints it, then one
 * line of ours on standard error naming the argument and what is wrong
 * with it. An option nvidia-smi has and gpuwatch does not implement says
 * so by name (from nvidia-smi's option table here) instead.
 *
 * Ownership: arguments are borrowed. Threading: main thread (prints).
 */
#ifndef GW_CMD_SMI_ARGS_H
#define GW_CMD_SMI_ARGS_H

/* nvidia-smi's message for any bad argument, with its trailing newline. */
extern const char gw_smi_invalid_args[];

/* Print the generic message, then ours (printf format, no newline);
 * returns GW_EXIT_BADARG. */
int gw_smi_badarg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "ARG: not implemented by gpuwatch CMD (WHY)"; returns GW_EXIT_NOTAVAIL. */
int gw_smi_not_implemented(const char *arg, const char *cmd, const char *why);

/*
 * When arg is one of nvidia-smi's own options (or commands) that gpuwatch
 * smi does not implement, say so and return the exit code; else -1.
 */
int gw_smi_theirs(const char *arg);

#endif
