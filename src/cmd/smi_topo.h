/*
 * smi_topo.h - `gpuwatch smi topo -m` and `gpuwatch smi nvlink -s`:
 * nvidia-smi's GPU topology matrix (NVLink bonds, else the PCIe path, with
 * CPU and NUMA affinity and the legend) and per-link NVLink speeds, in its
 * exact text. Values come from src/nvml/topo.h.
 *
 * Ownership: argv is borrowed. Threading: main thread (opens NVML).
 */
#ifndef GW_CMD_SMI_TOPO_H
#define GW_CMD_SMI_TOPO_H

#include "cmd/cmd.h"

/* argv[0] is "topo" / "nvlink"; returns the exit code. */
int gw_smi_topo_main(int argc, char **argv, const struct gw_cli *cli);
int gw_smi_nvlink_main(int argc, char **argv, const struct gw_cli *cli);

#endif
