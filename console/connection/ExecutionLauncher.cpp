#include "console/connection/ExecutionLauncher.h"

#include "console/api/ExecutionInfo.h"
#include "console/connection/AgentConnection.h"
#include "console/connection/ExecutionFollower.h"

#include <QJsonArray>

namespace runbox::console {

ExecutionLauncher::ExecutionLauncher(AgentConnection* connection, const RunRequest& request,
                                     QObject* parent)
    : QObject(parent), m_connection(connection), m_request(request) {}

void ExecutionLauncher::start() {
    if (!m_connection)
        return fail(tr("Not connected to an agent."));
    const QStringList problems = m_request.validate();
    if (!problems.isEmpty())
        return fail(problems.join(u'\n'));
    if (m_request.workspaceId.isEmpty())
        createWorkspace();
    else
        startManaged(m_request.workspaceId);
}

void ExecutionLauncher::createWorkspace() {
    Q_EMIT progress(tr("Creating a workspace…"));
    m_connection->sendJson(
        "POST", "/v1/workspaces", QJsonObject{{"isolation", "strong"}}, this,
        [this](const ApiResponse& r) {
            const QString id = r.json()
                                   .value(QLatin1String("workspaces"))
                                   .toArray()
                                   .first()
                                   .toObject()
                                   .value(QLatin1String("id"))
                                   .toString();
            if (!r.ok() || id.isEmpty())
                return fail(tr("Could not create a workspace: %1").arg(r.errorMessage()));
            startManaged(id);
        });
}

void ExecutionLauncher::startManaged(const QString& workspaceId) {
    if (!m_connection)
        return fail(tr("The connection to the agent was closed."));
    Q_EMIT progress(tr("Starting the execution…"));
    m_connection->sendJson(
        "POST", "/v1/executions", m_request.toManagedBody(workspaceId), this,
        [this, workspaceId](const ApiResponse& r) {
            if (isRouteMissing(r))
                return startSync(workspaceId); // this agent has only sync exec (yet)
            const QString id = r.json().value(QLatin1String("executionId")).toString();
            if (!r.ok() || id.isEmpty())
                return fail(tr("The agent refused the execution (HTTP %1): %2")
                                .arg(r.status)
                                .arg(r.errorMessage()));
            auto* follower = new ExecutionFollower(m_connection, id);
            follower->start();
            Q_EMIT launched(follower, true);
            deleteLater();
        });
}

void ExecutionLauncher::startSync(const QString& workspaceId) {
    if (!m_connection)
        return fail(tr("The connection to the agent was closed."));
    auto* follower = new ExecutionFollower(m_connection, workspaceId, m_request.toExecBody());
    follower->start();
    Q_EMIT launched(follower, false);
    deleteLater();
}

void ExecutionLauncher::fail(const QString& message) {
    Q_EMIT failed(message);
    deleteLater();
}

} // namespace runbox::console
