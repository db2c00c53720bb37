// The pool's best-effort cache against real pool hosts (docs/contracts.md "Pool cache"): two
// agents on loopback, each a host of one pool with its own state dir and uid ranges, and the
// CLI's `runbox pool add` over a fleet file with XDG_CACHE_HOME in a temporary directory.
// A fresh cache that matches the fleet skips the health survey (counted on each agent's
// /metrics); a corrupted, truncated or hand-edited cache is a miss, never an error; an entry
// naming another URL is never contacted; a host that is gone costs one failed request and is
// pruned; a cached free count that is wrong costs one request and never overshoots a host.
#include "shared/ApiClient.h"
#include "shared/PoolCache.h"
#include "shared/PoolClient.h"
#include "support/AgentProcess.h"
#include "support/CliRun.h"
#include "support/MetricsScrape.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

#include <memory>

using namespace runbox;
using namespace runbox::testsupport;

namespace {

constexpr int kHosts = 2;
constexpr int kCapacity = 10;
const char* const kPool = "pcache";

} // namespace

class PoolCacheTest : public QObject {
    Q_OBJECT
private:
    std::unique_ptr<AgentProcess> m_agents[kHosts];
    QTemporaryDir m_dir; ///< the fleet file and XDG_CACHE_HOME
    QString m_fleetPath;
    bool m_light = false;

    QString hostName(int i) const { return QStringLiteral("h%1").arg(i + 1); }
    QString cachePath() const { return PoolCache::defaultPath(kPool); }
    QString tier() const {
        return m_light ? QStringLiteral("--light") : QStringLiteral("--strong");
    }

    CliResult cli(const QStringList& args) {
        return runCli(QStringList{"--fleet", m_fleetPath} + args, 120000);
    }

    /// `GET /v1/health` requests agent @p i has answered (its /metrics).
    double healthCount(int i) {
        const RawHttpResponse r =
            scrapeMetrics(m_agents[i]->port(), readMetricsToken(m_agents[i]->stateDir()));
        double n = 0;
        const QMap<QString, double> samples = parseExposition(r.body);
        for (auto it = samples.cbegin(); it != samples.cend(); ++it)
            if (it.key().startsWith("runbox_http_requests_total{route=\"/v1/health\","))
                n += it.value();
        return n;
    }

