#pragma once

#include <QDialog>
#include <QJsonObject>

class QLabel;
class QPushButton;
class QRadioButton;
class QSpinBox;

namespace runbox::console {

/// Asks which workspaces to create (`POST /v1/workspaces`, docs/contracts.md "Workspaces and
/// executions"): one strong workspace, or a batch of 1..4096 light ones. Light is greyed with the
/// agent's reason when its last `/v1/health` says the light tier is unavailable; the agent
/// decides in the end.
class CreateWorkspaceDialog final : public QDialog {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CreateWorkspaceDialog)
public:
    /// The most light workspaces one request may ask for (the agent's own bound).
    static constexpr int kMaxLightCount = 4096;

    /// @p health is the agent's last `/v1/health` (may be empty).
    explicit CreateWorkspaceDialog(const QJsonObject& health, QWidget* parent = nullptr);

    /// `strong` or `light`.
    QString isolation() const;
    /// How many to create (always 1 for strong).
    int count() const;
    /// Chooses the tier and count (tests; @p count is clamped to 1..kMaxLightCount).
    void setLight(bool light, int count = 1);
    /// The request body this dialog stands for.
    QJsonObject requestBody() const;
    QPushButton* createButton() const { return m_create; }

private:
    void updateState();

    QRadioButton* m_strong;
    QRadioButton* m_light;
    QSpinBox* m_count;
    QLabel* m_hint;
    QPushButton* m_create;
};

} // namespace runbox::console
