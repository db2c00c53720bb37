#include "console/app/SettingsDialog.h"

#include "console/core/ConsoleSettings.h"
#include "console/core/LanguageManager.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

namespace runbox::console {

SettingsDialog::SettingsDialog(ConsoleSettings* settings, QWidget* parent)
    : QDialog(parent), m_settings(settings), m_language(new QComboBox(this)),
      m_logMiB(new QSpinBox(this)) {
    setWindowTitle(tr("Settings"));
    for (const auto& [code, name] : LanguageManager::languages())
        m_language->addItem(name, code);
    const int i = m_language->findData(settings->language());
    m_language->setCurrentIndex(i < 0 ? 0 : i);
    m_logMiB->setRange(1, 256);
    m_logMiB->setSuffix(tr(" Mi characters"));
    m_logMiB->setValue(
        std::max(1, settings->value(ConsoleSettings::Key::LogViewMaxChars).toInt() / (1 << 20)));

    auto* form = new QFormLayout;
    form->addRow(tr("&Language:"), m_language);
    form->addRow(tr("Log view &keeps:"), m_logMiB);
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
    m_settings->sync();
    return changed;
}

} // namespace runbox::console
