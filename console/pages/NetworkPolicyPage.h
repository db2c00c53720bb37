#pragma once

#include "console/pages/AgentPage.h"

#include <QJsonObject>

class QLabel;
class QLineEdit;
class QListView;
class QPushButton;
class QRadioButton;

namespace runbox::console {

class EntryListModel;

/// The agent's network policy (`GET/PUT /v1/settings/network-policy`, agent/egress/README.md): mode
/// None or Domain allowlist, the allowed domains (add, edit in place, remove, paste many lines),
/// the private CIDRs, the current revision, and a "would this host be allowed?" check. Entries are
/// checked as they are typed with the agent's own grammar (runbox::NetworkPolicyGrammar) and
/// refused ones are marked; entries the agent refuses on Apply are marked too.
class NetworkPolicyPage final : public AgentPage {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(NetworkPolicyPage)
public:
    explicit NetworkPolicyPage(QWidget* parent = nullptr);

    void refresh() override;
    EntryListModel* domainModel() const { return m_domains; }
    EntryListModel* cidrModel() const { return m_cidrs; }
    void setAllowlistMode(bool allowlist);
    void apply();
    void revert();
    QString revisionText() const;
    QString problemText() const;
    /// Runs the host check for @p hostAndPort and returns the verdict text shown.
    QString checkHost(const QString& hostAndPort);

Q_SIGNALS:
    /// An Apply finished: @p ok false with the reason shown.
    void applied(bool ok, const QString& message);
    /// The agent's policy was (re)loaded and is shown.
    void loaded();

protected:
    void onConnectionChanged() override;

private:
    void load();
    void showPolicy(const QJsonObject& policy);
    void updateState();
    void updateHostCheck();
    void addDomain();
    void editSelected();
    void removeSelected(QListView* view);
    void pasteLines();

    EntryListModel* m_domains;
    EntryListModel* m_cidrs;
    QRadioButton* m_none;
    QRadioButton* m_allowlist;
    QListView* m_domainView;
    QListView* m_cidrView;
    QLabel* m_domainStatus;
    QLabel* m_revision;
    QLabel* m_problems;
    QLineEdit* m_hostEdit;
    QLabel* m_hostVerdict;
    QPushButton* m_apply;
    QPushButton* m_revert;
    QWidget* m_listsPanel;
    QJsonObject m_loaded;
    bool m_applying = false;
};

} // namespace runbox::console
