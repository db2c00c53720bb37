#pragma once

#include "agent/Error.h"
#include "agent/environments/EnvironmentService.h"

#include <QHash>
#include <QJsonObject>
#include <QMap>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <optional>

namespace runbox::light {

/// The science environments of light workspaces (docs/environments.md "Selection"). A light
/// workspace has one Landlock domain and no mount namespace per execution, so its environment is
/// chosen when it is created: `environmentId` (its current revision then) or
/// `environmentRevisionId` (that ready revision), resolved as an execution's selection
/// (EnvironmentService::resolveSelection: 400 `unknown_environment`, 409
/// `environment_not_ready`, 409 `environment_revision_removed`, 400 `invalid_request` for both).
/// The revision's prefix is held (EnvironmentService::acquirePrefix) from the creation until the
/// workspace is forgotten, so the sweep never removes it and deleting the environment answers
/// 409 `environment_in_use`. Light workspaces do not survive an agent restart, so nothing is
/// held across one. Main thread only.
class LightEnvironments final {
public:
    /// The environment a workspace was created with.
    struct Selection {
        QString environmentId;
        QString revisionId;
        QString language; ///< `python` | `r`
        bool isEmpty() const { return revisionId.isEmpty(); }
    };

    /// @p service may be null (the agent wired no environments): every selection is then 503
    /// `environment_unavailable`.
    explicit LightEnvironments(environments::EnvironmentService* service) : m_service(service) {}

    /// Reads `environmentId` / `environmentRevisionId` of a create body into @p environmentId
    /// and @p revisionId ("" when absent). InvalidArgument (400) `invalid_request` for a value
    /// that is not a non-empty string, or for both.
    static std::optional<Error> parse(const QJsonObject& body, QString* environmentId,
                                      QString* revisionId);

    /// Resolves the selection of a create request and holds its revision once, for the
    /// creation (release() it when the creation is over). @p out: the selection; @p prefix: the
    /// revision's host path; @p env: the variables every execution of the workspace gets (PATH
    /// `/opt/science-env/bin:/usr/bin:/bin` and the provisioner's executionEnvironment(), as
    /// EnvironmentStage sets them for strong executions). Errors of resolveSelection and
    /// acquirePrefix (503 `environment_unavailable`).
    std::optional<Error> acquire(const QString& environmentId, const QString& revisionId,
                                 Selection* out, QString* prefix, QMap<QString, QString>* env);
    /// Drops a hold acquire() took.
    void release(const QString& revisionId);
    /// Workspace @p workspaceId runs with @p selection from now on: one more hold on its
    /// revision, until detach().
    void attach(const QString& workspaceId, const Selection& selection);
    /// Workspace @p workspaceId was forgotten: its hold goes. No-op for one without.
    void detach(const QString& workspaceId);
    /// The environment of workspace @p workspaceId (empty when it has none).
    Selection of(const QString& workspaceId) const { return m_workspaces.value(workspaceId); }

    /// At an execution's intake in workspace @p workspaceId (before resolveSelection): the
    /// request names the workspace's environment (its id or its revision's) or none → its
    /// revision is put into @p request, so resolveSelection records both ids and checks the
    /// kind's language; it names another one, or the workspace has none → Conflict (409)
    /// `environment_mismatch`.
    std::optional<Error> pin(const QString& workspaceId, execution::ExecRequest* request) const;

    /// @p argv with a kind's host interpreter (`/usr/bin/python3`, `/usr/bin/R`) replaced by the
    /// environment's under /opt/science-env, as EnvironmentStage does; unchanged otherwise.
    static QStringList withEnvironmentInterpreter(QStringList argv);

    /// `{"environmentId","environmentRevisionId"}` of workspace @p workspaceId (null each when
    /// it has none).
    QJsonObject json(const QString& workspaceId) const;

private:
    QPointer<environments::EnvironmentService> m_service; ///< may go first at shutdown
    QHash<QString, Selection> m_workspaces;               ///< workspace id → its environment
};

} // namespace runbox::light
