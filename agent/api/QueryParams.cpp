#include "agent/api/QueryParams.h"

#include <QUrl>
#include <QUrlQuery>

namespace runbox::api {

namespace {
ApiError invalidArgument(const QString& message) {
    return ApiError{400, QStringLiteral("invalid_argument"), message};
}
} // namespace

std::optional<ApiError> QueryParams::checkNames(const http::HttpRequest& req,
                                                const QStringList& allowed) {
    const QUrlQuery query(QString::fromLatin1(req.rawQuery));
    for (const auto& [name, value] : query.queryItems(QUrl::FullyDecoded)) {
        Q_UNUSED(value);
        if (!allowed.contains(name))
            return invalidArgument(QStringLiteral("unknown query parameter \"%1\" (allowed: %2)")
                                       .arg(name, allowed.join(QStringLiteral(", "))));
    }
    return std::nullopt;
}

std::optional<ApiError> QueryParams::boolean(const http::HttpRequest& req, const QString& name,
                                             bool fallback, bool* out) {
    bool present = false;
    const QString v = req.queryValue(name, &present);
    *out = fallback;
    if (!present)
        return std::nullopt;
    if (v == QLatin1String("true") || v == QLatin1String("1"))
        *out = true;
    else if (v == QLatin1String("false") || v == QLatin1String("0"))
        *out = false;
    else
        return invalidArgument(QStringLiteral("%1 must be true or false").arg(name));
    return std::nullopt;
}

std::optional<ApiError> QueryParams::wholeNumber(const http::HttpRequest& req, const QString& name,
                                                 qint64* out) {
    bool present = false;
    const QString v = req.queryValue(name, &present);
    *out = 0;
    if (!present)
        return std::nullopt;
    bool ok = v.size() <= 15 && !v.isEmpty();
    for (const QChar c : v)
        ok = ok && c.isDigit() && c.unicode() < 128;
    if (!ok)
        return invalidArgument(QStringLiteral("%1 must be a whole number").arg(name));
    *out = v.toLongLong();
    return std::nullopt;
}

} // namespace runbox::api
