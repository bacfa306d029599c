#!/usr/bin/env python3
"""Check Kubernetes manifests against the shapes of the objects they use,
for machines without kubeconform (tests/integration/deploy_kubernetes.sh
prefers kubeconform when it is on PATH).

    k8s_validate.py FILE...

Each document's apiVersion and kind must be one of those below, and every
field must be one the upstream OpenAPI schema defines for its object, with
the right type, and the required ones present (strict, as kubeconform
-strict: an unknown field, a typo, fails). The shapes are written down from
the Kubernetes 1.29 OpenAPI (io.k8s.api.apps.v1.DaemonSet,
io.k8s.api.core.v1.{Service,Namespace,PodSpec,Container,...}) and from
Prometheus Operator's monitoring.coreos.com/v1 CRDs (ServiceMonitor,
PodMonitor, PrometheusRule), covering the fields gpuwatch's manifests may
use; a field outside them fails until it is added here from the schema.
Beyond the schema: a workload's selector must match its pod template's
labels, every volumeMount must name a volume, and a probe's named port
must be a container port.
"""
import sys

import yaml

S, I, B, ANY = "string", "integer", "boolean", "any"
IOS = "int-or-string"
MAPS = "map[string]string"
QTY = "quantity"  # string or number


def L(t):
    return ("list", t)


