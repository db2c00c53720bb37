#pragma once

#include <QDialog>

class QComboBox;
class QSpinBox;

namespace runbox::console {

class ConsoleSettings;

/// The console's preferences: language (applied at the next start) and how much of a log the
/// log view keeps in memory.
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
};

} // namespace runbox::console
