#include "console/pages/NetworkPolicyPage.h"

#include "console/api/ExecutionInfo.h"
#include "console/connection/AgentConnection.h"
#include "console/models/EntryListModel.h"
#include "console/widgets/HostBanner.h"
#include "shared/NetworkPolicyGrammar.h"

#include <QApplication>
#include <QClipboard>
#include <QDialog>
#include <QDialogButtonBox>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QRegularExpression>
#include <QVBoxLayout>

namespace runbox::console {

namespace {
QStringList stringsOf(const QJsonValue& v) {
    QStringList out;
    for (const QJsonValue& e : v.toArray())
        out.append(e.toString());
    return out;
}

// The grammar's English messages, translated (they are marked in the grammar's context).
QString grammarText(const QString& english) {
    return QCoreApplication::translate("runbox::NetworkPolicyGrammar",
                                       english.toUtf8().constData());
}

QPushButton* toolButton(const QString& icon, const QString& text, QWidget* parent) {
    auto* b = new QPushButton(QIcon(icon), text, parent);
    b->setAutoDefault(false);
    return b;
}
} // namespace

NetworkPolicyPage::NetworkPolicyPage(QWidget* parent)
    : AgentPage(tr("Network policy"), QStringLiteral(":/icons/network.svg"), parent),
      m_domains(new EntryListModel(
          [](const QString& entry) {
              QString error;
              return NetworkPolicyGrammar::parseDomain(entry, &error) ? QString()
                                                                      : grammarText(error);
          },
          this)),
      m_cidrs(new EntryListModel(
          [](const QString& entry) {
              QString error;
              return NetworkPolicyGrammar::parseCidr(entry, &error) ? QString()
                                                                    : grammarText(error);
          },
          this)) {
    auto* content = new QWidget;

    auto* modeBox = new QGroupBox(tr("Mode"), content);
    m_none = new QRadioButton(tr("&None — sandboxes have no network at all"), modeBox);
    m_allowlist = new QRadioButton(
        tr("&Domain allowlist — only the names below, through the egress gateway"), modeBox);
    auto* ml = new QVBoxLayout(modeBox);
    ml->addWidget(m_none);
    ml->addWidget(m_allowlist);
    connect(m_allowlist, &QRadioButton::toggled, this, &NetworkPolicyPage::updateState);

    m_listsPanel = new QWidget(content);
    auto* domainsBox = new QGroupBox(tr("Allowed domains"), m_listsPanel);
    m_domainView = new QListView(domainsBox);
    m_domainView->setObjectName(QStringLiteral("domainList"));
    m_domainView->setModel(m_domains);
    m_domainView->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_domainView->setEditTriggers(QAbstractItemView::DoubleClicked |
                                  QAbstractItemView::EditKeyPressed |
                                  QAbstractItemView::AnyKeyPressed);
    m_domainView->setWordWrap(true); // a refused entry shows its reason in full
    m_domainView->setResizeMode(QListView::Adjust);
    m_domainView->setSpacing(2);
    m_domainStatus = new QLabel(domainsBox);
    m_domainStatus->setWordWrap(true);
    auto* add = toolButton(QStringLiteral(":/icons/add.svg"), tr("Add"), domainsBox);
    auto* edit = toolButton(QStringLiteral(":/icons/edit.svg"), tr("Edit"), domainsBox);
    auto* remove = toolButton(QStringLiteral(":/icons/remove.svg"), tr("Remove"), domainsBox);
    auto* paste = toolButton(QStringLiteral(":/icons/paste.svg"), tr("Paste lines…"), domainsBox);
    connect(add, &QPushButton::clicked, this, &NetworkPolicyPage::addDomain);
    connect(edit, &QPushButton::clicked, this, &NetworkPolicyPage::editSelected);
    connect(remove, &QPushButton::clicked, this, [this] { removeSelected(m_domainView); });
    connect(paste, &QPushButton::clicked, this, &NetworkPolicyPage::pasteLines);
    auto* dButtons = new QVBoxLayout;
    for (QPushButton* b : {add, edit, remove, paste})
        dButtons->addWidget(b);
    dButtons->addStretch(1);
    auto* dRow = new QHBoxLayout;
    dRow->addWidget(m_domainView, 1);
    dRow->addLayout(dButtons);
    auto* hint = new QLabel(tr("host, *.host (subdomains at any depth), host:port, *.host:port. "
                               "IP addresses are never allowed."),
                            domainsBox);
    hint->setWordWrap(true);
    hint->setStyleSheet(QStringLiteral("color: palette(dark);"));
    auto* dl = new QVBoxLayout(domainsBox);
    dl->addWidget(hint);
    dl->addLayout(dRow);
    dl->addWidget(m_domainStatus);

    auto* cidrBox = new QGroupBox(tr("Private networks allowed (CIDR)"), m_listsPanel);
    m_cidrView = new QListView(cidrBox);
    m_cidrView->setObjectName(QStringLiteral("cidrList"));
    m_cidrView->setModel(m_cidrs);
    m_cidrView->setSelectionMode(QAbstractItemView::ExtendedSelection);
    auto* addCidr = toolButton(QStringLiteral(":/icons/add.svg"), tr("Add"), cidrBox);
    auto* removeCidr = toolButton(QStringLiteral(":/icons/remove.svg"), tr("Remove"), cidrBox);
    connect(addCidr, &QPushButton::clicked, this, [this] {
        const int row = m_cidrs->addEntry(QStringLiteral("10.0.0.0/8"));
        m_cidrView->edit(m_cidrs->index(row));
    });
    connect(removeCidr, &QPushButton::clicked, this, [this] { removeSelected(m_cidrView); });
    auto* cButtons = new QVBoxLayout;
    cButtons->addWidget(addCidr);
    cButtons->addWidget(removeCidr);
    cButtons->addStretch(1);
    auto* cidrHint = new QLabel(tr("Empty by default. The explicit door to an internal mirror: "
                                   "the gateway refuses private, loopback and link-local "
                                   "addresses unless they are inside one of these."),
                                cidrBox);
    cidrHint->setWordWrap(true);
    cidrHint->setStyleSheet(QStringLiteral("color: palette(dark);"));
    auto* cRow = new QHBoxLayout;
    cRow->addWidget(m_cidrView, 1);
    cRow->addLayout(cButtons);
    auto* cl = new QVBoxLayout(cidrBox);
    cl->addWidget(cidrHint);
    cl->addLayout(cRow);

    auto* lists = new QHBoxLayout(m_listsPanel);
    lists->setContentsMargins(0, 0, 0, 0);
    lists->addWidget(domainsBox, 3);
    lists->addWidget(cidrBox, 2);

    auto* checkBox = new QGroupBox(tr("Would this host be allowed?"), content);
    m_hostEdit = new QLineEdit(checkBox);
    m_hostEdit->setObjectName(QStringLiteral("hostCheck"));
    m_hostEdit->setPlaceholderText(tr("e.g. files.pythonhosted.org:443"));
    m_hostEdit->setClearButtonEnabled(true);
    m_hostVerdict = new QLabel(checkBox);
    m_hostVerdict->setWordWrap(true);
    connect(m_hostEdit, &QLineEdit::textChanged, this, &NetworkPolicyPage::updateHostCheck);
    auto* hl = new QHBoxLayout(checkBox);
    hl->addWidget(m_hostEdit, 2);
    hl->addWidget(m_hostVerdict, 3);

    m_revision = new QLabel(content);
    m_revision->setObjectName(QStringLiteral("policyRevision"));
    m_revision->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_problems = new QLabel(content);
    m_problems->setObjectName(QStringLiteral("policyProblems"));
    m_problems->setWordWrap(true);
    m_problems->setStyleSheet(QStringLiteral("color: #c62828;"));
    m_problems->setVisible(false);
    m_apply = new QPushButton(QIcon(QStringLiteral(":/icons/apply.svg")), tr("&Apply"), content);
    m_revert = new QPushButton(QIcon(QStringLiteral(":/icons/revert.svg")), tr("&Revert"), content);
    connect(m_apply, &QPushButton::clicked, this, &NetworkPolicyPage::apply);
    connect(m_revert, &QPushButton::clicked, this, &NetworkPolicyPage::revert);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_revision, 1);
    buttons->addWidget(m_revert);
    buttons->addWidget(m_apply);

