// Attacks on the host NPU broker's `${input:NAME}` (docs/npu.md "Host broker"): the broker runs
// workloads on the host, and sandboxed code owns everything inside its workspace, so it plants
// links to /etc/shadow and out of the workspace, and swaps a directory for a symlink while the
// broker resolves inputs over and over, and again between submit and start. Nothing outside the
// workspace may ever be opened by the broker or reach the job. Positive controls first.
#include "SwapRace.h"
#include "agent/http/ErrorStatus.h"
#include "agent/npu/BrokerJobRunner.h"
#include "support/BrokerStoreFixture.h"
#include "support/ResolverModes.h"
#include "support/TestFiles.h"

#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace runbox::npu;
using runbox::Error;
using namespace runbox::testsupport;

namespace {

bool waitFinished(BrokerJob* job) {
    if (job->isFinal())
        return true;
    QSignalSpy spy(job, &BrokerJob::finished);
    return spy.wait(20000) || job->isFinal();
}

/// JSON with single quotes (moc mis-parses raw string literals).
QByteArray j(const char* text) {
    return QByteArray(text).replace('\'', '"');
}

} // namespace

class TestBrokerInputRace final : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;
    QString m_ws, m_outside;
    WorkloadCatalog m_catalog;
    FileIdentity m_insideX, m_insideShadow;
    /// Where the jobs are recorded; thousands of them in the race, so on tmpfs when there is one.
    BrokerStoreFixture m_store{
        QDir(QStringLiteral("/dev/shm")).exists() ? QStringLiteral("/dev/shm") : QDir::tempPath()};

    QByteArray out(const BrokerJob* job) const {
        return m_store.stream(job->id(), BrokerJob::Stream::Stdout);
    }

    QString ws(const QString& rel) const { return m_ws + '/' + rel; }

    BrokerJobRequest request(const QString& workload, const QString& input) const {
        BrokerJobRequest r;
        r.workloadId = workload;
        r.workspaceId = BrokerStoreFixture::workspaceId;
        r.workspaceDir = m_ws;
        r.inputs = QJsonObject{{"data", input}};
        // As root this test is a privileged agent: its jobs run as an unprivileged uid.
        r.workspaceUid = ::geteuid() == 0 ? 65534 : 0;
        return r;
    }

    BrokerOptions options() const {
        BrokerOptions o;
        o.store = m_store.jobs();
        o.killGraceMs = 300;
        QProcessEnvironment env;
        env.insert("PATH", "/usr/bin:/bin");
        o.baseEnvironment = env;
        return o;
    }

