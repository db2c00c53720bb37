#pragma once

#include "agent/AgentContext.h"
#include "agent/api/AuthVerifier.h"
#include "agent/api/HttpMetrics.h"
#include "agent/api/MetricsEndpoint.h"
#include "agent/api/Router.h"
#include "agent/http/HttpConnection.h"

#include <QObject>

#include <memory>

namespace runbox::api {

class ExecRoutes;
class ExecutionRoutes;
class NpuRoutes;
class ProxyRoutes;
class FileRoutes;

/// The agent's HTTP API: `GET /health` without auth, `GET /metrics` with the metrics bearer
/// token only (MetricsEndpoint), everything else verified by AuthVerifier and then routed. Unknown
/// paths are 404, known paths with another method 405, and every error has the
/// `{"error":{"code","message"}}` body.
///
/// Routes added with Router::addStreaming (file uploads) take their body as a stream: they are
/// authenticated on the request head, with the body hash the client declares in
/// `X-Runbox-Content-SHA256` standing in for the hash of the body (docs/contracts.md "Request
/// signing"; missing or not 64 hex digits → 400 `content_sha256_required`), before any body byte is
/// read; the route then checks the real hash before it commits anything. An authenticated upload
/// answered early (409, 413, …) has the rest of its body read and dropped
/// (HttpExchange::setDrainLimit) before the connection closes; an unauthenticated one is closed at
/// once. Requests with a buffered body are checked on the head too (checkHead): a missing or wrong
/// token is refused before a body byte is read.
class ApiService final : public QObject, public http::RequestHandler {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ApiService)
public:
    explicit ApiService(AgentContext* context, QObject* parent = nullptr);
    ~ApiService() override;

    /// On the head, before the body is read (buffered bodies): `GET /health` passes,
    /// `/metrics` is MetricsEndpoint::check()ed; so do
    /// streamed routes, which handle() authenticates in full on the head. Every other request
    /// needs a valid bearer token and well-formed, in-window signature headers
    /// (AuthVerifier::verifyHead → 401), and a workspace token may name no other workspace in
    /// a `/v1/workspaces/{id}/…` route (404 workspace_not_found, as the routes answer). The
    /// HMAC over the body is still verified by handle() once the body is in.
    std::optional<ApiError> checkHead(const http::HttpRequest& head) override;
    bool wantsBodyStream(const http::HttpRequest& head) override;
    void handle(http::HttpExchange* exchange) override;
    /// Kills every running execution (agent shutdown).
    void stopAll();

private:
    AgentContext* m_context;
    Router m_router;
    AuthVerifier m_auth;
    MetricsEndpoint m_metricsEndpoint;
    HttpMetrics m_httpMetrics;
    std::unique_ptr<ExecRoutes> m_exec;
    std::unique_ptr<ExecutionRoutes> m_executions;
    std::unique_ptr<NpuRoutes> m_npu;
    std::unique_ptr<ProxyRoutes> m_proxy;
    std::unique_ptr<FileRoutes> m_files;
};

/// Parses a JSON object body; an empty body is an empty object. Error: 400 invalid_json when the
/// body is not JSON, not an object, or has an object (at any depth) with a member name twice
/// (findDuplicateJsonKey; the message quotes the name, cut after 64 characters).
std::optional<ApiError> parseJsonObject(const QByteArray& body, QJsonObject* out);

} // namespace runbox::api
