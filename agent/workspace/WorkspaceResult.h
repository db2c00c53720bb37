#pragma once

#include "shared/ApiError.h"

#include <QString>

#include <optional>
#include <utility>

namespace runbox::workspace {

/// A value or the ApiError that explains why there is none. The workspace file layer returns
/// these instead of throwing, so an HTTP route can forward `error()` as is
/// (`{"error":{"code","message"}}`, docs/contracts.md "Errors").
template <typename T> class Result final {
public:
    Result(T value) : m_value(std::move(value)) {}
    Result(ApiError error) : m_error(std::move(error)) {}

    bool ok() const { return m_value.has_value(); }
    explicit operator bool() const { return ok(); }
    T& value() { return *m_value; }
    const T& value() const { return *m_value; }
    T* operator->() { return &*m_value; }
    const T* operator->() const { return &*m_value; }
    /// The error; meaningful only when !ok().
    const ApiError& error() const { return m_error; }

private:
    std::optional<T> m_value;
    ApiError m_error;
};

/// Success, or the ApiError of a failed operation that has no value to return.
class Status final {
public:
    Status() = default;
    Status(ApiError error) : m_error(std::move(error)), m_failed(true) {}
    static Status success() { return {}; }

    bool ok() const { return !m_failed; }
    explicit operator bool() const { return ok(); }
    const ApiError& error() const { return m_error; }

private:
    ApiError m_error;
    bool m_failed = false;
};

/// Builds an ApiError. Messages name workspace-relative paths only, never host paths.
ApiError makeError(int httpStatus, const QString& code, const QString& message);

/// Maps an errno from a file operation on workspace-relative @p path to an API error:
/// ENOENT 404 not_found; ELOOP 400 symlink_not_followed; ENOTDIR 400 not_a_directory;
/// EISDIR 409 is_a_directory; EEXIST 409 file_exists; ENOTEMPTY 409 directory_not_empty;
/// EACCES/EPERM 403 permission_denied; ENOSPC/EDQUOT/EFBIG 413 no_space;
/// EXDEV/ENAMETOOLONG 400 invalid_path; ENXIO 400 unsupported_file_type;
/// EMFILE/ENFILE/EAGAIN 503 busy; anything else 500 io_error (with strerror).
/// @p what names the operation for the message (e.g. "open", "rename").
ApiError errnoError(int err, const QString& what, const QByteArray& path);

} // namespace runbox::workspace
