#include "agent/http/ErrorStatus.h"

namespace runbox::http {

int httpStatus(ErrorKind kind) {
    switch (kind) {
    case ErrorKind::InvalidArgument:
        return 400;
    case ErrorKind::Unauthenticated:
        return 401;
    case ErrorKind::PermissionDenied:
        return 403;
    case ErrorKind::NotFound:
        return 404;
    case ErrorKind::Conflict:
        return 409;
    case ErrorKind::TooLarge:
        return 413;
    case ErrorKind::RangeNotSatisfiable:
        return 416;
    case ErrorKind::Internal:
        return 500;
    case ErrorKind::NotImplemented:
        return 501;
    case ErrorKind::UpstreamFailed:
        return 502;
    case ErrorKind::Unavailable:
        return 503;
    }
    return 500;
}

ApiError toApiError(const Error& error) {
    return ApiError{httpStatus(error.kind), error.code, error.message};
}

Error toError(const ApiError& wire) {
    // Read from httpStatus() itself: there is one table, this is its inverse.
    for (int k = int(ErrorKind::InvalidArgument); k <= int(ErrorKind::Unavailable); ++k)
        if (httpStatus(ErrorKind(k)) == wire.httpStatus)
            return Error{ErrorKind(k), wire.code, wire.message};
    return Error{ErrorKind::Internal, wire.code, wire.message};
}

std::optional<Error> toError(const std::optional<ApiError>& wire) {
    if (!wire)
        return std::nullopt;
    return toError(*wire);
}

std::optional<ApiError> toApiError(const std::optional<Error>& error) {
    if (!error)
        return std::nullopt;
    return toApiError(*error);
}

} // namespace runbox::http
