#include "agent/egress/EgressGatewayPool.h"

#include "agent/egress/EgressGateway.h"
#include "agent/egress/Resolver.h"
#include "shared/Crypto.h"

#include <QDir>
#include <QFile>

#include <sys/stat.h>
#include <unistd.h>

namespace runbox::egress {

EgressGatewayPool::EgressGatewayPool(const QString& runtimeDir, std::shared_ptr<Resolver> resolver,
                                     const EgressGatewayOptions& options, QObject* parent)
    : QObject(parent), m_runtimeDir(runtimeDir), m_resolver(std::move(resolver)),
      m_options(options) {}

EgressGatewayPool::~EgressGatewayPool() {
    const QStringList executions = m_revisionOfExecution.keys();
    for (const QString& id : executions)
        release(id);
    const QStringList workspaces = m_revisionOfWorkspace.keys();
    for (const QString& id : workspaces)
        releaseWorkspace(id);
    qDeleteAll(m_gateways);
}

void EgressGatewayPool::setCurrentRevision(const QString& revision) {
    m_currentRevision = revision;
    const QStringList revisions = m_gateways.keys();
    for (const QString& r : revisions)
        dropIfUnused(r);
}

QString EgressGatewayPool::socketPathFor(const QString& revision,
                                         const QString& executionId) const {
    const QString executionPart =
        QString::fromLatin1(crypto::sha256Hex(executionId.toUtf8()).left(16));
    return m_runtimeDir + QLatin1Char('/') + revision.left(16) + QLatin1Char('-') + executionPart +
           QStringLiteral(".sock");
}

std::optional<QString> EgressGatewayPool::acquire(const NetworkPolicy& policy,
                                                  const QString& executionId, Error* error) {
    const auto fail = [error](ErrorKind kind, const char* code, const QString& message) {
        if (error)
            *error = Error{kind, QString::fromLatin1(code), message};
        return std::nullopt;
    };
    if (policy.mode() != NetworkPolicy::Mode::DomainAllowlist)
        return fail(ErrorKind::InvalidArgument, "egress_policy_none",
                    QStringLiteral("network policy none has no egress"));
    const QString revision = policy.revision();
    const QString held = m_revisionOfExecution.value(executionId);
    if (!held.isEmpty()) {
        if (held != revision)
            return fail(
                ErrorKind::Conflict, "egress_revision_conflict",
                QStringLiteral("execution %1 already uses revision %2").arg(executionId, held));
        return m_gateways.value(revision)->socketPath(executionId);
    }
    if (!QDir().mkpath(m_runtimeDir) ||
        // Searchable, not listable: a sandbox user reaches its own socket (owned by it, 0600).
        ::chmod(QFile::encodeName(m_runtimeDir).constData(), 0711) != 0)
        return fail(ErrorKind::Unavailable, "egress_unavailable",
                    QStringLiteral("cannot create egress directory %1").arg(m_runtimeDir));
    EgressGateway* gateway = gatewayFor(policy);
    const QString path = socketPathFor(revision, executionId);
    QString listenError;
    if (!gateway->listen(path, executionId, &listenError)) {
        dropIfUnused(revision);
        return fail(ErrorKind::Unavailable, "egress_unavailable", listenError);
    }
    m_revisionOfExecution.insert(executionId, revision);
    return path;
}

EgressGateway* EgressGatewayPool::gatewayFor(const NetworkPolicy& policy) {
    EgressGateway* gateway = m_gateways.value(policy.revision());
    if (!gateway) {
        gateway = new EgressGateway(policy, m_resolver, m_options, this);
        connect(gateway, &EgressGateway::decisionMade, this, &EgressGatewayPool::decisionMade);
        m_gateways.insert(policy.revision(), gateway);
    }
    return gateway;
}

std::optional<Error> EgressGatewayPool::adoptWorkspaceListener(const NetworkPolicy& policy,
                                                               const QString& workspaceId,
                                                               int listenerFd) {
    if (policy.mode() != NetworkPolicy::Mode::DomainAllowlist) {
        ::close(listenerFd);
        return Error{ErrorKind::InvalidArgument, QStringLiteral("egress_policy_none"),
                     QStringLiteral("network policy none has no egress")};
    }
    releaseWorkspace(workspaceId); // a restarted supervisor brings a new listener
    const QString revision = policy.revision();
    EgressGateway* gateway = gatewayFor(policy);
    QString error;
    if (!gateway->adoptWorkspaceListener(listenerFd, workspaceId, &error)) {
        dropIfUnused(revision);
        return Error{ErrorKind::Unavailable, QStringLiteral("egress_unavailable"), error};
    }
    m_revisionOfWorkspace.insert(workspaceId, revision);
    return std::nullopt;
}

void EgressGatewayPool::releaseWorkspace(const QString& workspaceId) {
    const QString revision = m_revisionOfWorkspace.take(workspaceId);
    if (revision.isEmpty())
        return;
    if (EgressGateway* gateway = m_gateways.value(revision))
        gateway->closeWorkspaceListener(workspaceId);
    dropIfUnused(revision);
}

void EgressGatewayPool::release(const QString& executionId) {
    const QString revision = m_revisionOfExecution.take(executionId);
    if (revision.isEmpty())
        return;
    if (EgressGateway* gateway = m_gateways.value(revision))
        gateway->closeListener(executionId);
    dropIfUnused(revision);
}

void EgressGatewayPool::dropIfUnused(const QString& revision) {
    EgressGateway* gateway = m_gateways.value(revision);
    if (!gateway || revision == m_currentRevision || !gateway->idle())
        return;
    m_gateways.remove(revision);
    gateway->deleteLater(); // it may be on the stack of a signal it emitted
}

} // namespace runbox::egress
