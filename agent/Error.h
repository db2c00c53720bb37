#pragma once

#include <QString>

namespace runbox {

/// What kind of failure a domain error is, by meaning, not by transport. Only the HTTP layer
/// turns it into a status (http::httpStatus(), agent/http/ErrorStatus.h; docs/contracts.md
/// "Errors").
enum class ErrorKind {
    InvalidArgument,     ///< the request is malformed or a value is out of range
    Unauthenticated,     ///< no valid credentials
    PermissionDenied,    ///< credentials are valid, the action is not allowed
    NotFound,            ///< the named thing does not exist
    Conflict,            ///< the thing exists or is in a state that forbids the action
    TooLarge,            ///< a body, file or count is over its bound
    RangeNotSatisfiable, ///< a byte range lies outside the resource
    Internal,            ///< the agent failed (a store, an I/O error, a bug)
    NotImplemented,      ///< the feature is not there on this host or build
    UpstreamFailed,      ///< something the agent relays to answered badly or not at all
    Unavailable,         ///< the agent cannot do it now (capacity, a backend down, draining)
};

/// A domain error: its kind, a stable snake_case @p code for programs and a human @p message.
/// Codes and messages are part of the contract (docs/contracts.md "Errors"): clients and tests
/// read them.
struct Error {
    ErrorKind kind = ErrorKind::Internal;
    QString code;
    QString message;
};

} // namespace runbox
