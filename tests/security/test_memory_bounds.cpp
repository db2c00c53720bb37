// No execution takes more memory than its maxMemoryBytes (docs/bounds.md): real allocators inside
// real strong sandboxes, of an unprivileged agent (members by PID namespace) and of a root agent
// (sandboxes as workspace uids), sync and managed, and light workspaces (members by uid). Each
// attack runs under a 512 MiB limit and ends memory_exceeded (or, for tmpfs, ENOSPC inside) with
// a peak below what it tried; the same job under 4 GiB completes (positive control); the
// workspace runs normally afterwards.
#include "support/AgentProcess.h"
#include "support/ExecStream.h"
#include "support/ManagedApi.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace runbox;
using namespace runbox::testsupport;

namespace {
constexpr qint64 kMiB = qint64(1) << 20;
constexpr qint64 kLimit = 512 * kMiB;
constexpr qint64 kControlLimit = 4096 * kMiB;
constexpr qint64 kAttempt = 2048 * kMiB;

/// One process that writes 2 GiB (every page touched), then waits: only the bound ends it.
const char kOneAllocator[] = "python3 -c \"import time; b = b'x' * (2 << 30); time.sleep(60)\"";
/// Eight processes of 200 MiB each: 1.6 GiB in all, none above the limit alone.
const char kForkedAllocators[] =
    "for i in 1 2 3 4 5 6 7 8; do python3 -c \"import time; b = b'x' * (200 << 20); "
    "time.sleep(60)\" & done; wait";
/// Fills the sandbox's tmpfs mounts with 2 GiB each, then waits.
const char kTmpFiller[] = "head -c 2G /dev/zero > /tmp/fill; echo tmp=$? >&2; sleep 60";
const char kShmFiller[] = "head -c 2G /dev/zero > /dev/shm/fill; echo shm=$? >&2; sleep 60";
} // namespace

class TestMemoryBounds final : public QObject {
    Q_OBJECT

private:
    AgentProcess m_unprivileged, m_root;

    AgentProcess& agent(bool root) { return root ? m_root : m_unprivileged; }

    /// Runs @p code synchronously under @p limit; returns the exit event.
    QJsonObject runSync(AgentProcess& a, const QString& ws, const QString& code, qint64 limit) {
        return runToExitEvent(
            a.client(), ws, {{"kind", "shell"}, {"code", code}, {"maxMemoryBytes", double(limit)}},
            120000);
    }

    /// Runs @p code as a managed execution under @p limit; returns its final record.
    QJsonObject runManaged(AgentProcess& a, const QString& ws, const QString& code, qint64 limit) {
        const ApiResponse r =
            submitExecution(*a.client(), ws,
                            {{"kind", "shell"}, {"code", code}, {"maxMemoryBytes", double(limit)}});
        if (r.status != 202) {
            qWarning("submit: %d %s", r.status, r.body.constData());
            return {};
        }
        return waitUntilFinal(*a.client(), r.json().value("executionId").toString(), 120000);
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(m_unprivileged.start(), qPrintable(m_unprivileged.errorString()));
        AgentOptions root;
        root.runAsRoot = true;
        // Ranges of its own, so that other root agents of the host (tests run in parallel) do
        // not overlap (sandbox::UidRangeRegistry refuses that).
        root.extraEnv.insert(QStringLiteral("RUNBOX_STRONG_UID_FIRST"),
                             QStringLiteral("1879800000"));
        root.extraEnv.insert(QStringLiteral("RUNBOX_STRONG_UID_COUNT"), QStringLiteral("4096"));
        root.extraEnv.insert(QStringLiteral("RUNBOX_LIGHT_UID_FIRST"), QStringLiteral("52000"));
        root.extraEnv.insert(QStringLiteral("RUNBOX_LIGHT_UID_COUNT"), QStringLiteral("512"));
        QVERIFY2(m_root.start(root), qPrintable(m_root.errorString()));
        for (AgentProcess* a : {&m_unprivileged, &m_root}) {
            const QJsonObject memory =
                a->client()->call("GET", "/v1/health").json().value("memory").toObject();
            qInfo("memory bounds: %s (%s)", qPrintable(memory.value("mode").toString()),
                  qPrintable(memory.value("reason").toString()));
            QVERIFY(memory.value("mode").toString() != QLatin1String("none"));
        }
    }

    void testBoundedAllocatorsEndMemoryExceeded_data() {
        QTest::addColumn<bool>("root");
        QTest::addColumn<bool>("managed");
        QTest::addColumn<QString>("code");
        for (bool root : {false, true})
            for (bool managed : {false, true}) {
                const QByteArray tag = QByteArray(root ? "root agent" : "unprivileged agent") +
                                       (managed ? ", managed" : ", sync");
                QTest::newRow(tag + ": one process") << root << managed << kOneAllocator;
                QTest::newRow(tag + ": eight processes") << root << managed << kForkedAllocators;
            }
    }

