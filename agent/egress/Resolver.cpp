#include "agent/egress/Resolver.h"

#include <QHostInfo>

namespace runbox::egress {

void SystemResolver::resolve(const QString& host, QObject* context, Callback done) {
    QHostInfo::lookupHost(host, context, [done = std::move(done)](const QHostInfo& info) {
        ResolveResult result;
        if (info.error() != QHostInfo::NoError)
            result.error = info.errorString();
        else
            result.addresses = info.addresses();
        done(result);
    });
}

} // namespace runbox::egress
