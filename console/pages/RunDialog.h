#pragma once

#include "console/api/RunRequest.h"

#include <QDialog>
#include <QPointer>

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTableView;

namespace runbox::console {

class AgentConnection;
class EnvTableModel;

/// Asks what to run on one agent: workspace (an existing one or a new strong one), kind
/// (shell, Python, R), the science environment (none, or one listed by `GET /v1/environments`;
/// a light workspace's own one, chosen for it, and no other),
/// the script, working directory, environment variables, timeout and NPU chips.
/// Accepting it yields a validated RunRequest; the caller starts it (ExecutionLauncher).
class RunDialog final : public QDialog {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RunDialog)
public:
    explicit RunDialog(AgentConnection* connection, QWidget* parent = nullptr);

    RunRequest request() const;
    void setChips(const QList<int>& chips);
    void setKind(const QString& kind);
    void setScript(const QString& code);
    void setWorkspace(const QString& workspaceId);
    /// Chooses the science environment @p environmentId (empty: none), also when the list
    /// arrives later.
    void setEnvironment(const QString& environmentId);
    /// The ids offered in the environment picker, "" (none) first.
    QStringList environmentChoices() const;
    /// Problems that keep Run disabled (translated), empty when it can run.
    QStringList problems() const;
    QPushButton* runButton() const { return m_run; }
    /// The agent the run goes to (nullptr once its connection is gone).
    AgentConnection* connection() const;

private:
    void loadWorkspaces();
    void loadEnvironments();
    void onKindChanged();
    void onWorkspaceChanged();
    void updateState();

    QPointer<AgentConnection> m_connection;
    QComboBox* m_workspace;
    QComboBox* m_kind;
    QComboBox* m_environment;
    QString m_wantedEnvironment;
    QPlainTextEdit* m_code;
    QLineEdit* m_cwd;
    EnvTableModel* m_env;
    QTableView* m_envView;
    QSpinBox* m_timeout;
    QLineEdit* m_chips;
    QLabel* m_problems;
    QPushButton* m_run;
    bool m_codeEdited = false;
};

} // namespace runbox::console
