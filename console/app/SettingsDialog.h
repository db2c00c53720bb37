#pragma once

#include <QDialog>

class QComboBox;
class QLineEdit;
class QSpinBox;

namespace runbox::console {

class ConsoleSettings;

/// The console's preferences: language (applied at the next start), how much of a log the log
/// view keeps in memory, the ssh program of SSH profiles; it also says where the agents list
/// (the fleet file) is.
class SettingsDialog final : public QDialog {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SettingsDialog)
public:
    explicit SettingsDialog(ConsoleSettings* settings, QWidget* parent = nullptr);

    /// Writes the choices to the settings; returns whether the language changed.
    bool save();

private:
    ConsoleSettings* m_settings;
    QComboBox* m_language;
    QSpinBox* m_logMiB;
    QLineEdit* m_sshProgram;
};

} // namespace runbox::console