    auto* layout = new QVBoxLayout(content);
    layout->addWidget(modeBox);
    layout->addWidget(m_listsPanel, 1);
    layout->addWidget(checkBox);
    layout->addWidget(m_problems);
    layout->addLayout(buttons);
    setContent(content);

    connect(m_domains, &EntryListModel::entriesChanged, this, &NetworkPolicyPage::updateState);
    connect(m_cidrs, &EntryListModel::entriesChanged, this, &NetworkPolicyPage::updateState);
    m_none->setChecked(true);
    updateState();
}

void NetworkPolicyPage::onConnectionChanged() {
    if (isConnected())
        load();
}

void NetworkPolicyPage::refresh() {
    if (isConnected())
        load();
}

void NetworkPolicyPage::load() {
    banner()->beginBusy();
    connection()->get("/v1/settings/network-policy", this, [this](const ApiResponse& r) {
        banner()->endBusy();
        if (isRouteMissing(r))
            return showUnavailable(tr("network policies"),
                                   QStringLiteral("GET /v1/settings/network-policy"));
        if (!r.ok())
            return showPlaceholder(tr("Could not read the network policy"), r.errorMessage(),
                                   QStringLiteral(":/icons/state-failed.svg"));
        showPolicy(r.json());
        showContent();
        Q_EMIT loaded();
    });
}

