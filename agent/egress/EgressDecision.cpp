#include "agent/egress/EgressDecision.h"

namespace runbox::egress {

QJsonObject EgressDecision::toJson() const {
    QJsonObject json{
        {QStringLiteral("executionId"), executionId},
        {QStringLiteral("host"), host},
        {QStringLiteral("port"), port},
        {QStringLiteral("allowed"), allowed},
        {QStringLiteral("reason"), reason},
        {QStringLiteral("message"), message},
        {QStringLiteral("bytesUp"), bytesUp},
        {QStringLiteral("bytesDown"), bytesDown},
        {QStringLiteral("at"), at.toUTC().toString(Qt::ISODateWithMs)},
    };
    if (!workspaceId.isEmpty())
        json.insert(QStringLiteral("workspaceId"), workspaceId);
    return json;
}

} // namespace runbox::egress
