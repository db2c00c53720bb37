#pragma once

#include <QAbstractListModel>
#include <QList>

namespace runbox::console {

class AgentConnection;
class ConnectionManager;
class FleetHost;

/// The hosts of the Fleet board: one row per connection of the ConnectionManager, whatever its
/// state, sorted by name. Rows come and go with the manager's connections; each row's FleetHost
/// holds that agent's chips. DisplayRole is the host's name, ToolTipRole its URL.
class FleetHostModel final : public QAbstractListModel {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FleetHostModel)
public:
    enum Role {
        ProfileIdRole = Qt::UserRole + 1, ///< QString
        StatusRole,                       ///< int (FleetHost::Status)
        StatusTextRole,                   ///< QString: the host's line (translated)
        ChipCountRole,                    ///< int: chips listed
        UsableCountRole,                  ///< int: chips a run may ask for
        HeldCountRole,                    ///< int: chips in use now
    };

    explicit FleetHostModel(ConnectionManager* manager, QObject* parent = nullptr);
    ~FleetHostModel() override;

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

    /// The host of @p row (nullptr when out of range).
    FleetHost* hostAt(int row) const;
    /// The row of @p profileId, or -1.
    int rowOf(const QString& profileId) const;
    /// Reads every host's chips again.
    void refreshAll();

private:
    void addHost(AgentConnection* connection);
    void removeHost(const QString& profileId);
    void onHostChanged(FleetHost* host);

    QList<FleetHost*> m_hosts;
};

} // namespace runbox::console
