// Pools across agents (docs/contracts.md "Fleet file", "Pool hosts"): three agents on loopback,
// each a host of one pool with its own state dir and uid ranges, and the CLI's `runbox pool`
// over a fleet file. Placement fills the hosts in the fleet's order with each host's own
// "rejected" as the authority; a request with no room fails all-or-nothing; a host killed
// while a create is under way is skipped; two concurrent creators never overshoot a host.
// Light workspaces where the test runs as root and the tier is available, strong otherwise.
#include "shared/ApiClient.h"
#include "shared/PoolClient.h"
#include "support/AgentProcess.h"
#include "support/CliRun.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace runbox;
using namespace runbox::testsupport;

namespace {

constexpr int kHosts = 3;
constexpr int kCapacity = 100; // per host, as the pooled design's figure
const char* const kPool = "p1";

} // namespace

class PoolFleetTest : public QObject {
    Q_OBJECT
private:
    std::unique_ptr<AgentProcess> m_agents[kHosts];
    QTemporaryDir m_fleetDir;
    QString m_fleetPath;
    bool m_light = false;

    QString hostName(int i) const { return QStringLiteral("h%1").arg(i + 1); }

    QStringList tierArgs() const {
        return {m_light ? QStringLiteral("--light") : QStringLiteral("--strong")};
    }

    CliResult cli(const QStringList& args, int timeoutMs = 300000) {
        return runCli(QStringList{"--fleet", m_fleetPath} + args, timeoutMs);
    }

    /// Workspaces agent @p i holds (-1 when it does not answer).
    int held(int i) { return m_agents[i]->workspaceCount(); }

