#include "console/pages/CreateWorkspaceDialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace runbox::console {

CreateWorkspaceDialog::CreateWorkspaceDialog(const QJsonObject& health, QWidget* parent)
    : QDialog(parent) {
    setWindowTitle(tr("Create workspaces"));
    setObjectName(QStringLiteral("createWorkspaceDialog"));
    m_strong = new QRadioButton(tr("&Strong: its own sandbox per execution (one workspace)"), this);
    m_light = new QRadioButton(tr("&Light: own uid, Landlock and rlimits (a batch)"), this);
    m_strong->setChecked(true);
    m_count = new QSpinBox(this);
    m_count->setRange(1, kMaxLightCount);
    m_count->setValue(1);
    m_count->setAccelerated(true);
    m_hint = new QLabel(this);
    m_hint->setWordWrap(true);
    m_hint->setStyleSheet(QStringLiteral("color: palette(dark);"));

    const QJsonObject light = health.value(QLatin1String("light")).toObject();
    if (light.contains(QLatin1String("available")) &&
        !light.value(QLatin1String("available")).toBool()) {
        m_light->setEnabled(false);
        m_light->setToolTip(tr("This agent cannot make light workspaces: %1")
                                .arg(light.value(QLatin1String("reason")).toString()));
    }

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    m_create = buttons->addButton(tr("&Create"), QDialogButtonBox::AcceptRole);
    m_create->setDefault(true);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_light, &QRadioButton::toggled, this, &CreateWorkspaceDialog::updateState);

    auto* form = new QFormLayout;
    form->addRow(tr("How many:"), m_count);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_strong);
    layout->addWidget(m_light);
    layout->addLayout(form);
    layout->addWidget(m_hint);
    layout->addWidget(buttons);
    updateState();
}

QString CreateWorkspaceDialog::isolation() const {
    return m_light->isChecked() ? QStringLiteral("light") : QStringLiteral("strong");
}

int CreateWorkspaceDialog::count() const {
    return m_light->isChecked() ? m_count->value() : 1;
}

void CreateWorkspaceDialog::setLight(bool light, int count) {
    (light ? m_light : m_strong)->setChecked(true);
    m_count->setValue(qBound(1, count, kMaxLightCount));
    updateState();
}

QJsonObject CreateWorkspaceDialog::requestBody() const {
    if (!m_light->isChecked())
        return {{"isolation", "strong"}};
    return {{"isolation", "light"}, {"count", m_count->value()}};
}

void CreateWorkspaceDialog::updateState() {
    const bool light = m_light->isChecked();
    m_count->setEnabled(light);
    if (!light)
        m_count->setValue(1);
    m_hint->setText(light ? tr("Up to %1 light workspaces at once; past the agent's capacity the "
                               "answer says how many were not made.")
                                .arg(kMaxLightCount)
                          : tr("Strong workspaces are created one at a time."));
}

} // namespace runbox::console
