#include "shared/ApiError.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace runbox {

QByteArray ApiError::toJsonBody() const {
    QJsonObject err{{"code", code}, {"message", message}};
    return QJsonDocument(QJsonObject{{"error", err}}).toJson(QJsonDocument::Compact);
}

bool ApiError::fromJsonBody(int status, const QByteArray& body, ApiError* out) {
    const QJsonObject err = QJsonDocument::fromJson(body).object().value("error").toObject();
    if (err.isEmpty())
        return false;
    out->httpStatus = status;
    out->code = err.value("code").toString();
    out->message = err.value("message").toString();
    return true;
}

} // namespace runbox
