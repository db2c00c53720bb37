#include "agent/environments/EnvironmentSnapshot.h"

#include "shared/Crypto.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace runbox::environments {

namespace {

Error invalid(const QString& message) {
    return Error{ErrorKind::InvalidArgument, QStringLiteral("invalid_snapshot"), message};
}

QString hexSha256(const QByteArray& bytes) {
    return QString::fromLatin1(crypto::sha256Hex(bytes));
}

} // namespace

std::optional<Error> EnvironmentSnapshot::fromPipList(const QByteArray& pipJson,
                                                      EnvironmentSnapshot* out,
                                                      qsizetype maxBytes) {
    if (pipJson.size() > maxBytes)
        return invalid(QStringLiteral("the package list is larger than %1 bytes").arg(maxBytes));
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(pipJson, &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isArray())
        return invalid(QStringLiteral("the package list is not a JSON array"));
    QList<QJsonObject> packages;
    for (const QJsonValue& item : doc.array()) {
        const QJsonObject o = item.toObject();
        const QJsonValue name = o.value(QLatin1String("name"));
        const QJsonValue version = o.value(QLatin1String("version"));
        if (!name.isString() || !version.isString() || name.toString().isEmpty())
            return invalid(QStringLiteral("every package needs a string name and version"));
        packages.append(QJsonObject{{"name", name}, {"version", version}});
    }
    std::sort(packages.begin(), packages.end(), [](const QJsonObject& a, const QJsonObject& b) {
        return a.value("name").toString().compare(b.value("name").toString(), Qt::CaseInsensitive) <
               0;
    });
    QJsonArray array;
    for (const QJsonObject& p : packages)
        array.append(p);
    out->json = QJsonDocument(array).toJson(QJsonDocument::Compact);
    out->sha256 = hexSha256(out->json);
    return std::nullopt;
}

std::optional<Error> EnvironmentSnapshot::verify(const QByteArray& json, const QString& sha256,
                                                 QJsonArray* packages) {
    const QJsonDocument doc = QJsonDocument::fromJson(json);
    if (hexSha256(json) != sha256 || !doc.isArray())
        return Error{ErrorKind::Internal, QStringLiteral("snapshot_corrupt"),
                     QStringLiteral("the stored package snapshot does not match its SHA-256 %1")
                         .arg(sha256)};
    *packages = doc.array();
    return std::nullopt;
}

} // namespace runbox::environments
