#pragma once

#include "agent/AgentContext.h"
#include "agent/api/BrowserProxy.h"
#include "agent/api/Router.h"
#include "agent/proxy/WorkspaceActivity.h"

#include <QObject>

namespace runbox::api {

/// The port proxy (docs/light-workspaces.md "In the agent", docs/contracts.md "Port proxy for
/// browsers"):
/// `GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS /v1/workspaces/{id}/proxy/{port}/{path...}` forwards
/// the request to `.runbox/proxy/{port}.sock` in the workspace (a light workspace's home, a
/// strong workspace's /workspace, whose execution then runs with `"proxy": true`: ProxyStage)
/// through WorkspaceSocket (no link followed, a socket owned by the workspace's uid, peer
/// credentials checked once connected) as `/{path}?{query}`, and streams the response back
/// (proxy::ProxySession; SSE included; WebSocket through proxy::WebSocketRelay). Every request,
/// including each one on a kept-alive connection, has passed ApiService's signature check before
/// it gets here; the workspace's token or the agent token may use it. Browsers, which cannot
/// sign, reach the same relay through BrowserProxy (its token route and its origins).
///
/// Errors: 404 workspace_not_found, 400 invalid_port (not 1..65535), 400 invalid_path, 501
/// upgrade_unsupported (an `Upgrade` other than WebSocket), 503 light_unavailable, then
/// WorkspaceSocket's 403/502/503 and ProxySession's 502/504.
class ProxyRoutes final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ProxyRoutes)
public:
    explicit ProxyRoutes(AgentContext* context, QObject* parent = nullptr);
    void registerRoutes(Router& router);
    /// The browser side (ApiService sends it every request addressed to a proxy origin).
    BrowserProxy& browser() { return m_browser; }

private:
    void handle(http::HttpExchange* ex, const Principal& who, const PathParams& params);
    /// 1..65535 from decimal @p text without sign or leading zero; 0 otherwise.
    static int parsePort(const QString& text);
    /// Relays @p ex to @p port of @p ws as @p target; @p prefix is the public path prefix
    /// (X-Forwarded-Prefix; empty on a browser origin).
    void relay(http::HttpExchange* ex, const workspace::Workspace& ws, int port,
               const QByteArray& target, const QByteArray& prefix);
    /// The light tier as the proxy sessions see it (m_context->light must be set).
    proxy::WorkspaceActivity* activity();

    AgentContext* m_context;
    proxy::WorkspaceActivity* m_activity = nullptr; ///< over m_context->light, made on first use
    BrowserProxy m_browser;
};

} // namespace runbox::api
