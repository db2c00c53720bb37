#pragma once

#include <QHostAddress>
#include <QList>
#include <QString>

#include <functional>

class QObject;

namespace runbox::egress {

/// The answer to one name lookup: every address (A and AAAA), or an error text.
struct ResolveResult {
    QList<QHostAddress> addresses;
    QString error; ///< empty on success
};

/// Resolves a host name once, asynchronously. The egress gateway calls it exactly once per
/// request and never again for that request (no re-resolution, no DNS rebinding window).
/// Injectable so tests can map names to addresses without DNS.
class Resolver {
public:
    using Callback = std::function<void(const ResolveResult&)>;
    virtual ~Resolver() = default;
    /// Looks @p host up and calls @p done once, in @p context's thread; never calls it after
    /// @p context is destroyed.
    virtual void resolve(const QString& host, QObject* context, Callback done) = 0;
};

/// The production resolver: the host's system resolver through QHostInfo (getaddrinfo with
/// AF_UNSPEC: /etc/hosts, DNS A and AAAA, per nsswitch.conf). An operator can therefore point a
/// mirror name at an internal address in /etc/hosts (and allow it via allowPrivateCidrs).
class SystemResolver final : public Resolver {
public:
    void resolve(const QString& host, QObject* context, Callback done) override;
};

} // namespace runbox::egress
