// The fleet file (docs/contracts.md "Fleet file"): the documented format is read, tokens are
// referenced and never stored in it, token files readable by others are refused, and pooled
// ids split at their first '.'.
#include "shared/FleetFile.h"
#include "shared/PoolClient.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace runbox;

namespace {

/// JSON written with single quotes (moc cannot read raw string literals).
QByteArray q(const char* text) {
    return QByteArray(text).replace('\'', '"');
}

/// Rows of SSH entries refused: their fields go to ssh's command line.
void addSshRows() {
    // An SSH entry's fields go to ssh's command line: none may read as an option.
    QTest::newRow("url and ssh")
        << QByteArray(q("{'agents':[{'name':'h','url':'http://a:1','ssh':{'host':'a'},"
                        "'keychain':'k'}]}"))
        << "one of \"url\" and \"ssh\"";
    QTest::newRow("ssh host an option")
        << QByteArray(q("{'agents':[{'name':'h','ssh':{'host':'-oProxyCommand=x'},"
                        "'keychain':'k'}]}"))
        << "ssh.host";
    QTest::newRow("ssh user an option")
        << QByteArray(q("{'agents':[{'name':'h','ssh':{'host':'a','user':'-F/x'},"
                        "'keychain':'k'}]}"))
        << "ssh.user";
    QTest::newRow("ssh host with a space")
        << QByteArray(q("{'agents':[{'name':'h','ssh':{'host':'a b'},'keychain':'k'}]}"))
        << "ssh.host";
    QTest::newRow("ssh port") << QByteArray(
                                     q("{'agents':[{'name':'h','ssh':{'host':'a','port':70000},"
                                       "'keychain':'k'}]}"))
                              << "ssh.port";
    QTest::newRow("ssh remote relative")
        << QByteArray(q("{'agents':[{'name':'h','ssh':{'host':'a','remote':'run/a.sock'},"
                        "'keychain':'k'}]}"))
        << "ssh.remote";
    QTest::newRow("ssh unknown member")
        << QByteArray(q("{'agents':[{'name':'h','ssh':{'host':'a','command':'x'},"
                        "'keychain':'k'}]}"))
        << "ssh.command";
    QTest::newRow("pool over ssh")
        << QByteArray(q("{'agents':[{'name':'h','ssh':{'host':'a'},'pool':'p1'}]}"))
        << "a pool entry is reached by its url";
    QTest::newRow("ssh not an object")
        << QByteArray(q("{'agents':[{'name':'h','ssh':'a','keychain':'k'}]}"))
        << "must be an object";
    QTest::newRow("fingerprint over ssh") << q("{'agents':[{'name':'h','ssh':{'host':'a'},"
                                               "'keychain':'k','fingerprint':'sha256:") +
                                                 QByteArray(64, 'a') + q("'}]}")
                                          << "must be https://";
}

} // namespace

class FleetFileTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void testReadsTheDocumentedFormat() {
        FleetFile fleet;
        const QString error =
            fleet.parse(q("{'agents':[{'name':'h1','url':'https://127.0.0.1:4312','tokenFile':'t/"
                          "h1.token', 'fingerprint':'sha256:") +
                            QByteArray(64, 'a') +
                            q("'}, {'name':'gpu-2','url':'http://gpu2:4311','keychain':'runbox/"
                              "gpu-2'}]}"),
                        "/etc/fleet/fleet.json");
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(fleet.agents().size(), 2);
        QCOMPARE(fleet.agents()[0].tokenFile, QStringLiteral("/etc/fleet/t/h1.token"));
        // The pin the clients are given: the fingerprint's 32 bytes.
        QCOMPARE(fleet.agents()[0].pin, QByteArray(32, char(0xaa)));
        QCOMPARE(fleet.find("gpu-2")->keychain, QStringLiteral("runbox/gpu-2"));
        QVERIFY(fleet.find("gpu-2")->pin.isEmpty());
        QVERIFY(!fleet.find("h3"));
    }

    void testAPoolEntryNamesThePoolWhoseSecretDerivesItsToken() {
        FleetFile fleet;
        const QString error =
            fleet.parse(q("{'agents':[{'name':'h1','url':'http://127.0.0.1:4311','pool':'p1'}]}"),
                        "/etc/fleet/fleet.json");
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(fleet.find("h1")->pool, QStringLiteral("p1"));
        QVERIFY(fleet.find("h1")->tokenFile.isEmpty());
        // Not a token file: FleetFile::readToken refuses it (PoolHostToken derives it).
        QString why;
        QVERIFY(FleetFile::readToken(*fleet.find("h1"), &why).isEmpty());
        QVERIFY2(why.contains("pool p1"), qPrintable(why));
    }

    void testRefusesWhatIsNotTheFormat_data() {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("says");
        QTest::newRow("literal token")
            << QByteArray(q("{'agents':[{'name':'h','url':'http://a:1','token':'ab'}]}"))
            << "never stored";
        QTest::newRow("dot in name")
            << QByteArray(q("{'agents':[{'name':'h.1','url':'http://a:1','tokenFile':'t'}]}"))
            << "name";
        QTest::newRow("twice") << QByteArray(q(
                                      "{'agents':[{'name':'h','url':'http://a:1','tokenFile':'t'}, "
                                      "{'name':'h','url':'http://b:1','tokenFile':'t'}]}"))
                               << "twice";
        QTest::newRow("no token reference")
            << QByteArray(q("{'agents':[{'name':'h','url':'http://a:1'}]}")) << "one of";
        QTest::newRow("both references")
            << QByteArray(
                   q("{'agents':[{'name':'h','url':'http://a:1','tokenFile':'t','keychain':'k'}]}"))
            << "one of";
        QTest::newRow("token file and pool")
            << QByteArray(
                   q("{'agents':[{'name':'h','url':'http://a:1','tokenFile':'t','pool':'p'}]}"))
            << "one of";
        QTest::newRow("bad pool name")
            << QByteArray(q("{'agents':[{'name':'h','url':'http://a:1','pool':'p.1'}]}")) << "pool";
        QTest::newRow("ftp url")
            << QByteArray(q("{'agents':[{'name':'h','url':'ftp://a:1','tokenFile':'t'}]}"))
            << "url";
        QTest::newRow("unknown member")
            << QByteArray(q("{'agents':[{'name':'h','url':'http://a:1','tokenFile':'t','tls':1}]}"))
            << "unknown member";
        QTest::newRow("not json") << QByteArray("{agents") << "not a JSON object";
        QTest::newRow("short fingerprint")
            << QByteArray(q("{'agents':[{'name':'h','url':'https://a:1','tokenFile':'t',"
                            "'fingerprint':'sha256:ab'}]}"))
            << "not a SHA-256 fingerprint";
        QTest::newRow("fingerprint for http") << q("{'agents':[{'name':'h','url':'http://"
                                                   "a:1','tokenFile':'t','fingerprint':'sha256:") +
                                                     QByteArray(64, 'a') + q("'}]}")
                                              << "must be https://";
        addSshRows();
    }

    /// What save() writes reads back the same (the console's profiles, the CLI's reader), token
    /// files as written (relative stays relative), 0600.
    void testSaveReadsBack() {
        QTemporaryDir dir;
        const QString path = dir.filePath("cfg/fleet.json");
        FleetFile fleet;
        QVERIFY(fleet
                    .parse(q("{'agents':[{'name':'h1','url':'http://a:1','tokenFile':'t/h1'},"
                             "{'name':'s','ssh':{'host':'node3','user':'ops','port':2222,"
                             "'remote':'/run/runbox/agent.sock'},'keychain':'abc'}]}"),
                           path)
                    .isEmpty());
        QVERIFY(fleet.agents()[1].viaSsh());
        QCOMPARE(fleet.agents()[1].ssh, (FleetSsh{"node3", "ops", 2222, "/run/runbox/agent.sock"}));
        QCOMPARE(fleet.save(path), QString());
        QCOMPARE(QFile(path).permissions() & ~(QFile::ReadUser | QFile::WriteUser),
                 QFile::ReadOwner | QFile::WriteOwner);
        QVERIFY(QFile(path).open(QIODevice::ReadOnly));
        FleetFile again;
        QCOMPARE(again.load(path), QString());
        QCOMPARE(again.toJson(), fleet.toJson());
        QCOMPARE(again.agents()[0].tokenFile, dir.filePath("cfg/t/h1"));
        QVERIFY(again.toJson().contains("\"t/h1\""));
    }

    void testRefusesWhatIsNotTheFormat() {
        QFETCH(QByteArray, json);
        QFETCH(QString, says);
        FleetFile fleet;
        const QString error = fleet.parse(json, "/f.json");
        QVERIFY2(error.contains(says), qPrintable(error));
        QVERIFY(fleet.agents().isEmpty());
    }

    void testTokenFileMustBePrivate() {
        QTemporaryDir dir;
        const QString path = dir.filePath("h.token");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray(64, 'a') + "\n");
        f.close();
        FleetAgent agent;
        agent.name = "h";
        agent.url = "http://a:1";
        agent.tokenFile = path;
        QVERIFY(f.setPermissions(QFile::ReadOwner | QFile::WriteOwner));
        QString error;
        QCOMPARE(FleetFile::readToken(agent, &error), QByteArray(64, 'a')); // positive control
        QVERIFY(f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ReadOther));
        QVERIFY(FleetFile::readToken(agent, &error).isEmpty());
        QVERIFY2(error.contains("chmod 600"), qPrintable(error));
        agent.tokenFile.clear();
        agent.keychain = "runbox/h";
        QVERIFY(FleetFile::readToken(agent, &error).isEmpty());
        QVERIFY2(error.contains("keychain"), qPrintable(error));
    }

    /// A fleet entry can name any file of the user's as its token file: only a token is sent as
    /// one, and never a pool's secret (a shared fleet file must not exfiltrate keys or secrets).
    void testOnlyATokenIsSentAsOne() {
        QTemporaryDir dir;
        const QByteArray previous = qgetenv("XDG_CONFIG_HOME");
        qputenv("XDG_CONFIG_HOME", QFile::encodeName(dir.filePath("config")));
        QVERIFY(QDir().mkpath(dir.filePath("config/runbox/pools")));
        auto write = [](const QString& path, const QByteArray& data) {
            QFile f(path);
            return f.open(QIODevice::WriteOnly) && f.write(data) == data.size() &&
                   f.setPermissions(QFile::ReadOwner | QFile::WriteOwner);
        };
        const QByteArray wsToken =
            "ws1.w0123456789abcdef." + QByteArray(32, 'b') + '.' + QByteArray(64, 'c');
        QVERIFY(write(dir.filePath("ws.token"), wsToken + '\n'));
        QVERIFY(write(dir.filePath("id_ed25519"), "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl\n"));
        QVERIFY(write(dir.filePath("config/runbox/pools/p1.secret"), QByteArray(64, 'd') + '\n'));
        FleetAgent agent;
        agent.name = "h";
        agent.url = "http://a:1";
        QString error;
        agent.tokenFile = dir.filePath("ws.token");
        QCOMPARE(FleetFile::readToken(agent, &error), wsToken); // positive control
        agent.tokenFile = dir.filePath("id_ed25519");
        QVERIFY(FleetFile::readToken(agent, &error).isEmpty());
        QVERIFY2(error.contains("does not hold an agent token"), qPrintable(error));
        agent.tokenFile = dir.filePath("config/runbox/pools/p1.secret");
        QVERIFY(FleetFile::readToken(agent, &error).isEmpty());
        QVERIFY2(error.contains("a pool's secret"), qPrintable(error));
        QVERIFY(QFile::link(dir.filePath("config/runbox/pools/p1.secret"), dir.filePath("ln")));
        agent.tokenFile = dir.filePath("ln"); // through a link too
        QVERIFY(FleetFile::readToken(agent, &error).isEmpty());
        QVERIFY2(error.contains("a pool's secret"), qPrintable(error));
        qputenv("XDG_CONFIG_HOME", previous);
    }

    void testPooledIdsSplitAtTheFirstDot() {
        QString host, local;
        QVERIFY(PoolClient::splitPooledId("h1.ab.c", &host, &local));
        QCOMPARE(host, QStringLiteral("h1"));
        QCOMPARE(local, QStringLiteral("ab.c"));
        QCOMPARE(PoolClient::pooledId(host, local), QStringLiteral("h1.ab.c"));
        QVERIFY(!PoolClient::splitPooledId("plain", &host, &local));
        QVERIFY(!PoolClient::splitPooledId(".x", &host, &local));
        QVERIFY(!PoolClient::splitPooledId("h.", &host, &local));
    }
};

QTEST_GUILESS_MAIN(FleetFileTest)
#include "test_fleet_file.moc"
