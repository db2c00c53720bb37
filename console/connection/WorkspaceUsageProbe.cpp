#include "console/connection/WorkspaceUsageProbe.h"

#include "console/connection/AgentConnection.h"

#include <QJsonObject>

namespace runbox::console {

WorkspaceUsageProbe::WorkspaceUsageProbe(QObject* parent) : QObject(parent) {}

void WorkspaceUsageProbe::measure(AgentConnection* connection, const QStringList& ids) {
    if (connection != m_connection) {
        ++m_round; // in-flight answers of the old connection no longer count
        m_inFlight = 0;
    }
    m_connection = connection;
    m_waiting = connection ? ids.mid(0, kMaxPerRound) : QStringList();
    pump();
}

void WorkspaceUsageProbe::pump() {
    while (m_connection && m_inFlight < kInFlight && !m_waiting.isEmpty()) {
        const QString id = m_waiting.takeFirst();
        ++m_inFlight;
        const quint64 round = m_round;
        m_connection->get(
            "/v1/workspaces/" + id.toUtf8() + "/usage", this,
            [this, id, round](const ApiResponse& r) {
                if (round != m_round)
                    return;
                --m_inFlight;
                const QJsonObject o = r.json();
                if (r.ok() && o.value(QLatin1String("allocatedBytes")).isDouble())
                    Q_EMIT measured(id, qint64(o.value(QLatin1String("allocatedBytes")).toDouble()),
                                    o.value(QLatin1String("complete")).toBool(true));
                pump();
            });
    }
}

} // namespace runbox::console
