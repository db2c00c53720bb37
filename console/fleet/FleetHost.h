#pragma once

#include <QObject>
#include <QPointer>
#include <QString>

namespace runbox::console {

class AgentConnection;
class NpuChipModel;

/// One host of the Fleet board: an agent connection and its chips (`GET /v1/npu/chips`) in its
/// own NpuChipModel. While the connection is not Connected, or when a read fails, the chips are
/// cleared, so a host that went away never shows stale chips as usable.
class FleetHost final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FleetHost)
public:
    /// What the host's line says.
    enum class Status {
        Connecting,  ///< the connection is being opened (not yet refused or lost)
        Loading,     ///< connected, the first answer has not come yet
        Unreachable, ///< the connection is not Connected (connecting, lost, refused…)
        NotOffered,  ///< the agent has no `GET /v1/npu/chips` (404/405)
        Failed,      ///< the route answered an error
        NoChips,     ///< the agent found no chip (its reason in statusText())
        Chips        ///< chips listed
    };
    Q_ENUM(Status)

    explicit FleetHost(AgentConnection* connection, QObject* parent = nullptr);

    QString profileId() const { return m_profileId; }
    /// The profile's display name (its name, else its URL).
    QString name() const;
    /// The agent's URL as text.
    QString url() const;
    /// The connection (nullptr once it is gone).
    AgentConnection* connection() const;
    Status status() const { return m_status; }
    /// The host's one translated line: its state, why it has no chips, or how many are usable.
    QString statusText() const;
    NpuChipModel* chips() const { return m_chips; }

    /// Reads the chips again (no-op while a read is in flight or the host is unreachable).
    void refresh();

Q_SIGNALS:
    /// status(), statusText(), the name or the chips changed.
    void changed();

private:
    void onConnectionState();
    void setStatus(Status status, const QString& detail = {});

    QPointer<AgentConnection> m_connection;
    QString m_profileId;
    NpuChipModel* m_chips;
    Status m_status = Status::Loading;
    QString m_detail; ///< reason or error text of the current status
    bool m_inFlight = false;
    quint64 m_generation = 0; ///< answers of an older connection state are ignored
};

} // namespace runbox::console
