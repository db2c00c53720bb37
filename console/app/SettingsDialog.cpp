#include "console/app/SettingsDialog.h"

#include "console/core/ConsoleSettings.h"
#include "console/core/LanguageManager.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QVBoxLayout>

namespace runbox::console {

SettingsDialog::SettingsDialog(ConsoleSettings* settings, QWidget* parent)
    : QDialog(parent), m_settings(settings), m_language(new QComboBox(this)),
      m_logMiB(new QSpinBox(this)), m_sshProgram(new QLineEdit(this)) {
    setWindowTitle(tr("Settings"));
    for (const auto& [code, name] : LanguageManager::languages())
        m_language->addItem(name, code);
    const int i = m_language->findData(settings->language());
    m_language->setCurrentIndex(i < 0 ? 0 : i);
    m_logMiB->setRange(1, 256);
    m_logMiB->setSuffix(tr(" Mi characters"));
    m_logMiB->setValue(
        std::max(1, settings->value(ConsoleSettings::Key::LogViewMaxChars).toInt() / (1 << 20)));

    m_sshProgram->setObjectName(QStringLiteral("sshProgramEdit"));
    m_sshProgram->setText(settings->value(ConsoleSettings::Key::SshProgram).toString());
    m_sshProgram->setPlaceholderText(QStringLiteral("ssh"));
    m_sshProgram->setToolTip(tr("The ssh that SSH profiles run: a name on PATH or a path, e.g. a "
                                "wrapper that adds options. Applies to connections opened from "
                                "now on."));

    auto* form = new QFormLayout;
    form->addRow(tr("&Language:"), m_language);
    form->addRow(tr("Log view &keeps:"), m_logMiB);
    form->addRow(tr("SSH &program:"), m_sshProgram);
    auto* fleet = new QLabel(settings->fleetPath(), this);
    fleet->setObjectName(QStringLiteral("fleetPathLabel"));
    fleet->setTextInteractionFlags(Qt::TextSelectableByMouse);
    fleet->setToolTip(tr("The fleet file: the agents list, shared with the runbox CLI and the "
                         "Python client (--fleet to use another)."));
    form->addRow(tr("Agents are kept in:"), fleet);
    auto* note = new QLabel(tr("A new language applies the next time the console starts."), this);
    note->setWordWrap(true);
    note->setStyleSheet(QStringLiteral("color: palette(dark);"));
    auto* box = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(box, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(box, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(note);
    layout->addWidget(box);
}

bool SettingsDialog::save() {
    const QString language = m_language->currentData().toString();
    const bool changed = language != m_settings->language();
    m_settings->setLanguage(language);
    m_settings->setValue(ConsoleSettings::Key::LogViewMaxChars, m_logMiB->value() * (1 << 20));
    const QString ssh = m_sshProgram->text().trimmed();
    m_settings->setValue(ConsoleSettings::Key::SshProgram,
                         ssh.isEmpty() ? QStringLiteral("ssh") : ssh);
    m_settings->sync();
    return changed;
}

} // namespace runbox::console
