#include "console/fleet/FleetHostModel.h"

#include "console/connection/ConnectionManager.h"
#include "console/fleet/FleetHost.h"
#include "console/models/NpuChipModel.h"

#include <algorithm>

namespace runbox::console {

namespace {
bool before(const QString& a, const QString& b) {
    const int c = a.compare(b, Qt::CaseInsensitive);
    return c != 0 ? c < 0 : a < b;
}
} // namespace

FleetHostModel::FleetHostModel(ConnectionManager* manager, QObject* parent)
    : QAbstractListModel(parent) {
    for (AgentConnection* c : manager->connections())
        addHost(c);
    connect(manager, &ConnectionManager::connectionAdded, this, &FleetHostModel::addHost);
    connect(manager, &ConnectionManager::connectionRemoved, this, &FleetHostModel::removeHost);
}

FleetHostModel::~FleetHostModel() = default;

int FleetHostModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_hosts.size());
}

QVariant FleetHostModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const FleetHost* h = m_hosts.at(index.row());
    const NpuInventory& inv = h->chips()->inventory();
    switch (role) {
    case Qt::DisplayRole:
        return h->name();
    case Qt::ToolTipRole:
        return h->url();
    case ProfileIdRole:
        return h->profileId();
    case StatusRole:
        return int(h->status());
    case StatusTextRole:
        return h->statusText();
    case ChipCountRole:
        return int(inv.chips.size());
    case UsableCountRole:
        return inv.usableCount();
    case HeldCountRole:
        return inv.heldCount();
    default:
        return {};
    }
}

QHash<int, QByteArray> FleetHostModel::roleNames() const {
    QHash<int, QByteArray> names = QAbstractListModel::roleNames();
    names.insert(ProfileIdRole, "profileId");
    names.insert(StatusRole, "status");
    names.insert(StatusTextRole, "statusText");
    names.insert(ChipCountRole, "chipCount");
    names.insert(UsableCountRole, "usableCount");
    names.insert(HeldCountRole, "heldCount");
    return names;
}

FleetHost* FleetHostModel::hostAt(int row) const {
    return row >= 0 && row < m_hosts.size() ? m_hosts.at(row) : nullptr;
}

int FleetHostModel::rowOf(const QString& profileId) const {
    for (int i = 0; i < m_hosts.size(); ++i)
        if (m_hosts.at(i)->profileId() == profileId)
            return i;
    return -1;
}

void FleetHostModel::refreshAll() {
    for (FleetHost* h : std::as_const(m_hosts))
        h->refresh();
}

void FleetHostModel::addHost(AgentConnection* connection) {
    if (!connection || rowOf(connection->profile().id) >= 0)
        return;
    auto* host = new FleetHost(connection, this);
    const auto at = std::find_if(m_hosts.begin(), m_hosts.end(), [host](const FleetHost* h) {
        return before(host->name(), h->name());
    });
    const int row = int(at - m_hosts.begin());
    beginInsertRows({}, row, row);
    m_hosts.insert(row, host);
    endInsertRows();
    connect(host, &FleetHost::changed, this, [this, host] { onHostChanged(host); });
}

void FleetHostModel::removeHost(const QString& profileId) {
    const int row = rowOf(profileId);
    if (row < 0)
        return;
    beginRemoveRows({}, row, row);
    FleetHost* host = m_hosts.takeAt(row);
    endRemoveRows();
    host->disconnect(this);
    host->deleteLater(); // views may still hold its chip model until the event loop runs
}

void FleetHostModel::onHostChanged(FleetHost* host) {
    const int row = rowOf(host->profileId());
    if (row < 0)
        return;
    // A rename may change the order: move the row where its name belongs.
    int target = 0;
    for (int i = 0; i < m_hosts.size(); ++i)
        if (i != row && before(m_hosts.at(i)->name(), host->name()))
            ++target;
    if (target != row) {
        beginMoveRows({}, row, row, {}, target > row ? target + 1 : target);
        m_hosts.move(row, target);
        endMoveRows();
    }
    const QModelIndex i = index(target);
    Q_EMIT dataChanged(i, i);
}

} // namespace runbox::console
