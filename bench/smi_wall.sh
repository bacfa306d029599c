#!/usr/bin/env bash
# Wall time of one `gpuwatch smi --query-gpu=<30 common fields> --format=csv`
# process on 8 simulated GPUs, averaged over N runs. Usage: bench/smi_wall.sh [build-dir] [N]
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:-build}
n=${2:-200}
fields=timestamp,index,name,uuid,pci.bus_id,driver_version,pstate,fan.speed,temperature.gpu,temperature.memory,utilization.gpu,utilization.memory,utilization.encoder,utilization.decoder,memory.total,memory.used,memory.free,memory.reserved,power.draw,power.draw.average,power.draw.instant,power.limit,enforced.power.limit,clocks.current.sm,clocks.current.memory,clocks.current.graphics,clocks.max.sm,clocks_event_reasons.active,ecc.errors.uncorrected.volatile.total,pcie.link.gen.gpucurrent
echo "fields: $(echo $fields | tr ',' '\n' | wc -l)"
start=$(date +%s%N)
for _ in $(seq "$n"); do
	"$b"/gpuwatch --sim 8xH200:training smi --query-gpu=$fields --format=csv >/dev/null 2>&1
done
end=$(date +%s%N)
echo "gpuwatch smi --query-gpu (30 fields, 8 GPUs): $(( (end - start) / n / 1000 )) us per process over $n runs"
start=$(date +%s%N)
for _ in $(seq "$n"); do /bin/true; done
end=$(date +%s%N)
echo "baseline /bin/true: $(( (end - start) / n / 1000 )) us per process"
