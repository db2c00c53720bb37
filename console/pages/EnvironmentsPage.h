#pragma once

#include "console/api/EnvironmentInfo.h"
#include "console/pages/AgentPage.h"
#include "console/pages/EnvironmentDialogs.h"

#include <QTimer>

class QLabel;
class QPushButton;
class QTableView;
class QTreeWidget;

namespace runbox::console {

class EnvironmentTableModel;

/// The agent's science environments (docs/environments.md): the environments with their status,
/// current revision and last build failure; the revisions of the selected one; the package
/// snapshot of the selected revision. New, Install packages, Uninstall packages and Delete (after
/// a confirmation) send the requests; a build's log is followed live in an execution window
/// (buildStarted). While a build runs the list is re-read every two seconds. The agent's refusals
/// are shown as its message.
class EnvironmentsPage final : public AgentPage {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(EnvironmentsPage)
public:
    explicit EnvironmentsPage(QWidget* parent = nullptr);

    void refresh() override;
    EnvironmentTableModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    /// Selects the row of environment @p id (when listed).
    void selectEnvironment(const QString& id);
    QString selectedEnvironmentId() const;
    /// The dialogs behind the buttons (opened, never a nested event loop).
    void newEnvironment();
    void installPackages();
    void uninstallPackages();
    /// Asks for confirmation, then deletes the selected environment.
    void deleteSelected();
    /// The requests behind them.
    void createEnvironment(const QString& name, const QString& language);
    void changePackages(const QString& environmentId, PackagesDialog::Mode mode,
                        const QStringList& packages);
    void deleteEnvironment(const QString& environmentId);
    /// The agent's last refusal as shown ("" when none).
    QString errorText() const;
    /// Each revision row as shown, tab-separated (seq, id, status, packages, built, reason).
    QStringList revisionRows() const;
    /// Each package of the snapshot shown, "name\tversion".
    QStringList snapshotRows() const;
    /// The revision whose snapshot is shown ("" when none).
    QString snapshotRevisionId() const { return m_snapshotRevision; }
    /// The poll interval while a build runs (ms); tests may shorten it.
    void setPollIntervalMs(int ms) { m_poll.setInterval(ms); }

Q_SIGNALS:
    /// The list was read and is shown.
    void loaded();
    void revisionsLoaded();
    void snapshotLoaded();
    /// A build started in managed execution @p executionId: follow its log.
    void buildStarted(const QString& executionId);
    /// "Run in this environment…": open the run dialog with it chosen.
    void runRequested(const QString& environmentId);
    /// The agent refused a request (its message, translated context).
    void failed(const QString& message);

protected:
    void onConnectionChanged() override;

private:
    void load();
    void loadRevisions();
    void showRevisions(const QList<EnvironmentRevision>& revisions);
    void onRevisionSelected();
    void loadSnapshot(const QString& revisionId);
    void showError(const QString& message);
    void clearDetails();
    void updateButtons();
    void started(const EnvironmentBuild& build);

    EnvironmentTableModel* m_model;
    QTableView* m_table;
    QTreeWidget* m_revisions;
    QTreeWidget* m_snapshot;
    QLabel* m_snapshotTitle;
    QLabel* m_error;
    QPushButton* m_new;
    QPushButton* m_install;
    QPushButton* m_uninstall;
    QPushButton* m_delete;
    QPushButton* m_run;
    QTimer m_poll;
    QString m_selectAfterLoad;
    QString m_snapshotRevision;
    QJsonObject m_shownEnvironment; ///< raw of the environment whose revisions are shown
    QList<EnvironmentRevision> m_revisionList;
    bool m_loading = false;
};

} // namespace runbox::console
