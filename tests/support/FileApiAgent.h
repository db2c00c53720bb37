#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QObject>
#include <QPair>
#include <QProcess>
#include <QTemporaryDir>
#include <QUrl>

#include <memory>

#include <sys/types.h>

class QTcpSocket;

namespace runbox {
class ApiClient;
struct ApiResponse;
} // namespace runbox

namespace runbox::testsupport {

/// One raw HTTP response (RawHttp below).
struct RawResponse {
    int status = 0; ///< 0: no (complete) response
    QByteArray head;
    QByteArray body;
    QByteArray header(const QByteArray& lowerName) const;
};

/// Signed requests written byte for byte on a socket, for targets and framings a URL library
/// would normalise (`..`, `%2e`, `//`), and for chunked or deliberately truncated bodies.
class RawHttp final {
public:
    RawHttp(quint16 port, QByteArray token) : m_port(port), m_token(std::move(token)) {}

    /// Sends @p method @p target with DESIGN.md §3 signature headers (over @p signedBodySha256,
    /// default: the hash of @p body) plus @p extraHeaders, then @p body as is (the caller adds
    /// Content-Length or Transfer-Encoding in @p extraHeaders), and reads one response.
    RawResponse send(const QByteArray& method, const QByteArray& target,
                     const QList<QPair<QByteArray, QByteArray>>& extraHeaders = {},
                     const QByteArray& body = {}, const QByteArray& signedBodySha256 = {},
                     int timeoutMs = 30000) const;
    /// A signed streamed upload: PUT with X-Runbox-Content-SHA256 and Content-Length.
    RawResponse put(const QByteArray& target, const QByteArray& body) const;

    /// The first half of send(): connects and writes the whole request, without waiting for
    /// the answer (requests that must be in flight together). Null when it cannot connect.
    std::unique_ptr<QTcpSocket> start(const QByteArray& method, const QByteArray& target,
                                      const QList<QPair<QByteArray, QByteArray>>& extraHeaders,
                                      const QByteArray& body, const QByteArray& signedBodySha256,
                                      int timeoutMs = 30000) const;
    /// Like start() for put().
    std::unique_ptr<QTcpSocket> startPut(const QByteArray& target, const QByteArray& body) const;
    /// The second half: reads one response from @p socket.
    static RawResponse finish(QTcpSocket* socket, int timeoutMs = 30000);

private:
    quint16 m_port;
    QByteArray m_token;
};

/// Events of one sync execution.
struct ExecResult {
    QString status; ///< the exit event's status ("completed", …); empty if none
    int exitCode = -1;
    QByteArray stdoutBytes;
    QByteArray stderrBytes;
    int httpStatus = 0;
    QByteArray errorBody;
};

/// The real runbox-agent of this build for the file-API tests (DESIGN.md §5: as `nobody` when
/// the test runs as root, via setpriv, with a parent-death signal), on a free loopback port with
/// a fresh state directory. Small on purpose: the shared AgentProcess helper of the integration
/// tests can replace it once both are on main.
class FileApiAgent final {
public:
    FileApiAgent();
    ~FileApiAgent();

    /// Starts the agent with @p env added; false with errorString() on failure.
    bool start(const QMap<QString, QString>& env = {});
    QString errorString() const { return m_error; }
    QString log();

    QUrl baseUrl() const { return m_url; }
    quint16 port() const { return quint16(m_url.port()); }
    QByteArray token() const { return m_token; }
    ApiClient* client() const { return m_client.get(); }
    RawHttp raw() const { return RawHttp(port(), m_token); }
    RawHttp raw(const QByteArray& token) const { return RawHttp(port(), token); }
    qint64 pid() const { return m_process.processId(); }
    /// VmRSS of the agent in KiB (-1 if unknown).
    qint64 rssKiB() const;
    /// The uid the agent runs as.
    uid_t agentUid() const { return m_uid; }
    QString stateDir() const { return m_stateDir ? m_stateDir->path() : QString(); }
    /// Host directory of workspace @p id.
    QString workspaceDir(const QString& id) const;

    /// Creates a strong workspace; returns its id ("" on failure) and its token.
    QString createWorkspace(QByteArray* token = nullptr);
    /// `PUT /v1/settings/quotas` with @p patch; true on 200.
    bool setQuotas(const QJsonObject& patch);
    /// Runs `bash` @p code in the workspace's sandbox (sync exec) and collects the events.
    ExecResult shell(const QString& workspaceId, const QString& code, int timeoutMs = 60000);

private:
    std::unique_ptr<QTemporaryDir> m_stateDir;
    QProcess m_process;
    QByteArray m_log;
    QString m_error;
    QUrl m_url;
    QByteArray m_token;
    uid_t m_uid = 0;
    std::unique_ptr<ApiClient> m_client;
};

} // namespace runbox::testsupport
