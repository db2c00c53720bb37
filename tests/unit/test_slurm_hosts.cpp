// What the pool client believes of a Slurm pool host's published file and of a pool's Slurm
// definition (docs/contracts.md "Slurm pools"): shared/SlurmHosts, shared/SlurmPoolDefinition.

#include "shared/SlurmHosts.h"
#include "shared/SlurmPoolDefinition.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace runbox;

namespace {

const QString kFingerprint = QStringLiteral("9B:C9:FC:1B:92:F4:17:C9:EE:C0:85:2A:A1:AA:9E:68:96:A0:"
                                            "38:B2:33:AD:B8:81:BE:3F:7D:C8:6B:2C:25:56");
const QString kNonce = QStringLiteral("47e9b57c0a2dcac3a1a4d00bed064d40");

QJsonObject goodHost(const QString& jobId) {
    return {{"jobId", jobId},
            {"pool", "p1"},
            {"url", "https://10.0.0.7:40123"},
            {"fingerprint", kFingerprint},
            {"hostNonce", kNonce},
            {"node", "n7"},
            {"published", "2026-12-07T15:05:58Z"}};
}

/// Writes @p bytes as a job publishes them: 0600, this user's.
void write(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes);
    QVERIFY(f.setPermissions(QFile::ReadOwner | QFile::WriteOwner));
}

} // namespace

