// EnvironmentService's installs and uninstalls (docs/environments.md "Installing"): what the
// next revision is built from.
#include "agent/environments/EnvironmentErrors.h"
#include "agent/environments/EnvironmentProvisioner.h"
#include "agent/environments/EnvironmentService.h"
#include "agent/environments/EnvironmentSpec.h"
#include "agent/environments/InstallRequest.h"
#include "agent/workspace/WorkspaceFs.h"
#include "agent/workspace/WorkspacePath.h"
#include "agent/workspace/WorkspaceRegistry.h"

namespace runbox::environments {

std::optional<Error> EnvironmentService::install(const QString& id, const QJsonObject& body,
                                                 QJsonObject* out) {
    return rebuild(id, body, false, out);
}

std::optional<Error> EnvironmentService::uninstall(const QString& id, const QJsonObject& body,
                                                   QJsonObject* out) {
    return rebuild(id, body, true, out);
}

QString EnvironmentService::wheelStoreOf(const QString& environmentId) const {
    return m_deps.stateDir + QStringLiteral("/environments/") + environmentId +
           QStringLiteral("/wheels");
}

std::optional<Error> EnvironmentService::rebuild(const QString& id, const QJsonObject& body,
                                                 bool remove, QJsonObject* out) {
    EnvironmentRow row;
    if (auto err = m_repository->getEnvironment(id, &row))
        return err;
    if (isStarter(id))
        return starterReadOnly(id);
    const EnvironmentProvisioner* provisioner = provisionerOf(row.provisioner);
    if (!provisioner)
        return environmentUnavailable(
            QStringLiteral("this agent has no %1 provisioner").arg(row.provisioner));
    InstallRequest request;
    if (auto err = InstallRequest::parse(body, *provisioner, remove, &request))
        return err;
    const workspace::Workspace* source = nullptr;
    if (!request.workspaceId.isEmpty()) {
        source = m_deps.workspaces->find(request.workspaceId);
        if (!source || !source->fs)
            return Error{ErrorKind::NotFound, QStringLiteral("workspace_not_found"),
                         QStringLiteral("workspace: no workspace %1").arg(request.workspaceId)};
    }
    // Every revision is built afresh from the whole list: what the latest revision that did not
    // fail was built from (a build queued behind a running one counts), changed by this request.
    QList<RevisionRow> revisions;
    if (auto err = m_repository->listRevisions(id, &revisions))
        return err;
    RevisionInputs base;
    for (auto it = revisions.crbegin(); it != revisions.crend(); ++it) {
        if (it->status == QLatin1String("failed"))
            continue;
        for (const QJsonValue& p : it->spec.value(QLatin1String("packages")).toArray())
            base.packages.append(p.toString());
        base.wheels = UploadedWheels::fromJson(it->spec.value(QLatin1String("wheels")).toArray());
        for (const QJsonValue& c : it->spec.value(QLatin1String("channels")).toArray())
            base.channels.append(c.toString());
        base.indexUrl = it->spec.value(QLatin1String("indexUrl")).toString();
        break;
    }
    RevisionInputs next{
        {}, base.wheels, request.channels.isEmpty() ? base.channels : request.channels, {}};
    // The index: the one asked for, else the one the base revision was built from (still the
    // operator's), else the operator's when it is the only package source configured. Without
    // any the build stays offline (docs/environments.md "Package index").
    const QString operatorIndex = provisioner->indexUrl();
    if (!request.indexUrl.isEmpty())
        next.indexUrl = request.indexUrl;
    else if (!base.indexUrl.isEmpty() && base.indexUrl == operatorIndex)
        next.indexUrl = base.indexUrl;
    else if (provisioner->packageSources().isEmpty())
        next.indexUrl = operatorIndex;
    if (remove) {
        // A name takes out the uploaded wheels of its project and the specs that name it; it
        // must name at least one of them.
        QStringList specNames;
        for (const QString& name : std::as_const(request.packages)) {
            const QString project = EnvironmentSpec::packageName(name, provisioner->grammar());
            const qsizetype before = next.wheels.size();
            next.wheels.removeIf(
                [&](const UploadedWheels::Wheel& w) { return w.project() == project; });
            bool named = false;
            for (const QString& spec : std::as_const(base.packages))
                named |= EnvironmentSpec::packageName(spec, provisioner->grammar()) == project;
            if (named || next.wheels.size() == before)
                specNames.append(name);
        }
        if (specNames.isEmpty())
            next.packages = base.packages;
        else if (auto err = EnvironmentSpec::removePackages(base.packages, specNames,
                                                            provisioner->grammar(), &next.packages))
            return err;
    } else {
        // A package named again takes its new constraint (`pkga==1.0` after `pkga==2.0`), a
        // wheel of a project stored already replaces it.
        next.packages =
            EnvironmentSpec::mergePackages(base.packages, request.packages, provisioner->grammar());
        QList<UploadedWheels::Wheel> added;
        qint64 total = 0;
        for (const QString& path : std::as_const(request.wheelPaths)) {
            const auto parsed = workspace::WorkspacePath::fromPlain(path.toUtf8());
            const auto info = parsed ? source->fs->stat(parsed.value())
                                     : workspace::Result<workspace::FileInfo>(parsed.error());
            total += info ? info->size : 0;
            if (total > UploadedWheels::kMaxBytesPerInstall)
                return Error{ErrorKind::TooLarge, QStringLiteral("wheel_too_large"),
                             QStringLiteral("wheels: one install copies at most %1 bytes of "
                                            "wheels; install them in several")
                                 .arg(UploadedWheels::kMaxBytesPerInstall)};
        }
        for (const QString& path : std::as_const(request.wheelPaths)) {
            UploadedWheels::Wheel wheel;
            if (auto err = UploadedWheels::import(*source->fs, path, wheelStoreOf(id), &wheel))
                return err;
            added.append(wheel);
        }
        next.wheels = UploadedWheels::merge(next.wheels, added);
    }
    if (!next.packages.isEmpty() && provisioner->packageSources().isEmpty() &&
        provisioner->networkUrls({{}, {}, next.channels, next.indexUrl}).isEmpty())
        return Error{ErrorKind::Unavailable, QStringLiteral("package_source_not_configured"),
                     QStringLiteral("no package source is configured for the %1 provisioner: set "
                                    "%2 (docs/configuration.md)")
                         .arg(row.provisioner, provisioner->packageSourceSetting())};
    RevisionRow revision;
    if (auto err = startBuild(row, next, &revision))
        return err;
    *out = QJsonObject{{"environmentId", id},
                       {"revisionId", revision.id},
                       {"executionId", revision.executionId},
                       {"status", revision.status}};
    return std::nullopt;
}

} // namespace runbox::environments
