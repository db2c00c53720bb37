// WorkloadCatalog: the operator's allowlist (fail closed) and template expansion.
#include "agent/http/ErrorStatus.h"
#include "agent/npu/WorkloadCatalog.h"

#include <QtTest>

using namespace runbox::npu;
using runbox::Error;

namespace {
/// JSON written with single quotes (keeps the test readable; moc mis-parses raw strings).
QByteArray j(const char* text) {
    return QByteArray(text).replace('\'', '"');
}
} // namespace

class TestWorkloadCatalog final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void testValidCatalogLoadsAndInfersInputs() {
        WorkloadCatalog catalog;
        QString error;
        QVERIFY2(catalog.parse(
                     j("{'workloads': [ "
                       "            {'id': 'npu.smoke_test', 'label': 'Smoke', 'description': "
                       "'adds two tensors', "
                       "             'program': '${env:NPU_PY:-/usr/bin/python3}', "
                       "             'args': ['${workspace}/smoke.py', '--config=${input:config}', "
                       "'${input:data}'], "
                       "             'timeoutMs': 60000, 'npuDevices': [3, 1, 3]}, "
                       "            {'id': 'echo', 'label': 'Echo', 'program': '/bin/echo'}]}"),
                     &error),
                 qPrintable(error));
        QCOMPARE(catalog.workloads().size(), 2);
        const Workload* smoke = catalog.find("npu.smoke_test");
        QVERIFY(smoke);
        QCOMPARE(smoke->inputs, QStringList({"config", "data"}));
        QCOMPARE(smoke->npuDevices, QList<int>({1, 3}));
        QCOMPARE(smoke->timeoutMs, 60000);
        QVERIFY(!catalog.find("nope"));
        const QJsonObject listed = catalog.toJson().at(0).toObject();
        QCOMPARE(listed.value("id").toString(), QStringLiteral("npu.smoke_test"));
        QVERIFY(!listed.contains("program")); // argv is not advertised
    }

    void testInvalidCatalogsAreRejectedWhole_data() {
        QTest::addColumn<QByteArray>("json");
        QTest::newRow("not-json") << QByteArray("{");
        QTest::newRow("no-list") << QByteArray(j("{'x': 1}"));
        QTest::newRow("uppercase-id")
            << QByteArray(j("[{'id': 'Smoke', 'label': 'l', 'program': '/bin/true'}]"));
        QTest::newRow("leading-dot")
            << QByteArray(j("[{'id': '.x', 'label': 'l', 'program': '/bin/true'}]"));
        QTest::newRow("slash-id") << QByteArray(
            j("[{'id': 'a/b', 'label': 'l', 'program': '/bin/true'}]"));
        QTest::newRow("duplicate")
            << QByteArray(j("[{'id': 'a', 'label': 'l', 'program': '/bin/true'}, "
                            "                                                     {'id': 'a', "
                            "'label': 'l', 'program': '/bin/true'}]"));
        QTest::newRow("no-program") << QByteArray(j("[{'id': 'a', 'label': 'l'}]"));
        QTest::newRow("no-label") << QByteArray(j("[{'id': 'a', 'program': '/bin/true'}]"));
        QTest::newRow("args-not-strings")
            << QByteArray(j("[{'id': 'a', 'label': 'l', 'program': '/bin/true', 'args': [1]}]"));
        QTest::newRow("unknown-expr") << QByteArray(
            j("[{'id': 'a', 'label': 'l', 'program': '/bin/true', 'args': ['${repo:x}']}]"));
        QTest::newRow("unclosed") << QByteArray(
            j("[{'id': 'a', 'label': 'l', 'program': '/bin/true', 'args': ['${workspace']}]"));
        QTest::newRow("bad-input-name") << QByteArray(
            j("[{'id': 'a', 'label': 'l', 'program': '/bin/true', 'args': ['${input:../x}']}]"));
        QTest::newRow("input-in-program")
            << QByteArray(j("[{'id': 'a', 'label': 'l', 'program': '${input:prog}'}]"));
        QTest::newRow("workspace-in-program")
            << QByteArray(j("[{'id': 'a', 'label': 'l', 'program': '${workspace}/run'}]"));
        QTest::newRow("bad-timeout") << QByteArray(
            j("[{'id': 'a', 'label': 'l', 'program': '/bin/true', 'timeoutMs': -5}]"));
        QTest::newRow("bad-chip") << QByteArray(
            j("[{'id': 'a', 'label': 'l', 'program': '/bin/true', 'npuDevices': ['0']}]"));
    }
    void testInvalidCatalogsAreRejectedWhole() {
        QFETCH(QByteArray, json);
        WorkloadCatalog catalog;
        QString error;
        QVERIFY(catalog.parse(j("[{'id': 'keep', 'label': 'l', 'program': '/bin/true'}]"), &error));
        QVERIFY(!catalog.parse(json, &error));
        QVERIFY(!error.isEmpty());
        QVERIFY(catalog.find("keep")); // the previous catalog is untouched
    }

    void testExpansionSubstitutesWorkspaceInputsAndEnvironment() {
        WorkloadCatalog catalog;
        QString error;
        QVERIFY(
            catalog.parse(j("[{'id': 'w', 'label': 'l', 'program': '${env:PY:-/usr/bin/python3}', "
                            "            'args': ['${workspace}/run.py', '--in=${input:cfg}', "
                            "'${env:LEVEL:-1}', '${env:MODE}', '$literal']}]"),
                          &error));
        QProcessEnvironment env;
        env.insert("MODE", "fast");
        env.insert("LEVEL", "");
        Error expandError;
        const QStringList argv =
            catalog.find("w")->expand("/ws", {{"cfg", "/ws/a b.json"}}, env, &expandError);
        QCOMPARE(argv, QStringList({"/usr/bin/python3", "/ws/run.py", "--in=/ws/a b.json", "1",
                                    "fast", "$literal"}));
        env.insert("PY", "/opt/py/bin/python");
        QCOMPARE(catalog.find("w")->expand("/ws", {{"cfg", "/ws/c"}}, env, &expandError).value(0),
                 QStringLiteral("/opt/py/bin/python"));
    }

    void testExpansionFailsOnUnsetVariableOrRelativeProgram() {
        WorkloadCatalog catalog;
        QString error;
        QVERIFY(catalog.parse(
            j("[{'id': 'a', 'label': 'l', 'program': '/bin/x', 'args': ['${env:MISSING}']}, "
              "                                  {'id': 'b', 'label': 'l', 'program': "
              "'${env:P:-python3}'}]"),
            &error));
        Error expandError;
        QVERIFY(catalog.find("a")->expand("/ws", {}, {}, &expandError).isEmpty());
        QCOMPARE(expandError.code, QStringLiteral("workload_misconfigured"));
        QVERIFY(expandError.message.contains(QLatin1String("MISSING")));
        QVERIFY(catalog.find("b")->expand("/ws", {}, {}, &expandError).isEmpty());
        QVERIFY(expandError.message.contains(QLatin1String("absolute")));
    }
};

QTEST_GUILESS_MAIN(TestWorkloadCatalog)
#include "test_workload_catalog.moc"
