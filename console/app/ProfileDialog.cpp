#include "console/app/ProfileDialog.h"

#include "shared/TlsPin.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QIcon>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace runbox::console {

ProfileDialog::ProfileDialog(Mode mode, const AgentProfile& profile, const QString& explanation,
                             QWidget* parent)
    : QDialog(parent), m_mode(mode), m_profile(profile), m_name(new QLineEdit(this)),
      m_url(new QLineEdit(this)), m_fingerprint(new QLineEdit(this)), m_token(new QLineEdit(this)),
      m_problem(new QLabel(this)) {
    setWindowTitle(mode == Mode::Add    ? tr("Add agent")
                   : mode == Mode::Edit ? tr("Edit agent")
                                        : tr("Token for %1").arg(profile.displayName()));
    setWindowIcon(QIcon(QStringLiteral(":/icons/agent.svg")));
    if (m_profile.id.isEmpty())
        m_profile.id = AgentProfile::newId();
    m_name->setObjectName(QStringLiteral("nameEdit"));
    m_name->setText(profile.name);
    m_name->setPlaceholderText(tr("e.g. gpu-node-3"));
    m_url->setText(profile.url.isEmpty() ? QString() : profile.url.toString());
    m_url->setPlaceholderText(QStringLiteral("http://127.0.0.1:4311"));
    m_fingerprint->setObjectName(QStringLiteral("fingerprintEdit"));
    m_fingerprint->setText(profile.fingerprint);
    m_fingerprint->setPlaceholderText(QStringLiteral("AB:CD:…"));
    m_fingerprint->setToolTip(
        tr("https:// agents: the SHA-256 fingerprint of its certificate, from "
           "runbox-agent --print-fingerprint on the agent's host. Empty: only a certificate "
           "your system trusts is accepted."));
    m_token->setEchoMode(QLineEdit::Password);
    m_token->setObjectName(QStringLiteral("tokenEdit"));
    m_token->setPlaceholderText(mode == Mode::Edit ? tr("unchanged")
                                                   : tr("contents of agent.token"));
    auto* reveal =
        m_token->addAction(QIcon(QStringLiteral(":/icons/eye.svg")), QLineEdit::TrailingPosition);
    reveal->setCheckable(true);
    reveal->setToolTip(tr("Show the token"));
    connect(reveal, &QAction::toggled, this, [this](bool on) {
        m_token->setEchoMode(on ? QLineEdit::Normal : QLineEdit::Password);
    });

    auto* form = new QFormLayout;
    form->addRow(tr("&Name:"), m_name);
    form->addRow(tr("&URL:"), m_url);
    form->addRow(tr("TLS &fingerprint:"), m_fingerprint);
    addSshRows(form, profile);
    form->addRow(tr("&Token:"), m_token);
    if (mode == Mode::TokenOnly) {
        for (QWidget* w :
             std::initializer_list<QWidget*>{m_name, m_url, m_fingerprint, m_viaSsh, m_sshHost,
                                             m_sshUser, m_sshPort, m_remoteKind, m_sshRemote})
            w->setEnabled(false);
    }
    auto* info = new QLabel(
        tr("The token is kept in the system keychain. Where no keychain service is reachable it "
           "is kept for this session only, never in a file."),
        this);
    info->setWordWrap(true);
    info->setStyleSheet(QStringLiteral("color: palette(dark);"));
    auto* why = new QLabel(explanation, this);
    why->setWordWrap(true);
    why->setVisible(!explanation.isEmpty());
    m_problem->setWordWrap(true);
    m_problem->setStyleSheet(QStringLiteral("color: #c62828;"));

    auto* box = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_ok = box->button(QDialogButtonBox::Ok);
    m_ok->setText(mode == Mode::Edit ? tr("Save") : tr("Connect"));
    connect(box, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(box, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(why);
    layout->addLayout(form);
    layout->addWidget(info);
    layout->addWidget(m_problem);
    layout->addWidget(box);
    setMinimumWidth(480);

    for (QLineEdit* e : {m_name, m_url, m_fingerprint, m_token, m_sshHost, m_sshUser, m_sshRemote})
        connect(e, &QLineEdit::textChanged, this, &ProfileDialog::updateState);
    connect(m_viaSsh, &QCheckBox::toggled, this, &ProfileDialog::updateState);
    connect(m_sshPort, &QSpinBox::valueChanged, this, &ProfileDialog::updateState);
    connect(m_remoteKind, &QComboBox::currentIndexChanged, this, &ProfileDialog::updateState);
    updateState();
    (mode == Mode::TokenOnly ? m_token : m_name)->setFocus();
}

AgentProfile ProfileDialog::profile() const {
    AgentProfile p = m_profile;
    p.name = m_name->text().trimmed();
    p.url = QUrl(m_url->text().trimmed());
    // Kept in one form (AB:CD:…) whatever form was pasted; an invalid one as typed, for the
    // validation message.
    const QString typed = m_fingerprint->text().trimmed();
    const auto sha256 = tls::parseFingerprint(typed);
    p.fingerprint = sha256 ? tls::formatFingerprint(*sha256) : typed;
    p.viaSsh = m_viaSsh->isChecked();
    p.sshHost = m_sshHost->text().trimmed();
    p.sshUser = m_sshUser->text().trimmed();
    p.sshPort = m_sshPort->value();
    p.sshRemote = m_sshRemote->text().trimmed();
    if (p.sshRemote.isEmpty())
        p.sshRemote = m_sshRemote->placeholderText();
    return p;
}

void ProfileDialog::addSshRows(QFormLayout* form, const AgentProfile& profile) {
    m_viaSsh = new QCheckBox(tr("Connect through &SSH"), this);
    m_viaSsh->setObjectName(QStringLiteral("viaSshCheck"));
    m_viaSsh->setToolTip(tr("Runs your own ssh (your ssh_config, keys and agent; never a "
                            "password prompt) with a local port forward to the agent."));
    m_sshHost = new QLineEdit(profile.sshHost, this);
    m_sshHost->setObjectName(QStringLiteral("sshHostEdit"));
    m_sshHost->setPlaceholderText(tr("e.g. gpu-node-3"));
    m_sshUser = new QLineEdit(profile.sshUser, this);
    m_sshUser->setObjectName(QStringLiteral("sshUserEdit"));
    m_sshUser->setPlaceholderText(tr("ssh's default"));
    m_sshPort = new QSpinBox(this);
    m_sshPort->setObjectName(QStringLiteral("sshPortSpin"));
    m_sshPort->setRange(0, 65535);
    m_sshPort->setSpecialValueText(tr("ssh's default"));
    m_sshPort->setValue(profile.sshPort);
    m_remoteKind = new QComboBox(this);
    m_remoteKind->setObjectName(QStringLiteral("remoteKindCombo"));
    m_remoteKind->addItem(tr("Agent's unix socket"));
    m_remoteKind->addItem(tr("Agent's TCP address"));
    m_sshRemote = new QLineEdit(this);
    m_sshRemote->setObjectName(QStringLiteral("sshRemoteEdit"));
    const QString remote = profile.sshRemoteOrDefault();
    m_remoteKind->setCurrentIndex(profile.sshRemoteIsSocket() ? 0 : 1);
    if (remote != QLatin1String(AgentProfile::kDefaultSshSocket) &&
        remote != QLatin1String(AgentProfile::kDefaultSshAddress))
        m_sshRemote->setText(remote);
    m_viaSsh->setChecked(profile.viaSsh);
    form->addRow(QString(), m_viaSsh);
    form->addRow(tr("SSH &host:"), m_sshHost);
    form->addRow(tr("SSH &user:"), m_sshUser);
    form->addRow(tr("SSH &port:"), m_sshPort);
    form->addRow(tr("&Remote end:"), m_remoteKind);
    form->addRow(QString(), m_sshRemote);
}

QString ProfileDialog::sshRowsProblem() const {
    if (!m_viaSsh->isChecked())
        return {};
    const bool socket = m_remoteKind->currentIndex() == 0;
    const AgentProfile p = profile();
    if (socket && !p.sshRemote.startsWith(u'/'))
        return tr("The remote socket must be an absolute path, e.g. %1.")
            .arg(QLatin1String(AgentProfile::kDefaultSshSocket));
    if (!socket && p.sshRemote.startsWith(u'/'))
        return tr("The remote address must be host:port, e.g. %1.")
            .arg(QLatin1String(AgentProfile::kDefaultSshAddress));
    return {};
}

QByteArray ProfileDialog::token() const {
    return m_token->text().trimmed().toUtf8();
}

void ProfileDialog::setToken(const QString& token) {
    m_token->setText(token);
}

void ProfileDialog::updateState() {
    const bool ssh = m_viaSsh->isChecked();
    const bool editable = m_mode != Mode::TokenOnly;
    m_url->setEnabled(editable && !ssh);
    m_fingerprint->setEnabled(editable && !ssh);
    for (QWidget* w : std::initializer_list<QWidget*>{m_sshHost, m_sshUser, m_sshPort, m_remoteKind,
                                                      m_sshRemote})
        w->setEnabled(editable && ssh);
    m_sshRemote->setPlaceholderText(QLatin1String(m_remoteKind->currentIndex() == 0
                                                      ? AgentProfile::kDefaultSshSocket
                                                      : AgentProfile::kDefaultSshAddress));
    QString problem = profile().validationError();
    if (problem.isEmpty())
        problem = sshRowsProblem();
    if (problem.isEmpty() && m_mode != Mode::Edit && token().isEmpty())
        problem = tr("Paste the agent's token (its agent.token file, or a workspace token).");
    if (problem.isEmpty() && token().contains(' '))
        problem = tr("A token has no spaces.");
    m_problem->setText(problem);
    m_problem->setVisible(!problem.isEmpty());
    m_ok->setEnabled(problem.isEmpty());
}

} // namespace runbox::console