# object name -> {field: (type, required)}
SHAPES = {
    "ObjectMeta": {"name": (S, True), "namespace": (S, False), "labels": (MAPS, False),
                   "annotations": (MAPS, False)},
    "LabelSelector": {"matchLabels": (MAPS, False), "matchExpressions": (L("LabelSelectorRequirement"), False)},
    "LabelSelectorRequirement": {"key": (S, True), "operator": (S, True), "values": (L(S), False)},
    # apps/v1
    "DaemonSetSpec": {"selector": ("LabelSelector", True), "template": ("PodTemplateSpec", True),
                      "updateStrategy": ("DaemonSetUpdateStrategy", False), "minReadySeconds": (I, False),
                      "revisionHistoryLimit": (I, False)},
    "DaemonSetUpdateStrategy": {"type": (S, False), "rollingUpdate": ("RollingUpdateDaemonSet", False)},
    "RollingUpdateDaemonSet": {"maxUnavailable": (IOS, False), "maxSurge": (IOS, False)},
    "PodTemplateSpec": {"metadata": ("TemplateMeta", False), "spec": ("PodSpec", False)},
    "TemplateMeta": {"labels": (MAPS, False), "annotations": (MAPS, False), "name": (S, False)},
    # core/v1
    "PodSpec": {"containers": (L("Container"), True), "initContainers": (L("Container"), False),
                "volumes": (L("Volume"), False), "hostPID": (B, False), "hostNetwork": (B, False),
                "hostIPC": (B, False), "runtimeClassName": (S, False), "priorityClassName": (S, False),
                "nodeSelector": (MAPS, False), "tolerations": (L("Toleration"), False), "affinity": (ANY, False),
                "serviceAccountName": (S, False), "automountServiceAccountToken": (B, False),
                "terminationGracePeriodSeconds": (I, False), "securityContext": ("PodSecurityContext", False),
                "imagePullSecrets": (L("LocalObjectReference"), False), "dnsPolicy": (S, False)},
    "LocalObjectReference": {"name": (S, False)},
    "PodSecurityContext": {"runAsUser": (I, False), "runAsGroup": (I, False), "runAsNonRoot": (B, False),
                           "fsGroup": (I, False), "supplementalGroups": (L(I), False),
                           "seccompProfile": ("SeccompProfile", False)},
    "SeccompProfile": {"type": (S, True), "localhostProfile": (S, False)},
    "Toleration": {"key": (S, False), "operator": (S, False), "value": (S, False), "effect": (S, False),
                   "tolerationSeconds": (I, False)},
    "Container": {"name": (S, True), "image": (S, False), "imagePullPolicy": (S, False), "command": (L(S), False),
                  "args": (L(S), False), "env": (L("EnvVar"), False), "ports": (L("ContainerPort"), False),
                  "livenessProbe": ("Probe", False), "readinessProbe": ("Probe", False),
                  "startupProbe": ("Probe", False), "resources": ("ResourceRequirements", False),
                  "securityContext": ("SecurityContext", False), "volumeMounts": (L("VolumeMount"), False),
                  "workingDir": (S, False)},
    "EnvVar": {"name": (S, True), "value": (S, False), "valueFrom": ("EnvVarSource", False)},
    "EnvVarSource": {"fieldRef": ("ObjectFieldSelector", False), "resourceFieldRef": (ANY, False),
                     "configMapKeyRef": (ANY, False), "secretKeyRef": (ANY, False)},
    "ObjectFieldSelector": {"fieldPath": (S, True), "apiVersion": (S, False)},
    "ContainerPort": {"containerPort": (I, True), "name": (S, False), "protocol": (S, False),
                      "hostPort": (I, False), "hostIP": (S, False)},
    "Probe": {"httpGet": ("HTTPGetAction", False), "exec": (ANY, False), "tcpSocket": (ANY, False),
              "initialDelaySeconds": (I, False), "periodSeconds": (I, False), "timeoutSeconds": (I, False),
              "failureThreshold": (I, False), "successThreshold": (I, False)},
    "HTTPGetAction": {"path": (S, False), "port": (IOS, True), "host": (S, False), "scheme": (S, False),
                      "httpHeaders": (ANY, False)},
    "ResourceRequirements": {"requests": ("map[string]quantity", False), "limits": ("map[string]quantity", False)},
    "SecurityContext": {"runAsUser": (I, False), "runAsGroup": (I, False), "runAsNonRoot": (B, False),
                        "allowPrivilegeEscalation": (B, False), "readOnlyRootFilesystem": (B, False),
                        "privileged": (B, False), "capabilities": ("Capabilities", False),
                        "seccompProfile": ("SeccompProfile", False)},
    "Capabilities": {"add": (L(S), False), "drop": (L(S), False)},
    "VolumeMount": {"name": (S, True), "mountPath": (S, True), "readOnly": (B, False), "subPath": (S, False),
                    "mountPropagation": (S, False)},
    "Volume": {"name": (S, True), "hostPath": ("HostPathVolumeSource", False), "emptyDir": (ANY, False),
               "configMap": (ANY, False), "secret": (ANY, False)},
    "HostPathVolumeSource": {"path": (S, True), "type": (S, False)},
    "ServiceSpec": {"selector": (MAPS, False), "ports": (L("ServicePort"), False), "clusterIP": (S, False),
                    "type": (S, False), "internalTrafficPolicy": (S, False)},
    "ServicePort": {"port": (I, True), "name": (S, False), "targetPort": (IOS, False), "protocol": (S, False),
                    "nodePort": (I, False)},
    # monitoring.coreos.com/v1
    "ServiceMonitorSpec": {"selector": ("LabelSelector", True), "endpoints": (L("Endpoint"), False),
                           "namespaceSelector": ("NamespaceSelector", False), "jobLabel": (S, False),
                           "targetLabels": (L(S), False), "podTargetLabels": (L(S), False)},
    "PodMonitorSpec": {"selector": ("LabelSelector", True), "podMetricsEndpoints": (L("Endpoint"), False),
                       "namespaceSelector": ("NamespaceSelector", False), "jobLabel": (S, False),
                       "podTargetLabels": (L(S), False)},
    "NamespaceSelector": {"any": (B, False), "matchNames": (L(S), False)},
    "Endpoint": {"port": (S, False), "targetPort": (IOS, False), "path": (S, False), "scheme": (S, False),
                 "interval": (S, False), "scrapeTimeout": (S, False), "honorLabels": (B, False),
                 "honorTimestamps": (B, False), "relabelings": (L("RelabelConfig"), False),
                 "metricRelabelings": (L("RelabelConfig"), False), "params": (ANY, False)},
    "RelabelConfig": {"sourceLabels": (L(S), False), "separator": (S, False), "targetLabel": (S, False),
                      "regex": (S, False), "modulus": (I, False), "replacement": (S, False), "action": (S, False)},
    "PrometheusRuleSpec": {"groups": (L("RuleGroup"), False)},
    "RuleGroup": {"name": (S, True), "interval": (S, False), "rules": (L("Rule"), False), "limit": (I, False),
                  "partial_response_strategy": (S, False)},
    "Rule": {"record": (S, False), "alert": (S, False), "expr": (IOS, True), "for": (S, False),
             "labels": (MAPS, False), "annotations": (MAPS, False), "keep_firing_for": (S, False)},
    "NamespaceSpec": {"finalizers": (L(S), False)},
}

