// Exec requests the agent must refuse before anything runs: bad env names, bad cwd,
// persistent kernels, reused execution ids, R where R is missing.
#include "shared/ApiClient.h"
#include "shared/RequestSigner.h"
#include "support/AgentProcess.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QTest>

using namespace runbox;
using namespace runbox::testsupport;

namespace {
/// Shell code that leaves a trace in the workspace when it runs.
const QString kLeaveMarker = QStringLiteral("touch /workspace/ran-marker; echo ran");
} // namespace

class TestExecRequestValidation final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(m_agent.start(), qPrintable(m_agent.errorString()));
        m_ws = m_agent.createWorkspace();
        QVERIFY2(!m_ws.isEmpty(), qPrintable(m_agent.errorString()));
    }
    void init() { QFile::remove(markerPath()); }
    void cleanupTestCase() { QVERIFY2(m_agent.stop(), qPrintable(m_agent.log())); }

    void testValidEnvAndCwdAreApplied() {
        const ExecOutcome mk = m_agent.shell(m_ws, QStringLiteral("mkdir -p work/dir"));
        QVERIFY2(mk.status() == QLatin1String("completed"), qPrintable(mk.describe()));
        const ExecOutcome r = m_agent.shell(
            m_ws, QStringLiteral("echo \"$MY_VAR|$_under|$(pwd)\""),
            {{"env", QJsonObject{{"MY_VAR", "v a l"}, {"_under", "x"}}}, {"cwd", "work/dir"}});
        QVERIFY2(r.status() == QLatin1String("completed"), qPrintable(r.describe()));
        QCOMPARE(r.stdoutBytes, QByteArray("v a l|x|/workspace/work/dir\n"));
    }

    void testRefusedEnvNames_data() {
        QTest::addColumn<QString>("name");
        for (const char* name :
             {"LD_PRELOAD", "LD_LIBRARY_PATH", "--bind", "A=B", "BASH_FUNC_x%%", "BASH_ENV",
              "PYTHONSTARTUP", "PYTHONHOME", "HOME", "1ABC", "A B", ""})
            QTest::newRow(*name ? name : "(empty)") << QString::fromLatin1(name);
    }
    void testRefusedEnvNames() {
        QFETCH(QString, name);
        const ExecOutcome r =
            m_agent.shell(m_ws, kLeaveMarker, {{"env", QJsonObject{{name, "/tmp/evil.so"}}}});
        verifyRefusedBeforeRunning(r, 400);
        QCOMPARE(r.errorCode(), QStringLiteral("invalid_env"));
    }

    void testNonStringEnvValueIsRefused() {
        const ExecOutcome r = m_agent.shell(m_ws, kLeaveMarker, {{"env", QJsonObject{{"N", 5}}}});
        verifyRefusedBeforeRunning(r, 400);
    }

    void testRefusedCwd_data() {
        QTest::addColumn<QString>("cwd");
        for (const char* cwd :
             {"..", "../x", "/etc", "a/../../b", "/workspace/../etc", "a//b", "./a", "a\\..\\b"})
            QTest::newRow(cwd) << QString::fromLatin1(cwd);
    }
    void testRefusedCwd() {
        QFETCH(QString, cwd);
        const ExecOutcome r = m_agent.shell(m_ws, kLeaveMarker, {{"cwd", cwd}});
        verifyRefusedBeforeRunning(r, 400);
        QCOMPARE(r.errorCode(), QStringLiteral("invalid_cwd"));
    }

    void testPersistentKernelModeIsRefusedBeforeAnythingRuns() {
        const ExecOutcome ephemeral =
            m_agent.shell(m_ws, QStringLiteral("true"), {{"kernelMode", "ephemeral"}});
        QCOMPARE(ephemeral.status(), QStringLiteral("completed")); // positive control
        const ExecOutcome r = m_agent.shell(m_ws, kLeaveMarker, {{"kernelMode", "persistent"}});
        verifyRefusedBeforeRunning(r, 400);
        QVERIFY(r.errorJson().value("message").toString().contains(QLatin1String("persistent")));
    }

    void testExecutionIdReusedWithin60sIsConflict() {
        const QString id = "reuse-" + QString::fromLatin1(RequestSigner::newNonce());
        const ExecOutcome first =
            m_agent.shell(m_ws, QStringLiteral("true"), {{"executionId", id}});
        QVERIFY2(first.status() == QLatin1String("completed"), qPrintable(first.describe()));
        const ExecOutcome again = m_agent.shell(m_ws, kLeaveMarker, {{"executionId", id}});
        verifyRefusedBeforeRunning(again, 409);
        QCOMPARE(again.errorCode(), QStringLiteral("duplicate_execution_id"));
        const ExecOutcome fresh = m_agent.shell(m_ws, QStringLiteral("true"),
                                                {{"executionId", id + QStringLiteral("-2")}});
        QCOMPARE(fresh.status(), QStringLiteral("completed"));
    }

    void testMalformedExecutionIdIsRefused() {
        const ExecOutcome r = m_agent.shell(m_ws, kLeaveMarker, {{"executionId", "a/b c"}});
        verifyRefusedBeforeRunning(r, 400);
    }

    void testRKindRunsOnlyWhereRIsInstalled() {
        const ExecOutcome r = m_agent.exec(m_ws, {{"kind", "r"}, {"code", "cat(6 * 7)"}});
        if (QFileInfo(QStringLiteral("/usr/bin/R")).isExecutable()) {
            QVERIFY2(r.status() == QLatin1String("completed"), qPrintable(r.describe()));
            QCOMPARE(r.stdoutBytes, QByteArray("42"));
        } else {
            QCOMPARE(r.httpStatus, 400);
            QCOMPARE(r.errorCode(), QStringLiteral("r_unavailable"));
            QVERIFY(!r.errorJson().value("message").toString().isEmpty());
        }
    }

    void testMalformedRequests_data() {
        QTest::addColumn<QJsonObject>("body");
        QTest::newRow("unknown field")
            << QJsonObject{{"kind", "shell"}, {"code", kLeaveMarker}, {"bogus", 1}};
        QTest::newRow("kind and argv")
            << QJsonObject{{"kind", "shell"}, {"code", kLeaveMarker}, {"argv", QJsonArray{"true"}}};
        QTest::newRow("unknown kind") << QJsonObject{{"kind", "perl"}, {"code", kLeaveMarker}};
        QTest::newRow("empty argv") << QJsonObject{{"argv", QJsonArray{}}};
        QTest::newRow("non-string argv") << QJsonObject{{"argv", QJsonArray{"/bin/sh", 1}}};
        QTest::newRow("negative timeout")
            << QJsonObject{{"kind", "shell"}, {"code", kLeaveMarker}, {"executionTimeoutMs", -1}};
        QTest::newRow("fractional output limit")
            << QJsonObject{{"kind", "shell"}, {"code", kLeaveMarker}, {"maxOutputBytes", 1.5}};
        QTest::newRow("code not a string") << QJsonObject{{"kind", "shell"}, {"code", 5}};
    }
    void testMalformedRequests() {
        QFETCH(QJsonObject, body);
        const ExecOutcome r = m_agent.exec(m_ws, body);
        verifyRefusedBeforeRunning(r, 400);
    }

    void testInvalidJsonIs400() {
        const ApiResponse r =
            m_agent.client()->callRaw("POST", "/v1/workspaces/" + m_ws.toUtf8() + "/exec",
                                      "{\"kind\": \"shell\", \"code\": ", 30000);
        QCOMPARE(r.status, 400);
        QCOMPARE(r.errorCode(), QStringLiteral("invalid_json"));
    }

    /// QJsonDocument keeps the last of two equal names, so today's `{"code":"id","code":…}`
    /// would run the second one; the agent refuses the body instead (RFC 8259 §4).
    void testDuplicateJsonKeysAreRefusedBeforeRunning_data() {
        QTest::addColumn<QByteArray>("single");    // the positive control: runs the marker
        QTest::addColumn<QByteArray>("duplicate"); // the same with one name twice
        QTest::addColumn<QString>("name");
        const QByteArray marker = kLeaveMarker.toUtf8(); // nothing in it needs a JSON escape
        QTest::newRow("code twice")
            << QByteArray(R"({"kind":"shell","code":")" + marker + R"("})")
            << QByteArray(R"({"kind":"shell","code":"id","code":")" + marker + R"("})")
            << QStringLiteral("code");
        QTest::newRow("escaped name")
            << QByteArray(R"({"kind":"shell","code":")" + marker + R"("})")
            << QByteArray(R"({"kind":"shell","code":"id","code":")" + marker + R"("})")
            << QStringLiteral("code");
        QTest::newRow("env name twice")
            << QByteArray(R"({"kind":"shell","code":")" + marker + R"(","env":{"A":"1"}})")
            << QByteArray(R"({"kind":"shell","code":")" + marker + R"(","env":{"A":"1","A":"2"}})")
            << QStringLiteral("A");
    }
    void testDuplicateJsonKeysAreRefusedBeforeRunning() {
        QFETCH(QByteArray, single);
        QFETCH(QByteArray, duplicate);
        QFETCH(QString, name);
        const QByteArray path = "/v1/workspaces/" + m_ws.toUtf8() + "/exec";
        const ApiResponse control = m_agent.client()->callRaw("POST", path, single, 30000);
        QVERIFY2(control.status == 200, control.body.constData());
        QVERIFY2(QFile::exists(markerPath()), control.body.constData()); // it ran
        QVERIFY(QFile::remove(markerPath()));

        const ApiResponse r = m_agent.client()->callRaw("POST", path, duplicate, 30000);
        QVERIFY2(r.status == 400, r.body.constData());
        QCOMPARE(r.errorCode(), QStringLiteral("invalid_json"));
        QVERIFY2(r.errorMessage().contains(QLatin1Char('"') + name + QLatin1Char('"')),
                 r.body.constData());
        QVERIFY2(!r.body.contains("\"type\""), r.body.constData()); // no event stream
        QVERIFY(!QFile::exists(markerPath()));                      // nothing ran
    }

    void testUnknownWorkspaceIs404() {
        const ExecOutcome r = m_agent.shell(QStringLiteral("w0000000000000000"), kLeaveMarker);
        QCOMPARE(r.httpStatus, 404);
        QCOMPARE(r.errorCode(), QStringLiteral("workspace_not_found"));
    }

private:
    QString markerPath() const {
        return m_agent.workspaceDir(m_ws) + QStringLiteral("/ran-marker");
    }

    /// The refusal has the status, the error shape of docs/contracts.md "Errors", and nothing ran.
    void verifyRefusedBeforeRunning(const ExecOutcome& r, int status) {
        QVERIFY2(r.httpStatus == status, qPrintable(r.describe()));
        QVERIFY(r.events.isEmpty());
        const QJsonObject error = r.errorJson();
        QVERIFY2(error.value("code").isString() && !error.value("code").toString().isEmpty(),
                 r.errorBody.constData());
        QVERIFY2(error.value("message").isString() && !error.value("message").toString().isEmpty(),
                 r.errorBody.constData());
        QVERIFY(!QFile::exists(markerPath()));
    }

    AgentProcess m_agent;
    QString m_ws;
};

QTEST_GUILESS_MAIN(TestExecRequestValidation)
#include "test_exec_request_validation.moc"
