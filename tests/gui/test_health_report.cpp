// HealthReport: /v1/health becomes findings; each degradation is a warning with its explanation;
// an unusable sandbox is an error; what an agent does not report is said, not guessed.
#include "console/api/HealthReport.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

using namespace runbox::console;
using Severity = HealthFinding::Severity;

namespace {
QJsonObject health(const QString& procMode, const QString& userns, bool usable,
                   const QJsonArray& warnings = {}) {
    return {
        {"status", "ok"},
        {"version", "0.1.0"},
        {"protocol", 1},
        {"sandbox", QJsonObject{{"usable", usable},
                                {"ready", usable},
                                {"bwrapPath", "/usr/bin/bwrap"},
                                {"bwrapVersion", "bubblewrap 0.8.0"},
                                {"procMode", procMode},
                                {"nestedUserns", userns},
                                {"procDetail", "Can't mount proc"},
                                {"unavailableReason", "bwrap: setting up uid map: denied"},
                                {"warnings", warnings}}},
        {"seccomp", QJsonObject{{"arch", "x86_64"}, {"deniedAction", "EPERM"}}},
        {"limits", QJsonObject{{"executionTimeoutMs", 600000}, {"maxOutputBytes", 1073741824.0}}},
        {"languages", QJsonArray{"shell", "python"}},
        {"workspaces", 3}};
}

QList<HealthFinding> ofSeverity(const QList<HealthFinding>& all, Severity s) {
    QList<HealthFinding> out;
    for (const HealthFinding& f : all)
        if (f.severity == s)
            out << f;
    return out;
}
} // namespace

class TestHealthReport final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void testSoundSandboxHasNoWarnings() {
        const HealthReport r(health("new", "blocked", true));
        QVERIFY(r.sandboxUsable());
        QCOMPARE(r.sandboxHeadline(), QStringLiteral("Sound"));
        QVERIFY(ofSeverity(r.sandboxFindings(), Severity::Warning).isEmpty());
        QCOMPARE(r.sandboxSeverity(), Severity::Info); // Landlock not reported: said, not guessed
        QCOMPARE(r.workspaceCount(), 3);
        QCOMPARE(r.languages(), (QStringList{"shell", "python"}));
        QVERIFY(!r.runningCount());
    }

    void testEachDegradationIsAWarningWithItsExplanation() {
        const HealthReport r(health("bind", "option-rejected", true,
                                    QJsonArray{"agent says: /proc bound from the host"}));
        const QList<HealthFinding> warnings = ofSeverity(r.sandboxFindings(), Severity::Warning);
        QCOMPARE(warnings.size(), 3);
        QVERIFY(warnings[0].explanation.contains(QStringLiteral("Can't mount proc")));
        QVERIFY(warnings[1].explanation.contains(QStringLiteral("seccomp")));
        QCOMPARE(warnings[2].summary, QStringLiteral("agent says: /proc bound from the host"));
        QVERIFY(r.sandboxHeadline().startsWith(QStringLiteral("Sound, with")));
    }

    void testUnusableSandboxIsAnError() {
        const HealthReport r(health("new", "unusable", false));
        QVERIFY(!r.sandboxUsable());
        QCOMPARE(r.sandboxSeverity(), Severity::Error);
        QVERIFY(r.sandboxFindings().first().explanation.contains(QStringLiteral("uid map")));
        QVERIFY(r.sandboxHeadline().startsWith(QStringLiteral("Unusable")));
    }

    void testEgressAndLandlockWhenReported() {
        QJsonObject h = health("new", "blocked", true);
        QCOMPARE(HealthReport(h).egressFinding().severity, Severity::Info);
        h.insert("egress", QJsonObject{{"available", false}, {"reason", "no resolver"}});
        h.insert("landlock", QJsonObject{{"abi", 7}});
        h.insert("executions", QJsonObject{{"running", 2}, {"queued", 5}});
        const HealthReport r(h);
        QCOMPARE(r.egressFinding().severity, Severity::Warning);
        QCOMPARE(r.egressFinding().explanation, QStringLiteral("no resolver"));
        QCOMPARE(r.sandboxSeverity(), Severity::Ok);
        QCOMPARE(r.runningCount(), 2);
        QCOMPARE(r.queuedCount(), 5);
    }

    void testLightWorkspacesAsIssue7ReportsThem() {
        QJsonObject h = health("new", "blocked", true);
        h.insert("light", QJsonObject{{"available", true},
                                      {"warnings", QJsonArray{"uid pool is small"}},
                                      {"confinement", QJsonObject{{"landlockAbi", 6}}}});
        QList<HealthFinding> findings = HealthReport(h).sandboxFindings();
        QString all;
        for (const HealthFinding& f : findings)
            all += f.topic + u':' + f.summary + u'\n';
        QVERIFY2(all.contains(QStringLiteral("Landlock:ABI 6")), qPrintable(all));
        QCOMPARE(ofSeverity(findings, Severity::Warning).size(), 1);
        h.insert("light", QJsonObject{{"available", false}, {"reason", "no Landlock in kernel"}});
        findings = HealthReport(h).sandboxFindings();
        QCOMPARE(ofSeverity(findings, Severity::Warning).size(), 1);
        QCOMPARE(ofSeverity(findings, Severity::Warning).first().explanation,
                 QStringLiteral("no Landlock in kernel"));
    }

    void testFormatting() {
        QCOMPARE(formatBytes(512), QStringLiteral("512 B"));
        QCOMPARE(formatBytes(qint64(10) << 30), QStringLiteral("10.00 GiB"));
        QCOMPARE(formatDurationMs(850), QStringLiteral("850 ms"));
        QCOMPARE(formatDurationMs(7200000), QStringLiteral("2 h 0 min"));
    }
};

QTEST_MAIN(TestHealthReport)
#include "test_health_report.moc"
