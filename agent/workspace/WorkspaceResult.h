#pragma once

#include "agent/Error.h"

#include <QString>

#include <optional>
#include <utility>

namespace runbox::workspace {

/// A value or the runbox::Error that explains why there is none. The workspace file layer
/// returns these instead of throwing; an HTTP route answers `error()` with its kind's status
/// (http::httpStatus, docs/contracts.md "Errors"). The statuses this folder's comments name
/// (404 not_found, 409 tree_changed…) are those of the errors' kinds.
template <typename T> class Result final {
public:
    Result(T value) : m_value(std::move(value)) {}
    Result(Error error) : m_error(std::move(error)) {}

    bool ok() const { return m_value.has_value(); }
    explicit operator bool() const { return ok(); }
    T& value() { return *m_value; }
    const T& value() const { return *m_value; }
    T* operator->() { return &*m_value; }
    const T* operator->() const { return &*m_value; }
    /// The error; meaningful only when !ok().
    const Error& error() const { return m_error; }

private:
    std::optional<T> m_value;
    Error m_error;
};

/// Success, or the Error of a failed operation that has no value to return.
class Status final {
public:
    Status() = default;
    Status(Error error) : m_error(std::move(error)), m_failed(true) {}
    static Status success() { return {}; }

    bool ok() const { return !m_failed; }
    explicit operator bool() const { return ok(); }
    const Error& error() const { return m_error; }

private:
    Error m_error;
    bool m_failed = false;
};

/// Builds an Error. Messages name workspace-relative paths only, never host paths.
Error makeError(ErrorKind kind, const QString& code, const QString& message);

/// Maps an errno from a file operation on workspace-relative @p path to an Error (its status in
/// parentheses): ENOENT NotFound (404) not_found; ELOOP InvalidArgument (400)
/// symlink_not_followed; ENOTDIR InvalidArgument (400) not_a_directory; EISDIR Conflict (409)
/// is_a_directory; EEXIST Conflict (409) file_exists; ENOTEMPTY Conflict (409)
/// directory_not_empty; EACCES/EPERM PermissionDenied (403) permission_denied;
/// ENOSPC/EDQUOT/EFBIG TooLarge (413) no_space; EXDEV/ENAMETOOLONG InvalidArgument (400)
/// invalid_path; ENXIO InvalidArgument (400) unsupported_file_type; EMFILE/ENFILE/EAGAIN
/// Unavailable (503) busy; anything else Internal (500) io_error (with strerror).
/// @p what names the operation for the message (e.g. "open", "rename").
Error errnoError(int err, const QString& what, const QByteArray& path);

} // namespace runbox::workspace
