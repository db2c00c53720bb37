#pragma once

#include <QObject>
#include <QString>

namespace runbox::proxy {

/// What the port proxy needs of the light tier (docs/light-workspaces.md "In the agent"): a
/// workspace counts as active (never idle-evicted) between begin() and end() of each proxied
/// request or WebSocket relay, and workspaceRemoved() ends the sessions of a deleted workspace.
/// Implemented over light::LightService by ProxyRoutes, so that this folder does not depend on
/// the routes.
class WorkspaceActivity : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(WorkspaceActivity)
public:
    explicit WorkspaceActivity(QObject* parent = nullptr) : QObject(parent) {}
    ~WorkspaceActivity() override = default;

    /// One more proxied session talks to workspace @p workspaceId.
    virtual void begin(const QString& workspaceId) = 0;
    /// One session fewer (after a matching begin()).
    virtual void end(const QString& workspaceId) = 0;

Q_SIGNALS:
    /// Workspace @p workspaceId was deleted: its sessions end.
    void workspaceRemoved(const QString& workspaceId);
};

} // namespace runbox::proxy
