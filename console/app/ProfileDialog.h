#pragma once

#include "console/connection/AgentProfile.h"

#include <QDialog>

class QLabel;
class QLineEdit;
class QPushButton;

namespace runbox::console {

/// Adds or edits an agent profile (name, URL) and takes its token. In token-only mode (the
/// agent refused the stored token, or none is stored) only the token can be entered.
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

    Mode m_mode;
    AgentProfile m_profile;
    QLineEdit* m_name;
    QLineEdit* m_url;
    QLineEdit* m_fingerprint; ///< AgentProfile::fingerprint
    QLineEdit* m_token;
    QLabel* m_problem;
    QPushButton* m_ok;
};

} // namespace runbox::console
