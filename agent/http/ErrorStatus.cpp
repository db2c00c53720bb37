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

} // namespace runbox::http
