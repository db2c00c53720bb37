// A tenant's deep directory chains against the agent's tree walks (docs/contracts.md "Workspace
// file API": "Deep trees"; "Workspaces and executions": the usage route). From inside real
// sandboxes of a root agent (its workspaces sit on a bind mount of their own, where every ".."
// lookup costs the depth), each chain made by one sync exec:
// - the usage route walks a 50,000-level chain in time linear in its levels (the time per level
//   at 50,000 stays within 5× that at 5,000; the walk that reopened ancestors through ".." took
//   12 s at 30,000 levels against 0.1 s at 5,000), and the workspace delete leaves nothing;
// - usage walks of four workspaces at once (four tokens) do not hold a mkdir in a fifth: it
//   answers before any of the walks (they ran on the four file-pool threads and the mkdir waited
//   for one of them);
// - the quota walks of mkdirs in four workspaces (a walk each before the write) do not hold a
//   file delete in a fifth: it answers before any of the mkdirs (the walks ran on the four
//   file-pool threads; they now run on a pool of their own).
// The agent stays healthy throughout.
#include "shared/ApiClient.h"
#include "support/AgentProcess.h"
#include "support/DeepChain.h"

#include <QDir>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QTest>

#include <unistd.h>

#include <algorithm>
#include <memory>
#include <vector>

using namespace runbox;
using namespace runbox::testsupport;

class TestWorkspaceWalkBounds final : public QObject {
    Q_OBJECT
    AgentProcess m_agent;
    QStringList m_chains; ///< workspaces with chains not yet deleted (cleanup() deletes them)

    /// A new workspace holding a chain of @p levels directories; its token in @p token.
    QString workspaceWithChain(int levels, QByteArray* token = nullptr) {
        const QString id = workspaceWithDeepChain(m_agent, levels, token);
        if (!id.isEmpty())
            m_chains << id;
        return id;
    }

    /// The usage of @p id; its best time of @p rounds in @p bestMs.
    QJsonObject usage(const QString& id, int rounds = 1, qint64* bestMs = nullptr) {
        QJsonObject answer;
        qint64 best = -1;
        for (int i = 0; i < rounds; ++i) {
            QElapsedTimer timer;
            timer.start();
            const ApiResponse r = m_agent.client()->call(
                "GET", "/v1/workspaces/" + id.toUtf8() + "/usage", {}, 280000);
            const qint64 ms = timer.elapsed();
            if (r.status != 200) {
                qWarning() << "usage" << r.status << r.body;
                return {};
            }
            best = best < 0 ? ms : std::min(best, ms);
            answer = r.json();
        }
        if (bestMs)
            *bestMs = best;
        return answer;
    }

    /// Deletes workspace @p id; true when its directory is gone from disk.
    bool removedWhole(const QString& id) {
        m_chains.removeAll(id);
        const QString dir = m_agent.workspaceDir(id);
        // A client of its own: a reply that takes long skews the clock offset a client reads
        // from the Date header of its replies (ApiClient::noteServerDate).
        ApiClient client(m_agent.baseUrl(), m_agent.client()->token());
        const ApiResponse removed =
            client.call("DELETE", "/v1/workspaces/" + id.toUtf8(), {}, 280000);
        if (removed.status != 200 && removed.status != 204) {
            qWarning() << "delete" << removed.status << removed.body;
            return false;
        }
        return !QFileInfo::exists(dir);
    }

private Q_SLOTS:
    /// A failed test leaves no chain behind: the state directory's removal could not.
    void cleanup() {
        for (const QString& id : QStringList(m_chains))
            removedWhole(id);
    }

    void initTestCase() {
        if (::geteuid() != 0)
            QSKIP("a root agent puts its workspaces on a bind mount, where '..' costs the depth");
        AgentOptions options;
        options.runAsRoot = true;
        // Ranges of its own: other root agents' tests may run at the same time.
        options.extraEnv.insert(QStringLiteral("RUNBOX_STRONG_UID_FIRST"),
                                QStringLiteral("1891000000"));
        options.extraEnv.insert(QStringLiteral("RUNBOX_STRONG_UID_COUNT"), QStringLiteral("4096"));
        options.extraEnv.insert(QStringLiteral("RUNBOX_LIGHT_UID_FIRST"), QStringLiteral("58100"));
        options.extraEnv.insert(QStringLiteral("RUNBOX_LIGHT_UID_COUNT"), QStringLiteral("64"));
        QVERIFY2(m_agent.start(options), qPrintable(m_agent.errorString()));
    }

