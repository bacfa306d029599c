#!/bin/sh
# cordon-node.sh - a gpuwatch policy action (exec): cordon this node in
# Kubernetes (spec.unschedulable, as `kubectl cordon` sets it), so no new
# pod lands on it while a GPU is failing; running pods stay. The reason,
# from the firing's environment (GPUWATCH_GPU_INDEX, GPUWATCH_GPU_UUID,
# GPUWATCH_CONDITION, GPUWATCH_VALUE), goes into the node's annotation
# gpuwatch.io/cordon-reason.
#
# Run inside the gpuwatch DaemonSet's pod, it talks to the API server with
# the pod's service account (deploy/policies/cordon-rbac.yaml grants it
# get and patch on nodes). Environment it reads:
#   NODE_NAME         the node (the DaemonSet sets it from spec.nodeName)
#   KUBERNETES_API    the API server (default https://kubernetes.default.svc)
#   SA_DIR            the service account's files (default
#                     /var/run/secrets/kubernetes.io/serviceaccount)
# Exit: 0 when the API server accepted the patch; 1 when it refused it
# (its answer on stderr); 2 when something it needs is missing.
set -u
: "${GPUWATCH_GPU_INDEX:?not run by a gpuwatch policy: GPUWATCH_GPU_INDEX is unset}"
: "${GPUWATCH_CONDITION:?not run by a gpuwatch policy: GPUWATCH_CONDITION is unset}"
: "${NODE_NAME:?NODE_NAME is unset (the DaemonSet sets it from spec.nodeName)}"
api=${KUBERNETES_API:-https://kubernetes.default.svc}
sa=${SA_DIR:-/var/run/secrets/kubernetes.io/serviceaccount}
command -v curl >/dev/null 2>&1 || { echo "cordon-node.sh: curl not found: cannot cordon $NODE_NAME" >&2; exit 2; }
[ -r "$sa/token" ] || { echo "cordon-node.sh: no service account token in $sa" >&2; exit 2; }
reason="gpuwatch: GPU $GPUWATCH_GPU_INDEX (${GPUWATCH_GPU_UUID:-?}) $GPUWATCH_CONDITION=${GPUWATCH_VALUE:-}"
# JSON string escaping of the reason: backslashes and quotes (the rest is printable)
esc=$(printf '%s' "$reason" | sed 's/\\/\\\\/g; s/"/\\"/g')
body=$(printf '{"metadata":{"annotations":{"gpuwatch.io/cordon-reason":"%s"}},"spec":{"unschedulable":true}}' "$esc")
set -- -sS -o /dev/stderr -w '%{http_code}' -X PATCH \
	-H "Authorization: Bearer $(cat "$sa/token")" \
	-H 'Content-Type: application/strategic-merge-patch+json' --data "$body"
[ -r "$sa/ca.crt" ] && set -- "$@" --cacert "$sa/ca.crt"
code=$(curl "$@" "$api/api/v1/nodes/$NODE_NAME") || { echo "cordon-node.sh: $api unreachable" >&2; exit 1; }
case $code in
2??) exit 0 ;;
*) echo "cordon-node.sh: the API server answered $code for node $NODE_NAME" >&2; exit 1 ;;
esac
