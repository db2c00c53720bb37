#pragma once

#include "console/connection/AgentProfile.h"
#include "console/core/ProfileStore.h"

#include <QObject>
#include <QPointer>

class QDialog;
class QListView;
class QWidget;

namespace runbox::console {

class ConnectionManager;
class ConsoleSettings;
class ProfileListModel;

/// What the operator does to the agents list: add, edit, remove, connect, disconnect, give a
/// refused token again, pin a certificate. Profiles are kept in the fleet file (ProfileStore);
/// the dialogs open on @p window, never in a nested event loop.
class AgentListActions final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AgentListActions)
public:
    AgentListActions(QWidget* window, ConsoleSettings* settings, ConnectionManager* manager,
                     ProfileListModel* profiles, QListView* list);

    /// Reads the fleet file's agents into the list, moving an earlier console's profiles from
    /// its settings into the fleet file first; a fleet file that cannot be read is said on
    /// statusMessage and in a warning box, and is left as it is.
    void loadProfiles();
    /// Saves @p profile (new or edited) and connects with @p token (empty: the stored one).
    void addAndConnect(const AgentProfile& profile, const QByteArray& token);
    /// Selects @p profileId in the list.
    void selectProfile(const QString& profileId);
    /// The fleet file the profiles live in.
    QString fleetPath() const { return m_store.path(); }

    void addAgent();
    void editAgent();
    void removeAgent();
    void connectSelected();
    void disconnectSelected();
    /// The agent refused (or there is no) token: asks for one; one question at a time.
    void askToken(const AgentProfile& profile, const QString& reason);
    /// An https:// agent's certificate was refused: unpinned, shows its fingerprint and offers
    /// to pin it once the operator compared it with the agent's host; pinned (the certificate
    /// changed), says so with both fingerprints and pins nothing.
    void onCertificateRefused(const AgentProfile& profile, const QString& reason,
                              const QByteArray& presentedSha256);

Q_SIGNALS:
    void statusMessage(const QString& message, int timeoutMs);

private:
    AgentProfile selected() const;
    void saveProfiles();
    void warn(const QString& message);

    QWidget* m_window;
    ConsoleSettings* m_settings;
    ConnectionManager* m_manager;
    ProfileListModel* m_profiles;
    QListView* m_list;
    ProfileStore m_store;
    QPointer<QDialog> m_tokenDialog;
};

} // namespace runbox::console
