#include "console/pages/AgentPage.h"

#include "console/connection/AgentConnection.h"
#include "console/widgets/HostBanner.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QStackedWidget>
#include <QVBoxLayout>

namespace runbox::console {

AgentPage::AgentPage(const QString& title, const QString& iconPath, QWidget* parent)
    : QWidget(parent), m_title(title), m_iconPath(iconPath),
      m_banner(new HostBanner(title, iconPath, this)), m_stack(new QStackedWidget(this)),
      m_placeholder(new QWidget(this)), m_placeholderIcon(new QLabel(m_placeholder)),
      m_placeholderTitle(new QLabel(m_placeholder)), m_placeholderText(new QLabel(m_placeholder)) {
    auto* ph = new QVBoxLayout(m_placeholder);
    ph->addStretch(1);
    ph->addWidget(m_placeholderIcon, 0, Qt::AlignHCenter);
    ph->addWidget(m_placeholderTitle, 0, Qt::AlignHCenter);
    auto* textRow = new QHBoxLayout;
    textRow->addStretch(1);
    textRow->addWidget(m_placeholderText, 4);
    textRow->addStretch(1);
    ph->addLayout(textRow);
    ph->addStretch(2);
    QFont f = m_placeholderTitle->font();
    f.setPointSizeF(f.pointSizeF() * 1.25);
    f.setBold(true);
    m_placeholderTitle->setFont(f);
    m_placeholderText->setWordWrap(true);
    m_placeholderText->setAlignment(Qt::AlignHCenter);
    m_placeholderText->setObjectName(QStringLiteral("placeholderText"));
    m_placeholderText->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_stack->addWidget(m_placeholder);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_banner);
    layout->addWidget(m_stack, 1);
}

AgentPage::~AgentPage() = default;

void AgentPage::setContent(QWidget* content) {
    m_stack->addWidget(content);
}

void AgentPage::setConnection(AgentConnection* connection) {
    if (m_connection)
        disconnect(m_connection, nullptr, this, nullptr);
    m_connection = connection;
    m_banner->setConnection(connection);
    m_wasConnected = isConnected();
    if (connection)
        connect(connection, &AgentConnection::stateChanged, this, &AgentPage::onStateChanged);
    m_unavailable = false;
    if (!connection)
        showPlaceholder(tr("No agent selected"),
                        tr("Add an agent or pick one in the list on the left, then connect."),
                        QStringLiteral(":/icons/agent-offline.svg"));
    else if (!isConnected())
        showPlaceholder(tr("Not connected"),
                        tr("Waiting for %1: %2")
                            .arg(connection->profile().displayName(), connection->stateText()),
                        QStringLiteral(":/icons/agent-connecting.svg"));
    onConnectionChanged();
}

void AgentPage::onStateChanged() {
    const bool connected = isConnected();
    if (connected && !m_wasConnected) {
        m_wasConnected = true;
        m_unavailable = false;
        onConnectionChanged(); // (re)connected: reload
    } else if (!connected) {
        m_wasConnected = false;
        if (m_stack->currentWidget() == m_placeholder && !m_unavailable)
            showPlaceholder(
                tr("Not connected"),
                tr("Waiting for %1: %2")
                    .arg(m_connection->profile().displayName(), m_connection->stateText()),
                QStringLiteral(":/icons/agent-connecting.svg"));
    }
}

bool AgentPage::isConnected() const {
    return m_connection && m_connection->state() == AgentConnection::State::Connected;
}

void AgentPage::showContent() {
    m_unavailable = false;
    if (m_stack->count() > 1)
        m_stack->setCurrentIndex(1);
}

void AgentPage::showUnavailable(const QString& feature, const QString& route) {
    showPlaceholder(tr("Not offered by this agent yet"),
                    tr("%1 does not offer %2 yet (%3 is not there). The page lights up by itself "
                       "once the agent is upgraded.")
                        .arg(m_connection ? m_connection->profile().displayName() : tr("The agent"),
                             feature, route),
                    QStringLiteral(":/icons/unavailable.svg"));
    m_unavailable = true;
}

void AgentPage::showPlaceholder(const QString& title, const QString& text,
                                const QString& iconPath) {
    m_unavailable = false;
    m_placeholderIcon->setPixmap(QIcon(iconPath).pixmap(48, 48));
    m_placeholderTitle->setText(title);
    m_placeholderText->setText(text);
    m_stack->setCurrentWidget(m_placeholder);
}

bool AgentPage::isUnavailableShown() const {
    return m_unavailable && m_stack->currentWidget() == m_placeholder;
}

QString AgentPage::placeholderText() const {
    return m_stack->currentWidget() == m_placeholder ? m_placeholderText->text() : QString();
}

QLabel* AgentPage::messageLabel(const char* name, const char* colour, QWidget* parent) {
    auto* label = new QLabel(parent);
    label->setObjectName(QLatin1String(name));
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setStyleSheet(QStringLiteral("color: %1;").arg(QLatin1String(colour)));
    label->setVisible(false);
    return label;
}

} // namespace runbox::console
