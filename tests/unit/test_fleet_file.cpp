// The fleet file (docs/contracts.md "Fleet file"): the documented format is read, tokens are
// referenced and never stored in it, token files readable by others are refused, and pooled
// ids split at their first '.'.
#include "shared/FleetFile.h"
#include "shared/PoolClient.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace runbox;

namespace {

/// JSON written with single quotes (moc cannot read raw string literals).
QByteArray q(const char* text) {
    return QByteArray(text).replace('\'', '"');
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
        f.write("abcd\n");
        f.close();
        FleetAgent agent{"h", "http://a:1", path, {}, {}, {}, {}};
        QVERIFY(f.setPermissions(QFile::ReadOwner | QFile::WriteOwner));
        QString error;
        QCOMPARE(FleetFile::readToken(agent, &error), QByteArray("abcd")); // positive control
        QVERIFY(f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ReadOther));
        QVERIFY(FleetFile::readToken(agent, &error).isEmpty());
        QVERIFY2(error.contains("chmod 600"), qPrintable(error));
        agent.tokenFile.clear();
        agent.keychain = "runbox/h";
        QVERIFY(FleetFile::readToken(agent, &error).isEmpty());
        QVERIFY2(error.contains("keychain"), qPrintable(error));
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