    /// A fresh cache entry for agent @p i as the CLI would write it, at @p url.
    QJsonObject entryFor(int i, const QString& url, int free) const {
        return {{"name", hostName(i)},
                {"url", url},
                {"fingerprint", ""},
                {"tokenFingerprint", PoolCache::tokenFingerprint(m_agents[i]->token())},
                {"free", free},
                {"capacity", kCapacity},
                {"seenAt", QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs)}};
    }

    void writeCache(const QByteArray& bytes) {
        QDir().mkpath(QFileInfo(cachePath()).absolutePath());
        QFile f(cachePath());
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(bytes);
        f.close();
        QVERIFY(f.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner));
    }

    void writeCache(const QJsonArray& hosts) {
        writeCache(
            QJsonDocument(QJsonObject{{"version", 1}, {"pool", kPool}, {"hosts", hosts}}).toJson());
    }

    QByteArray readCache() {
        QFile f(cachePath());
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }

    void removeAll() {
        const CliResult r = cli({"pool", "rm", kPool});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        for (int i = 0; i < kHosts; ++i)
            QCOMPARE(m_agents[i]->workspaceCount(), 0);
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        qputenv("XDG_CACHE_HOME", m_dir.filePath("cache").toUtf8()); // the CLI's too
        m_light = AgentProcess::runningAsRoot();
        QJsonArray fleet;
        for (int i = 0; i < kHosts; ++i) {
            m_agents[i] = std::make_unique<AgentProcess>();
            AgentOptions options;
            options.extraArgs = {"--pool", kPool, "--pool-capacity", QString::number(kCapacity)};
            // This test's own uid ranges: 1897000000.. (strong), 1897500000.. (light).
            options.extraEnv = {
                {"RUNBOX_STRONG_UID_FIRST", QString::number(1897000000LL + i * 100000)},
                {"RUNBOX_STRONG_UID_COUNT", "64"},
                {"RUNBOX_LIGHT_UID_FIRST", QString::number(1897500000LL + i * 100000)},
                {"RUNBOX_LIGHT_UID_COUNT", "64"},
                {"RUNBOX_LIGHT_SPARE_HOMES", "4"}};
            options.runAsRoot = m_light;
            QVERIFY2(m_agents[i]->start(options), qPrintable(m_agents[i]->errorString()));
            const QJsonObject health = m_agents[i]->client()->call("GET", "/v1/health").json();
            if (m_light && !health.value("light").toObject().value("available").toBool())
                m_light = false;
            fleet.append(QJsonObject{{"name", hostName(i)},
                                     {"url", m_agents[i]->baseUrl().toString()},
                                     {"tokenFile", m_agents[i]->stateDir() + "/agent.token"}});
        }
        m_fleetPath = m_dir.filePath("fleet.json");
        QFile f(m_fleetPath);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QJsonDocument(QJsonObject{{"agents", fleet}}).toJson());
        f.close();
        QVERIFY(f.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner));
        qInfo("tier: %s", m_light ? "light" : "strong");
    }

    void init() { QFile::remove(cachePath()); }

    void testAFreshCacheSkipsTheSurvey() {
        // Cold: no cache, every host is asked; the cache is written, private, without tokens.
        double before[kHosts];
        for (int i = 0; i < kHosts; ++i)
            before[i] = healthCount(i);
        QElapsedTimer timer;
        timer.start();
        CliResult r = cli({"pool", "add", kPool, "3", "--json", tier()});
        const qint64 coldMs = timer.elapsed();
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(!r.json().object().contains("fromCache"));
        for (int i = 0; i < kHosts; ++i)
            QVERIFY2(healthCount(i) > before[i], qPrintable(hostName(i)));
        struct stat st {};
        QCOMPARE(::stat(QFile::encodeName(cachePath()).constData(), &st), 0);
        QCOMPARE(st.st_mode & 07777, mode_t(0600));
        const QString dir = QFileInfo(cachePath()).absolutePath();
        QCOMPARE(::stat(QFile::encodeName(dir).constData(), &st), 0);
        QCOMPARE(st.st_mode & 07777, mode_t(0700));
        const QByteArray file = readCache();
        for (int i = 0; i < kHosts; ++i)
            QVERIFY2(!file.contains(m_agents[i]->token()), file.constData());
        PoolCache cache(kPool, cachePath());
        QCOMPARE(cache.load(), kHosts);
        const PoolCacheEntry* h1 =
            cache.usable("h1", m_agents[0]->baseUrl().toString(), {}, m_agents[0]->token());
        QVERIFY(h1);
        QCOMPARE(h1->free, kCapacity - 3); // after placement

        // Warm: the hosts are not asked for their health, and placement is right all the same.
        for (int i = 0; i < kHosts; ++i)
            before[i] = healthCount(i);
        timer.restart();
        r = cli({"pool", "add", kPool, "9", "--json", tier()});
        qInfo("pool add: cold (survey) %lld ms, warm (cache) %lld ms", coldMs, timer.elapsed());
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(r.json().object().value("fromCache").toArray().size(), kHosts);
        for (int i = 0; i < kHosts; ++i)
            QCOMPARE(healthCount(i), before[i]);
        QCOMPARE(m_agents[0]->workspaceCount(), kCapacity); // 3 + 7
        QCOMPARE(m_agents[1]->workspaceCount(), 2);
        removeAll();
        PoolCache afterRm(kPool, cachePath());
        afterRm.load();
        QCOMPARE(
            afterRm.usable("h1", m_agents[0]->baseUrl().toString(), {}, m_agents[0]->token())->free,
            kCapacity); // pool rm gave the slots back
    }

    void testPoolLsRefreshesTheCache() {
        const CliResult r = cli({"pool", "ls", kPool, "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        PoolCache cache(kPool, cachePath());
        QCOMPARE(cache.load(), kHosts);
        for (int i = 0; i < kHosts; ++i)
            QCOMPARE(cache
                         .usable(hostName(i), m_agents[i]->baseUrl().toString(), {},
                                 m_agents[i]->token())
                         ->free,
                     kCapacity);
    }

    void testBrokenCacheIsAMiss_data() {
        QTest::addColumn<QByteArray>("bytes");
        const QByteArray good =
            QJsonDocument(QJsonObject{{"version", 1}, {"pool", kPool}, {"hosts", QJsonArray{}}})
                .toJson();
        QTest::newRow("garbage") << QByteArray("\x01\x02{{{ not json at all", 22);
        QTest::newRow("truncated") << good.left(good.size() - 5);
        QTest::newRow("other pool") << QByteArray("{'version':1,'pool':'other','hosts':[]}");
        QTest::newRow("wrong types") << QByteArray("{'version':'1','pool':7,'hosts':'h1'}");
        QTest::newRow("hand-edited entries")
            << QByteArray("{'version':1,'pool':'pcache','hosts':["
                          "{'name':'h1','url':'http://127.0.0.1:1','fingerprint':'',"
                          "'tokenFingerprint':'0000000000000000','free':-4,'capacity':10,"
                          "'seenAt':'2099-01-01T00:00:00Z'},"
                          "{'name':'h2','url':7,'free':1e300,'capacity':1e300,'extra':true},"
                          "'h1', null, [], {}]}");
    }

    void testBrokenCacheIsAMiss() {
        QFETCH(QByteArray, bytes);
        writeCache(bytes.replace('\'', '"')); // the rows are written with ' for readability
        const double before = healthCount(0);
        const CliResult r = cli({"pool", "add", kPool, "1", "--json", tier()});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.err.isEmpty(), r.err.constData()); // not even a warning
        QVERIFY(!r.json().object().contains("fromCache"));
        QCOMPARE(r.json().object().value("workspaces").toArray().size(), 1);
        QVERIFY(healthCount(0) > before); // surveyed: a miss
        PoolCache mended(kPool, cachePath());
        QCOMPARE(mended.load(), kHosts); // and written right again
        removeAll();
    }

    void testAnEntryNamingAnotherUrlIsNeverContacted() {
        // A listener that would take any connection (and with it the Authorization header).
        QTcpServer decoy;
        QVERIFY(decoy.listen(QHostAddress::LocalHost, 0));
        const QString decoyUrl = QStringLiteral("http://127.0.0.1:%1").arg(decoy.serverPort());
        writeCache(QJsonArray{entryFor(0, decoyUrl, kCapacity), entryFor(1, decoyUrl, kCapacity)});
        const double before = healthCount(0);
        const CliResult r = cli({"pool", "add", kPool, "2", "--json", tier()});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(!r.json().object().contains("fromCache")); // not used for placement either
        QVERIFY(!decoy.waitForNewConnection(200));
        QVERIFY(!decoy.hasPendingConnections());
        QVERIFY(healthCount(0) > before);           // discovery's host was surveyed
        QCOMPARE(m_agents[0]->workspaceCount(), 2); // and placed on
        PoolCache cache(kPool, cachePath());        // the entry now names discovery's URL
        cache.load();
        QVERIFY(cache.usable("h1", m_agents[0]->baseUrl().toString(), {}, m_agents[0]->token()));
        QVERIFY(!readCache().contains(decoyUrl.toUtf8()));
        removeAll();
    }

    void testAGoneHostCostsOneRequestAndIsPruned() {
        // "h0" is still in discovery but hangs: it takes each request and never answers.
        QTcpServer gone;
        QVERIFY(gone.listen(QHostAddress::LocalHost, 0));
        QList<QByteArray> heads;
        connect(&gone, &QTcpServer::newConnection, this, [&] {
            while (QTcpSocket* s = gone.nextPendingConnection())
                connect(s, &QTcpSocket::readyRead, s, [s, &heads] {
                    const QByteArray data = s->readAll();
                    if (data.contains(" HTTP/1.1\r\n"))
                        heads << data.left(data.indexOf("\r\n"));
                });
        });
        const QString goneUrl = QStringLiteral("http://127.0.0.1:%1").arg(gone.serverPort());
        const QByteArray goneToken(64, 'a');
        ApiClient goneClient{QUrl(goneUrl), goneToken};
        std::unique_ptr<ApiClient> clients[kHosts];
        QList<PoolHostHandle> hosts{{"h0", &goneClient}};
        for (int i = 0; i < kHosts; ++i) {
            clients[i] = std::make_unique<ApiClient>(m_agents[i]->baseUrl(), m_agents[i]->token());
            hosts << PoolHostHandle{hostName(i), clients[i].get()};
        }
        QJsonObject h0 = entryFor(0, goneUrl, kCapacity);
        h0.insert("name", "h0");
        h0.insert("tokenFingerprint", PoolCache::tokenFingerprint(goneToken));
        QJsonObject h9 = entryFor(1, m_agents[1]->baseUrl().toString(), kCapacity);
        h9.insert("name", "h9"); // no longer discovered
        writeCache(QJsonArray{h0, entryFor(0, m_agents[0]->baseUrl().toString(), kCapacity),
                              entryFor(1, m_agents[1]->baseUrl().toString(), kCapacity), h9});
        PoolCache cache(kPool, cachePath());
        QCOMPARE(cache.load(), 4);
        PoolClient client(hosts);
        client.setCache(&cache);
        PoolCreateRequest request;
        request.pool = kPool;
        request.count = 1;
        request.isolation = m_light ? "light" : "strong";
        request.requestTimeoutMs = 3000; // h0's create is given up after that
        const PoolCreateResult result = client.create(request);
        QVERIFY2(result.ok, qPrintable(result.message));
        qInfo("h0 was sent: %s", heads.join(" | ").constData());
        QCOMPARE(heads.size(), 1); // its one create; never surveyed after it
        QVERIFY(heads[0].startsWith("POST /v1/workspaces "));
        QVERIFY(result.skipped.contains("h0"));
        QCOMPARE(result.rounds, 2);
        QCOMPARE(m_agents[0]->workspaceCount(), 1);
        PoolCache after(kPool, cachePath());
        QCOMPARE(after.load(), kHosts); // h0 and h9 pruned
        const QByteArray file = readCache();
        QVERIFY(!file.contains("\"h0\"") && !file.contains("\"h9\""));
        removeAll();
    }

    /// A forged entry for an agent of the fleet that is no host of the pool (its own token's
    /// fingerprint, as any other pool's cache shows it) gets nothing placed there: the create
    /// names the pool and that agent refuses it (409 pool_mismatch); the rest goes to the pool.
    void testAForgedEntryForAnAgentOutsideThePoolPlacesNothingThere() {
        AgentProcess outsider;
        AgentOptions options; // no --pool
        options.extraEnv = {{"RUNBOX_STRONG_UID_FIRST", "1897900000"},
                            {"RUNBOX_STRONG_UID_COUNT", "64"},
                            {"RUNBOX_LIGHT_UID_FIRST", "1897950000"},
                            {"RUNBOX_LIGHT_UID_COUNT", "64"}};
        options.runAsRoot = m_light;
        QVERIFY2(outsider.start(options), qPrintable(outsider.errorString()));
        QFile fleet(m_fleetPath);
        QVERIFY(fleet.open(QIODevice::ReadOnly));
        QJsonObject root = QJsonDocument::fromJson(fleet.readAll()).object();
        fleet.close();
        QJsonArray agents = root.value("agents").toArray();
        agents.append(QJsonObject{{"name", "outsider"},
                                  {"url", outsider.baseUrl().toString()},
                                  {"tokenFile", outsider.stateDir() + "/agent.token"}});
        root.insert("agents", agents);
        const QString withOutsider = m_dir.filePath("fleet-outsider.json");
        QFile out(withOutsider);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QJsonDocument(root).toJson());
        out.close();
        QVERIFY(out.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner));
        QJsonArray hosts;
        for (int i = 0; i < kHosts; ++i)
            hosts.append(entryFor(i, m_agents[i]->baseUrl().toString(), 0)); // the pool: full
        hosts.append(
            QJsonObject{{"name", "outsider"},
                        {"url", outsider.baseUrl().toString()},
                        {"fingerprint", ""},
                        {"tokenFingerprint", PoolCache::tokenFingerprint(outsider.token())},
                        {"free", 50},
                        {"capacity", 50},
                        {"seenAt", QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs)}});
        writeCache(hosts);
        const CliResult r =
            runCli({"--fleet", withOutsider, "pool", "add", kPool, "3", "--json", tier()}, 120000);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(outsider.workspaceCount(), 0);
        const QJsonObject added = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(added.value("workspaces").toArray().size(), 3);
        QVERIFY2(added.value("skipped")
                     .toObject()
                     .value("outsider")
                     .toString()
                     .contains("pool_mismatch"),
                 r.out.constData());
        QVERIFY(!readCache().contains("outsider")); // pruned
        removeAll();
    }

    void testAWrongFreeCountNeverOvershoots() {
        // h1 is full, the cache says it is empty: one create answered "rejected", then the
        // hosts' own health places the rest on h2.
        CliResult r = cli({"pool", "add", kPool, QString::number(kCapacity), tier()});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(m_agents[0]->workspaceCount(), kCapacity);
        writeCache(QJsonArray{entryFor(0, m_agents[0]->baseUrl().toString(), kCapacity),
                              entryFor(1, m_agents[1]->baseUrl().toString(), 0)});
        r = cli({"pool", "add", kPool, "2", "--json", tier()});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(r.json().object().value("rounds").toInt(), 2);
        QCOMPARE(m_agents[0]->workspaceCount(), kCapacity);
        QCOMPARE(m_agents[1]->workspaceCount(), 2);
        removeAll();
    }

    void cleanupTestCase() {
        for (auto& agent : m_agents)
            agent.reset(); // stops it; its state dir goes
    }
};

QTEST_GUILESS_MAIN(PoolCacheTest)
#include "test_pool_cache.moc"
