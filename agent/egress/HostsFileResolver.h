#pragma once

#include "agent/egress/Resolver.h"

#include <QHash>
#include <QString>

namespace runbox::egress {

/// TEST-ONLY resolver: answers from a file instead of DNS, so integration tests can point names
/// at addresses of their own (a server in a network namespace, 127.0.0.1, 169.254.169.254…).
/// The agent uses it only when the test-only variable `RUNBOX_TEST_RESOLVER_HOSTS` (a row of the
/// configuration table, config::Key::TestResolverHosts) names the file, and logs a warning at
/// start-up when it does; production agents use SystemResolver.
///
/// Format: one answer per line, `name address [address…]` (whitespace-separated; `#` starts a
/// comment). Several lines for one name are successive answers: the n-th lookup of that name
/// gets its n-th line, and the last line repeats (a test can so answer differently on a second
/// lookup, as a rebinding DNS server would). Names are compared case-insensitively, without a
/// trailing dot. An unknown name, an unreadable file or a bad address is a lookup error. The file
/// is read at every lookup.
class HostsFileResolver final : public Resolver {
public:
    explicit HostsFileResolver(QString path) : m_path(std::move(path)) {}
    void resolve(const QString& host, QObject* context, Callback done) override;

    /// The answer for the @p lookupIndex-th (0-based) lookup of @p host in @p fileText.
    static ResolveResult answer(const QByteArray& fileText, const QString& host, int lookupIndex);

private:
    QString m_path;
    QHash<QString, int> m_lookups; ///< name → lookups so far
};

} // namespace runbox::egress
