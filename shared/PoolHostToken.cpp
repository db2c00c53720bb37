#include "shared/PoolHostToken.h"

#include "shared/ApiClient.h"
#include "shared/FleetFile.h"
#include "shared/PoolSecret.h"

namespace runbox {

QString PoolHostToken::plainUrlRefusal(const QUrl& url) {
    if (url.scheme() == QLatin1String("https"))
        return {};
    return QStringLiteral("%1: a pool host's token is derived and sent only over https:// (TLS "
                          "proves which host answers; over plain HTTP whoever answers on that "
                          "port, a squatter on a stopped host's port, would get a host's "
                          "token); start the host with --listen-tls and give its https URL "
                          "and fingerprint")
        .arg(url.toString());
}

QByteArray PoolHostToken::hostNonceOf(const QJsonObject& health) {
    const QByteArray nonce = health.value(QLatin1String("pool"))
                                 .toObject()
                                 .value(QLatin1String("hostNonce"))
                                 .toString()
                                 .toLatin1();
    return PoolSecret::validHostNonce(nonce) ? nonce : QByteArray();
}

QByteArray PoolHostToken::derive(const QUrl& url, const QByteArray& pin, const QByteArray& secret,
                                 QString* error, int timeoutMs) {
    if (const QString refusal = plainUrlRefusal(url); !refusal.isEmpty()) {
        *error = refusal;
        return {};
    }
    ApiClient client(url, QByteArray()); // GET /health is unsigned: no token is ever attached
    client.setPinnedSha256(pin);
    const ApiResponse health = client.call("GET", "/health", {}, timeoutMs);
    if (health.status != 200) {
        *error = health.status == 0
                     ? QStringLiteral("cannot read the host nonce from %1/health: %2")
                           .arg(url.toString(), health.networkError)
                     : QStringLiteral("%1/health answered %2, not the host nonce")
                           .arg(url.toString())
                           .arg(health.status);
        return {};
    }
    const QByteArray nonce = hostNonceOf(health.json());
    if (nonce.isEmpty()) {
        *error = QStringLiteral("%1 shows no pool host nonce on /health (is it a pool host "
                                "started with --pool-secret-file?)")
                     .arg(url.toString());
        return {};
    }
    return PoolSecret::hostToken(secret, nonce);
}

QByteArray PoolHostToken::forFleetAgent(const FleetAgent& agent, QString* error) {
    if (agent.pool.isEmpty())
        return FleetFile::readToken(agent, error);
    QString why;
    const QByteArray secret = PoolSecret::read(PoolSecret::defaultPath(agent.pool), &why);
    const QByteArray token =
        secret.isEmpty() ? QByteArray() : derive(QUrl(agent.url), agent.pin, secret, &why);
    if (token.isEmpty())
        *error = QStringLiteral("agent %1 (pool %2): %3").arg(agent.name, agent.pool, why);
    return token;
}

} // namespace runbox