void NetworkPolicyPage::showPolicy(const QJsonObject& policy) {
    m_loaded = policy;
    const bool allowlist =
        policy.value(QLatin1String("mode")).toString() == QLatin1String("domain-allowlist");
    (allowlist ? m_allowlist : m_none)->setChecked(true);
    m_domains->setEntries(stringsOf(policy.value(QLatin1String("allowedDomains"))));
    m_cidrs->setEntries(stringsOf(policy.value(QLatin1String("allowPrivateCidrs"))));
    const QString revision = policy.value(QLatin1String("revision")).toString();
    m_revision->setText(
        tr("Current revision: %1")
            .arg(revision.size() > 16 ? revision.left(16) + QStringLiteral("…") : revision));
    m_revision->setToolTip(revision);
    m_problems->setVisible(false);
    updateState();
}

void NetworkPolicyPage::setAllowlistMode(bool allowlist) {
    (allowlist ? m_allowlist : m_none)->setChecked(true);
}

void NetworkPolicyPage::updateState() {
    const bool allowlist = m_allowlist->isChecked();
    m_listsPanel->setEnabled(allowlist);
    const QList<int> bad = m_domains->invalidRows();
    const QList<int> badCidrs = m_cidrs->invalidRows();
    m_domainStatus->setText(
        bad.isEmpty() ? tr("%n entr(y/ies).", nullptr, m_domains->rowCount())
                      : tr("%n entr(y/ies), %1 refused — hover a marked entry to see why.", nullptr,
                           m_domains->rowCount())
                            .arg(bad.size()));
    m_domainStatus->setStyleSheet(bad.isEmpty() ? QString() : QStringLiteral("color: #c62828;"));
    const QString loadedMode = m_loaded.value(QLatin1String("mode")).toString();
    const bool modeChanged =
        (loadedMode == QLatin1String("domain-allowlist")) != allowlist || m_loaded.isEmpty();
    const bool changed = modeChanged || m_domains->isModified() || m_cidrs->isModified();
    const bool valid =
        !allowlist || (bad.isEmpty() && badCidrs.isEmpty() && m_domains->rowCount() > 0);
    m_apply->setEnabled(changed && valid && !m_applying);
    m_revert->setEnabled(changed && !m_applying && !m_loaded.isEmpty());
    updateHostCheck();
}

void NetworkPolicyPage::updateHostCheck() {
    checkHost(m_hostEdit->text());
}

QString NetworkPolicyPage::checkHost(const QString& hostAndPort) {
    if (m_hostEdit->text() != hostAndPort) {
        m_hostEdit->setText(hostAndPort); // re-enters through textChanged
        return m_hostVerdict->text();
    }
    if (hostAndPort.trimmed().isEmpty()) {
        m_hostVerdict->setText(tr("Type a host name to check it against the policy as edited."));
        m_hostVerdict->setStyleSheet(QStringLiteral("color: palette(dark);"));
        return m_hostVerdict->text();
    }
    QString text;
    bool allowed = false;
    if (!m_allowlist->isChecked()) {
        text = tr("Refused: mode None allows no network at all.");
    } else {
        const auto list = NetworkPolicyGrammar::parseDomainList(m_domains->entries());
        const HostVerdict v = NetworkPolicyGrammar::check(list.rules, hostAndPort);
        allowed = v.allowed;
        if (v.allowed) {
            const auto rule = NetworkPolicyGrammar::parseDomain(v.matchedBy);
            text = rule && rule->port != 0 && v.port == 0
                       ? tr("Allowed on port %1 only, by %2.").arg(rule->port).arg(v.matchedBy)
                       : tr("Allowed by %1 (if it resolves to a public address or to one inside "
                            "the private networks).")
                             .arg(v.matchedBy);
        } else if (v.host.isEmpty()) {
            text = tr("Refused: %1").arg(grammarText(v.reason));
        } else if (list.rules.isEmpty()) {
            text = tr("Refused: no domain is allowed.");
        } else {
            text = tr("Refused: no entry matches %1.")
                       .arg(v.port ? QStringLiteral("%1:%2").arg(v.host).arg(v.port) : v.host);
        }
    }
    m_hostVerdict->setText(text);
    m_hostVerdict->setStyleSheet(allowed ? QStringLiteral("color: #2e7d32;")
                                         : QStringLiteral("color: #c62828;"));
    return text;
}

