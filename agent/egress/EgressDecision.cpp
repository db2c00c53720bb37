#include "agent/egress/EgressDecision.h"

namespace runbox::egress {

QJsonObject EgressDecision::toJson() const {
    return QJsonObject{
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
}

} // namespace runbox::egress
