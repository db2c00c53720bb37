#pragma once

#include "console/api/QuotaValues.h"
#include "console/pages/AgentPage.h"

class QFormLayout;
class QLabel;
class QPushButton;

namespace runbox::console {

class QuotaEditor;

/// The agent's quotas (`GET/PUT /v1/settings/quotas`, agent/store/QuotaSettings.h): bytes in GiB
/// with two decimals, timeouts, concurrency; each with Unlimited (= 0). Apply sends only the
/// changed fields after validating them like the agent does; Revert restores what the agent has.
/// Shows the last change from the audit trail.
class QuotasPage final : public AgentPage {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(QuotasPage)
public:
    explicit QuotasPage(QWidget* parent = nullptr);

    void refresh() override;
    /// The editor of @p field, or nullptr when the agent did not send it.
    QuotaEditor* editor(const QString& field) const;
    /// The values as currently edited.
    QuotaValues editedValues() const;
    void apply();
    void revert();
    QPushButton* applyButton() const { return m_apply; }
    QString problemText() const;
    QString lastChangeText() const;

Q_SIGNALS:
    /// An Apply finished: @p ok false with the agent's or validation message.
    void applied(bool ok, const QString& message);
    /// The agent's values were (re)loaded and are shown.
    void loaded();

protected:
    void onConnectionChanged() override;

private:
    void load();
    void showValues(const QJsonObject& answer);
    void updateButtons();

    QWidget* m_form;
    QFormLayout* m_formLayout;
    QList<QuotaEditor*> m_editors;
    QuotaValues m_loaded;
    QLabel* m_problems;
    QLabel* m_lastChange;
    QPushButton* m_apply;
    QPushButton* m_revert;
    bool m_applying = false;
};

} // namespace runbox::console