    void testADeepChainIsWalkedInLinearTimeAndRemovedWhole() {
        // Positive control: a shallow tree is measured whole.
        const QString shallow = workspaceWithChain(5000);
        QVERIFY(!shallow.isEmpty());
        qint64 shallowMs = 0;
        const QJsonObject small = usage(shallow, 3, &shallowMs);
        QCOMPARE(small.value("complete").toBool(), true);
        QVERIFY2(small.value("entries").toInt() >= 5001, QJsonDocument(small).toJson().constData());

        const QString deep = workspaceWithChain(50000);
        QVERIFY(!deep.isEmpty());
        qint64 deepMs = 0;
        const QJsonObject big = usage(deep, 3, &deepMs);
        QCOMPARE(big.value("complete").toBool(), true);
        QVERIFY2(big.value("entries").toInt() >= 50001, QJsonDocument(big).toJson().constData());
        // Per level: a linear walk costs about the same at both depths (the small one carries
        // the request's fixed cost, which only lowers the ratio); a quadratic one 10× more
        // (measured: 0.8 idle, 1.6 beside two builds, 34.9 quadratic).
        const double ratio = (double(std::max<qint64>(deepMs, 1)) / 50000) /
                             (double(std::max<qint64>(shallowMs, 1)) / 5000);
        qInfo("usage: 5,000 levels %lld ms, 50,000 levels %lld ms, per-level ratio %.2f", shallowMs,
              deepMs, ratio);
        QVERIFY2(ratio < 5, qPrintable(QStringLiteral("per-level ratio %1").arg(ratio)));
        QCOMPARE(m_agent.client()->call("GET", "/v1/health").status, 200);

        QElapsedTimer timer;
        timer.start();
        QVERIFY(removedWhole(deep));
        qInfo("delete of 50,000 levels: %lld ms", timer.elapsed());
        QVERIFY(removedWhole(shallow));
        QCOMPARE(m_agent.client()->call("GET", "/v1/health").status, 200);
    }

    void testUsageWalksDoNotHoldFileOperations() {
        // Four workspaces whose walks take a while, each asked with its own token.
        std::vector<std::unique_ptr<ApiClient>> walkers;
        QStringList ids;
        for (int i = 0; i < 4; ++i) {
            QByteArray token;
            const QString id = workspaceWithChain(25000, &token);
            QVERIFY(!id.isEmpty());
            ids << id;
            walkers.push_back(std::make_unique<ApiClient>(m_agent.baseUrl(), token));
        }
        QByteArray otherToken;
        const QString other = m_agent.createWorkspace(&otherToken);
        QVERIFY(!other.isEmpty());
        ApiClient tenant(m_agent.baseUrl(), otherToken);
        const QByteArray mkdirPath = "/v1/workspaces/" + other.toUtf8() + "/files:mkdir";
        // Positive control: the mkdir works, and one walk takes measurable time.
        QCOMPARE(tenant.call("POST", mkdirPath, {{"path", "first"}}).status, 201);
        qint64 walkMs = 0;
        QCOMPARE(usage(ids.first(), 1, &walkMs).value("complete").toBool(), true);
        qInfo("one walk of 25,000 levels: %lld ms", walkMs);
        QVERIFY2(walkMs >= 80, qPrintable(QString::number(walkMs)));

        QStringList order; // who answered, in order
        int pending = 5;
        for (int i = 0; i < 4; ++i)
            walkers[size_t(i)]->request(
                "GET", "/v1/workspaces/" + ids[i].toUtf8() + "/usage", {},
                [&order, &pending, i](const ApiResponse& r) {
                    order << QStringLiteral("usage%1:%2").arg(i).arg(r.status);
                    --pending;
                });
        QTest::qWait(50); // the walks have started
        QElapsedTimer timer;
        timer.start();
        qint64 mkdirMs = -1;
        tenant.request("POST", mkdirPath, QJsonDocument(QJsonObject{{"path", "second"}}).toJson(),
                       [&](const ApiResponse& r) {
                           mkdirMs = timer.elapsed();
                           order << QStringLiteral("mkdir:%1").arg(r.status);
                           --pending;
                       });
        QTRY_VERIFY_WITH_TIMEOUT(pending == 0, 120000);
        qInfo() << "answers in order:" << order << "mkdir after" << mkdirMs << "ms";
        QCOMPARE(order.first(), QStringLiteral("mkdir:201"));
        for (const QString& answer : order)
            QVERIFY2(answer.endsWith(QLatin1String(":200")) || answer == "mkdir:201",
                     qPrintable(answer));
        QCOMPARE(m_agent.client()->call("GET", "/v1/health").status, 200);
        for (const QString& id : ids)
            QVERIFY(removedWhole(id));
    }

