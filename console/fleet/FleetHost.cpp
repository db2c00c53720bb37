#include "console/fleet/FleetHost.h"

#include "console/api/ExecutionInfo.h"
#include "console/api/NpuInventory.h"
#include "console/connection/AgentConnection.h"
#include "console/models/NpuChipModel.h"

namespace runbox::console {

FleetHost::FleetHost(AgentConnection* connection, QObject* parent)
    : QObject(parent), m_connection(connection), m_profileId(connection->profile().id),
      m_chips(new NpuChipModel(this)) {
    connect(connection, &AgentConnection::stateChanged, this, &FleetHost::onConnectionState);
    connect(connection, &AgentConnection::profileChanged, this, &FleetHost::changed);
    connect(connection, &QObject::destroyed, this, [this] {
        m_connection = nullptr;
        onConnectionState();
    });
    onConnectionState();
}

AgentConnection* FleetHost::connection() const {
    return m_connection;
}

QString FleetHost::name() const {
    return m_connection ? m_connection->profile().displayName() : m_profileId;
}

QString FleetHost::url() const {
    return m_connection ? m_connection->profile().url.toString() : QString();
}

void FleetHost::onConnectionState() {
    ++m_generation; // an answer in flight belongs to the old state
    m_inFlight = false;
    if (m_connection && m_connection->state() == AgentConnection::State::Connected) {
        setStatus(Status::Loading);
        refresh();
        return;
    }
    m_chips->setInventory({});
    const AgentConnection::State state =
        m_connection ? m_connection->state() : AgentConnection::State::Disconnected;
    // Disconnected with a connection still listed: created, not opened yet (the manager removes
    // the connections it closes).
    if (m_connection && (state == AgentConnection::State::Connecting ||
                         state == AgentConnection::State::Disconnected))
        return setStatus(Status::Connecting);
    setStatus(Status::Unreachable,
              m_connection ? m_connection->lastError() : tr("The connection was closed."));
}

void FleetHost::refresh() {
    if (!m_connection || m_connection->state() != AgentConnection::State::Connected) {
        onConnectionState();
        return;
    }
    if (m_inFlight)
        return;
    m_inFlight = true;
    const quint64 generation = m_generation;
    m_connection->get("/v1/npu/chips", this, [this, generation](const ApiResponse& r) {
        if (generation != m_generation)
            return;
        m_inFlight = false;
        if (isRouteMissing(r)) {
            m_chips->setInventory({});
            return setStatus(Status::NotOffered);
        }
        if (!r.ok()) {
            m_chips->setInventory({});
            if (r.status == 0)
                return setStatus(Status::Unreachable, r.errorMessage());
            return setStatus(Status::Failed, r.errorMessage());
        }
        const NpuInventory inventory = NpuInventory::fromJson(r.json());
        m_chips->setInventory(inventory);
        setStatus(inventory.chips.isEmpty() ? Status::NoChips : Status::Chips, inventory.reason);
    });
}

void FleetHost::setStatus(Status status, const QString& detail) {
    m_status = status;
    m_detail = detail;
    Q_EMIT changed();
}

QString FleetHost::statusText() const {
    switch (m_status) {
    case Status::Connecting:
        return tr("Connecting…");
    case Status::Loading:
        return tr("Reading the chips…");
    case Status::Unreachable: {
        const QString state = m_connection ? m_connection->stateText() : tr("Disconnected");
        return m_detail.isEmpty() ? tr("Unreachable (%1): no chips can be chosen.").arg(state)
                                  : tr("Unreachable (%1): %2").arg(state, m_detail);
    }
    case Status::NotOffered:
        return tr("This agent does not offer GET /v1/npu/chips yet.");
    case Status::Failed:
        return tr("Could not read the chips: %1").arg(m_detail);
    case Status::NoChips:
        return m_detail.isEmpty() ? tr("No NPU on this host.")
                                  : tr("No NPU on this host: %1").arg(m_detail);
    case Status::Chips: {
        const NpuInventory& inv = m_chips->inventory();
        const int held = inv.heldCount();
        const QString usable =
            tr("%1 of %n chip(s) usable", nullptr, int(inv.chips.size())).arg(inv.usableCount());
        return held > 0 ? tr("%1 · %n in use", nullptr, held).arg(usable) : usable;
    }
    }
    return {};
}

} // namespace runbox::console
