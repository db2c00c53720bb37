#pragma once

#include <QCoreApplication>
#include <QList>
#include <QString>
#include <QUrl>

namespace runbox::console {

/// A saved agent the console can connect to. The token is never part of a profile: it lives in
/// the OS keychain (see TokenVault), keyed by id.
struct AgentProfile {
    Q_DECLARE_TR_FUNCTIONS(runbox::console::AgentProfile)

public:
    QString id;   ///< stable random id (keychain key, settings key)
    QString name; ///< operator's label, e.g. "gpu-node-3"
    QUrl url;     ///< base URL, e.g. http://127.0.0.1:4311 or https://node3:4312
    /// The pinned SHA-256 fingerprint of an https:// agent's certificate, `AB:CD:…`
    /// (tls::formatFingerprint); empty: only a certificate the system CA store verifies
    /// (docs/contracts.md "TLS and pinning").
    QString fingerprint = {};

    /// "name (host:port)", what every page shows to say which host it is about.
    QString displayName() const;
    /// "host:port" of the URL.
    QString hostAndPort() const;
    /// fingerprint as the 32 bytes ApiClient::setPinnedSha256 takes; empty when none or invalid.
    QByteArray pinnedSha256() const;
    /// Empty when the profile can be used; otherwise a translated sentence saying what is wrong
    /// (no name, URL not http/https, no host, a fingerprint that is none or is not for https).
    /// Unix-socket agents are not reachable through the shared HTTP client and are refused with
    /// that explanation.
    QString validationError() const;
    /// A new random id.
    static QString newId();

    friend bool operator==(const AgentProfile&, const AgentProfile&) = default;
};

} // namespace runbox::console
