#pragma once

#include "agent/AgentContext.h"
#include "agent/api/AuthVerifier.h"
#include "agent/proxy/ProxyOrigin.h"
#include "agent/proxy/ProxyToken.h"

#include <functional>

namespace runbox::http {
class HttpExchange;
struct HttpRequest;
} // namespace runbox::http

namespace runbox::api {

/// The port proxy as a browser reaches it (docs/contracts.md "Port proxy for browsers"): a
/// browser cannot sign requests, so a workspace's port is opened with a short-lived token
/// (proxy::ProxyTokens) on an origin of its own (proxy::ProxyOrigin, `P-ID.<proxyDomain>`).
///
/// - `POST /v1/workspaces/{id}/proxy-tokens {"port": P, "ttlS"?: N}` (signed, the workspace's
///   token or the agent token; ttlS 1..86400, default 900) → 201 `{"token", "url",
///   "expiresAt"}`; `url` opens the page: `http://P-ID.<proxyDomain>:<port the request came
///   to>/?runbox_proxy_token=TOKEN`.
/// - Every request whose Host is such an origin comes here instead of the signed routes, each
///   one on a kept-alive connection checked again: the token in the query
///   (`runbox_proxy_token`, usable once: it is exchanged for a host-only `HttpOnly`,
///   `SameSite=Lax` cookie by a 303 to the same URL without it), in the
///   `X-Runbox-Proxy-Token` header, or in that cookie. The token, the header and the cookie never
///   reach the workspace (proxy/ProxyHeaders.h). The request is then relayed as the signed
///   route relays it, its path and query as sent, with no `X-Forwarded-Prefix`.
///
/// Errors: 401 `proxy_token_required`, `proxy_token_invalid`, `proxy_token_expired`,
/// `proxy_token_spent` (a URL token used again); for the token route 400 `invalid_port`,
/// `invalid_request`, 404 `workspace_not_found`.
class BrowserProxy final {
public:
    /// Relays @p ex to @p port of @p ws, the request target being @p target.
    using Relay = std::function<void(http::HttpExchange* ex, const workspace::Workspace& ws,
                                     int port, const QByteArray& target)>;

    BrowserProxy(AgentContext* context, Relay relay);

    /// The browser origin @p head is addressed to (its Host header), if it is one.
    std::optional<proxy::ProxyOrigin> originOf(const http::HttpRequest& head) const;
    /// Answers a request to @p origin (see above).
    void handle(http::HttpExchange* ex, const proxy::ProxyOrigin& origin);
    /// `POST /v1/workspaces/{id}/proxy-tokens`, @p who already verified.
    void mintToken(http::HttpExchange* ex, const Principal& who, const QString& workspaceId);

private:
    AgentContext* m_context;
    Relay m_relay;
    proxy::ProxyTokens m_tokens;
};

} // namespace runbox::api
