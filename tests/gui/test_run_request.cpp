// RunRequest: the exec bodies of docs/contracts.md "Exec request" (with a science environment,
// docs/environments.md "Selection"), and the refusals the agent would answer with 400.
#include "console/api/RunRequest.h"

#include <QJsonArray>
#include <QTest>

using runbox::console::RunRequest;

class TestRunRequest final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void testBodies() {
        RunRequest r;
        r.kind = QStringLiteral("python");
        r.code = QStringLiteral("print(1)");
        r.cwd = QStringLiteral(" data/in ");
        r.env = {{"SEED", "1"}};
        r.timeoutMs = 5000;
        r.npuDevices = {2, 5};
        QVERIFY(r.validate().isEmpty());
        const QJsonObject exec = r.toExecBody();
        QCOMPARE(exec.value("kind").toString(), QStringLiteral("python"));
        QCOMPARE(exec.value("cwd").toString(), QStringLiteral("data/in"));
        QCOMPARE(exec.value("env").toObject().value("SEED").toString(), QStringLiteral("1"));
        QCOMPARE(exec.value("executionTimeoutMs").toInt(), 5000);
        QCOMPARE(exec.value("npuDevices").toArray(), (QJsonArray{2, 5}));
        QVERIFY(!exec.contains("workspace"));
        QCOMPARE(r.toManagedBody(QStringLiteral("w1")).value("workspace").toString(),
                 QStringLiteral("w1"));
        RunRequest minimal;
        minimal.code = QStringLiteral("true");
        QCOMPARE(minimal.toExecBody().keys(), (QStringList{"code", "kind"}));
    }

    void testEnvironmentIsNamedInBothBodies() {
        RunRequest r;
        r.kind = QStringLiteral("python");
        r.code = QStringLiteral("import numpy");
        r.environmentId = QStringLiteral("e0123456789abcdef");
        QVERIFY(r.validate().isEmpty());
        QCOMPARE(r.toExecBody().value("environmentId").toString(),
                 QStringLiteral("e0123456789abcdef"));
        const QJsonObject managed = r.toManagedBody(QStringLiteral("w1"));
        QCOMPARE(managed.value("environmentId").toString(), QStringLiteral("e0123456789abcdef"));
        QCOMPARE(managed.value("workspace").toString(), QStringLiteral("w1"));
        // None chosen: the key is absent (the host's interpreters), never an empty string.
        r.environmentId.clear();
        QVERIFY(!r.toExecBody().contains("environmentId"));
        QVERIFY(!r.toManagedBody(QStringLiteral("w1")).contains("environmentId"));
    }

    void testRefusals_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("code");
        QTest::addColumn<QString>("cwd");
        QTest::addColumn<QString>("envName");
        QTest::newRow("good") << "shell"
                              << "true"
                              << ""
                              << "OK_1";
        QTest::newRow("kind") << "perl"
                              << "1"
                              << ""
                              << "";
        QTest::newRow("empty script") << "shell"
                                      << "  \n"
                                      << ""
                                      << "";
        QTest::newRow("absolute cwd") << "shell"
                                      << "true"
                                      << "/etc"
                                      << "";
        QTest::newRow("dotdot cwd") << "shell"
                                    << "true"
                                    << "a/../b"
                                    << "";
        QTest::newRow("empty segment") << "shell"
                                       << "true"
                                       << "a//b"
                                       << "";
        QTest::newRow("backslash") << "shell"
                                   << "true"
                                   << "a\\b"
                                   << "";
        QTest::newRow("env name") << "shell"
                                  << "true"
                                  << ""
                                  << "1X";
    }
    void testRefusals() {
        QFETCH(QString, kind);
        QFETCH(QString, code);
        QFETCH(QString, cwd);
        QFETCH(QString, envName);
        RunRequest r;
        r.kind = kind;
        r.code = code;
        r.cwd = cwd;
        if (!envName.isEmpty())
            r.env = {{envName, "v"}};
        const bool good = QByteArray(QTest::currentDataTag()) == "good";
        QCOMPARE(r.validate().isEmpty(), good);
    }

    void testChipLists() {
        bool ok = false;
        QCOMPARE(RunRequest::parseChipList(QStringLiteral("5, 2 2,7"), &ok), (QList<int>{2, 5, 7}));
        QVERIFY(ok);
        RunRequest::parseChipList(QStringLiteral("../sda"), &ok);
        QVERIFY(!ok);
        RunRequest::parseChipList(QStringLiteral("0;"), &ok);
        QVERIFY(!ok);
        QVERIFY(RunRequest::parseChipList(QString(), &ok).isEmpty());
        QVERIFY(ok);
    }
};

QTEST_MAIN(TestRunRequest)
#include "test_run_request.moc"