    void testBoundedAllocatorsEndMemoryExceeded() {
        QFETCH(bool, root);
        QFETCH(bool, managed);
        QFETCH(QString, code);
        AgentProcess& a = agent(root);
        const QString ws = a.createWorkspace();
        // Positive control: with room for it, the same job completes (here: ends at its
        // timeout of sleeping, so it is cut short by a quick variant that does not sleep).
        const QString quick = QString(code).replace("time.sleep(60)", "None");
        const QJsonObject control = managed ? runManaged(a, ws, quick, kControlLimit)
                                            : runSync(a, ws, quick, kControlLimit);
        const QString controlState = control.value(managed ? "state" : "status").toString();
        QVERIFY2(controlState == QLatin1String("completed"),
                 qPrintable(QJsonDocument(control).toJson()));

        const QJsonObject r =
            managed ? runManaged(a, ws, code, kLimit) : runSync(a, ws, code, kLimit);
        QCOMPARE(r.value(managed ? "state" : "status").toString(),
                 QStringLiteral("memory_exceeded"));
        QVERIFY(r.value(managed ? "statusReason" : "reason").toString().contains("maxMemoryBytes"));
        const qint64 peak = r.value("usage").toObject().value("peakMemoryBytes").toInteger(-1);
        qInfo("peak %lld MiB under a %lld MiB limit (tried %lld MiB)", peak / kMiB, kLimit / kMiB,
              kAttempt / kMiB);
        QVERIFY2(peak > 0 && peak < kAttempt, "the peak was not recorded, or the bound was late");
        // The workspace is usable afterwards.
        const QJsonObject after = runSync(a, ws, "echo fine", kLimit);
        QCOMPARE(after.value("status").toString(), QStringLiteral("completed"));
    }

    void testTmpfsMountsAreBounded_data() {
        QTest::addColumn<bool>("root");
        QTest::addColumn<QString>("code");
        QTest::addColumn<QString>("marker");
        for (bool root : {false, true}) {
            const QByteArray tag(root ? "root agent" : "unprivileged agent");
            QTest::newRow(tag + ": /tmp") << root << kTmpFiller << "tmp=";
            QTest::newRow(tag + ": /dev/shm") << root << kShmFiller << "shm=";
        }
    }

    void testTmpfsMountsAreBounded() {
        QFETCH(bool, root);
        QFETCH(QString, code);
        QFETCH(QString, marker);
        AgentProcess& a = agent(root);
        const QString ws = a.createWorkspace();
        // Positive control: a small file fits.
        const QJsonObject control =
            runSync(a, ws, QString(code).replace("2G", "8M").replace("sleep 60", "true"), kLimit);
        QCOMPARE(control.value("status").toString(), QStringLiteral("completed"));
        QVERIFY(control.value("stderr").toString().contains(marker + "0"));

        const QJsonObject r = runSync(a, ws, code, kLimit);
        const QString status = r.value("status").toString();
        const QString err = r.value("stderr").toString();
        qInfo("%s: %s; stderr %s", qPrintable(marker), qPrintable(status), qPrintable(err));
        // Either the watcher ended it (its tmpfs counts) or the sized mount refused the write.
        QVERIFY2(status == QLatin1String("memory_exceeded") ||
                     err.contains(QLatin1String("No space left")),
                 qPrintable(QJsonDocument(r).toJson()));
        const qint64 peak = r.value("usage").toObject().value("peakMemoryBytes").toInteger(-1);
        QVERIFY(peak < kAttempt);
        QCOMPARE(runSync(a, ws, "echo fine", kLimit).value("status").toString(),
                 QStringLiteral("completed"));
    }

    /// A light workspace of the root agent: its processes are counted by the workspace's uid.
    /// Its own RLIMIT_AS (2 GiB per process) already stops one process, so the attack here is
    /// the one the rlimit cannot stop: eight processes of 200 MiB each.
    void testLightWorkspaceIsBoundedToo_data() {
        QTest::addColumn<bool>("managed");
        QTest::newRow("sync") << false;
        QTest::newRow("managed") << true;
    }

    void testLightWorkspaceIsBoundedToo() {
        QFETCH(bool, managed);
        const ApiResponse created =
            m_root.client()->call("POST", "/v1/workspaces", {{"isolation", "light"}}, 60000);
        QCOMPARE(created.status, 201);
        const QString ws =
            created.json().value("workspaces").toArray().first().toObject().value("id").toString();
        QVERIFY(!ws.isEmpty());
        const QString quick = QString(kForkedAllocators).replace("time.sleep(60)", "None");
        const QJsonObject control = managed ? runManaged(m_root, ws, quick, kControlLimit)
                                            : runSync(m_root, ws, quick, kControlLimit);
        QCOMPARE(control.value(managed ? "state" : "status").toString(),
                 QStringLiteral("completed"));
        const QJsonObject r = managed ? runManaged(m_root, ws, kForkedAllocators, kLimit)
                                      : runSync(m_root, ws, kForkedAllocators, kLimit);
        QCOMPARE(r.value(managed ? "state" : "status").toString(),
                 QStringLiteral("memory_exceeded"));
        const qint64 peak = r.value("usage").toObject().value("peakMemoryBytes").toInteger(-1);
        qInfo("light: peak %lld MiB under a %lld MiB limit", peak / kMiB, kLimit / kMiB);
        QVERIFY(peak > 0 && peak < kAttempt);
        QCOMPARE(runSync(m_root, ws, "echo fine", kLimit).value("status").toString(),
                 QStringLiteral("completed"));
        QCOMPARE(m_root.client()->call("DELETE", "/v1/workspaces/" + ws.toUtf8()).status, 200);
    }

    void testLoosenedMemoryLimitIsRefused() {
        const QString ws = m_unprivileged.createWorkspace();
        const qint64 setting = m_unprivileged.client()
                                   ->call("GET", "/v1/settings/quotas")
                                   .json()
                                   .value("quotas")
                                   .toObject()
                                   .value("maxMemoryBytes")
                                   .toInteger();
        QVERIFY(setting > 0);
        ExecStream run(
            m_unprivileged.client(), ws,
            {{"kind", "shell"}, {"code", "true"}, {"maxMemoryBytes", double(setting * 2)}});
        QVERIFY(run.waitForFinished(30000));
        QCOMPARE(run.outcome().httpStatus, 400);
        QCOMPARE(run.outcome().errorCode(), QStringLiteral("quota_override_not_tighter"));
    }
};

QTEST_GUILESS_MAIN(TestMemoryBounds)
#include "test_memory_bounds.moc"
