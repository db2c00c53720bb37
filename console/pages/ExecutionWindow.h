#pragma once

#include "console/api/ExecutionInfo.h"

#include <QPointer>
#include <QWidget>

class QAction;
class QLabel;
class QTabWidget;
class QTreeWidget;

namespace runbox::console {

class ConsoleSettings;
class ExecutionFollower;
class HostBanner;
class LogView;

/// One execution in its own window: which host, its state, a live log (stdout and stderr
/// distinguished, bounded, follow/pause, find, save) with Cancel, its details (permission epoch,
/// env, cwd, changed files) and its egress decisions.
class ExecutionWindow final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ExecutionWindow)
public:
    /// Takes ownership of @p follower (already started or not; it is started here if needed).
    ExecutionWindow(ExecutionFollower* follower, ConsoleSettings* settings,
                    QWidget* parent = nullptr);
    ~ExecutionWindow() override;

    ExecutionFollower* follower() const { return m_follower; }
    LogView* logView() const { return m_log; }
    /// The state label as shown ("Running", "Cancelled"…).
    QString stateText() const;
    QAction* cancelAction() const { return m_cancel; }
    /// The egress tab's text (for tests): every decision row, tab-separated.
    QStringList egressRows() const;

Q_SIGNALS:
    /// The record changed (for the executions table).
    void executionChanged(const runbox::console::ExecutionInfo& info);

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void showInfo(const ExecutionInfo& info);
    void showDetails(const ExecutionInfo& info);
    void addEgressRow(const QJsonObject& decision);
    void loadEgress();
    void saveLog();
    void onFinished(const ExecutionInfo& info);

    QPointer<ExecutionFollower> m_follower;
    ConsoleSettings* m_settings;
    HostBanner* m_banner;
    QLabel* m_stateIcon;
    QLabel* m_state;
    QLabel* m_facts;
    QLabel* m_notice;
    QTabWidget* m_tabs;
    LogView* m_log;
    QTreeWidget* m_details;
    QTreeWidget* m_egress;
    QAction* m_cancel;
    QAction* m_follow;
    QAction* m_pause;
    bool m_egressLoaded = false;
};

} // namespace runbox::console
