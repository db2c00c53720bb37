#include "agent/api/ApiService.h"

#include "agent/api/EnvironmentRoutes.h"
#include "agent/api/ExecRoutes.h"
#include "agent/api/ExecutionRoutes.h"
#include "agent/api/FileRoutes.h"
#include "agent/api/HealthRoutes.h"
#include "agent/api/JsonDuplicateKeys.h"
#include "agent/api/NetworkPolicyRoutes.h"
#include "agent/api/NpuRoutes.h"
#include "agent/api/ProxyRoutes.h"
#include "agent/api/SettingsRoutes.h"
#include "agent/api/WorkspaceRoutes.h"
#include "agent/execution/ExecutionManager.h"
#include "agent/light/tier/LightService.h"
#include "shared/Crypto.h"
#include "shared/UploadChunkSigner.h"

#include <QDateTime>
#include <QJsonDocument>

namespace runbox::api {

namespace {
/// How much of a duplicated member name an invalid_json message quotes.
constexpr qsizetype kMaxQuotedNameChars = 64;

/// @p name cut to kMaxQuotedNameChars (never inside a surrogate pair), "…" when cut.
QString quotedName(const QString& name) {
    if (name.size() <= kMaxQuotedNameChars)
        return name;
    qsizetype cut = kMaxQuotedNameChars;
    if (name.at(cut - 1).isHighSurrogate())
        --cut;
    return name.left(cut) + QChar(0x2026);
}

/// How much of the request path a 404/405 message echoes: enough to recognise it, while a
/// path of up to the head bound (64 KiB) is not sent back whole.
constexpr qsizetype kMaxEchoedPathBytes = 200;

/// @p rawPath (still percent-encoded, so ASCII) for an error message: its first
/// kMaxEchoedPathBytes bytes, then "…" when it was longer.
QString echoedPath(const QByteArray& rawPath) {
    if (rawPath.size() <= kMaxEchoedPathBytes)
        return QString::fromLatin1(rawPath);
    return QString::fromLatin1(rawPath.left(kMaxEchoedPathBytes)) + QChar(0x2026);
}
} // namespace

std::optional<ApiError> parseJsonObject(const QByteArray& body, QJsonObject* out) {
    if (body.trimmed().isEmpty()) {
        *out = {};
        return std::nullopt;
    }
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(body, &err);
    if (err.error != QJsonParseError::NoError)
        return ApiError{400, QStringLiteral("invalid_json"),
                        QStringLiteral("body is not valid JSON: %1 at byte %2")
                            .arg(err.errorString())
                            .arg(err.offset)};
    if (!doc.isObject())
        return ApiError{400, QStringLiteral("invalid_json"),
                        QStringLiteral("body must be a JSON object")};
    // QJsonDocument keeps the last of two equal names; refuse rather than guess (RFC 8259 §4).
    if (const std::optional<QString> name = findDuplicateJsonKey(body))
        return ApiError{400, QStringLiteral("invalid_json"),
                        QStringLiteral("body has the member name \"%1\" twice in one object "
                                       "(RFC 8259 §4); send each member once")
                            .arg(quotedName(*name))};
    *out = doc.object();
    return std::nullopt;
}

ApiService::ApiService(AgentContext* context, QObject* parent)
    : QObject(parent), m_context(context),
      m_auth(context->agentToken, context->config.signatureWindowMs,
             [context](const QString& id) {
                 const workspace::Workspace* ws = context->workspaces->find(id);
                 return ws ? ws->tokenNonce : QByteArray();
             }),
      m_metricsEndpoint(context->config.stateDir, context->metrics),
      m_httpMetrics(context->metrics), m_exec(std::make_unique<ExecRoutes>(context)),
      m_executions(std::make_unique<ExecutionRoutes>(context)),
      m_npu(std::make_unique<NpuRoutes>(context)), m_proxy(std::make_unique<ProxyRoutes>(context)),
      m_files(std::make_unique<FileRoutes>(context)) {
    HealthRoutes::registerRoutes(m_router, context);
    WorkspaceRoutes::registerRoutes(m_router, context, [context](const QString& id) {
        return context->manager->workspaceBusy(id);
    });
    m_exec->registerRoutes(m_router);
    m_executions->registerRoutes(m_router);
    m_npu->registerRoutes(m_router);
    m_proxy->registerRoutes(m_router);
    m_files->registerRoutes(m_router);
    SettingsRoutes::registerRoutes(m_router, context);
    NetworkPolicyRoutes::registerRoutes(m_router, context);
    EnvironmentRoutes::registerRoutes(m_router, context);
}

ApiService::~ApiService() = default;

bool ApiService::wantsBodyStream(const http::HttpRequest& head) {
    if (m_proxy->browser().originOf(head))
        return false; // a browser origin's request is relayed whole, whatever its path
    return m_router.streamsBody(head.method, head.rawPath);
}

std::optional<ApiError> ApiService::checkHead(const http::HttpRequest& head) {
    if (head.rawPath == "/health" || m_proxy->browser().originOf(head) ||
        m_router.streamsBody(head.method, head.rawPath))
        return std::nullopt;
    if (MetricsEndpoint::isMetricsPath(head.rawPath)) {
        auto err = m_metricsEndpoint.check(head);
        if (err)
            m_httpMetrics.count(head.method, QStringLiteral("/metrics"), err->httpStatus);
        return err;
    }
    Principal who;
    if (auto err = m_auth.verifyHead(head, QDateTime::currentMSecsSinceEpoch(), &who)) {
        m_httpMetrics.count(head.method, m_router.pattern(head.method, head.rawPath),
                            err->httpStatus);
        return err;
    }
    if (who.isAgent() || !head.rawPath.startsWith("/v1/workspaces/"))
        return std::nullopt;
    PathParams params;
    bool pathMatched = false;
    if (!m_router.match(head.method, head.rawPath, &params, &pathMatched))
        return std::nullopt; // 404/405 after the (bounded) body, as for the agent token
    const QString id = params.value(QStringLiteral("id"));
    if (!id.isEmpty() && !who.mayUseWorkspace(id)) {
        m_httpMetrics.count(head.method, m_router.pattern(head.method, head.rawPath), 404);
        return ApiError{404, QStringLiteral("workspace_not_found"),
                        QStringLiteral("no workspace %1").arg(id)};
    }
    return std::nullopt;
}

namespace {
/// How much of a refused upload's body is still read (and dropped): above the default
/// uploadMaxRequestBytes (10 GiB), so a refused upload of any allowed size gets its answer.
constexpr qint64 kDrainAfterEarlyAnswerBytes = 16LL << 30;

/// What a streamed upload's signature covers in place of the body hash: X-Runbox-Content-SHA256,
/// 64 hex digits (single-shot) or the chunk-signing literal, which then requires one
/// X-Runbox-Decoded-Length of decimal digits (docs/upload-integrity.md). Missing or malformed:
/// 400 before authentication, as nothing can be verified without it.
std::optional<ApiError> streamedBodyHash(const http::HttpRequest& req, QByteArray* out) {
    const QByteArray declared = req.header("x-runbox-content-sha256");
    if (req.headerCount("x-runbox-content-sha256") == 1 && declared == upload_chunks::kScheme) {
        const QByteArray length = req.header("x-runbox-decoded-length");
        bool digits = req.headerCount("x-runbox-decoded-length") == 1 && !length.isEmpty() &&
                      length.size() <= 18;
        for (char c : length)
            digits = digits && c >= '0' && c <= '9';
        if (!digits)
            return ApiError{400, QStringLiteral("decoded_length_required"),
                            QStringLiteral("a chunk-signed upload declares the file's size in "
                                           "X-Runbox-Decoded-Length (decimal bytes)")};
        *out = declared;
        return std::nullopt;
    }
    *out = declared.toLower();
    if (req.headerCount("x-runbox-content-sha256") != 1 || !crypto::isHex(*out, 64))
        return ApiError{400, QStringLiteral("content_sha256_required"),
                        QStringLiteral("a streamed upload declares its body's SHA-256 in "
                                       "X-Runbox-Content-SHA256 (64 hex digits) or %1, and "
                                       "signs with it")
                            .arg(QLatin1String(upload_chunks::kScheme))};
    return std::nullopt;
}
} // namespace

void ApiService::handle(http::HttpExchange* ex) {
    const http::HttpRequest& req = ex->request();
    // A browser origin (Host `P-ID.<proxyDomain>`) is the workspace's port, every path of it:
    // its token is checked there, never a signature (BrowserProxy).
    if (const auto origin = m_proxy->browser().originOf(req)) {
        m_httpMetrics.watch(ex, QStringLiteral("proxy origin"));
        return m_proxy->browser().handle(ex, *origin);
    }
    if (MetricsEndpoint::isMetricsPath(req.rawPath)) {
        m_httpMetrics.watch(ex, QStringLiteral("/metrics"));
        return m_metricsEndpoint.handle(ex);
    }
    m_httpMetrics.watch(ex, req.rawPath == "/health" ? QStringLiteral("/health")
                                                     : m_router.pattern(req.method, req.rawPath));
    if (req.rawPath == "/health") {
        if (req.method != "GET" && req.method != "HEAD")
            return ex->replyError(405, QStringLiteral("method_not_allowed"),
                                  QStringLiteral("/health answers GET only"));
        return ex->replyJson(200, HealthRoutes::publicHealth(m_context->poolHostNonce));
    }
    // Authenticate before looking at anything else: no side effect, no route disclosure.
    // A streamed body is not here yet: the signature covers the hash the client declares (or
    // the chunk-signing literal), and the route refuses to commit a body that does not match.
    QByteArray declaredBodySha256;
    if (ex->body().isStreamed()) {
        if (auto err = streamedBodyHash(req, &declaredBodySha256))
            return ex->replyError(*err);
    }
    Principal who;
    if (auto err =
            m_auth.verify(req, QDateTime::currentMSecsSinceEpoch(), &who, declaredBodySha256))
        return ex->replyError(*err);
    // An authenticated upload refused early (409, 413, 404…) is read to its end before the
    // connection closes, so that clients which read only after sending (Qt) see the answer.
    if (ex->body().isStreamed())
        ex->setDrainLimit(kDrainAfterEarlyAnswerBytes);
    PathParams params;
    bool pathMatched = false;
    const RouteHandler* handler = m_router.match(req.method, req.rawPath, &params, &pathMatched);
    if (!handler) {
        if (pathMatched)
            return ex->replyError(
                405, QStringLiteral("method_not_allowed"),
                QStringLiteral("%1 is not allowed on %2")
                    .arg(QString::fromLatin1(req.method), echoedPath(req.rawPath)));
        return ex->replyError(404, QStringLiteral("not_found"),
                              QStringLiteral("no route %1").arg(echoedPath(req.rawPath)));
    }
    // The idle eviction clock: any route naming a light workspace uses it, but its usage walk,
    // which only observes it (a console refreshing its list must not keep it alive).
    if (m_context->light && params.contains(QStringLiteral("id")) &&
        req.rawPath.startsWith("/v1/workspaces/") &&
        req.rawPath != "/v1/workspaces/" + params.value(QStringLiteral("id")).toUtf8() + "/usage")
        m_context->light->touch(params.value(QStringLiteral("id")));
    (*handler)(ex, who, params);
}

void ApiService::stopAll() {
    m_exec->stopAll();
}

} // namespace runbox::api
