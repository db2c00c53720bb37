// The test-only resolver behind RUNBOX_TEST_RESOLVER_HOSTS.
#include "agent/egress/HostsFileResolver.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace runbox::egress;

class TestHostsFileResolver final : public QObject {
    Q_OBJECT

    static QStringList texts(const ResolveResult& r) {
        QStringList out;
        for (const QHostAddress& a : r.addresses)
            out << a.toString();
        return out;
    }

private Q_SLOTS:
    void testAnswersFromTheFileCaseInsensitively() {
        const QByteArray file = "# comment\n"
                                "mirror.test 10.199.0.2   # the mirror\n"
                                "mixed.test 127.0.0.1 93.184.216.34\n"
                                "v6.test ::ffff:127.0.0.1\n";
        QCOMPARE(texts(HostsFileResolver::answer(file, "MIRROR.test.", 0)),
                 QStringList{"10.199.0.2"});
        QCOMPARE(texts(HostsFileResolver::answer(file, "mixed.test", 0)),
                 (QStringList{"127.0.0.1", "93.184.216.34"}));
        QCOMPARE(HostsFileResolver::answer(file, "v6.test", 0).addresses.size(), 1);
        QVERIFY(!HostsFileResolver::answer(file, "unknown.test", 0).error.isEmpty());
        QVERIFY(HostsFileResolver::answer(file, "unknown.test", 0).addresses.isEmpty());
    }

    void testSuccessiveLinesAreSuccessiveAnswersAndTheLastRepeats() {
        const QByteArray file = "rebind.test 10.199.0.2\nrebind.test 127.0.0.1\n";
        QCOMPARE(texts(HostsFileResolver::answer(file, "rebind.test", 0)),
                 QStringList{"10.199.0.2"});
        QCOMPARE(texts(HostsFileResolver::answer(file, "rebind.test", 1)),
                 QStringList{"127.0.0.1"});
        QCOMPARE(texts(HostsFileResolver::answer(file, "rebind.test", 5)),
                 QStringList{"127.0.0.1"});
    }

    void testBadAddressIsAnError() {
        const ResolveResult r =
            HostsFileResolver::answer("bad.test 10.0.0.1 nonsense\n", "bad.test", 0);
        QVERIFY(r.addresses.isEmpty());
        QVERIFY(r.error.contains("nonsense"));
    }

    void testResolveCountsLookupsAndAnswersAsynchronously() {
        QTemporaryDir dir;
        const QString path = dir.filePath("hosts");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("rebind.test 10.199.0.2\nrebind.test 127.0.0.1\n");
        f.close();
        HostsFileResolver resolver(path);
        QObject context;
        QList<ResolveResult> answers;
        bool synchronous = true;
        for (int i = 0; i < 2; ++i)
            resolver.resolve("rebind.test", &context,
                             [&](const ResolveResult& r) { answers.append(r); });
        synchronous = answers.isEmpty();
        QTRY_COMPARE(answers.size(), 2);
        QVERIFY(synchronous);
        QCOMPARE(texts(answers.at(0)), QStringList{"10.199.0.2"});
        QCOMPARE(texts(answers.at(1)), QStringList{"127.0.0.1"});
        HostsFileResolver missing(dir.filePath("absent"));
        missing.resolve("rebind.test", &context,
                        [&](const ResolveResult& r) { answers.append(r); });
        QTRY_COMPARE(answers.size(), 3);
        QVERIFY(answers.at(2).error.contains("cannot read"));
    }
};

QTEST_GUILESS_MAIN(TestHostsFileResolver)
#include "test_hosts_file_resolver.moc"
