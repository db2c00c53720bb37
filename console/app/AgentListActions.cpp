#include "console/app/AgentListActions.h"

#include "console/app/ProfileDialog.h"
#include "console/connection/ConnectionManager.h"
#include "console/connection/TokenVault.h"
#include "console/core/ConsoleSettings.h"
#include "console/models/ProfileListModel.h"
#include "shared/TlsPin.h"

#include <QListView>
#include <QMessageBox>

namespace runbox::console {

AgentListActions::AgentListActions(QWidget* window, ConsoleSettings* settings,
                                   ConnectionManager* manager, ProfileListModel* profiles,
                                   QListView* list)
    : QObject(window), m_window(window), m_settings(settings), m_manager(manager),
      m_profiles(profiles), m_list(list), m_store(settings->fleetPath()) {}

void AgentListActions::warn(const QString& message) {
    Q_EMIT statusMessage(message, 0);
    auto* box =
        new QMessageBox(QMessageBox::Warning, tr("Agents"), message, QMessageBox::Ok, m_window);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void AgentListActions::loadProfiles() {
    QList<AgentProfile> profiles;
    QString error = m_store.load(&profiles);
    if (error.isEmpty())
        error = m_store.migrate(m_settings, &profiles);
    m_profiles->setProfiles(profiles);
    if (!error.isEmpty())
        warn(tr("The agents list could not be read: %1").arg(error));
}

void AgentListActions::saveProfiles() {
    if (const QString error = m_store.save(m_profiles->profiles()); !error.isEmpty())
        warn(tr("The agents list was not saved: %1").arg(error));
}

AgentProfile AgentListActions::selected() const {
    return m_profiles->profileAt(m_list->currentIndex().row());
}

void AgentListActions::selectProfile(const QString& profileId) {
    const int row = m_profiles->rowOf(profileId);
    if (row >= 0)
        m_list->setCurrentIndex(m_profiles->index(row));
}

void AgentListActions::addAndConnect(const AgentProfile& profile, const QByteArray& token) {
    m_profiles->upsert(profile);
    saveProfiles();
    m_manager->updateProfile(profile);
    if (token.isEmpty())
        m_manager->connectProfile(profile);
    else
        m_manager->connectProfile(profile, token);
    selectProfile(profile.id);
}

void AgentListActions::addAgent() {
    auto* dialog = new ProfileDialog(ProfileDialog::Mode::Add, {}, {}, m_window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this,
            [this, dialog] { addAndConnect(dialog->profile(), dialog->token()); });
    dialog->open();
}

void AgentListActions::editAgent() {
    const AgentProfile p = selected();
    if (p.id.isEmpty())
        return;
    auto* dialog = new ProfileDialog(ProfileDialog::Mode::Edit, p, {}, m_window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog, p] {
        AgentProfile edited = dialog->profile();
        const bool newPin = edited.fingerprint != p.fingerprint;
        if (!edited.sameAddress(p) || newPin)
            m_manager->disconnectProfile(p.id); // a new address or pin is a new connection
        if (!dialog->token().isEmpty()) {       // the token typed here is kept in the keychain
            edited.tokenFile.clear();
            edited.pool.clear();
        }
        m_profiles->upsert(edited);
        saveProfiles();
        m_manager->updateProfile(edited);
        if (!dialog->token().isEmpty())
            m_manager->connectProfile(edited, dialog->token());
        else if (newPin && edited.sameAddress(p))
            m_manager->connectProfile(edited); // the stored token, the new pin
    });
    dialog->open();
}

void AgentListActions::removeAgent() {
    const AgentProfile p = selected();
    if (p.id.isEmpty())
        return;
    if (QMessageBox::question(m_window, tr("Remove agent"),
                              tr("Remove %1 and forget its token?").arg(p.displayName())) !=
        QMessageBox::Yes)
        return;
    m_manager->disconnectProfile(p.id);
    if (p.tokenFile.isEmpty() && p.pool.isEmpty())
        m_manager->vault()->forget(p.id); // a token file or pool secret is left alone
    m_profiles->remove(p.id);
    saveProfiles();
}

void AgentListActions::connectSelected() {
    const AgentProfile p = selected();
    if (!p.id.isEmpty())
        m_manager->connectProfile(p);
}

void AgentListActions::disconnectSelected() {
    const AgentProfile p = selected();
    if (!p.id.isEmpty())
        m_manager->disconnectProfile(p.id);
}

void AgentListActions::askToken(const AgentProfile& profile, const QString& reason) {
    if (m_tokenDialog)
        return; // one question at a time
    auto* dialog = new ProfileDialog(ProfileDialog::Mode::TokenOnly, profile, reason, m_window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    m_tokenDialog = dialog;
    connect(dialog, &QDialog::accepted, this, [this, dialog, profile] {
        AgentProfile kept = profile;
        if (!kept.tokenFile.isEmpty() || !kept.pool.isEmpty()) {
            kept.tokenFile.clear(); // from now on the token typed here, in the keychain
            kept.pool.clear();
            m_profiles->upsert(kept);
            saveProfiles();
        }
        m_manager->connectProfile(kept, dialog->token());
    });
    dialog->open();
}

void AgentListActions::onCertificateRefused(const AgentProfile& profile, const QString& reason,
                                            const QByteArray& presentedSha256) {
    if (!profile.fingerprint.isEmpty() || presentedSha256.isEmpty()) {
        // A pinned agent presenting another certificate: never re-pinned from here.
        auto* box = new QMessageBox(QMessageBox::Critical, tr("Agent certificate"), reason,
                                    QMessageBox::Ok, m_window);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
        return;
    }
    const QString fingerprint = tls::formatFingerprint(presentedSha256);
    auto* box = new QMessageBox(
        QMessageBox::Question, tr("Agent certificate"),
        tr("%1 presents a certificate no authority vouches for. Its SHA-256 fingerprint is:\n\n"
           "%2\n\nCompare it with the output of runbox-agent --print-fingerprint on the agent's "
           "host (or its log). Pin it and connect only if they are the same.")
            .arg(profile.displayName(), fingerprint),
        QMessageBox::Yes | QMessageBox::No, m_window);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setDefaultButton(QMessageBox::No);
    connect(box, &QMessageBox::finished, this, [this, profile, fingerprint](int result) {
        if (result != QMessageBox::Yes)
            return;
        AgentProfile pinned = profile;
        pinned.fingerprint = fingerprint;
        m_manager->disconnectProfile(profile.id); // its client was built without the pin
        m_profiles->upsert(pinned);
        saveProfiles();
        m_manager->connectProfile(pinned);
    });
    box->open();
}

} // namespace runbox::console
