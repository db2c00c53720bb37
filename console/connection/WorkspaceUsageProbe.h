#pragma once

#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>

namespace runbox::console {

class AgentConnection;

/// Measures workspaces' disk usage for the Workspaces page, one `GET /v1/workspaces/{id}/usage`
/// each (docs/contracts.md "Workspaces and executions": a walk of the tree on the agent), at
/// most kInFlight at once so that a long list never floods the agent. measure() replaces what
/// is still waiting; answers of an earlier connection are dropped.
class WorkspaceUsageProbe final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(WorkspaceUsageProbe)
public:
    static constexpr int kInFlight = 2;
    /// The most workspaces one measure() walks; the rest keep their last figure (or none).
    static constexpr int kMaxPerRound = 100;

    explicit WorkspaceUsageProbe(QObject* parent = nullptr);

    /// Measures @p ids (the first kMaxPerRound) on @p connection; null stops everything.
    void measure(AgentConnection* connection, const QStringList& ids);
    /// Workspaces waiting or being measured.
    int pending() const { return int(m_waiting.size()) + m_inFlight; }

Q_SIGNALS:
    /// @p id uses @p allocatedBytes (@p complete false: at least that many).
    void measured(const QString& id, qint64 allocatedBytes, bool complete);

private:
    void pump();

    QPointer<AgentConnection> m_connection;
    QStringList m_waiting;
    int m_inFlight = 0;
    quint64 m_round = 0; ///< answers of an older round (connection) are dropped
};

} // namespace runbox::console
