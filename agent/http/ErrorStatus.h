#pragma once

#include "agent/Error.h"
#include "shared/ApiError.h"

#include <optional>

namespace runbox::http {

/// The one mapping of domain error kinds to HTTP statuses (docs/contracts.md "Errors"):
/// InvalidArgument 400, Unauthenticated 401, PermissionDenied 403, NotFound 404, Conflict 409,
/// TooLarge 413, RangeNotSatisfiable 416, Internal 500, NotImplemented 501, UpstreamFailed 502,
/// Unavailable 503. It sits in agent/http/ (not agent/api/) because agent/files/ and
/// agent/proxy/, below agent/api/, answer requests themselves.
int httpStatus(ErrorKind kind);

/// @p error as the wire error: its kind's status, the same code and message.
ApiError toApiError(const Error& error);
/// The same for an optional error (empty stays empty): for interfaces that still take
/// `std::optional<ApiError>` from converted code (execution::LaunchStage::prepare).
std::optional<ApiError> toApiError(const std::optional<Error>& error);

/// The domain error of a wire error built by a folder not converted to runbox::Error yet
/// (docs/contracts.md "Errors"), where a converted folder receives it: the kind whose status is
/// @p wire's (the inverse of httpStatus(), so the status is kept), the same code and message.
/// A status that no kind has becomes Internal (the folders not converted only use statuses
/// that have one). Goes once every domain folder reports runbox::Error.
Error toError(const ApiError& wire);
/// toError() of an optional wire error (a store call's result): empty stays empty.
std::optional<Error> toError(const std::optional<ApiError>& wire);

} // namespace runbox::http
