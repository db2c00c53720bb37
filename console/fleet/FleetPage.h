#pragma once

#include <QList>
#include <QTimer>
#include <QWidget>

class QLabel;
class QPushButton;
class QVBoxLayout;

namespace runbox::console {

class ConnectionManager;
class FleetHostModel;
class FleetHostSection;

/// The Fleet board: the NPU chips of every connected agent, grouped by host (FleetHostModel),
/// one FleetHostSection each; unreachable hosts and hosts without chips say so on their line.
/// Reads every host again on a timer and on refresh(); chips chosen on one host ask the main
/// window to open the run dialog for that host (runRequested()).
class FleetPage final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FleetPage)
public:
    explicit FleetPage(ConnectionManager* manager, QWidget* parent = nullptr);

    QString title() const;
    QIcon icon() const;
    FleetHostModel* model() const { return m_model; }
    /// The section of @p profileId's host, or nullptr.
    FleetHostSection* section(const QString& profileId) const;
    /// Reads every host's chips again (F5, the Refresh button).
    void refresh();
    /// The automatic refresh interval (ms; 0 stops it).
    void setRefreshIntervalMs(int ms);
    int refreshIntervalMs() const { return m_timer.interval(); }

Q_SIGNALS:
    /// Open the run dialog on @p profileId's agent with @p chips preselected.
    void runRequested(const QString& profileId, const QList<int>& chips);

protected:
    void showEvent(QShowEvent* event) override;

private:
    void rebuild();
    void updateSummary();

    FleetHostModel* m_model;
    QLabel* m_summary;
    QLabel* m_empty;
    QVBoxLayout* m_hostsLayout;
    QList<FleetHostSection*> m_sections;
    QTimer m_timer;
};

} // namespace runbox::console
