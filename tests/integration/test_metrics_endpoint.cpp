// GET /metrics against the real agent (docs/metrics.md): the bearer metrics token and nothing
// else opens it, it opens nothing else, and the counters move by exactly what the test did
// (executions by tier, kind and state, their histograms, HTTP requests by route, bytes, egress
// decisions), scraped before and after.
#include "shared/ApiClient.h"
#include "support/AgentProcess.h"
#include "support/ManagedApi.h"
#include "support/MetricsScrape.h"
#include "support/RawHttp.h"

#include <QBuffer>
#include <QDateTime>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkReply>
#include <QProcess>
#include <QSignalSpy>
#include <QTest>

#include <sys/stat.h>

using namespace runbox;
using namespace runbox::testsupport;

namespace {
const QString kExecRoute =
    QStringLiteral("runbox_http_requests_total{route=\"/v1/workspaces/{id}/exec\",method=\"POST\","
                   "code=\"200\"}");

QString executions(const char* kind, const char* state) {
    return QStringLiteral("runbox_executions_total{tier=\"strong\",kind=\"%1\",state=\"%2\"}")
        .arg(QLatin1String(kind), QLatin1String(state));
}
} // namespace

class TestMetricsEndpoint final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(m_agent.start(), qPrintable(m_agent.errorString()));
        m_ws = m_agent.createWorkspace();
        QVERIFY2(!m_ws.isEmpty(), qPrintable(m_agent.errorString()));
        m_token = readMetricsToken(m_agent.stateDir());
        QVERIFY(!m_token.isEmpty());
    }
    void cleanupTestCase() { QVERIFY2(m_agent.stop(), qPrintable(m_agent.log())); }

    void testTokenFileIsMadeOnFirstStart() {
        const QString path = m_agent.stateDir() + QStringLiteral("/metrics.token");
        struct stat st {};
        QCOMPARE(::stat(QFile::encodeName(path).constData(), &st), 0);
        QCOMPARE(st.st_mode & 0777, mode_t(0600));
        QCOMPARE(m_token.size(), 64);
        QCOMPARE(QByteArray::fromHex(m_token).toHex(), m_token);
        QVERIFY(m_token != m_agent.token());
    }

    void testOnlyTheMetricsTokenOpensMetrics() {
        const RawHttpResponse ok = scrapeMetrics(m_agent.port(), m_token); // positive control
        QCOMPARE(ok.status, 200);
        const QString refused = QStringLiteral(
            "runbox_http_requests_total{route=\"/metrics\",method=\"GET\",code=\"401\"}");
        const double refusedBefore = parseExposition(ok.body).value(refused);
        QCOMPARE(ok.header("content-type"), QByteArray("text/plain; version=0.0.4; charset=utf-8"));
        QVERIFY(ok.body.contains("# TYPE runbox_executions_total counter\n"));
        const QByteArray wrong = QByteArray(32, 'a').toHex();
        for (const QByteArray& bearer : {QByteArray(), wrong, m_agent.token()}) {
            const RawHttpResponse r = scrapeMetrics(m_agent.port(), bearer);
            QCOMPARE(r.status, 401);
            QCOMPARE(r.errorCode(), QStringLiteral("unauthorized"));
            QVERIFY(!r.json().value("error").toObject().value("message").toString().isEmpty());
            QVERIFY(!r.body.contains("runbox_"));
        }
        // The refusals are counted, by route pattern.
        QCOMPARE(scrape().value(refused) - refusedBefore, 3.0);
    }

    void testMetricsTokenOpensNoOtherRoute() {
        // Positive control: the agent token, signed, lists the workspaces.
        RawHttpConnection control;
        QVERIFY(control.connectTo(m_agent.port()));
        QVERIFY(control.send(buildRequest("GET", "/v1/workspaces",
                                          signedHeaders(m_agent.token(), "GET", "/v1/workspaces",
                                                        {}, QDateTime::currentMSecsSinceEpoch()))));
        QCOMPARE(control.readResponse().status, 200);
        const QList<HeaderList> attempts{
            {{"Authorization", "Bearer " + m_token}}, // the metrics token as a bare bearer
            signedHeaders(m_token, "GET", "/v1/workspaces", {},
                          QDateTime::currentMSecsSinceEpoch()), // …and signed with it
            {{"Authorization", "Bearer " + m_agent.token()}},   // the agent token unsigned
        };
        for (const HeaderList& headers : attempts) {
            RawHttpConnection c;
            QVERIFY(c.connectTo(m_agent.port()));
            QVERIFY(c.send(buildRequest("GET", "/v1/workspaces", headers)));
            const RawHttpResponse r = c.readResponse();
            QCOMPARE(r.status, 401);
            QVERIFY2(r.errorCode() == QLatin1String("unauthorized") ||
                         r.errorCode() == QLatin1String("signature_invalid"),
                     r.body.constData());
        }
    }

    void testExecutionCountersMoveByWhatRan() {
        const QMap<QString, double> before = scrape();
        const ExecOutcome ok =
            m_agent.shell(m_ws, QStringLiteral("head -c 10000 /dev/zero | tr '\\0' a"));
        QCOMPARE(ok.status(), QStringLiteral("completed"));
        QCOMPARE(ok.stdoutBytes.size(), 10000);
        QCOMPARE(m_agent.shell(m_ws, QStringLiteral("exit 3")).status(), QStringLiteral("failed"));
        QCOMPARE(m_agent.python(m_ws, QStringLiteral("print(1)")).status(),
                 QStringLiteral("completed"));
        const ApiResponse submitted = submitExecution(
            *m_agent.client(), m_ws, {{"kind", "python"}, {"code", "import sys; sys.exit(4)"}});
        QCOMPARE(submitted.status, 202);
        const QJsonObject record =
            waitUntilFinal(*m_agent.client(), submitted.json().value("executionId").toString());
        QCOMPARE(record.value("state").toString(), QStringLiteral("failed"));

        const QMap<QString, double> after = scrape();
        const auto delta = [&](const QString& key) { return after.value(key) - before.value(key); };
        QCOMPARE(delta(executions("shell", "completed")), 1.0);
        QCOMPARE(delta(executions("shell", "failed")), 1.0);
        QCOMPARE(delta(executions("python", "completed")), 1.0);
        QCOMPARE(delta(executions("python", "failed")), 1.0); // the managed one
        QCOMPARE(delta(QStringLiteral("runbox_execution_duration_seconds_count{tier=\"strong\"}")),
                 4.0);
        QVERIFY(delta(QStringLiteral("runbox_execution_duration_seconds_sum{tier=\"strong\"}")) >
                0);
        QCOMPARE(delta(QStringLiteral(
                     "runbox_execution_duration_seconds_bucket{tier=\"strong\",le=\"+Inf\"}")),
                 4.0);
        QCOMPARE(delta(QStringLiteral("runbox_sandbox_setup_seconds_count{tier=\"strong\"}")), 4.0);
        QCOMPARE(delta(kExecRoute), 3.0);
        QCOMPARE(delta(QStringLiteral(
                     "runbox_http_requests_total{route=\"/v1/executions\",method=\"POST\","
                     "code=\"202\"}")),
                 1.0);
        QVERIFY2(delta(QStringLiteral("runbox_stream_bytes_total")) >= 10000,
                 qPrintable(QString::number(delta(QStringLiteral("runbox_stream_bytes_total")))));
        QCOMPARE(after.value(QStringLiteral("runbox_executions_running")), 0.0);
        QCOMPARE(after.value(QStringLiteral("runbox_execution_queue_length")), 0.0);
        QCOMPARE(delta(QStringLiteral(
                     "runbox_sandbox_setup_failures_total{tier=\"strong\",cause=\"sandbox\"}")),
                 0.0);
    }

    void testFileBytesAreCounted() {
        const QMap<QString, double> before = scrape();
        QByteArray content(5000, 'x');
        QBuffer body(&content);
        QVERIFY(body.open(QIODevice::ReadOnly));
        const QByteArray path = "/v1/workspaces/" + m_ws.toLatin1() + "/files/metrics.bin";
        QNetworkReply* put =
            m_agent.client()->sendStream("PUT", path, &body, ApiClient::sha256OfDevice(&body));
        QSignalSpy done(put, &QNetworkReply::finished);
        QVERIFY(done.wait(30000));
        const int putStatus = put->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        put->deleteLater();
        QVERIFY2(putStatus == 200 || putStatus == 201, qPrintable(QString::number(putStatus)));
        const ApiResponse got = m_agent.client()->call("GET", path);
        QCOMPARE(got.status, 200);
        QCOMPARE(got.body, content);
        const QMap<QString, double> after = scrape();
        QCOMPARE(after.value(QStringLiteral("runbox_file_upload_bytes_total")) -
                     before.value(QStringLiteral("runbox_file_upload_bytes_total")),
                 5000.0);
        QCOMPARE(after.value(QStringLiteral("runbox_file_download_bytes_total")) -
                     before.value(QStringLiteral("runbox_file_download_bytes_total")),
                 5000.0);
    }

    void testDeniedEgressIsCountedByVerdict() {
        const QJsonObject egress =
            m_agent.client()->call("GET", "/v1/health", {}).json().value("egress").toObject();
        QVERIFY2(egress.value("available").toBool(), QJsonDocument(egress).toJson().constData());
        const QJsonObject policy{{"mode", "domain-allowlist"},
                                 {"allowedDomains", QJsonArray{"allowed.test"}}};
        QCOMPARE(m_agent.client()->call("PUT", "/v1/settings/network-policy", policy).status, 200);
        const QString key = QStringLiteral(
            "runbox_egress_decisions_total{verdict=\"denied\",reason=\"not_in_allowlist\"}");
        const QMap<QString, double> before = scrape();
        const ExecOutcome run = m_agent.python(
            m_ws, QStringLiteral("import urllib.error, urllib.request\n"
                                 "try:\n"
                                 "    urllib.request.urlopen('http://denied.test/', timeout=20)\n"
                                 "except urllib.error.HTTPError as e:\n"
                                 "    print('refused', e.code, e.read().decode())\n"));
        QCOMPARE(
            m_agent.client()->call("PUT", "/v1/settings/network-policy", {{"mode", "none"}}).status,
            200);
        QVERIFY2(run.stdoutText().startsWith(QLatin1String("refused 403")),
                 qPrintable(run.stdoutText() + run.stderrText()));
        const QMap<QString, double> after = scrape();
        QCOMPARE(after.value(key) - before.value(key), 1.0);
        QCOMPARE(after.value(QStringLiteral(
                     "runbox_egress_decisions_total{verdict=\"allowed\",reason=\"allowed\"}")) -
                     before.value(QStringLiteral(
                         "runbox_egress_decisions_total{verdict=\"allowed\",reason=\"allowed\"}")),
                 0.0);
    }

    void testGaugesMirrorTheirOwners() {
        const QMap<QString, double> now = scrape();
        const QJsonObject quotas =
            m_agent.client()->call("GET", "/v1/settings/quotas").json().value("quotas").toObject();
        QVERIFY(quotas.contains("maxLightWorkspaces"));
        QCOMPARE(now.value(QStringLiteral("runbox_light_workspaces_capacity"), -1),
                 quotas.value("maxLightWorkspaces").toDouble());
        QCOMPARE(now.value(QStringLiteral("runbox_light_workspaces"), -1), 0.0);
        // No chips on this host: every state is there, at 0.
        for (const char* state : {"held", "free", "unusable"})
            QCOMPARE(
                now.value(
                    QStringLiteral("runbox_npu_chips{state=\"%1\"}").arg(QLatin1String(state)), -1),
                0.0);
    }

    void testRotatedTokenTakesEffectAtTheNextScrape() {
        QCOMPARE(scrapeMetrics(m_agent.port(), m_token).status, 200); // positive control
        QProcess rotate;
        const QString agent = QStringLiteral(RUNBOX_BINARY_DIR "/agent/runbox-agent");
        const QStringList args{QStringLiteral("--rotate-metrics-token"),
                               QStringLiteral("--state-dir"), m_agent.stateDir()};
        if (AgentProcess::runningAsRoot()) // as the agent's own user: the file stays its own
            rotate.start(QStringLiteral("/usr/bin/setpriv"),
                         QStringList{QStringLiteral("--reuid=%1").arg(m_agent.agentUid()),
                                     QStringLiteral("--regid=%1").arg(m_agent.agentUid()),
                                     QStringLiteral("--clear-groups"), agent}
                             << args);
        else
            rotate.start(agent, args);
        QVERIFY(rotate.waitForFinished(30000));
        QVERIFY2(rotate.exitCode() == 0, rotate.readAllStandardError().constData());
        const QByteArray fresh = readMetricsToken(m_agent.stateDir());
        QCOMPARE(fresh.size(), 64);
        QVERIFY(fresh != m_token);
        QCOMPARE(scrapeMetrics(m_agent.port(), m_token).status, 401);
        QCOMPARE(scrapeMetrics(m_agent.port(), fresh).status, 200);
        m_token = fresh;
    }

private:
    QMap<QString, double> scrape() {
        const RawHttpResponse r = scrapeMetrics(m_agent.port(), m_token);
        if (r.status != 200)
            qWarning("scrape: %d %s", r.status, r.body.constData());
        return parseExposition(r.body);
    }

    AgentProcess m_agent;
    QString m_ws;
    QByteArray m_token;
};

QTEST_GUILESS_MAIN(TestMetricsEndpoint)
#include "test_metrics_endpoint.moc"
