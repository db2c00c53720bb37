#pragma once

#include "console/pages/AgentPage.h"

#include <QJsonObject>

class QLabel;
class QListView;
class QPushButton;

namespace runbox::console {

class NpuChipModel;

/// The chip board (`GET /v1/npu/chips[?refresh=true]`, docs/npu.md): one tile per Ascend chip;
/// usable chips are checkable, the others greyed with their reason (hover and detail line).
/// Re-probe asks the agent to probe again, with progress; "Run with selected chips" asks the
/// main window to open the run dialog with them.
class NpuPage final : public AgentPage {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(NpuPage)
public:
    explicit NpuPage(QWidget* parent = nullptr);

    void refresh() override;
    /// Asks the agent to probe every chip again.
    void reprobe();
    NpuChipModel* model() const { return m_model; }
    /// Shows an inventory answer as if the agent had sent it (used by refresh, tests, and the
    /// screenshot script's simulated host).
    void showInventory(const QJsonObject& answer);
    QString detailText() const;

Q_SIGNALS:
    void runRequested(const QList<int>& chips);
    /// An inventory answer was shown.
    void loaded();

protected:
    void onConnectionChanged() override;

private:
    void load(bool refresh);
    void showDetail(const QModelIndex& index);
    void updateButtons();

    NpuChipModel* m_model;
    QListView* m_board;
    QLabel* m_summary;
    QLabel* m_detail;
    QPushButton* m_reprobe;
    QPushButton* m_run;
    bool m_probing = false;
};

} // namespace runbox::console
