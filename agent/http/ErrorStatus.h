#pragma once

#include "agent/Error.h"
#include "shared/ApiError.h"

namespace runbox::http {

/// The one mapping of domain error kinds to HTTP statuses (docs/contracts.md "Errors"):
/// InvalidArgument 400, Unauthenticated 401, PermissionDenied 403, NotFound 404, Conflict 409,
/// TooLarge 413, RangeNotSatisfiable 416, Internal 500, NotImplemented 501, UpstreamFailed 502,
/// Unavailable 503. It sits in agent/http/ (not agent/api/) because agent/files/ and
/// agent/proxy/, below agent/api/, answer requests themselves.
int httpStatus(ErrorKind kind);

/// @p error as it goes on the wire: its kind's status, the same code and message. Used where the
/// HTTP layer writes a domain error (HttpExchange::replyError) and by the HTTP engines whose
/// failure path also carries errors that are HTTP by nature (agent/proxy/: 504 proxy_timeout,
/// 426 Upgrade).
ApiError toApiError(const Error& error);

} // namespace runbox::http
