#!/usr/bin/python3
"""A fake kubelet pod-resources server for the tests: v1.PodResourcesLister
on a unix socket, answering List from a JSON file read on every call.

    fake_kubelet.py SOCKET PODS.json

PODS.json: [{"name": "train-0", "namespace": "ml", "containers":
             [{"name": "trainer", "devices": [{"resource": "nvidia.com/gpu",
               "ids": ["GPU-..."]}]}]}, ...]
A file holding {"status": CODE, "message": TEXT} answers with that gRPC
error instead. The reply is encoded here by hand (protobuf's wire format:
tag, length, bytes), so no generated code is needed: only python3-grpcio.
"""
import json
import sys
import time
from concurrent import futures

import grpc


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(num, payload):
    """A length-delimited field (strings and messages alike)."""
    if isinstance(payload, str):
        payload = payload.encode()
    return varint(num << 3 | 2) + varint(len(payload)) + payload


def encode(pods):
    # ListPodResourcesResponse{1: PodResources{1 name, 2 namespace,
    # 3 ContainerResources{1 name, 2 ContainerDevices{1 resource_name, 2 device_ids}}}}
    out = b""
    for p in pods:
        pb = field(1, p["name"]) + field(2, p["namespace"])
        for c in p.get("containers", []):
            cb = field(1, c["name"])
            for d in c.get("devices", []):
                db = field(1, d["resource"])
                for i in d["ids"]:
                    db += field(2, i)
                cb += field(2, db)
            # cpu_ids (3, packed int64): a field gpuwatch's .proto leaves out
            cb += field(3, varint(2) + varint(3))
            pb += field(3, cb)
        out += field(1, pb)
    return out


def main():
    sock, path = sys.argv[1], sys.argv[2]

    def list_pods(request, context):
        with open(path) as f:
            pods = json.load(f)
        if isinstance(pods, dict):
            code = [c for c in grpc.StatusCode if c.value[0] == pods["status"]][0]
            context.abort(code, pods["message"])
        return encode(pods)

    handler = grpc.method_handlers_generic_handler(
        "v1.PodResourcesLister",
        {"List": grpc.unary_unary_rpc_method_handler(
            list_pods, request_deserializer=lambda b: b, response_serializer=lambda b: b)})
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    server.add_generic_rpc_handlers((handler,))
    server.add_insecure_port("unix:" + sock)
    server.start()
    print("ready", flush=True)
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
