#pragma once

#include <QByteArray>
#include <QString>

namespace runbox {

/// An API error as sent on the wire: HTTP status + `{"error":{"code","message"}}`
/// (docs/contracts.md "Errors").
struct ApiError {
    int httpStatus = 500;
    QString code;    ///< snake_case, stable, for programs
    QString message; ///< human text

    /// The JSON body `{"error":{"code":…,"message":…}}`.
    QByteArray toJsonBody() const;
    /// Parses an error body; returns false when @p body is not one.
    static bool fromJsonBody(int httpStatus, const QByteArray& body, ApiError* out);
};

} // namespace runbox
