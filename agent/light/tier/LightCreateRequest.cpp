// LightService: reading a `POST /v1/workspaces {"isolation":"light",…}` body
// (docs/light-workspaces.md "In the agent"). The rest is LightService.cpp.
#include "agent/light/tier/LightService.h"

#include "agent/light/LightWorkspaceHost.h"
#include "agent/light/RlimitsJson.h"
#include "agent/light/tier/LightEnvironments.h"
#include "agent/sandbox/EnvPolicy.h"

#include <QJsonArray>

#include <cmath>
#include <limits>

namespace runbox::light {

namespace {

constexpr qint64 kIdleTimeoutMaxS = 7 * 86400;

Error bad(const QString& message) {
    return Error{ErrorKind::InvalidArgument, QStringLiteral("invalid_request"), message};
}

/// A whole JSON number in [min, max], or nullopt.
std::optional<qint64> wholeNumber(const QJsonValue& value, qint64 min, qint64 max) {
    if (!value.isDouble())
        return std::nullopt;
    const double d = value.toDouble();
    if (!std::isfinite(d) || std::floor(d) != d || d < double(min) || d > double(max))
        return std::nullopt;
    return qint64(d);
}

} // namespace

std::optional<Error> LightService::parseCreate(const QJsonObject& body,
                                               LightCreateRequest* out) const {
    static const QStringList known = {"isolation",
                                      "count",
                                      "env",
                                      "idleTimeoutS",
                                      "maxProcs",
                                      "maxMemoryMb",
                                      "maxOpenFiles",
                                      "maxFileSizeMb",
                                      "maxCpuSeconds",
                                      "allowedConnectPorts",
                                      "allowUdp",
                                      "environmentId",
                                      "environmentRevisionId"};
    for (auto it = body.begin(); it != body.end(); ++it)
        if (!known.contains(it.key()))
            return bad(QStringLiteral("unknown field \"%1\"").arg(it.key()));
    LightCreateRequest r;
    const QJsonValue count = body.value(QLatin1String("count"));
    if (!count.isUndefined()) {
        // Only the type here: the range is the host's (LightWorkspaceHost::create).
        const auto n = wholeNumber(count, 0, std::numeric_limits<int>::max());
        if (!n)
            return Error{ErrorKind::InvalidArgument, QStringLiteral("invalid_count"),
                         QStringLiteral("count must be a whole number from 1 to %1")
                             .arg(LightWorkspaceHost::kMaxCreateCount)};
        r.count = int(*n);
    }
    if (auto err = sandbox::EnvPolicy::parse(body.value(QLatin1String("env")), &r.options.env))
        return err;
    r.idleTimeoutMs = m_context->config.lightIdleTimeoutS * 1000;
    const QJsonValue idle = body.value(QLatin1String("idleTimeoutS"));
    if (!idle.isUndefined() && !idle.isNull()) {
        const auto s = wholeNumber(idle, 0, kIdleTimeoutMaxS);
        if (!s)
            return Error{ErrorKind::InvalidArgument, QStringLiteral("invalid_idle_timeout"),
                         QStringLiteral("idleTimeoutS must be a whole number of seconds from 0 "
                                        "(never) to %1")
                             .arg(kIdleTimeoutMaxS)};
        r.idleTimeoutMs = *s * 1000;
    }
    Error limitError;
    const auto limits = RlimitsJson::fromJson(body, &limitError);
    if (!limits)
        return limitError;
    r.options.limits = *limits;
    const QJsonValue ports = body.value(QLatin1String("allowedConnectPorts"));
    if (!ports.isUndefined() && !ports.isNull()) {
        if (!ports.isArray())
            return Error{ErrorKind::InvalidArgument, QStringLiteral("invalid_network_policy"),
                         QStringLiteral("allowedConnectPorts must be an array of TCP ports")};
        for (const QJsonValue& v : ports.toArray()) {
            const auto port = wholeNumber(v, 1, 65535);
            if (!port)
                return Error{ErrorKind::InvalidArgument, QStringLiteral("invalid_network_policy"),
                             QStringLiteral("allowedConnectPorts items must be 1..65535")};
            if (!r.options.allowedConnectPorts.contains(quint16(*port)))
                r.options.allowedConnectPorts.append(quint16(*port));
        }
    }
    const QJsonValue udp = body.value(QLatin1String("allowUdp"));
    if (!udp.isUndefined() && !udp.isNull()) {
        if (!udp.isBool())
            return Error{ErrorKind::InvalidArgument, QStringLiteral("invalid_network_policy"),
                         QStringLiteral("allowUdp must be true or false")};
        r.options.allowUdp = udp.toBool();
    }
    if (auto err = LightEnvironments::parse(body, &r.environmentId, &r.environmentRevisionId))
        return err;
    *out = std::move(r);
    return std::nullopt;
}

} // namespace runbox::light
