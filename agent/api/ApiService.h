#pragma once

#include "agent/api/AgentContext.h"
#include "agent/api/AuthVerifier.h"
#include "agent/api/Router.h"
#include "agent/http/HttpConnection.h"

#include <QObject>

#include <memory>

namespace runbox::api {

class ExecRoutes;
class ExecutionRoutes;

/// The agent's HTTP API: `GET /health` without auth, everything else verified by AuthVerifier
/// and then routed. Unknown paths are 404, known paths with another method 405, and every error
/// has the `{"error":{"code","message"}}` body.
class ApiService final : public QObject, public http::RequestHandler {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ApiService)
public:
    explicit ApiService(AgentContext* context, QObject* parent = nullptr);
    ~ApiService() override;

    void handle(http::HttpExchange* exchange) override;
    /// Kills every running execution (agent shutdown).
    void stopAll();

private:
    AgentContext* m_context;
    Router m_router;
    AuthVerifier m_auth;
    std::unique_ptr<ExecRoutes> m_exec;
    std::unique_ptr<ExecutionRoutes> m_executions;
};

/// Parses a JSON object body; an empty body is an empty object. Error: 400 invalid_json.
std::optional<ApiError> parseJsonObject(const QByteArray& body, QJsonObject* out);

} // namespace runbox::api
