#include "agent/api/ProxyRoutes.h"

#include "agent/light/tier/LightService.h"
#include "agent/proxy/ProxySession.h"
#include "agent/proxy/WebSocketRelay.h"
#include "agent/proxy/WorkspaceSocket.h"
#include "agent/workspace/WorkspaceFs.h"

#include <QPointer>
#include <QRegularExpression>

#include <unistd.h>

namespace runbox::api {

namespace {

/// proxy::WorkspaceActivity over the light tier's LightService (activity counts, deletions).
class LightActivity final : public proxy::WorkspaceActivity {
public:
    LightActivity(light::LightService* light, QObject* parent)
        : proxy::WorkspaceActivity(parent), m_light(light) {
        connect(light, &light::LightService::workspaceRemoved, this,
                &proxy::WorkspaceActivity::workspaceRemoved);
    }
    void begin(const QString& workspaceId) override {
        if (m_light)
            m_light->beginActivity(workspaceId);
    }
    void end(const QString& workspaceId) override {
        if (m_light)
            m_light->endActivity(workspaceId);
    }

private:
    QPointer<light::LightService> m_light;
};

} // namespace

ProxyRoutes::ProxyRoutes(AgentContext* context, QObject* parent)
    : QObject(parent), m_context(context),
      m_browser(context, [this](http::HttpExchange* ex, const workspace::Workspace& ws, int port,
                                const QByteArray& target) { relay(ex, ws, port, target, {}); }) {}

void ProxyRoutes::registerRoutes(Router& router) {
    for (const char* method : {"GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
        router.add(method, QStringLiteral("/v1/workspaces/{id}/proxy/{port}/{path...}"),
                   [this](http::HttpExchange* ex, const Principal& who, const PathParams& p) {
                       handle(ex, who, p);
                   });
    router.add("POST", QStringLiteral("/v1/workspaces/{id}/proxy-tokens"),
               [this](http::HttpExchange* ex, const Principal& who, const PathParams& p) {
                   m_browser.mintToken(ex, who, p.value(QStringLiteral("id")));
               });
}

void ProxyRoutes::handle(http::HttpExchange* ex, const Principal& who, const PathParams& params) {
    const QString id = params.value(QStringLiteral("id"));
    const workspace::Workspace* ws = m_context->workspaces->find(id);
    if (!ws || !who.mayUseWorkspace(id))
        return ex->replyError(404, QStringLiteral("workspace_not_found"),
                              QStringLiteral("no workspace %1").arg(id));
    const QString portText = params.value(QStringLiteral("port"));
    const int port = parsePort(portText);
    if (port == 0)
        return ex->replyError(400, QStringLiteral("invalid_port"),
                              QStringLiteral("the port must be a number from 1 to 65535"));
    // The rest of the raw path, as sent (still percent-encoded): the workspace decodes it.
    const http::HttpRequest& req = ex->request();
    QByteArray target = '/' + params.value(QStringLiteral("path")).toLatin1();
    if (!req.rawQuery.isEmpty() || req.rawTarget.contains('?'))
        target += '?' + req.rawQuery;
    relay(ex, *ws, port, target,
          "/v1/workspaces/" + id.toLatin1() + "/proxy/" + portText.toLatin1());
}

int ProxyRoutes::parsePort(const QString& text) {
    static const QRegularExpression digits(QStringLiteral("^[1-9][0-9]{0,4}$"));
    const int port = text.toInt();
    return digits.match(text).hasMatch() && port >= 1 && port <= 65535 ? port : 0;
}

void ProxyRoutes::relay(http::HttpExchange* ex, const workspace::Workspace& ws, int port,
                        const QByteArray& target, const QByteArray& prefix) {
    if (!ws.fs)
        return ex->replyError(404, QStringLiteral("workspace_not_found"),
                              QStringLiteral("no workspace %1").arg(ws.id));
    const bool light = light::LightService::serves(ws);
    if (light && (!m_context->light || !m_context->light->available()))
        return ex->replyError(503, QStringLiteral("light_unavailable"),
                              QStringLiteral("light workspaces are not available"));
    const http::HttpRequest& req = ex->request();
    const bool upgrade = !req.header("upgrade").isEmpty();
    if (upgrade) {
        ex->closeAfterResponse(); // whatever the answer, no more HTTP after a refused upgrade
        // WebSocket only (RFC 6455 §4); other upgrades (h2c…) are not relayed.
        if (req.header("upgrade").toLower().indexOf("websocket") < 0)
            return ex->replyError(501, QStringLiteral("upgrade_unsupported"),
                                  QStringLiteral("the port proxy relays WebSocket upgrades only"));
        if (auto err = proxy::WebSocketRelay::checkRequest(req))
            return ex->replyError(*err);
    }
    for (char c : target)
        if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f)
            return ex->replyError(400, QStringLiteral("invalid_path"),
                                  QStringLiteral("the proxied path has control characters"));
    Error error;
    // A strong workspace's sockets belong to its sandbox uid (a root agent's), or to the agent's
    // own uid, which a rootless agent's sandboxes map to.
    const uid_t owner = ws.uid ? *ws.uid : ::geteuid();
    const int fd = proxy::WorkspaceSocket::connect(ws.fs->rootFd(), owner, port, &error);
    if (fd < 0)
        return ex->replyError(error);
    if (upgrade) {
        auto* relay = new proxy::WebSocketRelay(ex, activity(), ws.id, fd, target, prefix, this);
        relay->start();
        return;
    }
    auto* session = new proxy::ProxySession(ex, activity(), ws.id, fd, target, prefix, this);
    session->start();
}

proxy::WorkspaceActivity* ProxyRoutes::activity() {
    if (!m_activity)
        m_activity = new LightActivity(m_context->light, this);
    return m_activity;
}

} // namespace runbox::api
