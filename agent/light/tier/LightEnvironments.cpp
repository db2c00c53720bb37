#include "agent/light/tier/LightEnvironments.h"

#include "agent/environments/EnvironmentProvisioner.h"
#include "agent/environments/EnvironmentService.h"
#include "agent/environments/EnvironmentStage.h"
#include "agent/execution/ExecRequest.h"

#include <QJsonValue>

namespace runbox::light {

namespace {

const QString kEnvironmentField =
    QLatin1String(environments::EnvironmentService::kEnvironmentField);
const QString kRevisionField = QLatin1String(environments::EnvironmentStage::kRevisionField);
const QString kPrefixMount = QLatin1String(environments::EnvironmentProvisioner::kPrefixMount);

Error mismatch(const QString& message) {
    return Error{ErrorKind::Conflict, QStringLiteral("environment_mismatch"), message};
}

} // namespace

std::optional<Error> LightEnvironments::parse(const QJsonObject& body, QString* environmentId,
                                              QString* revisionId) {
    const auto read = [&body](const QString& field, QString* out) -> std::optional<Error> {
        const QJsonValue value = body.value(field);
        if (value.isUndefined() || value.isNull())
            return std::nullopt;
        if (!value.isString() || value.toString().isEmpty())
            return Error{ErrorKind::InvalidArgument, QStringLiteral("invalid_request"),
                         QStringLiteral("%1 must be a non-empty string").arg(field)};
        *out = value.toString();
        return std::nullopt;
    };
    if (auto err = read(kEnvironmentField, environmentId))
        return err;
    if (auto err = read(kRevisionField, revisionId))
        return err;
    if (!environmentId->isEmpty() && !revisionId->isEmpty())
        return Error{ErrorKind::InvalidArgument, QStringLiteral("invalid_request"),
                     QStringLiteral("give environmentId or environmentRevisionId, not both")};
    return std::nullopt;
}

std::optional<Error> LightEnvironments::acquire(const QString& environmentId,
                                                const QString& revisionId, Selection* out,
                                                QString* prefix, QMap<QString, QString>* env) {
    if (!m_service)
        return Error{ErrorKind::Unavailable, QStringLiteral("environment_unavailable"),
                     QStringLiteral("this agent has no science environments")};
    // The rules and errors of an execution's selection: a request with only those fields.
    execution::ExecRequest selection;
    if (!environmentId.isEmpty())
        selection.features.insert(kEnvironmentField, environmentId);
    if (!revisionId.isEmpty())
        selection.features.insert(kRevisionField, revisionId);
    if (auto err = m_service->resolveSelection(&selection))
        return err;
    Selection resolved;
    resolved.environmentId = selection.features.value(kEnvironmentField).toString();
    resolved.revisionId = selection.features.value(kRevisionField).toString();
    QJsonObject environment;
    if (auto err = m_service->get(resolved.environmentId, &environment))
        return err;
    resolved.language = environment.value(QLatin1String("language")).toString();
    const environments::EnvironmentProvisioner* provisioner = nullptr;
    if (auto err = m_service->acquirePrefix(resolved.revisionId, prefix, &provisioner))
        return err;
    env->insert(QStringLiteral("PATH"), kPrefixMount + QStringLiteral("/bin:/usr/bin:/bin"));
    const QHash<QString, QString> variables = provisioner->executionEnvironment();
    for (auto it = variables.cbegin(); it != variables.cend(); ++it)
        env->insert(it.key(), it.value());
    *out = resolved;
    return std::nullopt;
}

void LightEnvironments::release(const QString& revisionId) {
    if (m_service && !revisionId.isEmpty())
        m_service->releasePrefix(revisionId);
}

void LightEnvironments::attach(const QString& workspaceId, const Selection& selection) {
    if (selection.isEmpty() || !m_service)
        return;
    m_service->holdPrefix(selection.revisionId);
    m_workspaces.insert(workspaceId, selection);
}

void LightEnvironments::detach(const QString& workspaceId) {
    const auto it = m_workspaces.constFind(workspaceId);
    if (it == m_workspaces.cend())
        return;
    release(it->revisionId);
    m_workspaces.erase(it);
}

std::optional<Error> LightEnvironments::pin(const QString& workspaceId,
                                            execution::ExecRequest* request) const {
    const Selection own = m_workspaces.value(workspaceId);
    const QString namedEnvironment = request->features.value(kEnvironmentField).toString();
    const QString namedRevision = request->features.value(kRevisionField).toString();
    const bool named =
        request->hasFeature(kEnvironmentField) || request->hasFeature(kRevisionField);
    if (own.isEmpty()) {
        if (!named)
            return std::nullopt;
        return mismatch(QStringLiteral("light workspace %1 was created without a science "
                                       "environment, and a light workspace's environment is "
                                       "chosen when it is created (POST /v1/workspaces with "
                                       "environmentId; docs/environments.md \"Selection\")")
                            .arg(workspaceId));
    }
    if ((request->hasFeature(kEnvironmentField) && namedEnvironment != own.environmentId) ||
        (request->hasFeature(kRevisionField) && namedRevision != own.revisionId))
        return mismatch(QStringLiteral("light workspace %1 runs environment %2 at revision %3, "
                                       "chosen when it was created; create another workspace "
                                       "for another environment or revision")
                            .arg(workspaceId, own.environmentId, own.revisionId));
    // Its own revision, whatever is current now: resolveSelection records both ids.
    request->features.remove(kEnvironmentField);
    request->features.insert(kRevisionField, own.revisionId);
    return std::nullopt;
}

QStringList LightEnvironments::withEnvironmentInterpreter(QStringList argv) {
    if (!argv.isEmpty() && (argv.first() == QLatin1String("/usr/bin/python3") ||
                            argv.first() == QLatin1String("/usr/bin/R")))
        argv.first() = kPrefixMount + QStringLiteral("/bin/") + argv.first().section('/', -1);
    return argv;
}

QJsonObject LightEnvironments::json(const QString& workspaceId) const {
    const Selection own = m_workspaces.value(workspaceId);
    const auto orNull = [](const QString& s) { return s.isEmpty() ? QJsonValue() : QJsonValue(s); };
    return {{QStringLiteral("environmentId"), orNull(own.environmentId)},
            {QStringLiteral("environmentRevisionId"), orNull(own.revisionId)}};
}

} // namespace runbox::light