KINDS = {
    ("apps/v1", "DaemonSet"): "DaemonSetSpec",
    ("v1", "Service"): "ServiceSpec",
    ("v1", "Namespace"): "NamespaceSpec",
    ("monitoring.coreos.com/v1", "ServiceMonitor"): "ServiceMonitorSpec",
    ("monitoring.coreos.com/v1", "PodMonitor"): "PodMonitorSpec",
    ("monitoring.coreos.com/v1", "PrometheusRule"): "PrometheusRuleSpec",
}
SPEC_REQUIRED = {"DaemonSetSpec", "ServiceMonitorSpec", "PodMonitorSpec", "PrometheusRuleSpec"}


def check(v, t, path, errs):
    if t == ANY:
        return
    if isinstance(t, tuple):
        if not isinstance(v, list):
            errs.append(f"{path}: want a list, got {type(v).__name__}")
            return
        for i, e in enumerate(v):
            check(e, t[1], f"{path}[{i}]", errs)
        return
    if t == S:
        ok = isinstance(v, str)
    elif t == I:
        ok = isinstance(v, int) and not isinstance(v, bool)
    elif t == B:
        ok = isinstance(v, bool)
    elif t == IOS:
        ok = isinstance(v, (str, int)) and not isinstance(v, bool)
    elif t.startswith("map[string]"):
        if not isinstance(v, dict):
            errs.append(f"{path}: want a map, got {type(v).__name__}")
            return
        want = t[len("map[string]"):]
        for k, e in v.items():
            if want == "string" and not isinstance(e, str):
                errs.append(f"{path}.{k}: want a string, got {type(e).__name__} (quote it)")
            if want == QTY and not (isinstance(e, (str, int, float)) and not isinstance(e, bool)):
                errs.append(f"{path}.{k}: want a quantity")
        return
    else:
        shape = SHAPES[t]
        if not isinstance(v, dict):
            errs.append(f"{path}: want an object ({t}), got {type(v).__name__}")
            return
        for k, e in v.items():
            if k not in shape:
                errs.append(f"{path}.{k}: no such field in {t}")
            else:
                check(e, shape[k][0], f"{path}.{k}", errs)
        for k, (_, req) in shape.items():
            if req and k not in v:
                errs.append(f"{path}.{k}: required by {t}")
        return
    if not ok:
        errs.append(f"{path}: want {t}, got {type(v).__name__} {v!r}")


def beyond_schema(doc, errs):
    """What the API server (or the controller) would refuse or never run."""
    spec = doc.get("spec") or {}
    tmpl = spec.get("template")
    if tmpl:
        want = (spec.get("selector") or {}).get("matchLabels") or {}
        have = (tmpl.get("metadata") or {}).get("labels") or {}
        for k, v in want.items():
            if have.get(k) != v:
                errs.append(f"spec.selector.matchLabels.{k}: the pod template's labels do not match")
        pod = tmpl.get("spec") or {}
        vols = {v.get("name") for v in pod.get("volumes") or []}
        for c in pod.get("containers") or []:
            ports = {p.get("name") for p in c.get("ports") or []}
            for m in c.get("volumeMounts") or []:
                if m.get("name") not in vols:
                    errs.append(f"container {c.get('name')}: volumeMount {m.get('name')} names no volume")
            for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
                port = ((c.get(probe) or {}).get("httpGet") or {}).get("port")
                if isinstance(port, str) and port not in ports:
                    errs.append(f"container {c.get('name')}: {probe} port {port} is no container port")


def main(files):
    fails = 0
    for f in files:
        with open(f, encoding="utf-8") as fh:
            docs = [d for d in yaml.safe_load_all(fh) if d is not None]
        for d in docs:
            errs = []
            key = (d.get("apiVersion"), d.get("kind"))
            spec = KINDS.get(key)
            if not spec:
                errs.append(f"apiVersion {key[0]} kind {key[1]}: not a kind these shapes know")
            else:
                extra = set(d) - {"apiVersion", "kind", "metadata", "spec"}
                errs += [f"{k}: no such top-level field" for k in sorted(extra)]
                check(d.get("metadata"), "ObjectMeta", "metadata", errs) if "metadata" in d else errs.append(
                    "metadata: required")
                if "spec" in d:
                    check(d["spec"], spec, "spec", errs)
                elif spec in SPEC_REQUIRED:
                    errs.append("spec: required")
                beyond_schema(d, errs)
            name = (d.get("metadata") or {}).get("name")
            for e in errs:
                print(f"FAIL {f} {key[1]}/{name}: {e}")
            if not errs:
                print(f"ok   {f} {key[1]}/{name}")
            fails += len(errs)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
