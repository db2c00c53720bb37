// EnvironmentService, the part executions use: the selection at intake and the prefixes the
// launch stage binds (docs/environments.md "Selection"). The rest is EnvironmentService.cpp.
#include "agent/environments/EnvironmentErrors.h"
#include "agent/environments/EnvironmentService.h"

#include "agent/environments/EnvironmentStage.h"
#include "agent/store/ExecutionRepository.h"
#include "agent/workspace/WorkspaceFs.h"
#include "agent/workspace/WorkspaceRegistry.h"
#include "agent/workspace/WorkspaceRemoval.h"

#include <QDateTime>
#include <QJsonArray>
#include <QSet>

namespace runbox::environments {

namespace {

const QString kRevisionField = QLatin1String(EnvironmentStage::kRevisionField);
const QString kEnvironmentField = QLatin1String(EnvironmentService::kEnvironmentField);
const QString kBuildField = QLatin1String(EnvironmentStage::kBuildField);

Error invalid(const char* code, const QString& message) {
    return Error{ErrorKind::InvalidArgument, QLatin1String(code), message};
}

/// The `python` and `r` kinds need their language's environment: the other language's host
/// interpreters are masked (EnvironmentStage).
std::optional<Error> checkLanguage(const execution::ExecRequest& request,
                                   const EnvironmentRow& environment) {
    if ((request.kind == QLatin1String("python") || request.kind == QLatin1String("r")) &&
        request.kind != environment.language)
        return invalid("environment_language_mismatch",
                       QStringLiteral("kind \"%1\" cannot run in environment %2, whose language "
                                      "is %3")
                           .arg(request.kind, environment.id, environment.language));
    return std::nullopt;
}

} // namespace

std::optional<Error> EnvironmentService::resolveSelection(execution::ExecRequest* request) {
    const bool byEnvironment = request->hasFeature(kEnvironmentField);
    const bool byRevision = request->hasFeature(kRevisionField);
    request->features.remove(kBuildField); // never from a client (parse refuses it anyway)
    if (!byEnvironment && !byRevision)
        return std::nullopt;
    if (byEnvironment && byRevision)
        return invalid("invalid_request",
                       QStringLiteral("give environmentId or environmentRevisionId, not both"));
    const Error unknown =
        invalid("unknown_environment",
                byEnvironment ? QStringLiteral("environmentId %1 names no environment")
                                    .arg(request->features.value(kEnvironmentField).toString())
                              : QStringLiteral("environmentRevisionId %1 names no revision")
                                    .arg(request->features.value(kRevisionField).toString()));
    EnvironmentRow environment;
    if (byEnvironment) {
        if (const QString id = request->features.value(kEnvironmentField).toString(); isStarter(id))
            if (auto err = useStarter(id))
                return err;
        if (m_repository->getEnvironment(request->features.value(kEnvironmentField).toString(),
                                         &environment))
            return unknown;
        if (environment.currentRevisionId.isEmpty())
            return Error{ErrorKind::Conflict, QStringLiteral("environment_not_ready"),
                         QStringLiteral("environment %1 has no ready revision yet (its first "
                                        "build has not completed)")
                             .arg(environment.id)};
        request->features.insert(kRevisionField, environment.currentRevisionId);
        return checkLanguage(*request, environment);
    }
    RevisionRow revision;
    if (m_repository->getRevision(request->features.value(kRevisionField).toString(), &revision) ||
        m_repository->getEnvironment(revision.environmentId, &environment))
        return unknown;
    if (revision.status != QLatin1String("ready"))
        return Error{
            ErrorKind::Conflict, QStringLiteral("environment_not_ready"),
            QStringLiteral("revision %1 is %2, not ready").arg(revision.id, revision.status)};
    if (revision.prefixRemovedMs > 0)
        return Error{ErrorKind::Conflict, QStringLiteral("environment_revision_removed"),
                     QStringLiteral("revision %1 is no longer current and its files were removed "
                                    "(RUNBOX_ENV_REVISION_GRACE_S); name the environment instead")
                         .arg(revision.id)};
    request->features.insert(kEnvironmentField, revision.environmentId);
    return checkLanguage(*request, environment);
}

std::optional<Error> EnvironmentService::prepareBuild(const QString& revisionId,
                                                      const QString& workspaceId, QString* prefix,
                                                      const EnvironmentProvisioner** provisioner,
                                                      QString* wheelStore) {
    RevisionRow revision;
    EnvironmentRow environment;
    if (m_repository->getRevision(revisionId, &revision) ||
        m_repository->getEnvironment(revision.environmentId, &environment) ||
        revision.status != QLatin1String("building") || environment.buildWorkspaceId != workspaceId)
        return environmentUnavailable(
            QStringLiteral("revision %1 is not being built in workspace %2")
                .arg(revisionId, workspaceId));
    *provisioner = provisionerOf(environment.provisioner);
    if (!*provisioner)
        return environmentUnavailable(
            QStringLiteral("this agent has no %1 provisioner").arg(environment.provisioner));
    const workspace::Workspace* build = m_deps.workspaces->find(workspaceId);
    if (!build || !build->fs)
        return environmentUnavailable(
            QStringLiteral("the build workspace %1 is gone").arg(workspaceId));
    // Every build starts from an empty workspace (an earlier one may have planted modules
    // there): its entries go, never following a link (WorkspaceRemoval).
    if (const workspace::Status emptied =
            workspace::WorkspaceRemoval::removeContents(build->fs->rootFd(), QByteArray());
        !emptied)
        return environmentUnavailable(
            QStringLiteral("cannot empty the build workspace: %1").arg(emptied.error().message));
    *prefix = revision.prefixPath;
    *wheelStore = revision.spec.value(QLatin1String("wheels")).toArray().isEmpty()
                      ? QString()
                      : wheelStoreOf(environment.id);
    return std::nullopt;
}

std::optional<Error> EnvironmentService::acquirePrefix(const QString& revisionId, QString* prefix,
                                                       const EnvironmentProvisioner** provisioner) {
    RevisionRow revision;
    EnvironmentRow environment;
    if (m_repository->getRevision(revisionId, &revision) ||
        m_repository->getEnvironment(revision.environmentId, &environment) ||
        revision.status != QLatin1String("ready") || revision.prefixRemovedMs > 0)
        return environmentUnavailable(
            QStringLiteral("environment revision %1 is no longer available (its "
                           "environment was deleted or its prefix removed)")
                .arg(revisionId));
    *provisioner = provisionerOf(environment.provisioner);
    if (!*provisioner)
        return environmentUnavailable(
            QStringLiteral("this agent has no %1 provisioner").arg(environment.provisioner));
    m_held[revisionId] += 1;
    *prefix = revision.prefixPath;
    return std::nullopt;
}

void EnvironmentService::releasePrefix(const QString& revisionId) {
    if (auto it = m_held.find(revisionId); it != m_held.end() && --it.value() <= 0)
        m_held.erase(it);
}

QString EnvironmentService::environmentBuiltIn(const QString& workspaceId) const {
    QList<EnvironmentRow> rows;
    if (m_repository->listEnvironments(&rows))
        return {};
    for (const EnvironmentRow& e : std::as_const(rows))
        if (e.buildWorkspaceId == workspaceId)
            return e.id;
    return {};
}

std::optional<QSet<QString>> EnvironmentService::revisionsInUse() const {
    // Named by an execution not finished yet (queued ones have not reached the stage), or held
    // by a running one (docs/environments.md "Lifecycle").
    QSet<QString> used(m_held.keyBegin(), m_held.keyEnd());
    if (!m_deps.executions)
        return used;
    store::ExecutionFilter filter;
    filter.states = {store::ExecutionState::Queued, store::ExecutionState::Running};
    filter.limit = 1000;
    do {
        store::ExecutionPage page;
        if (m_deps.executions->list(filter, &page))
            return std::nullopt;
        for (const store::ExecutionRecord& r : std::as_const(page.items))
            used.insert(r.permissionEpoch.value(kRevisionField).toString());
        filter.cursor = page.nextCursor;
    } while (!filter.cursor.isEmpty());
    return used;
}

int EnvironmentService::sweepRevisions() {
    QList<RevisionRow> candidates;
    if (m_repository->listSweepable(QDateTime::currentMSecsSinceEpoch() - m_deps.revisionGraceMs,
                                    &candidates) ||
        candidates.isEmpty())
        return 0;
    const std::optional<QSet<QString>> referenced = revisionsInUse();
    if (!referenced)
        return 0; // cannot tell what is used: remove nothing
    int removed = 0;
    for (const RevisionRow& r : std::as_const(candidates)) {
        if (referenced->contains(r.id))
            continue;
        if (!workspace::removeTree(r.prefixPath).isEmpty())
            continue; // tried again at the next sweep
        m_repository->markPrefixRemoved(r.id);
        ++removed;
    }
    return removed;
}

} // namespace runbox::environments
