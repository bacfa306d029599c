#!/usr/bin/env bash
# The layering of src/ (docs/ARCHITECTURE.md): which directories each
# directory's files may include. One table, read here and nowhere else;
# a lower layer that includes an upper one fails the test with the line.
set -euo pipefail
src=$(cd "$(dirname "$0")/../../src" && pwd)

declare -A may=(
	[core]="core"
	[model]="core model"
	[chart]="core chart"
	[nvml]="core nvml"
	[fields]="core nvml fields"
	[collect]="core nvml fields collect"
	[export]="core model nvml fields collect export"
	[health]="core model nvml fields collect api health"
	[diag]="core nvml diag"
	[http]="core http"
	[store]="core model store"
	[promql]="core model promql"
	[ingest]="core model nvml fields export store ingest"
	[api]="core model promql http api"
	[rules]="core model store promql http export api rules"
	[analysis]="core model chart store promql analysis"
	[web]="web"
	[agent]="core model chart analysis nvml fields collect export http store ingest promql api rules web health agent"
	[ui]="core model analysis nvml fields collect http health ui"
	[cmd]="core model chart analysis nvml fields collect export http store ingest promql api rules web health diag agent ui cmd"
	[sim]="nvml"
)

fails=0 checked=0
for dir in "$src"/*/; do
	d=$(basename "$dir")
	if [ -z "${may[$d]+x}" ]; then
		echo "FAIL: src/$d is in no layer: add it to the table in $0"
		fails=$((fails + 1))
		continue
	fi
	while IFS=: read -r file line text; do
		inc=${text#*\"}
		top=${inc%%/*}
		[ "$top" = "$inc" ] && continue # same-directory or generated header ("version.h")
		checked=$((checked + 1))
		case " ${may[$d]} " in
		*" $top "*) ;;
		*)
			echo "FAIL: ${file#"$src"/}:$line includes $top/ (src/$d may include: ${may[$d]})"
			fails=$((fails + 1))
			;;
		esac
	done < <(grep -Hn '^#include "' "$dir"*.[ch] || true)
done
[ "$checked" -gt 100 ] || { echo "FAIL: only $checked includes checked"; fails=$((fails + 1)); }
echo "$((checked - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
