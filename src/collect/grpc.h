/*
 * grpc.h - one unary gRPC call over a unix socket, as local gRPC servers
 * (the kubelet's pod-resources socket) speak it: HTTP/2 in clear text with
 * prior knowledge (no TLS, no Upgrade), through nghttp2.
 *
 * A call is a POST to /<package>.<Service>/<Method> with content-type
 * application/grpc and "te: trailers"; the request and the reply are each
 * one length-prefixed message (gRPC's framing: a flag byte, 0 for an
 * uncompressed message, then the length as 4 bytes big-endian, then the
 * protobuf bytes). The outcome is the grpc-status of the trailers (or of
 * the headers, for a reply that carries no message); anything but 0 is an
 * error whose message names the status and the server's grpc-message.
 *
 * Every wait is bounded by the call's timeout, so a kubelet that accepts
 * the connection and never answers costs one timeout, and the reply by a
 * cap on its size.
 *
 * Ownership: the reply is malloc'd, the caller frees it.
 * Threading: reentrant; each call has its own connection.
 */
#ifndef GW_COLLECT_GRPC_H
#define GW_COLLECT_GRPC_H

#include "core/err.h"

#include <stddef.h>
#include <stdint.h>

#define GW_GRPC_FRAME_HDR 5 /* flag byte + 4-byte big-endian length */

/*
 * Call path ("/v1.PodResourcesLister/List") on the server at the unix
 * socket sock with the protobuf message req (req_len bytes, may be 0).
 * On success *reply holds the reply's message (malloc'd; *reply_len bytes,
 * possibly 0). Returns 0, GW_ENOTFOUND (no socket there), GW_EPERM,
 * GW_EIO (the connection failed or a non-zero grpc-status), GW_ETIMEOUT,
 * GW_EPARSE (a reply not framed as one gRPC message), GW_EOVERFLOW (over
 * max_reply bytes) or GW_ENOMEM; err says what happened.
 */
int gw_grpc_call_unix(const char *sock, const char *path, const uint8_t *req, size_t req_len, int timeout_ms,
		      size_t max_reply, uint8_t **reply, size_t *reply_len, struct gw_err *err);

/* Write the 5-byte prefix of a len-byte uncompressed message into hdr. */
void gw_grpc_frame_header(uint8_t hdr[GW_GRPC_FRAME_HDR], size_t len);

/*
 * The one message of a reply body: *msg points into body. Returns 0,
 * GW_EPARSE (short, a length that disagrees with the body, or more than
 * one message) or GW_ENOTSUP (a compressed message: gpuwatch asks for none).
 */
int gw_grpc_unframe(const uint8_t *body, size_t len, const uint8_t **msg, size_t *msg_len);

#endif