void NetworkPolicyPage::addDomain() {
    m_allowlist->setChecked(true);
    const int row = m_domains->addEntry(QStringLiteral("example.org"));
    const QModelIndex index = m_domains->index(row);
    m_domainView->setCurrentIndex(index);
    m_domainView->edit(index);
}

void NetworkPolicyPage::editSelected() {
    const QModelIndex index = m_domainView->currentIndex();
    if (index.isValid())
        m_domainView->edit(index);
}

void NetworkPolicyPage::removeSelected(QListView* view) {
    QList<int> rows;
    for (const QModelIndex& i : view->selectionModel()->selectedIndexes())
        rows.append(i.row());
    std::sort(rows.begin(), rows.end(), std::greater<>());
    for (int row : rows)
        view->model()->removeRow(row);
}

void NetworkPolicyPage::pasteLines() {
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Paste domains"));
    auto* label = new QLabel(tr("One entry per line (commas and spaces also separate entries; "
                                "lines starting with # are ignored)."),
                             &dialog);
    label->setWordWrap(true);
    auto* edit = new QPlainTextEdit(&dialog);
    edit->setPlainText(QApplication::clipboard()->text());
    auto* box = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    box->button(QDialogButtonBox::Ok)->setText(tr("Add entries"));
    connect(box, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(box, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    auto* l = new QVBoxLayout(&dialog);
    l->addWidget(label);
    l->addWidget(edit);
    l->addWidget(box);
    dialog.resize(480, 360);
    if (dialog.exec() != QDialog::Accepted)
        return;
    m_allowlist->setChecked(true);
    const int added = m_domains->addLines(edit->toPlainText());
    Q_EMIT statusMessage(tr("%n entr(y/ies) added.", nullptr, added), 4000);
}

void NetworkPolicyPage::apply() {
    const bool allowlist = m_allowlist->isChecked();
    if (allowlist && !m_domains->invalidRows().isEmpty()) {
        const QString message = tr("Fix or remove the marked entries first.");
        m_problems->setText(message);
        m_problems->setVisible(true);
        m_domainView->setCurrentIndex(m_domains->index(m_domains->invalidRows().first()));
        Q_EMIT applied(false, message);
        return;
    }
    if (allowlist && m_domains->rowCount() == 0) {
        const QString message = tr("A domain allowlist needs at least one entry.");
        m_problems->setText(message);
        m_problems->setVisible(true);
        Q_EMIT applied(false, message);
        return;
    }
    QJsonObject body{{"mode", allowlist ? "domain-allowlist" : "none"}};
    body.insert(QStringLiteral("allowedDomains"),
                QJsonArray::fromStringList(allowlist ? m_domains->entries() : QStringList()));
    body.insert(QStringLiteral("allowPrivateCidrs"),
                QJsonArray::fromStringList(allowlist ? m_cidrs->entries() : QStringList()));
    m_applying = true;
    updateState();
    banner()->beginBusy();
    connection()->sendJson(
        "PUT", "/v1/settings/network-policy", body, this, [this](const ApiResponse& r) {
            banner()->endBusy();
            m_applying = false;
            if (!r.ok()) {
                const QString msg = r.errorMessage();
                // The agent names the entry: "… entry \"x\": why".
                static const QRegularExpression quoted(QStringLiteral("\"([^\"]*)\""));
                const auto m = quoted.match(msg);
                if (m.hasMatch() && !m_domains->markRefused(m.captured(1), msg))
                    m_cidrs->markRefused(m.captured(1), msg);
                const QString message =
                    tr("The agent refused the policy (HTTP %1): %2").arg(r.status).arg(msg);
                m_problems->setText(message);
                m_problems->setVisible(true);
                updateState();
                Q_EMIT applied(false, message);
                return;
            }
            showPolicy(r.json().contains(QLatin1String("revision")) ? r.json() : m_loaded);
            Q_EMIT statusMessage(tr("Network policy applied: %1").arg(m_revision->text()), 5000);
            Q_EMIT applied(true, {});
            load();
        });
}

void NetworkPolicyPage::revert() {
    showPolicy(m_loaded);
}

QString NetworkPolicyPage::revisionText() const {
    return m_revision->toolTip();
}

QString NetworkPolicyPage::problemText() const {
    return m_problems->isVisible() ? m_problems->text() : QString();
}

} // namespace runbox::console
