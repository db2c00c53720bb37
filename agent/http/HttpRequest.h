#pragma once

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>

namespace runbox::http {

/// One parsed HTTP/1.1 request. The body is complete when a handler sees it.
struct HttpRequest {
    QByteArray method;    ///< "GET", "POST", …
    QByteArray rawTarget; ///< request-target exactly as sent (origin-form: path + "?" + query)
    QByteArray rawPath;   ///< rawTarget before '?', still percent-encoded
    QByteArray rawQuery;  ///< after '?', still percent-encoded, without the '?'
    QList<QPair<QByteArray, QByteArray>> headers; ///< names lower-cased, in arrival order
    QByteArray body;
    QString peer; ///< "127.0.0.1:53412", for logs

    /// Value of the first header named @p lowerName, empty when absent.
    QByteArray header(const QByteArray& lowerName) const;
    /// How many headers named @p lowerName were sent.
    int headerCount(const QByteArray& lowerName) const;
    /// Decoded value of query parameter @p name (application/x-www-form-urlencoded rules), and
    /// whether it was present at all.
    QString queryValue(const QString& name, bool* present = nullptr) const;
};

} // namespace runbox::http
