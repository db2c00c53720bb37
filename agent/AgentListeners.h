#pragma once

#include "agent/http/HttpServer.h"
#include "agent/http/UnixListenSocket.h"

#include <QJsonObject>
#include <QList>
#include <QString>

#include <functional>
#include <memory>

namespace runbox {

namespace config {
struct AgentConfig;
}

/// The agent's listeners (docs/contracts.md "TLS and pinning", "Unix socket"): the plain HTTP
/// one on --listen, with --listen-tls the TLS one, with --listen-unix a unix-socket one, all
/// serving the same handler with the same limits and one connection cap.
class AgentListeners final {
public:
    using Log = std::function<void(const QString&)>;

    /// Opens the plain listener, then the unix-socket one (http::UnixListenSocket), then the
    /// TLS one with its identity (tls::TlsIdentity: the operator's pair, or the generated one,
    /// made now on the first start and its fingerprint logged by @p log either way). Returns
    /// the reason on failure (a refused plain address is checked before, by
    /// tls::plaintextListenRefusal), empty on success.
    QString start(const config::AgentConfig& config, http::RequestHandler* handler,
                  const http::HttpLimits& limits, const Log& log);
    /// Stops accepting on all of them (connections open stay) and removes the unix socket.
    void close();

    QString plainUrl() const { return m_plainUrl; }
    QString tlsUrl() const { return m_tlsUrl; } ///< empty without a TLS listener
    /// The ports a workspace must never reach (LightService::start).
    QList<quint16> ports() const;
    /// `/v1/health` `listeners` (AgentContext::listenersJson).
    QJsonObject toJson() const { return m_json; }

private:
    std::unique_ptr<http::HttpServer> m_plain;
    std::unique_ptr<http::HttpServer> m_tls;
    std::unique_ptr<http::HttpServer> m_unix;
    http::UnixListenSocket m_unixSocket;
    QString m_plainUrl;
    QString m_tlsUrl;
    QJsonObject m_json;
};

/// `runbox-agent --print-fingerprint`: prints the SHA-256 fingerprint of the certificate the
/// TLS listener uses (--tls-cert, else the generated one in the state dir) on stdout as
/// `AB:CD:…`. Returns the exit status: 0, or 1 with the reason on stderr when there is none yet.
int printFingerprint(const config::AgentConfig& config);

} // namespace runbox