private Q_SLOTS:
    void initTestCase_data() { addResolverModeRows(); }
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        QVERIFY(QDir(m_tmp.path()).mkpath("ws/d"));
        QVERIFY(QDir(m_tmp.path()).mkpath("ws/e/etc"));
        QVERIFY(QDir(m_tmp.path()).mkpath("outside"));
        m_ws = QDir(m_tmp.path() + "/ws").canonicalPath();
        m_outside = QDir(m_tmp.path() + "/outside").canonicalPath();
        QVERIFY(writeFile(ws("d/x"), "INSIDE"));
        QVERIFY(writeFile(ws("e/etc/shadow"), "INSIDE-SHADOW"));
        QVERIFY(writeFile(m_outside + "/x", "OUTSIDE"));
        m_insideX = fileIdentity(ws("d/x"));
        m_insideShadow = fileIdentity(ws("e/etc/shadow"));
        // The attacker's links: to the host's secrets, out of the workspace, and the swap
        // partners of d (-> outside) and e (-> /).
        QVERIFY(QFile::link("/etc/shadow", ws("shadow")));
        QVERIFY(QFile::link("/etc", ws("etc")));
        QVERIFY(QFile::link(m_outside, ws("out")));
        QVERIFY(QFile::link(m_outside, ws("dswap")));
        QVERIFY(QFile::link("/", ws("eswap")));
        QString error;
        QVERIFY2(m_catalog.parse(j("{'workloads': [{'id': 'cat', 'label': 'Cat', "
                                   "'program': '/bin/cat', 'args': ['${input:data}']}, "
                                   "{'id': 'catx', 'label': 'Cat x', 'program': '/bin/sh', "
                                   "'args': ['-c', 'cat $0/x', '${input:data}']}]}"),
                                 &error),
                 qPrintable(error));
        QVERIFY2(m_store.open(m_ws, &error), qPrintable(error));
    }
    void init() { applyResolverModeRow(); }
    void cleanupTestCase() { resetResolverMode(); }

    void testInputInsideReachesTheJob() {
        // Positive control: the good path works, for a file and for a directory.
        BrokerJobRunner runner(m_catalog, nullptr, options());
        Error error;
        BrokerJob* file = runner.submit(request("cat", "d/x"), &error);
        QVERIFY2(file, qPrintable(error.message));
        BrokerJob* dir = runner.submit(request("catx", "d"), &error);
        QVERIFY2(dir, qPrintable(error.message));
        QVERIFY(waitFinished(file) && waitFinished(dir));
        QCOMPARE(out(file), QByteArray("INSIDE"));
        QCOMPARE(out(dir), QByteArray("INSIDE"));
    }

    void testPlantedLinksAreRefused_data() {
        QTest::addColumn<QString>("input");
        QTest::newRow("link to /etc/shadow") << QStringLiteral("shadow");
        QTest::newRow("through a link to /etc") << QStringLiteral("etc/shadow");
        QTest::newRow("through a link out of the workspace") << QStringLiteral("out/x");
    }
    void testPlantedLinksAreRefused() {
        QFETCH(QString, input);
        // Positive control: the link leads out of the workspace to a readable file for anyone
        // who follows it (we are root here, so a path-based broker would hand the job the host's
        // shadow file).
        const QString target = QFileInfo(ws(input)).canonicalFilePath();
        QVERIFY2(!target.isEmpty() && !target.startsWith(m_ws + '/'), qPrintable(target));
        QVERIFY2(!readFile(ws(input)).isEmpty(), "the planted link leads nowhere");

        BrokerJobRunner runner(m_catalog, nullptr, options());
        Error error;
        QVERIFY(!runner.submit(request("cat", input), &error));
        QCOMPARE(runbox::http::httpStatus(error.kind), 400);
        QCOMPARE(error.code, QStringLiteral("invalid_input"));
        QVERIFY2(error.message.contains("symbolic link"), qPrintable(error.message));
        QVERIFY(runner.jobs().isEmpty());
    }

    void testSwapBetweenSubmitAndStartDoesNotRedirectTheJob() {
        // The job waits for the host queue while the sandbox swaps d for a link to outside.
        ChipReservations reservations;
        QCOMPARE(reservations.acquire("exec:blocker", {-1}).outcome,
                 ChipReservations::Outcome::Granted);
        BrokerJobRunner runner(m_catalog, &reservations, options());
        Error error;
        BrokerJob* file = runner.submit(request("cat", "d/x"), &error);
        QVERIFY2(file, qPrintable(error.message));
        BrokerJob* dir = runner.submit(request("catx", "d"), &error);
        QVERIFY2(dir, qPrintable(error.message));
        QCOMPARE(file->state(), BrokerJob::State::Queued);

        const int wsFd = ::open(QFile::encodeName(m_ws).constData(), O_PATH | O_DIRECTORY);
        QVERIFY(wsFd >= 0);
        QCOMPARE(::renameat2(wsFd, "d", wsFd, "dswap", RENAME_EXCHANGE), 0);
        // Positive control: the path the broker used to hand out now leads outside.
        QCOMPARE(readFile(ws("d/x")), QByteArray("OUTSIDE"));

        reservations.release("exec:blocker");
        const bool finished = waitFinished(file) && waitFinished(dir);
        QCOMPARE(::renameat2(wsFd, "d", wsFd, "dswap", RENAME_EXCHANGE), 0);
        ::close(wsFd);
        QVERIFY(finished);
        QCOMPARE(out(file), QByteArray("INSIDE"));
        QCOMPARE(out(dir), QByteArray("INSIDE"));
        QCOMPARE(readFile(ws("d/x")), QByteArray("INSIDE"));
    }

    void testRacingSwapNeverPinsAnythingOutside() {
        // Sandboxed code keeps exchanging d (a real directory) with dswap (-> outside) and e
        // with eswap (-> /) while the broker resolves d/x and e/etc/shadow again and again.
        // Jobs stay queued behind a held host queue: only the broker's resolution runs.
        ChipReservations reservations;
        QCOMPARE(reservations.acquire("exec:blocker", {-1}).outcome,
                 ChipReservations::Outcome::Granted);
        BrokerJobRunner runner(m_catalog, &reservations, options());
        securitytest::SwapRace race(m_ws, {{"d", "dswap"}, {"e", "eswap"}});
        QVERIFY(race.isValid());
        // Positive control: the race is live — a path-based reader does get out.
        const bool naiveEscapes = securitytest::SwapRace::pathReaderEscapes(ws("d/x"), "OUTSIDE");

        int pinned = 0, refused = 0;
        QString escaped;
        // At least 1500 rounds, and on until both outcomes were seen (a loaded machine may
        // starve the swapper for a while).
        for (int i = 0;
             (i < 1500 || pinned == 0 || refused == 0) && i < 100000 && escaped.isEmpty(); ++i) {
            for (const auto& [input, inside] :
                 {std::pair{QStringLiteral("d/x"), m_insideX},
                  std::pair{QStringLiteral("e/etc/shadow"), m_insideShadow}}) {
                Error error;
                BrokerJob* job = runner.submit(request("cat", input), &error);
                if (!job) {
                    ++refused;
                    if (error.code != QLatin1String("invalid_input"))
                        escaped = input + ": unexpected error " + error.code;
                    continue;
                }
                ++pinned;
                const std::vector<BrokerInput>& inputs = job->spec().inputs;
                if (inputs.size() != 1 || fileIdentity(inputs.front().fd()) != inside)
                    escaped = input + " was pinned to something else than the workspace's file";
                else if (input == QLatin1String("d/x") &&
                         readFile(inputs.front().procPath()) != "INSIDE")
                    escaped = input + " read through /proc/self/fd gave something else";
                runner.cancel(job->id(), &error); // queued: ends now and closes its inputs
            }
        }
        race.stop();
        reservations.release("exec:blocker");

        QVERIFY2(escaped.isEmpty(), qPrintable(escaped));
        QVERIFY2(naiveEscapes, "the swap race was not live: the test proves nothing");
        QVERIFY(race.swaps() > 0);
        QVERIFY2(pinned > 0 && refused > 0,
                 qPrintable(QStringLiteral("pinned %1 refused %2").arg(pinned).arg(refused)));
        QCOMPARE(readFile(m_outside + "/x"), QByteArray("OUTSIDE"));
    }
};

QTEST_GUILESS_MAIN(TestBrokerInputRace)
#include "test_broker_input_race.moc"
