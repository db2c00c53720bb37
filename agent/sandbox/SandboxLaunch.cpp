#include "agent/sandbox/SandboxLaunch.h"

#include <QJsonArray>

namespace runbox::sandbox {

static QJsonObject mapToJson(const QMap<QString, QString>& map) {
    QJsonObject o;
    for (auto it = map.begin(); it != map.end(); ++it)
        o.insert(it.key(), it.value());
    return o;
}

QJsonObject SandboxLaunch::toJson() const {
    return {{"program", program},
            {"arguments", QJsonArray::fromStringList(arguments)},
            {"environment", mapToJson(environment)},
            {"sandboxEnvironment", mapToJson(sandboxEnvironment)},
            {"sandboxCwd", sandboxCwd},
            {"command", QJsonArray::fromStringList(command)}};
}

} // namespace runbox::sandbox
