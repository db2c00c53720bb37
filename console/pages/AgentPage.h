#pragma once

#include <QIcon>
#include <QPointer>
#include <QWidget>

class QLabel;
class QStackedWidget;

namespace runbox::console {

class AgentConnection;
class HostBanner;

/// Base of the console's pages: a HostBanner saying which agent the page is about, the page's
/// content, and the states a page can be in instead of its content — no agent selected, not
/// connected, or "this agent does not offer X yet" (the route answered 404/405).
class AgentPage : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AgentPage)
public:
    AgentPage(const QString& title, const QString& iconPath, QWidget* parent = nullptr);
    ~AgentPage() override;

    QString title() const { return m_title; }
    QIcon icon() const { return QIcon(m_iconPath); }
    AgentConnection* connection() const { return m_connection; }
    /// Switches the page to @p connection (nullptr: none) and reloads it.
    void setConnection(AgentConnection* connection);
    HostBanner* banner() const { return m_banner; }

    /// Reloads from the agent (F5).
    virtual void refresh() = 0;
    /// Ctrl+F: focuses the page's search field, when it has one.
    virtual void focusFind() {}
    /// Whether the unavailable ("does not offer X yet") state is shown.
    bool isUnavailableShown() const;
    /// The text of the placeholder shown instead of the content ("" while content is shown).
    QString placeholderText() const;

Q_SIGNALS:
    /// A sentence for the status bar (translated), shown for @p timeoutMs (0 = sticky).
    void statusMessage(const QString& text, int timeoutMs);

protected:
    /// The connection changed or (re)connected: reset what is shown and reload.
    virtual void onConnectionChanged() = 0;
    /// Installs the page's content widget (once, from the subclass constructor).
    void setContent(QWidget* content);
    void showContent();
    /// "This agent does not offer @p feature yet" with the route it lacks.
    void showUnavailable(const QString& feature, const QString& route);
    /// A placeholder with a title and explanation instead of the content.
    void showPlaceholder(const QString& title, const QString& text,
                         const QString& iconPath = QStringLiteral(":/icons/info.svg"));
    bool isConnected() const;
    /// A hidden, word-wrapped, selectable label in @p colour (a CSS colour) named @p name, for
    /// a page's notices and refusals.
    static QLabel* messageLabel(const char* name, const char* colour, QWidget* parent);

private:
    void onStateChanged();

    QString m_title;
    QString m_iconPath;
    QPointer<AgentConnection> m_connection;
    HostBanner* m_banner;
    QStackedWidget* m_stack;
    QWidget* m_placeholder;
    QLabel* m_placeholderIcon;
    QLabel* m_placeholderTitle;
    QLabel* m_placeholderText;
    bool m_unavailable = false;
    bool m_wasConnected = false;
};

} // namespace runbox::console