class TestSlurmHosts final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void testPublishedHostIsAFleetEntry() {
        QTemporaryDir dir;
        write(dir.filePath("42.json"), QJsonDocument(goodHost("42")).toJson());
        const SlurmHosts hosts(QStringLiteral("p1"), dir.path());
        FleetAgent agent;
        QByteArray nonce;
        QString error;
        QVERIFY2(hosts.published("42", &agent, &nonce, &error), qPrintable(error));
        QCOMPARE(agent.name, QStringLiteral("p1-42"));
        QCOMPARE(agent.url, QStringLiteral("https://10.0.0.7:40123"));
        QCOMPARE(agent.pool, QStringLiteral("p1"));
        QCOMPARE(agent.pin.size(), 32);
        QCOMPARE(nonce, kNonce.toLatin1());
    }

    void testPublishedFileFailingACheckIsRefused_data() {
        QTest::addColumn<QString>("member");
        QTest::addColumn<QJsonValue>("value");
        QTest::newRow("another job") << "jobId" << QJsonValue("43");
        QTest::newRow("another pool") << "pool" << QJsonValue("p2");
        QTest::newRow("plain http") << "url" << QJsonValue("http://10.0.0.7:40123");
        QTest::newRow("no url") << "url" << QJsonValue();
        QTest::newRow("bad fingerprint") << "fingerprint" << QJsonValue("AB:CD");
        QTest::newRow("bad nonce") << "hostNonce" << QJsonValue("xyz");
    }
    void testPublishedFileFailingACheckIsRefused() {
        QFETCH(QString, member);
        QFETCH(QJsonValue, value);
        QTemporaryDir dir;
        const SlurmHosts hosts(QStringLiteral("p1"), dir.path());
        FleetAgent agent;
        QByteArray nonce;
        QString error;
        // Positive control: the same file unchanged is believed.
        write(dir.filePath("42.json"), QJsonDocument(goodHost("42")).toJson());
        QVERIFY(hosts.published("42", &agent, &nonce, &error));
        QJsonObject bad = goodHost("42");
        if (value.isNull())
            bad.remove(member);
        else
            bad.insert(member, value);
        write(dir.filePath("42.json"), QJsonDocument(bad).toJson());
        QVERIFY(!hosts.published("42", &agent, &nonce, &error));
        QVERIFY(!error.isEmpty());
        write(dir.filePath("42.json"), "{\"jobId\":\"42\""); // truncated
        QVERIFY(!hosts.published("42", &agent, &nonce, &error));
        QVERIFY(!hosts.published("41", &agent, &nonce, &error)); // none published
        QVERIFY(error.contains("not published"));
    }

    /// The file decides where the host's token goes: only a regular 0600 file of this user is
    /// believed; a FIFO is refused at once instead of hanging the CLI.
    void testOnlyThisUsersPrivateFileIsBelieved() {
        QTemporaryDir dir;
        const SlurmHosts hosts(QStringLiteral("p1"), dir.path());
        const QString path = dir.filePath("42.json");
        FleetAgent agent;
        QByteArray nonce;
        QString error;
        write(path, QJsonDocument(goodHost("42")).toJson());
        QVERIFY2(hosts.published("42", &agent, &nonce, &error), qPrintable(error)); // control
        QVERIFY(QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner |
                                                QFile::ReadGroup | QFile::WriteGroup |
                                                QFile::ReadOther | QFile::WriteOther));
        QVERIFY(!hosts.published("42", &agent, &nonce, &error));
        QVERIFY2(error.contains("chmod 600"), qPrintable(error));
        if (::geteuid() == 0) {
            write(path, QJsonDocument(goodHost("42")).toJson());
            QVERIFY(::chown(QFile::encodeName(path).constData(), 65534, 65534) == 0);
            QVERIFY(!hosts.published("42", &agent, &nonce, &error));
            QVERIFY2(error.contains("owned by uid 65534"), qPrintable(error));
        }
        QVERIFY(QFile::remove(path));
        QVERIFY(::mkfifo(QFile::encodeName(path).constData(), 0600) == 0);
        QElapsedTimer timer;
        timer.start();
        QVERIFY(!hosts.published("42", &agent, &nonce, &error));
        QVERIFY2(timer.elapsed() < 5000, "a FIFO nobody writes must not hang the reader");
        QVERIFY2(error.contains("regular"), qPrintable(error));
    }

    void testHostNameSplitsAtTheLastDash() {
        QString pool, job;
        QVERIFY(SlurmHosts::splitHostName("team-a-123", &pool, &job));
        QCOMPARE(pool, QStringLiteral("team-a"));
        QCOMPARE(job, QStringLiteral("123"));
        QVERIFY(!SlurmHosts::splitHostName("team-a", &pool, &job));
        QVERIFY(!SlurmHosts::splitHostName("-123", &pool, &job));
        QCOMPARE(SlurmHosts::jobName("team-a"), QStringLiteral("runbox-pool-team-a"));
    }

    void testHostsDirSbatchCannotPassIsRefusedBeforeSubmitting() {
        SlurmPoolDefinition def;
        def.pool = "p1";
        def.partition = "batch";
        def.script = "/nonexistent/runbox-pool-host.sbatch";
        QString jobId, error;
        QVERIFY(!SlurmHosts("p1", "/tmp/a,b").submit(def, &jobId, &error));
        QVERIFY2(error.contains("sbatch --export"), qPrintable(error));
        def.partition = "a b"; // and a definition out of range, before anything runs
        QVERIFY(!SlurmHosts("p1", "/tmp/ab").submit(def, &jobId, &error));
        QVERIFY2(error.contains("partition"), qPrintable(error));
    }

    void testDefinitionIsReadStrictly() {
        QTemporaryDir dir;
        const QString path = dir.filePath("pools/p1.slurm.json");
        SlurmPoolDefinition def;
        def.pool = "p1";
        def.partition = "batch";
        def.perHost = 100;
        def.maxHosts = 3;
        def.idleTimeoutS = 20;
        def.script = "/usr/share/runbox/slurm/runbox-pool-host.sbatch";
        QCOMPARE(def.save(path), QString());
        QCOMPARE(QFile::permissions(path) & 0x0077, QFileDevice::Permissions());
        SlurmPoolDefinition read;
        QCOMPARE(read.load(path, "p1"), QString());
        QCOMPARE(read.partition, QStringLiteral("batch"));
        QCOMPARE(read.maxHosts, 3);
        QCOMPARE(read.gres, QString()); // a definition without gres (as before it existed)
        def.gres = "npu:910b:2,gpu:1";
        QCOMPARE(def.save(path), QString());
        QCOMPARE(read.load(path, "p1"), QString());
        QCOMPARE(read.gres, QStringLiteral("npu:910b:2,gpu:1"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
        f.close();
        for (const auto& [key, value] :
             QList<QPair<QString, QJsonValue>>{{"token", "x"},
                                               {"maxHosts", 0},
                                               {"perHost", 1.5},
                                               {"partition", "a b"},
                                               {"script", "relative.sbatch"},
                                               {"gres", 2},
                                               {"gres", "npu:2 --wrap=x"},
                                               {"gres", "npu=2"}}) {
            QJsonObject bad = o;
            bad.insert(key, value);
            write(path, QJsonDocument(bad).toJson());
            QVERIFY2(!read.load(path, "p1").isEmpty(), qPrintable(key));
        }
    }
};

QTEST_GUILESS_MAIN(TestSlurmHosts)
#include "test_slurm_hosts.moc"
