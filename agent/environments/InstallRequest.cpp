#include "agent/environments/InstallRequest.h"

#include "agent/config/IndexUrl.h"
#include "agent/environments/EnvironmentProvisioner.h"
#include "agent/environments/UploadedWheels.h"
#include "agent/execution/ExecRequest.h"

#include <QJsonArray>
#include <QSet>

namespace runbox::environments {

namespace {

Error invalid(const char* code, const QString& message) {
    return Error{ErrorKind::InvalidArgument, QLatin1String(code), message};
}

/// A non-empty array of at most @p max distinct strings, or an error naming @p field.
std::optional<Error> readStrings(const QJsonValue& value, const char* field, const char* code,
                                 int max, QStringList* out) {
    const QJsonArray array = value.toArray();
    if (!value.isArray() || array.isEmpty() || array.size() > max)
        return invalid(
            code, QStringLiteral("%1 must be an array of 1 to %2 strings").arg(field).arg(max));
    QSet<QString> seen;
    for (const QJsonValue& item : array) {
        if (!item.isString() || item.toString().isEmpty())
            return invalid(
                code, QStringLiteral("%1 holds an item that is not a non-empty string").arg(field));
        if (seen.contains(item.toString()))
            return invalid(code, QStringLiteral("%1 names %2 twice").arg(field, item.toString()));
        seen.insert(item.toString());
        out->append(item.toString());
    }
    return std::nullopt;
}

} // namespace

std::optional<Error> InstallRequest::parse(const QJsonObject& body,
                                           const EnvironmentProvisioner& provisioner,
                                           bool uninstall, InstallRequest* out) {
    *out = InstallRequest();
    if (auto err = execution::refuseUnknownFields(
            body, {"packages", "manager", "channels", "indexUrl", "workspace", "wheels"}))
        return *err;
    const QJsonValue manager = body.value(QLatin1String("manager"));
    if (!manager.isUndefined() && !manager.isNull() && manager.toString() != provisioner.manager())
        return invalid("invalid_manager",
                       QStringLiteral("manager: this environment's %1 provisioner installs with "
                                      "%2")
                           .arg(provisioner.name(), provisioner.manager()));
    if (const QJsonValue channels = body.value(QLatin1String("channels"));
        !channels.isUndefined() && !channels.isNull()) {
        const QStringList allowed = provisioner.channels();
        if (allowed.isEmpty() || uninstall)
            return invalid("invalid_channels",
                           uninstall ? QStringLiteral("channels: an uninstall keeps the channels "
                                                      "of the revision it starts from")
                                     : QStringLiteral("channels: the %1 provisioner takes none")
                                           .arg(provisioner.name()));
        if (auto err = readStrings(channels, "channels", "invalid_channels", int(allowed.size()),
                                   &out->channels))
            return err;
        for (const QString& channel : std::as_const(out->channels))
            if (!allowed.contains(channel))
                return invalid(
                    "invalid_channels",
                    QStringLiteral("channels: %1 is not one of the operator's channels "
                                   "(RUNBOX_ENV_CONDA_CHANNELS, RUNBOX_ENV_CONDA_CHANNEL_URLS)")
                        .arg(channel));
    }
    if (const QJsonValue index = body.value(QLatin1String("indexUrl"));
        !index.isUndefined() && !index.isNull()) {
        config::IndexUrl parsed;
        QString why;
        if (uninstall)
            return invalid("invalid_index_url",
                           QStringLiteral("indexUrl: an uninstall keeps the index of the "
                                          "revision it starts from"));
        if (!index.isString() || !config::IndexUrl::parse(index.toString(), &parsed, &why))
            return invalid("invalid_index_url",
                           QStringLiteral("indexUrl: %1")
                               .arg(index.isString() ? why : QStringLiteral("must be a string")));
        if (provisioner.indexUrlSetting().isEmpty())
            return invalid("invalid_index_url",
                           QStringLiteral("indexUrl: the %1 provisioner takes no package index")
                               .arg(provisioner.name()));
        if (provisioner.indexUrl().isEmpty() || index.toString() != provisioner.indexUrl())
            return invalid("invalid_index_url",
                           QStringLiteral("indexUrl: only the operator's package index "
                                          "(%1) can be used%2")
                               .arg(provisioner.indexUrlSetting(),
                                    provisioner.indexUrl().isEmpty()
                                        ? QStringLiteral(", and none is configured")
                                        : QStringLiteral(": %1").arg(provisioner.indexUrl())));
        out->indexUrl = index.toString();
    }
    const QJsonValue wheels = body.value(QLatin1String("wheels"));
    const QJsonValue workspace = body.value(QLatin1String("workspace"));
    const bool hasWheels = !wheels.isUndefined() && !wheels.isNull();
    if (hasWheels) {
        if (uninstall || !provisioner.takesWheels())
            return invalid("invalid_wheels",
                           uninstall ? QStringLiteral("wheels: uninstall takes package names")
                                     : QStringLiteral("wheels: the %1 provisioner takes none")
                                           .arg(provisioner.name()));
        if (auto err = readStrings(wheels, "wheels", "invalid_wheels",
                                   UploadedWheels::kMaxWheelsPerInstall, &out->wheelPaths))
            return err;
        for (const QString& path : std::as_const(out->wheelPaths))
            if (!UploadedWheels::isWheelFileName(path.section(QLatin1Char('/'), -1)))
                return invalid("invalid_wheels",
                               QStringLiteral("wheels: %1 is not a wheel file name "
                                              "(NAME-VERSION-PYTHON-ABI-PLATFORM.whl)")
                                   .arg(path));
        if (!workspace.isString() || workspace.toString().isEmpty())
            return invalid("invalid_workspace",
                           QStringLiteral("workspace: wheels need the id of the workspace they "
                                          "lie in"));
        out->workspaceId = workspace.toString();
    } else if (!workspace.isUndefined() && !workspace.isNull()) {
        return invalid("invalid_workspace",
                       QStringLiteral("workspace: only wheels are read from a workspace"));
    }
    const QJsonValue packages = body.value(QLatin1String("packages"));
    if (hasWheels && (packages.isUndefined() || packages.isNull()))
        return std::nullopt;
    return EnvironmentSpec::checkPackages(packages, &out->packages, provisioner.grammar());
}

} // namespace runbox::environments