    void testQuotaWalksDoNotHoldFileOperations() {
        // Four workspaces whose quota walks take a while (the default 10 GiB quota: every mkdir
        // walks the whole tree first), a mkdir in each at once, each with its own token.
        std::vector<std::unique_ptr<ApiClient>> writers;
        QStringList ids;
        for (int i = 0; i < 4; ++i) {
            QByteArray token;
            const QString id = workspaceWithChain(25000, &token);
            QVERIFY(!id.isEmpty());
            ids << id;
            writers.push_back(std::make_unique<ApiClient>(m_agent.baseUrl(), token));
        }
        QVERIFY(m_agent.client()
                    ->call("GET", "/v1/settings/quotas")
                    .json()
                    .value("quotas")
                    .toObject()
                    .value("maxWorkspaceBytes")
                    .toInteger() > 0);
        QByteArray otherToken;
        const QString other = m_agent.createWorkspace(&otherToken);
        QVERIFY(!other.isEmpty());
        ApiClient tenant(m_agent.baseUrl(), otherToken);
        const QByteArray base = "/v1/workspaces/" + other.toUtf8() + "/files";
        QCOMPARE(tenant.call("POST", base + ":mkdir", {{"path", "gone"}}).status, 201);

        QStringList order;
        int pending = 5;
        for (int i = 0; i < 4; ++i)
            writers[size_t(i)]->request(
                "POST", "/v1/workspaces/" + ids[i].toUtf8() + "/files:mkdir",
                QJsonDocument(QJsonObject{{"path", "next"}}).toJson(),
                [&order, &pending, i](const ApiResponse& r) {
                    order << QStringLiteral("mkdir%1:%2").arg(i).arg(r.status);
                    --pending;
                });
        QTest::qWait(50); // the walks have started
        QElapsedTimer timer;
        timer.start();
        qint64 deleteMs = -1;
        // A delete takes the file pool, not a walk: it must not wait for the mkdirs' walks.
        tenant.request("DELETE", base + "/gone", {}, [&](const ApiResponse& r) {
            deleteMs = timer.elapsed();
            order << QStringLiteral("delete:%1").arg(r.status);
            --pending;
        });
        QTRY_VERIFY_WITH_TIMEOUT(pending == 0, 120000);
        qInfo() << "answers in order:" << order << "delete after" << deleteMs << "ms, mkdirs after"
                << timer.elapsed() << "ms";
        QVERIFY2(order.first().startsWith(QLatin1String("delete:2")), qPrintable(order.join(' ')));
        for (const QString& answer : order)
            QVERIFY2(answer.endsWith(QLatin1String(":201")) || answer.startsWith("delete:2"),
                     qPrintable(answer));
        QCOMPARE(m_agent.client()->call("GET", "/v1/health").status, 200);
        for (const QString& id : ids)
            QVERIFY(removedWhole(id));
    }
};

QTEST_GUILESS_MAIN(TestWorkspaceWalkBounds)
#include "test_workspace_walk_bounds.moc"
