#include "agent/execution/ExecRequest.h"
#include "agent/http/ErrorStatus.h"
#include "agent/sandbox/EnvPolicy.h"

#include <QJsonArray>
#include <QTest>

using namespace runbox;
using namespace runbox::execution;

class TestExecRequest final : public QObject {
    Q_OBJECT
    static QString errorCode(const QJsonObject& body) {
        ExecRequest r;
        ExecLimits limits;
        auto err = ExecRequest::parse(body, limits, &r);
        return err ? err->code : QString();
    }
private Q_SLOTS:
    void testShellKindRunsBashWithScriptOnStdin() {
        ExecRequest r;
        QVERIFY(!ExecRequest::parse({{"kind", "shell"}, {"code", "echo hi"}}, {}, &r));
        QCOMPARE(r.sandboxCommand().first(), QString("/usr/bin/bash"));
        QVERIFY(r.sandboxCommand().contains("pipefail"));
        QCOMPARE(r.stdinData, QByteArray("echo hi"));
    }
    void testArgvWithStdin() {
        ExecRequest r;
        QVERIFY(!ExecRequest::parse({{"argv", QJsonArray{"cat"}}, {"stdin", "x"}}, {}, &r));
        QCOMPARE(r.sandboxCommand(), QStringList{"cat"});
        QCOMPARE(r.stdinData, QByteArray("x"));
    }
    void testPersistentKernelIsRefusedBeforeAnythingElse() {
        QCOMPARE(errorCode({{"kind", "python"}, {"code", "1"}, {"kernelMode", "persistent"}}),
                 QString("persistent_kernel_unsupported"));
    }
    void testRIsRefusedWhereNotInstalled() {
        QCOMPARE(errorCode({{"kind", "r"}, {"code", "1"}}), QString("r_unavailable"));
    }
    void testBadShapesAreRefused_data() {
        QTest::addColumn<QJsonObject>("body");
        QTest::addColumn<QString>("code");
        QTest::newRow("neither") << QJsonObject{} << "invalid_request";
        QTest::newRow("both") << QJsonObject{{"kind", "shell"},
                                             {"code", ""},
                                             {"argv", QJsonArray{"x"}}}
                              << "invalid_request";
        QTest::newRow("bad kind") << QJsonObject{{"kind", "perl"}, {"code", ""}} << "invalid_kind";
        QTest::newRow("empty argv") << QJsonObject{{"argv", QJsonArray{}}} << "invalid_argv";
        QTest::newRow("argv number") << QJsonObject{{"argv", QJsonArray{1}}} << "invalid_argv";
        QTest::newRow("unknown field")
            << QJsonObject{{"argv", QJsonArray{"x"}}, {"shell", true}} << "invalid_request";
        QTest::newRow("negative timeout")
            << QJsonObject{{"argv", QJsonArray{"x"}}, {"executionTimeoutMs", -1}}
            << "invalid_timeout";
        QTest::newRow("fractional timeout")
            << QJsonObject{{"argv", QJsonArray{"x"}}, {"executionTimeoutMs", 1.5}}
            << "invalid_timeout";
        QTest::newRow("string limit")
            << QJsonObject{{"argv", QJsonArray{"x"}}, {"maxOutputBytes", "1"}}
            << "invalid_output_limit";
        QTest::newRow("absolute cwd")
            << QJsonObject{{"argv", QJsonArray{"x"}}, {"cwd", "/etc"}} << "invalid_cwd";
        QTest::newRow("dotdot cwd")
            << QJsonObject{{"argv", QJsonArray{"x"}}, {"cwd", "a/../../b"}} << "invalid_cwd";
        QTest::newRow("ld_preload")
            << QJsonObject{{"argv", QJsonArray{"x"}}, {"env", QJsonObject{{"LD_PRELOAD", "x"}}}}
            << "invalid_env";
        QTest::newRow("option name")
            << QJsonObject{{"argv", QJsonArray{"x"}}, {"env", QJsonObject{{"--bind", "x"}}}}
            << "invalid_env";
        QTest::newRow("A=B") << QJsonObject{{"argv", QJsonArray{"x"}},
                                            {"env", QJsonObject{{"A=B", "x"}}}}
                             << "invalid_env";
        QTest::newRow("bash func")
            << QJsonObject{{"argv", QJsonArray{"x"}},
                           {"env", QJsonObject{{"BASH_FUNC_x%%", "() { :; }"}}}}
            << "invalid_env";
        QTest::newRow("home") << QJsonObject{{"argv", QJsonArray{"x"}},
                                             {"env", QJsonObject{{"HOME", "/"}}}}
                              << "invalid_env";
        QTest::newRow("proxy") << QJsonObject{{"argv", QJsonArray{"x"}},
                                              {"env", QJsonObject{{"HTTPS_PROXY", "x"}}}}
                               << "invalid_env";
        QTest::newRow("nul value")
            << QJsonObject{{"argv", QJsonArray{"x"}},
                           {"env", QJsonObject{{"A", QString("a") + QChar(0)}}}}
            << "invalid_env";
        QTest::newRow("bad id") << QJsonObject{{"argv", QJsonArray{"x"}}, {"executionId", "a b"}}
                                << "invalid_execution_id";
        QTest::newRow("feature not declared")
            << QJsonObject{{"argv", QJsonArray{"x"}}, {"npuDevices", QJsonArray{0}}}
            << "invalid_request";
    }
    void testBadShapesAreRefused() {
        QFETCH(QJsonObject, body);
        QFETCH(QString, code);
        QCOMPARE(errorCode(body), code);
    }
    void testGoodEnvAndCwdAreKept() {
        ExecRequest r;
        QVERIFY(!ExecRequest::parse({{"argv", QJsonArray{"x"}},
                                     {"cwd", "/workspace/a/b/"},
                                     {"env", QJsonObject{{"MY_VAR", "1"}, {"PATH", "/x"}}}},
                                    {}, &r));
        QCOMPARE(r.cwd, QString("a/b"));
        QCOMPARE(r.env.value("MY_VAR"), QString("1"));
    }
    void testTimeoutCeilingApplies() {
        ExecLimits limits;
        limits.maxTimeoutMs = 1000;
        ExecRequest r;
        QVERIFY(ExecRequest::parse({{"argv", QJsonArray{"x"}}, {"executionTimeoutMs", 2000}},
                                   limits, &r));
        QVERIFY(!ExecRequest::parse({{"argv", QJsonArray{"x"}}, {"executionTimeoutMs", 500}},
                                    limits, &r));
        QCOMPARE(r.timeoutMs, 500);
    }
    void testFeatureSectionsAreKeptAsSentForTheirFeature() {
        // The NPU feature validates npuDevices itself (NpuPassthrough::parseSelection).
        ExecLimits limits;
        limits.featureFields = {QStringLiteral("npuDevices")};
        ExecRequest r;
        QVERIFY(!ExecRequest::parse(
            {{"argv", QJsonArray{"x"}}, {"npuDevices", QJsonArray{5, "../sda"}}}, limits, &r));
        QCOMPARE(r.features.value("npuDevices").toArray(), (QJsonArray{5, "../sda"}));
        QVERIFY(r.hasFeature(QStringLiteral("npuDevices")));
        for (const QJsonValue& none : {QJsonValue(QJsonValue::Null), QJsonValue(QJsonArray{})}) {
            QVERIFY(
                !ExecRequest::parse({{"argv", QJsonArray{"x"}}, {"npuDevices", none}}, limits, &r));
            QVERIFY(!r.hasFeature(QStringLiteral("npuDevices")));
        }
    }
    void testFeatureFormCheckRefusesAMalformedSection() {
        // A feature's form check runs on its section as sent, so a malformed one is refused
        // at parse time, before any tier or feature could answer something else.
        ExecLimits limits;
        limits.featureFields = {QStringLiteral("npuDevices")};
        QList<QJsonValue> checked;
        limits.featureChecks.insert(QStringLiteral("npuDevices"), [&checked](
                                                                      const QJsonValue& value) {
            checked << value;
            return value.isArray()
                       ? std::nullopt
                       : std::optional<Error>(Error{ErrorKind::InvalidArgument,
                                                    QStringLiteral("invalid_npu_devices"),
                                                    QStringLiteral("npuDevices must be an array")});
        });
        ExecRequest r;
        // Positive control: a well-formed section passes and is kept as sent.
        QVERIFY(!ExecRequest::parse({{"argv", QJsonArray{"x"}}, {"npuDevices", QJsonArray{0}}},
                                    limits, &r));
        QCOMPARE(r.features.value("npuDevices").toArray(), QJsonArray{0});
        const auto err = ExecRequest::parse(
            {{"argv", QJsonArray{"x"}}, {"npuDevices", QStringLiteral("x")}}, limits, &r);
        QVERIFY(err);
        QCOMPARE(runbox::http::httpStatus(err->kind), 400);
        QCOMPARE(err->code, QStringLiteral("invalid_npu_devices"));
        // Null is handed to the check too (it decides what null means); an absent field is not.
        checked.clear();
        QVERIFY(ExecRequest::parse({{"argv", QJsonArray{"x"}}, {"npuDevices", QJsonValue()}},
                                   limits, &r));
        QCOMPARE(checked.size(), 1);
        QVERIFY(!ExecRequest::parse({{"argv", QJsonArray{"x"}}}, limits, &r));
        QCOMPARE(checked.size(), 1);
    }
};

QTEST_GUILESS_MAIN(TestExecRequest)
#include "test_exec_request.moc"
