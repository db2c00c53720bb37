#pragma once

#include <QPointer>
#include <QWidget>

class QLabel;
class QProgressBar;

namespace runbox::console {

class AgentConnection;

/// The strip at the top of every page: the page title, and which agent (name, host:port,
/// connection state) the page is about, with a busy indicator while requests run.
class HostBanner final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HostBanner)
public:
    HostBanner(const QString& title, const QString& iconPath, QWidget* parent = nullptr);

    void setConnection(AgentConnection* connection);
    /// Shows or hides the busy indicator; calls nest (shown until the last end).
    void beginBusy();
    void endBusy();
    bool isBusy() const { return m_busy > 0; }
    /// The host text shown, e.g. "gpu-node-3 (10.0.0.3:4311) · Connected".
    QString hostText() const;

private:
    void update();

    QPointer<AgentConnection> m_connection;
    QLabel* m_stateIcon;
    QLabel* m_host;
    QProgressBar* m_progress;
    int m_busy = 0;
};

} // namespace runbox::console
