#include "console/pages/QuotasPage.h"

#include "console/api/ExecutionInfo.h"
#include "console/connection/AgentConnection.h"
#include "console/widgets/HostBanner.h"
#include "console/widgets/QuotaEditor.h"

#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace runbox::console {

QuotasPage::QuotasPage(QWidget* parent)
    : AgentPage(tr("Quotas"), QStringLiteral(":/icons/quotas.svg"), parent) {
    auto* content = new QWidget;
    auto* group = new QGroupBox(tr("Limits in force for new executions"), content);
    m_form = group;
    m_formLayout = new QFormLayout(group);
    m_formLayout->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_formLayout->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
    m_formLayout->setVerticalSpacing(10);

    auto* note = new QLabel(tr("Sizes are in GiB (1 GiB = 2³⁰ bytes). 0 or Unlimited means no "
                               "limit. A change applies to executions created after it; running "
                               "ones keep the limits they started with."),
                            content);
    note->setWordWrap(true);
    note->setStyleSheet(QStringLiteral("color: palette(dark);"));

    m_problems = new QLabel(content);
    m_problems->setObjectName(QStringLiteral("quotaProblems"));
    m_problems->setWordWrap(true);
    m_problems->setStyleSheet(QStringLiteral("color: #c62828;"));
    m_problems->setVisible(false);

    m_lastChange = new QLabel(content);
    m_lastChange->setObjectName(QStringLiteral("quotaLastChange"));
    m_lastChange->setWordWrap(true);
    m_lastChange->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_apply = new QPushButton(QIcon(QStringLiteral(":/icons/apply.svg")), tr("&Apply"), content);
    m_revert = new QPushButton(QIcon(QStringLiteral(":/icons/revert.svg")), tr("&Revert"), content);
    m_apply->setToolTip(tr("Send the changed quotas to the agent"));
    m_revert->setToolTip(tr("Show the agent's values again"));
    connect(m_apply, &QPushButton::clicked, this, &QuotasPage::apply);
    connect(m_revert, &QPushButton::clicked, this, &QuotasPage::revert);
    auto* buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(m_revert);
    buttons->addWidget(m_apply);

    auto* audit = new QGroupBox(tr("Last change"), content);
    auto* al = new QVBoxLayout(audit);
    al->addWidget(m_lastChange);

    auto* layout = new QVBoxLayout(content);
    layout->addWidget(note);
    layout->addWidget(group);
    layout->addWidget(m_problems);
    layout->addLayout(buttons);
    layout->addWidget(audit);
    layout->addStretch(1);
    setContent(content);
    updateButtons();
}

void QuotasPage::onConnectionChanged() {
    if (isConnected())
        load();
}

void QuotasPage::refresh() {
    if (isConnected())
        load();
}

void QuotasPage::load() {
    banner()->beginBusy();
    connection()->get("/v1/settings/quotas", this, [this](const ApiResponse& r) {
        banner()->endBusy();
        if (isRouteMissing(r))
            return showUnavailable(tr("quota settings"), QStringLiteral("GET /v1/settings/quotas"));
        if (!r.ok())
            return showPlaceholder(tr("Could not read the quotas"), r.errorMessage(),
                                   QStringLiteral(":/icons/state-failed.svg"));
        showValues(r.json());
        showContent();
        Q_EMIT loaded();
    });
}

void QuotasPage::showValues(const QJsonObject& answer) {
    m_loaded = QuotaValues::fromJson(answer);
    for (QuotaEditor* e : std::as_const(m_editors)) {
        m_formLayout->removeRow(e);
    }
    m_editors.clear();
    for (const QString& name : m_loaded.names()) {
        auto* editor = new QuotaEditor(QuotaValues::field(name), m_form);
        editor->setObjectName(name);
        editor->setValue(m_loaded.value(name));
        connect(editor, &QuotaEditor::valueChanged, this, &QuotasPage::updateButtons);
        m_formLayout->addRow(editor->field().label() + u':', editor);
        m_editors.append(editor);
    }
    const QString last = QuotaValues::lastChangeText(answer);
    m_lastChange->setText(last.isEmpty()
                              ? tr("No change is recorded, or this agent does not report its "
                                   "audit trail with the quotas.")
                              : last);
    updateButtons();
}

QuotaEditor* QuotasPage::editor(const QString& field) const {
    for (QuotaEditor* e : m_editors)
        if (e->field().name == field)
            return e;
    return nullptr;
}

QuotaValues QuotasPage::editedValues() const {
    QuotaValues v = m_loaded;
    for (const QuotaEditor* e : m_editors)
        v.setValue(e->field().name, e->value());
    return v;
}

void QuotasPage::updateButtons() {
    const QuotaValues edited = editedValues();
    const QStringList problems = edited.validate();
    const bool changed = !edited.changesFrom(m_loaded).isEmpty();
    m_problems->setText(problems.join(u'\n'));
    m_problems->setVisible(!problems.isEmpty());
    m_apply->setEnabled(changed && problems.isEmpty() && !m_applying);
    m_revert->setEnabled(changed && !m_applying);
}

void QuotasPage::apply() {
    const QuotaValues edited = editedValues();
    const QStringList problems = edited.validate();
    if (!problems.isEmpty()) {
        Q_EMIT applied(false, problems.join(u'\n'));
        return;
    }
    const QJsonObject changes = edited.changesFrom(m_loaded);
    if (changes.isEmpty() || !connection())
        return;
    m_applying = true;
    updateButtons();
    banner()->beginBusy();
    connection()->sendJson(
        "PUT", "/v1/settings/quotas", changes, this, [this](const ApiResponse& r) {
            banner()->endBusy();
            m_applying = false;
            if (!r.ok()) {
                const QString message = tr("The agent refused the quotas (HTTP %1): %2")
                                            .arg(r.status)
                                            .arg(r.errorMessage());
                m_problems->setText(message);
                m_problems->setVisible(true);
                m_apply->setEnabled(true);
                m_revert->setEnabled(true);
                Q_EMIT applied(false, message);
                return;
            }
            Q_EMIT statusMessage(tr("Quotas applied."), 5000);
            Q_EMIT applied(true, {});
            load(); // the stored values and the new audit entry
        });
}

void QuotasPage::revert() {
    for (QuotaEditor* e : std::as_const(m_editors))
        e->setValue(m_loaded.value(e->field().name));
    updateButtons();
}

QString QuotasPage::problemText() const {
    return m_problems->isVisible() ? m_problems->text() : QString();
}

QString QuotasPage::lastChangeText() const {
    return m_lastChange->text();
}

} // namespace runbox::console
