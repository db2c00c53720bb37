#include "console/models/ProfileListModel.h"

#include "console/api/HealthReport.h"
#include "console/connection/ConnectionManager.h"

#include <QIcon>

namespace runbox::console {

ProfileListModel::ProfileListModel(ConnectionManager* manager, QObject* parent)
    : QAbstractListModel(parent), m_manager(manager) {
    if (!manager)
        return;
    connect(manager, &ConnectionManager::connectionAdded, this, [this](AgentConnection* c) {
        const QString id = c->profile().id;
        connect(c, &AgentConnection::stateChanged, this, [this, id] { refreshRowOf(id); });
        // A pool host's free slots, shown under its name, move with each health poll.
        connect(c, &AgentConnection::healthChanged, this, [this, id] { refreshRowOf(id); });
        refreshRowOf(id);
    });
    connect(manager, &ConnectionManager::connectionRemoved, this,
            [this](const QString& id) { refreshRowOf(id); });
}

int ProfileListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_profiles.size());
}

QVariant ProfileListModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const AgentProfile& p = m_profiles.at(index.row());
    AgentConnection* conn = m_manager ? m_manager->connection(p.id) : nullptr;
    switch (role) {
    case Qt::DisplayRole: {
        // A pool host says its pool and free slots under its name while connected.
        const QString pool = conn && conn->state() == AgentConnection::State::Connected
                                 ? HealthReport(conn->health()).poolSummary()
                                 : QString();
        return pool.isEmpty() ? p.name : p.name + u'\n' + pool;
    }
    case Qt::EditRole:
        return p.name;
    case Qt::ToolTipRole:
        return tr("%1\n%2\n%3")
            .arg(p.name, p.viaSsh ? p.hostAndPort() : p.url.toString(),
                 conn ? conn->stateText() : tr("Not connected"));
    case Qt::DecorationRole: {
        if (!conn || conn->state() == AgentConnection::State::Disconnected)
            return QIcon(QStringLiteral(":/icons/agent-offline.svg"));
        switch (conn->state()) {
        case AgentConnection::State::Connected:
            return QIcon(QStringLiteral(":/icons/agent-online.svg"));
        case AgentConnection::State::AuthFailed:
        case AgentConnection::State::Incompatible:
        case AgentConnection::State::CertificateRefused:
        case AgentConnection::State::SshRefused:
            return QIcon(QStringLiteral(":/icons/agent-error.svg"));
        default:
            return QIcon(QStringLiteral(":/icons/agent-connecting.svg"));
        }
    }
    case ProfileIdRole:
        return p.id;
    case UrlRole:
        return p.url.toString();
    case ConnectedRole:
        return conn != nullptr;
    case StateTextRole:
        return conn ? conn->stateText() : tr("Not connected");
    default:
        return {};
    }
}

QHash<int, QByteArray> ProfileListModel::roleNames() const {
    QHash<int, QByteArray> names = QAbstractListModel::roleNames();
    names.insert(ProfileIdRole, "profileId");
    names.insert(UrlRole, "url");
    names.insert(ConnectedRole, "connected");
    names.insert(StateTextRole, "stateText");
    return names;
}

void ProfileListModel::setProfiles(const QList<AgentProfile>& profiles) {
    beginResetModel();
    m_profiles = profiles;
    endResetModel();
}

AgentProfile ProfileListModel::profileAt(int row) const {
    return row >= 0 && row < m_profiles.size() ? m_profiles.at(row) : AgentProfile();
}

int ProfileListModel::rowOf(const QString& profileId) const {
    for (int i = 0; i < m_profiles.size(); ++i)
        if (m_profiles.at(i).id == profileId)
            return i;
    return -1;
}

void ProfileListModel::upsert(const AgentProfile& profile) {
    const int row = rowOf(profile.id);
    if (row >= 0) {
        m_profiles[row] = profile;
        Q_EMIT dataChanged(index(row), index(row));
        return;
    }
    const int end = int(m_profiles.size());
    beginInsertRows({}, end, end);
    m_profiles.append(profile);
    endInsertRows();
}

void ProfileListModel::remove(const QString& profileId) {
    const int row = rowOf(profileId);
    if (row < 0)
        return;
    beginRemoveRows({}, row, row);
    m_profiles.removeAt(row);
    endRemoveRows();
}

void ProfileListModel::refreshRowOf(const QString& profileId) {
    const int row = rowOf(profileId);
    if (row >= 0)
        Q_EMIT dataChanged(index(row), index(row));
}

} // namespace runbox::console
