#include "console/widgets/HostBanner.h"

#include "console/connection/AgentConnection.h"

#include <QHBoxLayout>
#include <QIcon>
#include <QLabel>
#include <QProgressBar>

namespace runbox::console {

HostBanner::HostBanner(const QString& title, const QString& iconPath, QWidget* parent)
    : QWidget(parent), m_stateIcon(new QLabel(this)), m_host(new QLabel(this)),
      m_progress(new QProgressBar(this)) {
    auto* icon = new QLabel(this);
    icon->setPixmap(QIcon(iconPath).pixmap(28, 28));
    auto* titleLabel = new QLabel(title, this);
    QFont f = titleLabel->font();
    f.setPointSizeF(f.pointSizeF() * 1.45);
    f.setBold(true);
    titleLabel->setFont(f);
    m_host->setObjectName(QStringLiteral("hostLabel"));
    m_host->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_progress->setRange(0, 0);
    m_progress->setMaximumWidth(90);
    m_progress->setMaximumHeight(10);
    m_progress->setTextVisible(false);
    m_progress->setVisible(false);

    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 8);
    layout->addWidget(icon);
    layout->addWidget(titleLabel);
    layout->addStretch(1);
    layout->addWidget(m_progress);
    layout->addSpacing(8);
    layout->addWidget(m_stateIcon);
    layout->addWidget(m_host);
    update();
}

void HostBanner::setConnection(AgentConnection* connection) {
    if (m_connection)
        disconnect(m_connection, nullptr, this, nullptr);
    m_connection = connection;
    if (connection) {
        connect(connection, &AgentConnection::stateChanged, this, &HostBanner::update);
        connect(connection, &AgentConnection::profileChanged, this, &HostBanner::update);
    }
    update();
}

void HostBanner::beginBusy() {
    if (++m_busy == 1)
        m_progress->setVisible(true);
}

void HostBanner::endBusy() {
    if (m_busy > 0 && --m_busy == 0)
        m_progress->setVisible(false);
}

QString HostBanner::hostText() const {
    return m_host->text();
}

void HostBanner::update() {
    if (!m_connection) {
        m_stateIcon->setPixmap(QIcon(QStringLiteral(":/icons/agent-offline.svg")).pixmap(16, 16));
        m_host->setText(tr("No agent selected"));
        return;
    }
    const char* icon = ":/icons/agent-connecting.svg";
    switch (m_connection->state()) {
    case AgentConnection::State::Connected:
        icon = ":/icons/agent-online.svg";
        break;
    case AgentConnection::State::AuthFailed:
    case AgentConnection::State::Incompatible:
    case AgentConnection::State::CertificateRefused:
    case AgentConnection::State::SshRefused:
        icon = ":/icons/agent-error.svg";
        break;
    case AgentConnection::State::Disconnected:
        icon = ":/icons/agent-offline.svg";
        break;
    default:
        break;
    }
    m_stateIcon->setPixmap(QIcon(QString::fromLatin1(icon)).pixmap(16, 16));
    m_host->setText(
        tr("%1 · %2").arg(m_connection->profile().displayName(), m_connection->stateText()));
    m_host->setToolTip(m_connection->lastError());
}

} // namespace runbox::console
