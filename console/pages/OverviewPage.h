#pragma once

#include "console/pages/AgentPage.h"

#include <QJsonObject>

class QLabel;
class QVBoxLayout;

namespace runbox::console {

class SummaryCard;

/// Overview of one agent: version, the sandbox conclusion with each degradation as a warning
/// and its explanation, egress availability, NPU summary, running/queued executions, workspaces.
/// Data: `/v1/health` (kept fresh by the connection's polling), `GET /v1/executions?state=…`
/// (counts, when the agent has managed executions) and `GET /v1/npu/chips` (when it has NPUs).
class OverviewPage final : public AgentPage {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(OverviewPage)
public:
    explicit OverviewPage(QWidget* parent = nullptr);

    void refresh() override;
    /// The headline of the sandbox conclusion as shown ("Sound", …).
    QString sandboxHeadline() const;
    /// Every finding line as shown: "topic: summary — explanation".
    QStringList findingTexts() const;

protected:
    void onConnectionChanged() override;

private:
    void showHealth(const QJsonObject& health);
    void loadCounts();
    void loadNpu();

    SummaryCard* m_agentCard;
    SummaryCard* m_sandboxCard;
    SummaryCard* m_egressCard;
    SummaryCard* m_executionsCard;
    SummaryCard* m_npuCard;
    SummaryCard* m_workspacesCard;
    QLabel* m_headline;
    QVBoxLayout* m_findings;
    QStringList m_findingTexts;
    QLabel* m_limits;
};

} // namespace runbox::console