    void removeAll() {
        const CliResult r = cli({"pool", "rm", kPool});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        for (int i = 0; i < kHosts; ++i)
            QCOMPARE(held(i), 0);
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_fleetDir.isValid());
        // The pool's cache (docs/contracts.md "Pool cache") goes here, not in the user's home.
        qputenv("XDG_CACHE_HOME", m_fleetDir.filePath("cache").toUtf8());
        m_light = AgentProcess::runningAsRoot();
        QJsonArray fleet;
        for (int i = 0; i < kHosts; ++i) {
            m_agents[i] = std::make_unique<AgentProcess>();
            AgentOptions options;
            options.extraArgs = {"--pool", kPool, "--pool-capacity", QString::number(kCapacity)};
            if (m_light) {
                // This test's own uid ranges: 1883200000.. (light), 1883500000.. (strong).
                options.runAsRoot = true;
                options.extraEnv = {
                    {"RUNBOX_LIGHT_UID_FIRST", QString::number(1883200000LL + i * 100000)},
                    {"RUNBOX_LIGHT_UID_COUNT", "256"},
                    {"RUNBOX_STRONG_UID_FIRST", QString::number(1883500000LL + i * 100000)},
                    {"RUNBOX_STRONG_UID_COUNT", "64"},
                    {"RUNBOX_LIGHT_SPARE_HOMES", "16"}};
            }
            QVERIFY2(m_agents[i]->start(options), qPrintable(m_agents[i]->errorString()));
            const QJsonObject health = m_agents[i]->client()->call("GET", "/v1/health").json();
            if (m_light && !health.value("light").toObject().value("available").toBool())
                m_light = false; // strong workspaces then, the same shape
            fleet.append(QJsonObject{{"name", hostName(i)},
                                     {"url", m_agents[i]->baseUrl().toString()},
                                     {"tokenFile", m_agents[i]->stateDir() + "/agent.token"}});
        }
        m_fleetPath = m_fleetDir.filePath("fleet.json");
        QFile f(m_fleetPath);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QJsonDocument(QJsonObject{{"agents", fleet}}).toJson());
        f.close();
        qInfo("tier: %s", m_light ? "light" : "strong");
    }

    void testPoolLsShowsEveryHost() {
        const CliResult r = cli({"pool", "ls", kPool, "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonArray hosts = QJsonDocument::fromJson(r.out).object().value("hosts").toArray();
        QCOMPARE(hosts.size(), kHosts);
        for (const QJsonValue& h : hosts) {
            QCOMPARE(h["pool"].toString(), QString(kPool));
            QCOMPARE(h["capacity"].toInt(), kCapacity);
            QCOMPARE(h["free"].toInt(), kCapacity);
        }
    }

    void testPlacesInOrderThenRefusesAllOrNothing() {
        const int count = 2 * kCapacity + kCapacity / 2; // 250: 100/100/50
        QElapsedTimer timer;
        timer.start();
        CliResult r =
            cli(QStringList{"pool", "add", kPool, QString::number(count), "--json"} + tierArgs());
        qInfo("pool add %d (%s) across %d hosts: %lld ms", count, m_light ? "light" : "strong",
              kHosts, timer.elapsed());
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject answer = QJsonDocument::fromJson(r.out).object();
        const QJsonArray made = answer.value("workspaces").toArray();
        QCOMPARE(made.size(), count);
        QSet<QString> ids;
        for (const QJsonValue& w : made) {
            const QString id = w["id"].toString();
            QVERIFY2(id.startsWith(w["host"].toString() + '.'), qPrintable(id));
            QVERIFY(!w["token"].toString().isEmpty());
            ids.insert(id);
        }
        QCOMPARE(ids.size(), count);
        QCOMPARE(held(0), kCapacity); // counted on each host, not from the answer
        QCOMPARE(held(1), kCapacity);
        QCOMPARE(held(2), kCapacity / 2);
        QCOMPARE(answer.value("placed").toObject().value("h3").toInt(), kCapacity / 2);

        // No room for 100 more: nothing is kept, the hosts hold what they held.
        r = cli(QStringList{"pool", "add", kPool, QString::number(kCapacity)} + tierArgs());
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("pool_full"), r.err.constData());
        QVERIFY(r.out.isEmpty());
        QCOMPARE(held(0), kCapacity);
        QCOMPARE(held(1), kCapacity);
        QCOMPARE(held(2), kCapacity / 2);
        removeAll();
    }

    void testPooledIdsWorkThroughTheFleet() {
        CliResult r = cli(QStringList{"pool", "add", kPool, "2"} + tierArgs());
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QList<QByteArray> lines = r.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 2);
        const QString pooled = QString::fromUtf8(lines[0].split(' ').value(0));
        QVERIFY(pooled.startsWith("h1."));
        r = cli({"exec", "--workspace", pooled, "--", "sh", "-c", "echo pooled-$((6*7))"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.out.contains("pooled-42"), r.out.constData());
        r = cli({"files", "mkdir", pooled + ":made-here"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        r = cli({"files", "stat", "--json", pooled + ":made-here"});
        QVERIFY2(r.exitCode == 0 && r.out.contains("directory"), r.out.constData());
        r = cli({"workspace", "rm", pooled});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(held(0), 1);
        // A host that is not in the fleet is no pooled id: the connection options apply.
        r = cli({"exec", "--workspace", "nohost.abc", "--url", "http://127.0.0.1:1", "--token",
                 "00", "--", "true"});
        QCOMPARE(r.exitCode, 3);
        removeAll();
    }

    void testConcurrentCreatorsNeverOvershoot() {
        const int each = kCapacity * kHosts / 2; // 150 + 150 = every slot
        QProcess a, b;
        const QStringList args =
            QStringList{"--fleet", m_fleetPath, "pool", "add", kPool, QString::number(each)} +
            tierArgs();
        a.start(AgentProcess::cliPath(), args);
        b.start(AgentProcess::cliPath(), args);
        QVERIFY(a.waitForFinished(300000));
        QVERIFY(b.waitForFinished(300000));
        const int okCount = (a.exitCode() == 0) + (b.exitCode() == 0);
        int total = 0;
        for (int i = 0; i < kHosts; ++i) {
            const int n = held(i);
            QVERIFY2(n <= kCapacity, qPrintable(QStringLiteral("h%1 holds %2").arg(i + 1).arg(n)));
            total += n;
        }
        QCOMPARE(total, okCount * each); // a failed creator kept nothing
        QVERIFY2(okCount >= 1, a.readAllStandardError() + b.readAllStandardError());
        qInfo("concurrent creators: %d of 2 placed %d each", okCount, each);
        removeAll();
    }

    void testCancelledCreateKeepsNothing() {
        std::unique_ptr<ApiClient> clients[kHosts];
        QList<PoolHostHandle> hosts;
        for (int i = 0; i < kHosts; ++i) {
            clients[i] = std::make_unique<ApiClient>(m_agents[i]->baseUrl(), m_agents[i]->token());
            hosts << PoolHostHandle{hostName(i), clients[i].get()};
        }
        PoolCreateRequest request;
        request.pool = kPool;
        request.count = kCapacity + kCapacity / 2;
        request.isolation = m_light ? "light" : "strong";
        int madeBeforeCancel = 0;
        request.onRoundPlanned = [&madeBeforeCancel](int, const QMap<QString, int>& plan) {
            for (int n : plan)
                madeBeforeCancel += n;
        };
        request.cancelled = [] { return true; }; // as Ctrl-C during round 1
        const PoolCreateResult result = PoolClient(hosts).create(request);
        QVERIFY(!result.ok);
        QCOMPARE(result.code, QStringLiteral("cancelled"));
        QCOMPARE(madeBeforeCancel, request.count); // round 1 had made them all: still undone
        QVERIFY(result.leftBehind.isEmpty());
        for (int i = 0; i < kHosts; ++i)
            QCOMPARE(held(i), 0);
    }

    void testHostKilledMidCreationIsSkipped() {
        // In this process, so that the kill lands between the plan and the creates.
        std::unique_ptr<ApiClient> clients[kHosts];
        QList<PoolHostHandle> hosts;
        for (int i = 0; i < kHosts; ++i) {
            clients[i] = std::make_unique<ApiClient>(m_agents[i]->baseUrl(), m_agents[i]->token());
            hosts << PoolHostHandle{hostName(i), clients[i].get()};
        }
        PoolCreateRequest request;
        request.pool = kPool;
        request.count = kCapacity + kCapacity / 2; // fits on h2 + h3 without h1
        request.isolation = m_light ? "light" : "strong";
        // h1 dies once it has been counted in and its share planned, before its create is
        // answered: its share must go to the others.
        request.onRoundPlanned = [this](int round, const QMap<QString, int>& plan) {
            if (round == 1) {
                QVERIFY(plan.value("h1") == kCapacity);
                m_agents[0]->kill();
            }
        };
        const PoolCreateResult result = PoolClient(hosts).create(request);
        QVERIFY2(result.ok, qPrintable(result.message));
        QVERIFY2(result.skipped.contains("h1"),
                 qPrintable(QJsonDocument(result.toJson(kPool)).toJson(QJsonDocument::Compact)));
        qInfo("h1 %s; %d round(s)", qPrintable(result.skipped.value("h1")), result.rounds);
        QCOMPARE(result.workspaces.size(), request.count);
        QCOMPARE(held(1) + held(2), request.count);
        for (const PooledWorkspace& w : result.workspaces)
            QVERIFY2(w.host != "h1", qPrintable(w.id)); // nothing kept on a host that died
    }

    void cleanupTestCase() {
        for (auto& agent : m_agents)
            if (agent)
                agent.reset(); // stops it; its state dir goes
    }
};

QTEST_GUILESS_MAIN(PoolFleetTest)
#include "test_pool_fleet.moc"
