#pragma once

#include "console/connection/AgentProfile.h"

#include <QAbstractListModel>
#include <QPointer>

namespace runbox::console {

class ConnectionManager;

/// The saved agent profiles, one row each, decorated with the state of their connection
/// (disconnected, connecting, connected, reconnecting, token refused).
class ProfileListModel final : public QAbstractListModel {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ProfileListModel)
public:
    enum Role {
        ProfileIdRole = Qt::UserRole + 1, ///< QString
        UrlRole,                          ///< QString
        ConnectedRole,                    ///< bool: has a connection (any state)
        StateTextRole,                    ///< QString: translated connection state
    };

    explicit ProfileListModel(ConnectionManager* manager, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

    QList<AgentProfile> profiles() const { return m_profiles; }
    void setProfiles(const QList<AgentProfile>& profiles);
    /// The profile at @p row (a default profile when out of range).
    AgentProfile profileAt(int row) const;
    /// Row of @p profileId, -1 when absent.
    int rowOf(const QString& profileId) const;
    /// Adds a profile at the end, or replaces the one with the same id.
    void upsert(const AgentProfile& profile);
    void remove(const QString& profileId);

private:
    void refreshRowOf(const QString& profileId);

    QPointer<ConnectionManager> m_manager;
    QList<AgentProfile> m_profiles;
};

} // namespace runbox::console
