// A Slurm pool on a real Slurm cluster (docs/contracts.md "Slurm pools"): Debian's munged,
// slurmctld and slurmd started on localhost by tests/slurm/local-cluster.sh, pool hosts booted
// by `runbox pool add` with installer/slurm/runbox-pool-host.sbatch, and each job ending by
// itself once its agent has been idle (--exit-when-idle); a pool host's agent offers the NPU chips
// of its job's GRES and no other.

#include "tests/support/AgentProcess.h"
#include "tests/support/NpuAgentFixture.h"
#include "tests/support/SimulatedNpuHost.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <unistd.h>

using runbox::testsupport::AgentProcess;

namespace {

const QString kPool = QStringLiteral("slurmtest");
constexpr int kPerHost = 100;
constexpr int kCount = 300;
constexpr int kIdleS = 20;

struct Run {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

} // namespace

class TestSlurmPool final : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_cluster;
    QProcessEnvironment m_env;
    bool m_started = false;

    QString script() const {
        return QStringLiteral(RUNBOX_SOURCE_DIR "/tests/slurm/local-cluster.sh");
    }

    /// A command (the CLI or a Slurm one) in the test's environment: the cluster's SLURM_CONF,
    /// a HOME of its own (secret, definition, published hosts) and the jobs' settings.
    QProcess* start(const QString& program, const QStringList& args) const {
        auto* p = new QProcess;
        p->setProcessEnvironment(m_env);
        p->setWorkingDirectory(m_dir.filePath(QStringLiteral("home")));
        p->start(program, args);
        return p;
    }
    Run run(const QString& program, const QStringList& args, int timeoutMs = 300000) const {
        std::unique_ptr<QProcess> p(start(program, args));
        Run r;
        if (!p->waitForFinished(timeoutMs)) {
            p->kill();
            p->waitForFinished();
            return r;
        }
        r.exitCode = p->exitStatus() == QProcess::NormalExit ? p->exitCode() : -1;
        r.out = p->readAllStandardOutput();
        r.err = p->readAllStandardError();
        return r;
    }
    Run cli(const QStringList& args, int timeoutMs = 300000) const {
        return run(AgentProcess::cliPath(), args, timeoutMs);
    }
    /// Runs `runbox ARGS… ID` for every id, 8 at a time; the ids whose run failed, with why.
    QStringList forEach(const QStringList& ids, const std::function<QStringList(QString)>& args) {
        QStringList failed;
        for (qsizetype i = 0; i < ids.size(); i += 8) {
            std::vector<std::unique_ptr<QProcess>> batch;
            for (qsizetype j = i; j < qMin(i + 8, ids.size()); ++j)
                batch.emplace_back(start(AgentProcess::cliPath(), args(ids[j])));
            for (qsizetype j = 0; j < qsizetype(batch.size()); ++j) {
                QProcess& p = *batch[j];
                if (!p.waitForFinished(120000) || p.exitStatus() != QProcess::NormalExit ||
                    p.exitCode() != 0)
                    failed << ids[i + j] + ": " + QString::fromUtf8(p.readAllStandardError());
            }
        }
        return failed;
    }
    QStringList jobs(const QString& pool = kPool, const QString& state = {}) const {
        QStringList args{"--me", "--noheader", "--name", "runbox-pool-" + pool, "--format", "%i"};
        if (!state.isEmpty())
            args << "--states" << state;
        const Run r = run(QStringLiteral("squeue"), args);
        return QString::fromUtf8(r.out).split('\n', Qt::SkipEmptyParts);
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        for (const char* daemon : {"/usr/sbin/munged", "/usr/sbin/slurmctld", "/usr/sbin/slurmd",
                                   "/usr/bin/sbatch", "/usr/bin/squeue"})
            if (!QFile::exists(QLatin1String(daemon)))
                QSKIP(qPrintable(
                    QStringLiteral("%1 is not installed (munge, slurmctld, slurmd, slurm-client: "
                                   "scripts/install-test-deps)")
                        .arg(QLatin1String(daemon))));
        m_cluster = m_dir.filePath(QStringLiteral("cluster"));
        QDir().mkpath(m_dir.filePath(QStringLiteral("home")));
        QProcess p;
        p.start(QStringLiteral("bash"), {script(), "start", m_cluster});
        QVERIFY(p.waitForFinished(120000));
        m_started = true;
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        m_env = QProcessEnvironment::systemEnvironment();
        for (const char* v : {"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "RUNBOX_URL", "RUNBOX_TOKEN"})
            m_env.remove(QLatin1String(v));
        m_env.insert("SLURM_CONF", m_cluster + "/slurm.conf");
        m_env.insert("HOME", m_dir.filePath(QStringLiteral("home")));
        m_env.insert("RUNBOX_AGENT", QStringLiteral(RUNBOX_BINARY_DIR "/agent/runbox-agent"));
        m_env.insert("RUNBOX_POOL_ADDRESS", "127.0.0.1");
        // Three hosts on this one node, each in its own slot of this test's uid ranges (other
        // agents run on this machine too: docs/contracts.md "Sandbox uids").
        m_env.insert("RUNBOX_UID_SLOTS", "3");
        m_env.insert("RUNBOX_STRONG_UID_FIRST", "1894000000");
        m_env.insert("RUNBOX_STRONG_UID_COUNT", "2048");
        m_env.insert("RUNBOX_LIGHT_UID_FIRST", "1894002048");
        m_env.insert("RUNBOX_LIGHT_UID_COUNT", "2048");
        m_env.insert("RUNBOX_LIGHT_SPARE_HOMES", "16");
    }

    void cleanupTestCase() {
        if (!m_started)
            return;
        // Every job of this cluster, whichever test left it: a job outlives slurmd (its
        // slurmstepd stays) and would hold a uid slot of the next run.
        const auto allJobs = [this] {
            const Run r = run(QStringLiteral("squeue"), {"--noheader", "--format", "%i"});
            return QString::fromUtf8(r.out).split('\n', Qt::SkipEmptyParts);
        };
        if (const QStringList left = allJobs(); !left.isEmpty())
            run(QStringLiteral("scancel"), left);
        for (int i = 0; i < 100 && !allJobs().isEmpty(); ++i)
            QTest::qWait(200);
        QProcess p;
        p.start(QStringLiteral("bash"), {script(), "stop", m_cluster});
        p.waitForFinished(60000);
    }

    /// 300 workspaces in a pool of 100 per host: three jobs booted, `true` run in every
    /// workspace, all deleted, and every job gone by itself after its idle timeout.
    void testThreeHostsBootedUsedAndGoneWhenIdle() {
        const bool root = ::geteuid() == 0; // a job runs as its user: light only as root
        Run r = cli({"pool", "create", kPool, "--per-host", QString::number(kPerHost), "--slurm",
                     "runbox", "--max-hosts", "3", "--exit-when-idle", QString::number(kIdleS),
                     "--sbatch-script",
                     QStringLiteral(RUNBOX_SOURCE_DIR "/installer/slurm/runbox-pool-host.sbatch")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(jobs().isEmpty()); // create submits nothing

        QElapsedTimer t;
        t.start();
        r = cli({"pool", "add", kPool, QString::number(kCount), root ? "--light" : "--strong",
                 "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject added = QJsonDocument::fromJson(r.out).object();
        const QJsonArray workspaces = added.value("workspaces").toArray();
        QCOMPARE(workspaces.size(), kCount);
        const QJsonObject placed = added.value("placed").toObject();
        QCOMPARE(placed.size(), 3);
        for (const QJsonValue& n : placed)
            QCOMPARE(n.toInt(), kPerHost);
        QCOMPARE(jobs().size(), 3);
        qInfo("booted 3 hosts and placed %d workspaces in %lld ms", kCount, t.elapsed());

        // pool ls names the jobs and the hosts, full.
        r = cli({"pool", "ls", kPool, "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject listing = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(listing.value("jobs").toArray().size(), 3);
        int full = 0;
        for (const QJsonValue& h : listing.value("hosts").toArray())
            full += h["pool"].toString() == kPool && h["free"].toInt() == 0 ? 1 : 0;
        QCOMPARE(full, 3);
        // pool ls without a name lists the Slurm pools of the config dir too (no fleet file).
        r = cli({"pool", "ls", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject all = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(all.value("jobs").toArray().size(), 3);
        QCOMPARE(all.value("jobs").toArray().first()["pool"].toString(), kPool);
        int ofPool = 0;
        for (const QJsonValue& h : all.value("hosts").toArray())
            ofPool += h["pool"].toString() == kPool ? 1 : 0;
        QCOMPARE(ofPool, 3);
        // A fourth host is refused by --max-hosts: nothing placed, nothing booted.
        r = cli({"pool", "add", kPool, "1", root ? "--light" : "--strong"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("pool_full"), r.err.constData());
        QCOMPARE(jobs().size(), 3);

        QStringList ids;
        for (const QJsonValue& w : workspaces)
            ids << w["id"].toString();
        t.restart();
        QStringList failed = forEach(ids, [](const QString& id) {
            return QStringList{"exec", "--workspace", id, "--", "true"};
        });
        QVERIFY2(failed.isEmpty(), qPrintable(failed.mid(0, 3).join('\n')));
        qInfo("ran true in %d workspaces in %lld ms", kCount, t.elapsed());
        t.restart();
        failed = forEach(ids, [](const QString& id) { return QStringList{"workspace", "rm", id}; });
        QVERIFY2(failed.isEmpty(), qPrintable(failed.mid(0, 3).join('\n')));

        // Nobody cancels: each agent exits kIdleS after its last workspace, and its job ends.
        QTRY_VERIFY_WITH_TIMEOUT(jobs().isEmpty(), (kIdleS + 60) * 1000);
        qInfo("deleted them; every job ended by itself %lld ms after the first delete",
              t.elapsed());
        const QString published = m_dir.filePath("home/.cache/runbox/pools/" + kPool + "/hosts");
        QVERIFY(QDir(published).entryList(QDir::Files | QDir::Hidden).isEmpty());
    }

    /// `runbox pool rm` deletes the pool's workspaces, then cancels its jobs (the pool's
    /// definition from the test above).
    void testPoolRmDeletesThenCancelsTheJobs() {
        const bool root = ::geteuid() == 0;
        Run r = cli({"pool", "add", kPool, "2", root ? "--light" : "--strong"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(r.out.count('\n'), 2);
        QCOMPARE(jobs().size(), 1); // 2 fit on one new host
        r = cli({"pool", "rm", kPool, "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject removed = QJsonDocument::fromJson(r.out).object();
        int deleted = 0;
        for (const QJsonValue& n : removed.value("deleted").toObject())
            deleted += n.toInt();
        QCOMPARE(deleted, 2);
        QCOMPARE(removed.value("cancelledJobs").toArray().size(), 1);
        QTRY_VERIFY_WITH_TIMEOUT(jobs().isEmpty(), 60000); // long before the idle timeout
    }

    /// A pool booted with `--gres npu:2` on a node whose chip 0 another job holds: its agent
    /// offers chips 1 and 2 (the job's IDX) and refuses 0 and 3, chips of the same host.
    void testAHostOffersTheChipsOfItsJobsGresOnly() {
        if (::geteuid() != 0)
            QSKIP("the simulated NPU host needs root (mknod)");
        runbox::tests::SimulatedNpuHost npuHost(4);
        QVERIFY2(npuHost.isValid(), qPrintable(npuHost.error()));
        QVERIFY(runbox::testsupport::shareWithAgent(npuHost.root()));
        const QProcessEnvironment saved = m_env;
        const auto restore = qScopeGuard([this, saved] { m_env = saved; });
        const auto npuEnv = runbox::testsupport::simulatedNpuEnvironment(npuHost);
        for (auto it = npuEnv.begin(); it != npuEnv.end(); ++it)
            m_env.insert(it.key(), it.value());
        const QString npuPool = QStringLiteral("slurmnpu");
        Run r = run(QStringLiteral("sbatch"), {"--parsable", "--gres=npu:1", "--job-name",
                                               "runbox-pool-gresholder", "--wrap", "sleep 600"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto cancelHolder = qScopeGuard(
            [this, r] { run(QStringLiteral("scancel"), {QString::fromUtf8(r.out).trimmed()}); });
        QTRY_VERIFY_WITH_TIMEOUT(jobs("gresholder", "RUNNING").size() == 1, 30000);

        r = cli({"pool", "create", npuPool, "--per-host", "2", "--slurm", "runbox", "--max-hosts",
                 "1", "--gres", "npu:2", "--exit-when-idle", QString::number(kIdleS),
                 "--sbatch-script",
                 QStringLiteral(RUNBOX_SOURCE_DIR "/installer/slurm/runbox-pool-host.sbatch")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        r = cli({"pool", "add", npuPool, "1", "--strong"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QString id = QString::fromUtf8(r.out).section(QLatin1Char(' '), 0, 0); // ID TOKEN
        QVERIFY2(!id.isEmpty(), r.out.constData());

        // Positive control: a chip of the job's GRES reaches the sandbox, as that host node.
        r = cli(
            {"exec", "--workspace", id, "--npu", "1", "--", "stat", "-c", "%i", "/dev/davinci0"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(r.out.trimmed(), QByteArray::number(qulonglong(npuHost.inodeOf(1))));
        r = cli({"exec", "--workspace", id, "--npu", "2", "--", "true"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        // The other job's chip, and a chip no job holds: not this host's to offer.
        for (const char* chip : {"0", "3"}) {
            r = cli({"exec", "--workspace", id, "--npu", chip, "--", "true"});
            QVERIFY2(r.exitCode != 0, r.out.constData());
            QVERIFY2(r.err.contains("does not exist on this host (chips: 1, 2)"),
                     r.err.constData());
        }
        r = cli({"pool", "rm", npuPool});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QTRY_VERIFY_WITH_TIMEOUT(jobs(npuPool).isEmpty(), 60000);
    }
};

QTEST_GUILESS_MAIN(TestSlurmPool)
#include "test_slurm_pool.moc"
