#include "agent/http/HttpRequest.h"

#include <QUrlQuery>

namespace runbox::http {

QByteArray HttpRequest::header(const QByteArray& lowerName) const {
    for (const auto& [name, value] : headers)
        if (name == lowerName)
            return value;
    return {};
}

int HttpRequest::headerCount(const QByteArray& lowerName) const {
    int n = 0;
    for (const auto& h : headers)
        n += h.first == lowerName ? 1 : 0;
    return n;
}

QString HttpRequest::queryValue(const QString& name, bool* present) const {
    QByteArray q = rawQuery;
    q.replace('+', ' ');
    const QUrlQuery query(QString::fromUtf8(q));
    if (present)
        *present = query.hasQueryItem(name);
    return query.queryItemValue(name, QUrl::FullyDecoded);
}

} // namespace runbox::http
