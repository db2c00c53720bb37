#include "agent/http/ErrorStatus.h"
#include "agent/store/QuotaSettings.h"

#include <QJsonDocument>
#include <QTest>

using namespace runbox::store;

namespace {

QJsonObject parse(const char* json) {
    return QJsonDocument::fromJson(json).object();
}

} // namespace

class TestQuotaSettings final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void testDefaults() {
        const QuotaSettings d;
        QCOMPARE(d.maxWorkspaceBytes, qint64(10737418240));
        QCOMPARE(d.maxOutputBytes, qint64(1073741824));
        QCOMPARE(d.uploadMaxFileBytes, qint64(1073741824));
        QCOMPARE(d.uploadMaxRequestBytes, qint64(10737418240));
        QVERIFY(!d.validate());
        const QJsonObject json = d.toJson();
        QCOMPARE(json.size(), QuotaSettings::fields().size());
        QCOMPARE(json.value(QStringLiteral("maxOutputBytes")).toInteger(), qint64(1073741824));
    }

    void testPatchChangesOnlyGivenFields() {
        QuotaSettings out;
        QVERIFY(!QuotaSettings::fromJson(
            parse(R"({"maxOutputBytes": 0, "maxWorkspaceBytes": 21474836480})"), QuotaSettings{},
            &out));
        QCOMPARE(out.maxOutputBytes, qint64(0));
        QCOMPARE(out.maxWorkspaceBytes, qint64(21474836480));
        QCOMPARE(out.uploadMaxFileBytes, QuotaSettings{}.uploadMaxFileBytes);
        // Round trip.
        QuotaSettings again;
        QVERIFY(!QuotaSettings::fromJson(out.toJson(), QuotaSettings{}, &again));
        QVERIFY(again == out);
        // 1.0 is the whole number 1 (JSON does not tell them apart).
        QVERIFY(!QuotaSettings::fromJson(parse(R"({"maxConcurrentExecutions": 1.0})"),
                                         QuotaSettings{}, &out));
        QCOMPARE(out.maxConcurrentExecutions, qint64(1));
    }

    void testInvalidValuesAreRefusedNamingTheField_data() {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("field");
        QTest::newRow("negative") << QByteArray(R"({"maxOutputBytes": -1})") << "maxOutputBytes";
        QTest::newRow("fraction") << QByteArray(R"({"maxWorkspaceBytes": 1.5})")
                                  << "maxWorkspaceBytes";
        QTest::newRow("string") << QByteArray(R"({"maxWorkspaceBytes": "10GiB"})")
                                << "maxWorkspaceBytes";
        QTest::newRow("numeric string")
            << QByteArray(R"({"maxOutputBytes": "100"})") << "maxOutputBytes";
        QTest::newRow("bool") << QByteArray(R"({"uploadMaxFileBytes": true})")
                              << "uploadMaxFileBytes";
        QTest::newRow("null") << QByteArray(R"({"uploadMaxRequestBytes": null})")
                              << "uploadMaxRequestBytes";
        QTest::newRow("array") << QByteArray(R"({"maxOutputBytes": [1]})") << "maxOutputBytes";
        QTest::newRow("above 2^53")
            << QByteArray(R"({"maxOutputBytes": 9007199254740993})") << "maxOutputBytes";
        QTest::newRow("1e300") << QByteArray(R"({"maxOutputBytes": 1e300})") << "maxOutputBytes";
        QTest::newRow("absurd bytes")
            << QByteArray(R"({"maxWorkspaceBytes": 2251799813685248})") << "maxWorkspaceBytes";
        QTest::newRow("absurd timeout")
            << QByteArray(R"({"maxExecutionTimeoutMs": 31536000001})") << "maxExecutionTimeoutMs";
        QTest::newRow("absurd concurrency")
            << QByteArray(R"({"maxConcurrentExecutions": 100001})") << "maxConcurrentExecutions";
        QTest::newRow("absurd light")
            << QByteArray(R"({"maxLightWorkspaces": 65537})") << "maxLightWorkspaces";
        QTest::newRow("unknown") << QByteArray(R"({"maxCats": 1})") << "maxCats";
        QTest::newRow("default above max")
            << QByteArray(R"({"defaultExecutionTimeoutMs": 90000000})")
            << "defaultExecutionTimeoutMs";
        QTest::newRow("unlimited default under a max")
            << QByteArray(R"({"defaultExecutionTimeoutMs": 0})") << "defaultExecutionTimeoutMs";
    }
    void testInvalidValuesAreRefusedNamingTheField() {
        QFETCH(QByteArray, json);
        QFETCH(QString, field);
        const QJsonObject patch = QJsonDocument::fromJson(json).object();
        QVERIFY(!patch.isEmpty());
        QuotaSettings out;
        out.maxOutputBytes = 42;
        const auto error = QuotaSettings::fromJson(patch, QuotaSettings{}, &out);
        QVERIFY(error);
        QCOMPARE(runbox::http::httpStatus(error->kind), 400);
        QCOMPARE(error->code, QStringLiteral("invalid_quota"));
        QVERIFY2(error->message.contains(field), qPrintable(error->message));
        QCOMPARE(out.maxOutputBytes, qint64(42)); // untouched on error
    }

    void testLimitsAtTheirCeilingsAreAccepted() {
        QuotaSettings out;
        QVERIFY(!QuotaSettings::fromJson(
            parse(R"({"maxWorkspaceBytes": 1125899906842624, "maxExecutionTimeoutMs": 31536000000,
                      "maxConcurrentExecutions": 100000, "maxLightWorkspaces": 65536})"),
            QuotaSettings{}, &out));
        QCOMPARE(out.maxWorkspaceBytes, qint64(1) << 50);
        // Unlimited max timeout allows an unlimited default.
        QVERIFY(!QuotaSettings::fromJson(
            parse(R"({"maxExecutionTimeoutMs": 0, "defaultExecutionTimeoutMs": 0})"),
            QuotaSettings{}, &out));
    }

    void testSeedsApplyAndNameTheVariableOnError() {
        // The text of the RUNBOX_* variables is parsed by the configuration table
        // (test_config_table); the seeds it yields are applied here.
        const QuotaSettings::Seeds seeds{{QStringLiteral("maxWorkspaceBytes"), 21474836480},
                                         {QStringLiteral("maxOutputBytes"), 0},
                                         {QStringLiteral("maxLightWorkspaces"), 100}};
        QuotaSettings out;
        QVERIFY(!QuotaSettings::fromSeeds(seeds, QuotaSettings{}, &out));
        QCOMPARE(out.maxWorkspaceBytes, qint64(21474836480));
        QCOMPARE(out.maxOutputBytes, qint64(0));
        QCOMPARE(out.maxLightWorkspaces, qint64(100));
        QCOMPARE(out.uploadMaxFileBytes, QuotaSettings{}.uploadMaxFileBytes);
        for (const qint64 bad : {qint64(-1), (qint64(1) << 50) + 1}) {
            const auto error = QuotaSettings::fromSeeds(
                {{QStringLiteral("uploadMaxFileBytes"), bad}}, QuotaSettings{}, &out);
            QVERIFY2(error, qPrintable(QString::number(bad)));
            QVERIFY(error->message.contains(QStringLiteral("RUNBOX_UPLOAD_MAX_FILE_BYTES")));
        }
        QVERIFY(
            QuotaSettings::fromSeeds({{QStringLiteral("noSuchQuota"), 1}}, QuotaSettings{}, &out));
        // Every field has its variable.
        for (const auto& field : QuotaSettings::fields())
            QVERIFY(field.envVar.startsWith(QStringLiteral("RUNBOX_")));
    }

    void testOverridesMayOnlyTighten() {
        QuotaSettings s;
        s.maxOutputBytes = 1000;
        s.maxWorkspaceBytes = 0; // unlimited
        s.defaultExecutionTimeoutMs = 5000;
        s.maxExecutionTimeoutMs = 60000;
        ExecutionLimits limits;
        // Positive control: nothing asked → the settings; tighter → taken.
        QVERIFY(!tighten(s, QJsonObject{}, &limits));
        QCOMPARE(limits.maxOutputBytes, qint64(1000));
        QCOMPARE(limits.maxWorkspaceBytes, qint64(0));
        QCOMPARE(limits.executionTimeoutMs, qint64(5000));
        QVERIFY(!tighten(s, parse(R"({"maxOutputBytes": 10, "executionTimeoutMs": 30000,
                                      "maxWorkspaceBytes": 123, "code": "x"})"),
                         &limits));
        QCOMPARE(limits.maxOutputBytes, qint64(10));
        QCOMPARE(limits.executionTimeoutMs, qint64(30000)); // above the default, under the max
        QCOMPARE(limits.maxWorkspaceBytes, qint64(123));    // any value under an unlimited one
        QCOMPARE(limits.toJson().value(QStringLiteral("maxOutputBytes")).toInteger(), qint64(10));

        for (const char* loosen :
             {R"({"maxOutputBytes": 1001})", R"({"maxOutputBytes": 0})",
              R"({"executionTimeoutMs": 60001})", R"({"executionTimeoutMs": 0})"}) {
            const auto error = tighten(s, parse(loosen), &limits);
            QVERIFY2(error, loosen);
            QCOMPARE(runbox::http::httpStatus(error->kind), 400);
            QCOMPARE(error->code, QStringLiteral("quota_override_not_tighter"));
        }
        const auto malformed = tighten(s, parse(R"({"maxOutputBytes": "5"})"), &limits);
        QVERIFY(malformed);
        QCOMPARE(malformed->code, QStringLiteral("invalid_quota"));
    }

    void testMemoryAndProcessBoundsTightenAndRoundTrip() {
        const QuotaSettings d;
        QVERIFY(d.maxMemoryBytes > 0); // half the RAM of this host
        QCOMPARE(d.maxProcesses, qint64(1024));
        QuotaSettings s;
        s.maxMemoryBytes = 4 * QuotaSettings::kGiB;
        s.maxProcesses = 256;
        ExecutionLimits limits;
        QVERIFY(
            !tighten(s, parse(R"({"maxMemoryBytes": 536870912, "maxProcesses": 64})"), &limits));
        QCOMPARE(limits.maxMemoryBytes, qint64(536870912));
        QCOMPARE(limits.maxProcesses, qint64(64));
        QCOMPARE(ExecutionLimits::fromJson(limits.toJson()).maxMemoryBytes, qint64(536870912));
        QCOMPARE(ExecutionLimits::fromJson(limits.toJson()).maxProcesses, qint64(64));
        QCOMPARE(ExecutionLimits::fromJson(QJsonObject{}).maxMemoryBytes, qint64(0));
        for (const char* loosen : {R"({"maxMemoryBytes": 0})", R"({"maxMemoryBytes": 8589934592})",
                                   R"({"maxProcesses": 257})"}) {
            const auto error = tighten(s, parse(loosen), &limits);
            QVERIFY2(error, loosen);
            QCOMPARE(error->code, QStringLiteral("quota_override_not_tighter"));
        }
        QVERIFY(tighten(s, parse(R"({"maxProcesses": 4194305})"), &limits));
    }

    void testCpuLimitIsMillicoresUnlimitedByDefaultAndMayOnlyTighten() {
        QCOMPARE(QuotaSettings{}.maxCpuMillicores, qint64(0));
        QuotaSettings out;
        QVERIFY(!QuotaSettings::fromJson(parse(R"({"maxCpuMillicores": 1000000})"), {}, &out));
        QCOMPARE(out.maxCpuMillicores, qint64(1000000));
        for (const char* bad : {R"({"maxCpuMillicores": 1000001})", R"({"maxCpuMillicores": 1.5})",
                                R"({"maxCpuMillicores": -1})"}) {
            const auto error = QuotaSettings::fromJson(parse(bad), {}, &out);
            QVERIFY2(error && error->message.contains("maxCpuMillicores"), bad);
        }
        ExecutionLimits limits;
        // Under an unlimited setting any value is taken; under 2 cores only up to 2000.
        QVERIFY(!tighten(QuotaSettings{}, parse(R"({"maxCpuMillicores": 250})"), &limits));
        QCOMPARE(limits.maxCpuMillicores, qint64(250));
        QuotaSettings s;
        s.maxCpuMillicores = 2000;
        QVERIFY(!tighten(s, parse("{}"), &limits));
        QCOMPARE(limits.maxCpuMillicores, qint64(2000));
        QCOMPARE(ExecutionLimits::fromJson(limits.toJson()).maxCpuMillicores, qint64(2000));
        const auto looser = tighten(s, parse(R"({"maxCpuMillicores": 2001})"), &limits);
        QVERIFY(looser);
        QCOMPARE(looser->code, QStringLiteral("quota_override_not_tighter"));
    }

    void testProcessBudgetIsCheckedAgainstPidMax() {
        QuotaSettings s;
        s.maxConcurrentExecutions = 16;
        s.maxProcesses = 1024;
        QVERIFY(!s.validateForHost(32768)); // 16384 = half: allowed (positive control)
        s.maxProcesses = 1025;
        const auto error = s.validateForHost(32768);
        QVERIFY(error);
        QCOMPARE(error->code, QStringLiteral("invalid_quota"));
        QVERIFY(error->message.contains("pid_max 32768"));
        QVERIFY(!s.validateForHost(0)); // unknown pid_max: not checked
        s.maxProcesses = 0;             // unlimited: not a product to check (health warns)
        QVERIFY(!s.validateForHost(32768));
    }
};

QTEST_GUILESS_MAIN(TestQuotaSettings)
#include "test_quota_settings.moc"
