#include "shared/PoolClient.h"

#include "shared/ApiClient.h"
#include "shared/ParallelCalls.h"
#include "shared/PoolCache.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <QUrl>

#include <algorithm>

namespace runbox {

namespace {

constexpr int kMaxLightPerRequest = 1024; // below the agent's own bound on a light batch
constexpr int kDeleteTimeoutMs = 300000;

QByteArray compact(const QJsonObject& o) {
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

PoolHostStatus statusFrom(const PoolHostHandle& host, const ApiResponse& r) {
    PoolHostStatus s;
    s.name = host.name;
    s.url = host.client->baseUrl().toString();
    s.reachable = r.status == 200;
    if (!s.reachable) {
        s.error = r.status == 0 ? r.networkError
                                : QStringLiteral("%1 %2").arg(r.status).arg(r.errorCode());
        return s;
    }
    const QJsonObject pool = r.json().value(QLatin1String("pool")).toObject();
    s.pool = pool.value(QLatin1String("name")).toString();
    s.capacity = qint64(pool.value(QLatin1String("capacity")).toDouble());
    s.workspaces = qint64(pool.value(QLatin1String("workspaces")).toDouble());
    const QJsonValue free = pool.value(QLatin1String("free"));
    s.free = free.isDouble() ? qint64(free.toDouble()) : -1;
    s.exitWhenIdleS = qint64(pool.value(QLatin1String("exitWhenIdleS")).toDouble());
    for (const QJsonValue& v : pool.value(QLatin1String("labels")).toArray())
        s.labels << v.toString();
    return s;
}

/// The status @p e remembers of @p host as a host of @p pool (what round 1 plans by).
PoolHostStatus statusFromCache(const PoolHostHandle& host, const PoolCacheEntry& e,
                               const QString& pool) {
    PoolHostStatus s;
    s.name = host.name;
    s.url = host.client->baseUrl().toString(); // discovery's, which the entry matched
    s.reachable = true;
    s.pool = pool;
    s.capacity = e.capacity;
    s.free = e.free;
    s.workspaces = e.capacity > 0 ? e.capacity - e.free : 0;
    return s;
}

/// Deletes @p made (pooled workspaces) one by one, in parallel; returns the ids not deleted.
QStringList rollBack(const QList<PoolHostHandle>& hosts, const QList<PooledWorkspace>& made) {
    QList<ParallelCall> calls;
    for (qsizetype i = 0; i < made.size(); ++i)
        for (const PoolHostHandle& h : hosts)
            if (h.name == made[i].host)
                calls.append({h.client,
                              "DELETE",
                              "/v1/workspaces/" + QUrl::toPercentEncoding(made[i].localId),
                              {},
                              {},
                              int(i)});
    runParallel(&calls, kDeleteTimeoutMs);
    QStringList left;
    for (const ParallelCall& c : calls)
        if (!c.response.ok() && c.response.status != 404)
            left << made[c.tag].id;
    return left;
}

} // namespace

QJsonObject PoolHostStatus::toJson() const {
    QJsonObject o{{"name", name},
                  {"url", url},
                  {"reachable", reachable},
                  {"pool", pool},
                  {"capacity", double(capacity)},
                  {"workspaces", double(workspaces)},
                  {"free", free < 0 ? QJsonValue() : QJsonValue(double(free))},
                  {"labels", QJsonArray::fromStringList(labels)},
                  {"exitWhenIdleS", double(exitWhenIdleS)}};
    if (!reachable)
        o.insert(QStringLiteral("error"), error);
    return o;
}

QJsonObject PoolCreateResult::toJson(const QString& pool) const {
    QJsonArray items;
    for (const PooledWorkspace& w : workspaces) {
        QJsonObject item = w.record;
        item.insert(QStringLiteral("id"), w.id);
        item.insert(QStringLiteral("host"), w.host);
        item.insert(QStringLiteral("localId"), w.localId);
        items.append(item);
    }
    QJsonObject placedJson, skippedJson;
    for (auto it = placed.cbegin(); it != placed.cend(); ++it)
        placedJson.insert(it.key(), it.value());
    for (auto it = skipped.cbegin(); it != skipped.cend(); ++it)
        skippedJson.insert(it.key(), it.value());
    QJsonObject o{{"pool", pool},
                  {"workspaces", items},
                  {"placed", placedJson},
                  {"skipped", skippedJson},
                  {"rounds", rounds}};
    if (!fromCache.isEmpty())
        o.insert(QStringLiteral("fromCache"), QJsonArray::fromStringList(fromCache));
    if (!ok) {
        o.insert(QStringLiteral("error"), QJsonObject{{"code", code}, {"message", message}});
        o.insert(QStringLiteral("leftBehind"), QJsonArray::fromStringList(leftBehind));
    }
    return o;
}

PoolClient::PoolClient(QList<PoolHostHandle> hosts) : m_hosts(std::move(hosts)) {}

QString PoolClient::pooledId(const QString& host, const QString& localId) {
    return host + QLatin1Char('.') + localId;
}

bool PoolClient::splitPooledId(const QString& id, QString* host, QString* localId) {
    const qsizetype dot = id.indexOf(QLatin1Char('.'));
    if (dot <= 0 || dot == id.size() - 1)
        return false;
    *host = id.left(dot);
    *localId = id.mid(dot + 1);
    return true;
}

QList<PoolHostStatus> PoolClient::readStates(const QMap<int, PoolHostStatus>& known,
                                             int timeoutMs) const {
    QList<ParallelCall> calls;
    for (qsizetype i = 0; i < m_hosts.size(); ++i)
        if (!known.contains(int(i)))
            calls.append({m_hosts[i].client, "GET", "/v1/health", {}, {}, int(i)});
    runParallel(&calls, timeoutMs);
    QList<PoolHostStatus> out(m_hosts.size());
    for (auto it = known.cbegin(); it != known.cend(); ++it)
        out[it.key()] = it.value();
    for (const ParallelCall& c : calls)
        out[c.tag] = statusFrom(m_hosts[c.tag], c.response);
    return out;
}

void PoolClient::remember(const QList<PoolHostStatus>& states,
                          const QList<QDateTime>& seenAt) const {
    if (!m_cache)
        return;
    QStringList names;
    for (const PoolHostHandle& h : m_hosts)
        names << h.name;
    m_cache->pruneAllBut(names); // hosts discovery no longer gives
    for (qsizetype i = 0; i < states.size() && i < m_hosts.size(); ++i) {
        const PoolHostStatus& s = states[i];
        if (!s.reachable || s.pool != m_cache->pool()) { // gone, or no host of this pool
            m_cache->prune(m_hosts[i].name);
            continue;
        }
        const ApiClient* client = m_hosts[i].client;
        m_cache->record({m_hosts[i].name, client->baseUrl().toString(),
                         PoolCache::pinHex(client->pinnedSha256()),
                         PoolCache::tokenFingerprint(client->token()), s.free,
                         s.free < 0 ? 0 : s.capacity, seenAt.value(i)});
    }
    m_cache->save(); // best-effort: a cache that cannot be written is a miss next time
}

QList<PoolHostStatus> PoolClient::survey(int timeoutMs) const {
    const QList<PoolHostStatus> states = readStates({}, timeoutMs);
    remember(states, QList<QDateTime>(states.size(), QDateTime::currentDateTimeUtc()));
    return states;
}

PoolCreateResult PoolClient::create(const PoolCreateRequest& request) const {
    PoolCreateResult result;
    const bool light = request.isolation == QLatin1String("light");
    QSet<QString> dead; // skipped for the rest of this call
    QList<PooledWorkspace> made;
    QString fatal;
    QMap<QString, QString> lastState; // host → what the last survey or answer said
    bool anyHost = false;
    // Each host's last known status (free slots after what was placed) and when it was seen,
    // for the cache; the known ones (cached, or dead in this call) are not asked again.
    QList<PoolHostStatus> latest(m_hosts.size());
    QList<QDateTime> latestAt(m_hosts.size());
    QMap<int, PoolHostStatus> known;
    PoolCache* const cache = m_cache && m_cache->pool() == request.pool ? m_cache : nullptr;
    for (qsizetype i = 0; cache && i < m_hosts.size(); ++i) {
        const ApiClient* client = m_hosts[i].client;
        if (const PoolCacheEntry* e = cache->usable(m_hosts[i].name, client->baseUrl().toString(),
                                                    client->pinnedSha256(), client->token())) {
            known.insert(int(i), statusFromCache(m_hosts[i], *e, request.pool));
            latestAt[i] = e->seenAt;
            result.fromCache << m_hosts[i].name;
        }
    }
    bool cacheRound = !result.fromCache.isEmpty();
    for (int round = 1; round <= request.maxRounds && int(made.size()) < request.count; ++round) {
        result.rounds = round;
        // Optimistic counts: each pool host's free slots as its health says now (in round 1,
        // as the cache says for the hosts it holds a usable entry of).
        const bool fromCache = cacheRound;
        cacheRound = false;
        QList<ParallelCall> calls;
        QMap<QString, int> planned;
        int toPlace = request.count - int(made.size());
        const QDateTime surveyedAt = QDateTime::currentDateTimeUtc();
        const QList<PoolHostStatus> states = readStates(known, 10000);
        for (qsizetype i = 0; i < m_hosts.size(); ++i)
            if (!known.contains(int(i))) {
                latest[i] = states[i];
                latestAt[i] = surveyedAt;
            } else if (fromCache) {
                latest[i] = states[i];
            }
        for (qsizetype i = 0; i < m_hosts.size() && toPlace > 0; ++i) {
            const PoolHostStatus& s = states[i];
            if (dead.contains(s.name))
                continue;
            if (!s.reachable) { // its pool is unknown: skipped, and said so, and not asked again
                result.skipped[s.name] = QStringLiteral("unreachable: ") + s.error;
                lastState[s.name] = result.skipped[s.name];
                dead.insert(s.name);
                known.insert(int(i), s);
                continue;
            }
            if (s.pool != request.pool)
                continue;
            anyHost = true;
            const int n = s.free < 0 ? toPlace : int(std::min<qint64>(s.free, toPlace));
            lastState[s.name] = QStringLiteral("%1 free of %2").arg(s.free).arg(s.capacity);
            if (n <= 0)
                continue;
            toPlace -= n;
            planned[s.name] = n;
            for (int left = n; left > 0;) {
                const int batch = light ? std::min(left, kMaxLightPerRequest) : 1;
                QJsonObject body = light ? request.lightOptions : QJsonObject();
                body.insert(QStringLiteral("isolation"), request.isolation);
                body.insert(QStringLiteral("pool"), request.pool); // the host refuses another
                if (light)
                    body.insert(QStringLiteral("count"), batch);
                calls.append(
                    {m_hosts[i].client, "POST", "/v1/workspaces", compact(body), {}, int(i)});
                left -= batch;
            }
        }
        if (fromCache) // from now on the hosts' own health, but never again a dead one's
            for (auto it = known.begin(); it != known.end();)
                it = dead.contains(m_hosts[it.key()].name) ? std::next(it) : known.erase(it);
        if (calls.isEmpty()) {
            if (fromCache) { // the cache saw no room: the hosts themselves are asked
                --round;
                continue;
            }
            break; // no pool host has room: more rounds would see the same
        }
        if (request.onRoundPlanned)
            request.onRoundPlanned(round, planned);
        runParallel(&calls, request.requestTimeoutMs);
        const QDateTime answeredAt = QDateTime::currentDateTimeUtc();
        for (const ParallelCall& c : calls) {
            const QString host = m_hosts[c.tag].name;
            const ApiResponse& r = c.response;
            // Gone, failing, or no host of this pool after all (a cache entry said otherwise):
            // skipped from now on.
            if (r.status == 0 || r.status >= 500 ||
                (r.status == 409 && r.errorCode() == QLatin1String("pool_mismatch"))) {
                dead.insert(host);
                result.skipped[host] = r.status == 0
                                           ? QStringLiteral("unreachable: ") + r.networkError
                                           : QStringLiteral("%1 %2: %3")
                                                 .arg(r.status)
                                                 .arg(r.errorCode(), r.errorMessage());
                lastState[host] = result.skipped[host];
                latest[c.tag].reachable = false; // pruned from the cache
                latest[c.tag].error = result.skipped[host];
                known.insert(c.tag, latest[c.tag]); // never asked again in this call
                continue;
            }
            if (!r.ok()) { // the request itself is refused: every host would refuse it
                fatal = QStringLiteral("%1 answered %2 %3: %4")
                            .arg(host)
                            .arg(r.status)
                            .arg(r.errorCode(), r.errorMessage());
                continue;
            }
            int madeHere = 0;
            for (const QJsonValue& v : r.json().value(QLatin1String("workspaces")).toArray()) {
                PooledWorkspace w;
                w.host = host;
                w.localId = v[QLatin1String("id")].toString();
                w.id = pooledId(host, w.localId);
                w.record = v.toObject();
                w.record.insert(QStringLiteral("id"), w.id);
                made << w;
                ++result.placed[host];
                ++madeHere;
            }
            const int rejected = r.json().value(QLatin1String("rejected")).toInt();
            if (rejected > 0)
                lastState[host] = QStringLiteral("full (rejected %1)").arg(rejected);
            PoolHostStatus& seen = latest[c.tag];
            seen.workspaces += madeHere;
            if (seen.free >= 0)
                seen.free = rejected > 0 ? 0 : std::max<qint64>(0, seen.free - madeHere);
            latestAt[c.tag] = answeredAt;
        }
        if (!fatal.isEmpty())
            break;
        if (request.cancelled && request.cancelled()) {
            result.code = QStringLiteral("cancelled");
            break;
        }
    }
    if (int(made.size()) == request.count && fatal.isEmpty() && result.code.isEmpty()) {
        result.ok = true;
        result.workspaces = made;
        if (cache)
            remember(latest, latestAt);
        return result;
    }
    // All-or-nothing: what this call made goes again.
    result.leftBehind = rollBack(m_hosts, made);
    if (cache) { // the slots of what was deleted again are free again
        const QSet<QString> left(result.leftBehind.cbegin(), result.leftBehind.cend());
        for (const PooledWorkspace& w : made)
            for (qsizetype i = 0; i < m_hosts.size(); ++i)
                if (m_hosts[i].name == w.host && !left.contains(w.id) && latest[i].free >= 0)
                    latest[i].free = std::min(latest[i].free + 1, latest[i].capacity);
        remember(latest, latestAt);
    }
    QStringList states;
    for (auto it = lastState.cbegin(); it != lastState.cend(); ++it)
        states << it.key() + QStringLiteral(": ") + it.value();
    if (result.code == QLatin1String("cancelled")) {
        result.message = QStringLiteral("pool %1: cancelled after %2 round(s); nothing kept")
                             .arg(request.pool)
                             .arg(result.rounds);
    } else if (!fatal.isEmpty()) {
        result.code = QStringLiteral("create_refused");
        result.message = QStringLiteral("pool %1: %2; nothing kept").arg(request.pool, fatal);
    } else if (!anyHost) {
        result.code = QStringLiteral("no_pool_hosts");
        result.message = QStringLiteral("pool %1: no reachable agent of the fleet is a host of "
                                        "it (%2)")
                             .arg(request.pool, states.join(QStringLiteral("; ")));
    } else {
        result.code = QStringLiteral("pool_full");
        result.message = QStringLiteral("pool %1: room for %2 of %3 workspaces after %4 "
                                        "round(s); nothing kept (%5)")
                             .arg(request.pool)
                             .arg(made.size())
                             .arg(request.count)
                             .arg(result.rounds)
                             .arg(states.join(QStringLiteral("; ")));
    }
    return result;
}

QMap<QString, int> PoolClient::removeAll(const QString& pool, QStringList* errors) const {
    QMap<QString, int> deleted;
    QList<PoolHostStatus> states = readStates({}, 10000);
    const QDateTime surveyedAt = QDateTime::currentDateTimeUtc();
    for (qsizetype i = 0; i < m_hosts.size(); ++i) {
        const PoolHostStatus& s = states[i];
        if (!s.reachable) {
            *errors << QStringLiteral("%1: unreachable: %2").arg(s.name, s.error);
            continue;
        }
        if (s.pool != pool)
            continue;
        ApiClient* client = m_hosts[i].client;
        deleted[s.name] = 0;
        const ApiResponse list = client->call("GET", "/v1/workspaces");
        if (!list.ok()) {
            *errors << QStringLiteral("%1: %2 %3")
                           .arg(s.name)
                           .arg(list.status)
                           .arg(list.errorMessage());
            continue;
        }
        QList<ParallelCall> calls;
        bool anyLight = false;
        for (const QJsonValue& v : list.json().value(QLatin1String("workspaces")).toArray()) {
            const QJsonObject w = v.toObject();
            if (w.contains(QLatin1String("environmentBuild")))
                continue; // the agent's own, deleted with its environment
            if (w.value(QLatin1String("isolation")).toString() == QLatin1String("light")) {
                anyLight = true;
                continue;
            }
            calls.append({client,
                          "DELETE",
                          "/v1/workspaces/" +
                              QUrl::toPercentEncoding(w.value(QLatin1String("id")).toString()),
                          {},
                          {},
                          0});
        }
        if (anyLight)
            calls.append({client, "DELETE", "/v1/workspaces?isolation=light", {}, {}, 1});
        runParallel(&calls, kDeleteTimeoutMs);
        for (const ParallelCall& c : calls) {
            if (!c.response.ok()) {
                *errors << QStringLiteral("%1: %2 %3: %4")
                               .arg(s.name)
                               .arg(c.response.status)
                               .arg(c.response.errorCode(), c.response.errorMessage());
                continue;
            }
            deleted[s.name] +=
                c.tag == 1 ? int(c.response.json().value(QLatin1String("deleted")).toArray().size())
                           : 1;
        }
    }
    if (m_cache && m_cache->pool() == pool) { // what was deleted is free again
        for (PoolHostStatus& s : states)
            if (s.free >= 0)
                s.free = std::min(s.capacity, s.free + deleted.value(s.name));
        remember(states, QList<QDateTime>(states.size(), surveyedAt));
    }
    return deleted;
}

} // namespace runbox
