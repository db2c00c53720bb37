#pragma once

#include "console/connection/AgentProfile.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace runbox::console {

/// Adds or edits an agent profile (name, URL or the SSH fields) and takes its token. In token-only
/// mode (the agent refused the stored token, or none is stored) only the token can be entered.
class ProfileDialog final : public QDialog {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ProfileDialog)
public:
    enum class Mode { Add, Edit, TokenOnly };

    ProfileDialog(Mode mode, const AgentProfile& profile, const QString& explanation,
                  QWidget* parent = nullptr);

    AgentProfile profile() const;
    /// The token typed (trimmed); empty in Edit mode means "keep the stored one".
    QByteArray token() const;
    void setToken(const QString& token);

private:
    void updateState();
    /// The SSH rows: built, filled from @p profile, added to @p form.
    void addSshRows(QFormLayout* form, const AgentProfile& profile);
    /// A problem of the SSH rows the profile cannot see (the remote end of the wrong kind).
    QString sshRowsProblem() const;

    Mode m_mode;
    AgentProfile m_profile;
    QLineEdit* m_name;
    QLineEdit* m_url;
    QLineEdit* m_fingerprint; ///< AgentProfile::fingerprint
    QCheckBox* m_viaSsh;      ///< AgentProfile::viaSsh
    QLineEdit* m_sshHost;     ///< AgentProfile::sshHost
    QLineEdit* m_sshUser;     ///< AgentProfile::sshUser
    QSpinBox* m_sshPort;      ///< AgentProfile::sshPort, 0 = ssh's default
    QComboBox* m_remoteKind;  ///< unix socket or TCP address
    QLineEdit* m_sshRemote;   ///< AgentProfile::sshRemote
    QLineEdit* m_token;
    QLabel* m_problem;
    QPushButton* m_ok;
};

} // namespace runbox::console
