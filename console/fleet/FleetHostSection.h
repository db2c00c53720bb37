#pragma once

#include <QPointer>
#include <QWidget>

class QLabel;
class QListView;
class QPushButton;

namespace runbox::console {

class FleetHost;

/// One host on the Fleet board: its name and URL, its line (state, no chips and why, or how many
/// are usable), its chips as tiles (NpuChipModel + ChipTileDelegate, as on the NPU page) and
/// "Run on this host with the selected chips". The board is hidden whenever the host has no
/// chips to show.
class FleetHostSection final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FleetHostSection)
public:
    explicit FleetHostSection(FleetHost* host, QWidget* parent = nullptr);

    FleetHost* host() const { return m_host; }
    QString statusText() const;
    QListView* board() const { return m_board; }
    QPushButton* runButton() const { return m_run; }

Q_SIGNALS:
    /// Run on @p profileId's agent with @p chips.
    void runRequested(const QString& profileId, const QList<int>& chips);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void showHost();
    void fitBoard();

    QPointer<FleetHost> m_host;
    QLabel* m_title;
    QLabel* m_status;
    QListView* m_board;
    QPushButton* m_run;
};

} // namespace runbox::console
