// GET /metrics as Prometheus reads it (docs/metrics.md "Tests"): `promtool check metrics` finds
// nothing to say about a real scrape (parse and lint), and a real Prometheus, started on
// 127.0.0.1 with its own configuration (bearer_token_file = the agent's metrics.token,
// scrape_interval 1s) and its own TSDB under a temporary directory, sees the target up and the
// agent's series. Both need the Debian package prometheus (.ci/run installs it without starting
// its service); without promtool or prometheus the test says so on stderr and exits 77, which
// ctest reports as skipped (SKIP_RETURN_CODE in tests/integration/CMakeLists.txt).
#include "support/AgentProcess.h"
#include "support/MetricsScrape.h"
#include "support/RawHttp.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QScopeGuard>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QUrl>

#include <cstdio>

using namespace runbox;
using namespace runbox::testsupport;

namespace {
/// `promtool check metrics` on @p text: its exit code, and what it printed in @p output.
int promtoolCheck(const QString& promtool, const QByteArray& text, QByteArray* output) {
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(promtool, {QStringLiteral("check"), QStringLiteral("metrics")});
    if (!p.waitForStarted(10000))
        return -1;
    p.write(text);
    p.closeWriteChannel();
    if (!p.waitForFinished(30000))
        return -1;
    *output = p.readAll();
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

/// A loopback port that was free a moment ago.
quint16 freePort() {
    QTcpServer probe;
    return probe.listen(QHostAddress::LocalHost, 0) ? probe.serverPort() : 0;
}

/// `GET /api/v1/query?query=@p query` on the Prometheus at @p port: its `data.result` array
/// (empty when it did not answer yet).
QJsonArray promQuery(quint16 port, const QString& query) {
    RawHttpConnection c;
    if (!c.connectTo(port, 2000))
        return {};
    const QByteArray target = "/api/v1/query?query=" + QUrl::toPercentEncoding(query);
    if (!c.send(buildRequest("GET", target, {})))
        return {};
    const RawHttpResponse r = c.readResponse(5000);
    return r.status == 200 ? r.json().value("data").toObject().value("result").toArray()
                           : QJsonArray();
}
} // namespace

class TestMetricsPrometheus final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(m_agent.start(), qPrintable(m_agent.errorString()));
        const QString ws = m_agent.createWorkspace();
        QVERIFY2(!ws.isEmpty(), qPrintable(m_agent.errorString()));
        // Series in every execution family: one completed, one failed.
        QCOMPARE(m_agent.shell(ws, QStringLiteral("echo hi")).status(),
                 QStringLiteral("completed"));
        QCOMPARE(m_agent.shell(ws, QStringLiteral("exit 1")).status(), QStringLiteral("failed"));
        m_token = readMetricsToken(m_agent.stateDir());
        QVERIFY(!m_token.isEmpty());
    }
    void cleanupTestCase() { QVERIFY2(m_agent.stop(), qPrintable(m_agent.log())); }

    void testPromtoolFindsNothingToSay() {
        const QString promtool = QStandardPaths::findExecutable(QStringLiteral("promtool"));
        QVERIFY(!promtool.isEmpty()); // main() skipped the test without it
        // Positive control: promtool does object to a counter without _total and to bad quoting.
        QByteArray said;
        QVERIFY(promtoolCheck(promtool, "# HELP x X.\n# TYPE x counter\nx 1\n", &said) != 0);
        QVERIFY(promtoolCheck(promtool,
                              "# HELP x_total X.\n# TYPE x_total counter\nx_total{a=\"1} 1\n",
                              &said) != 0);
        const RawHttpResponse scrape = scrapeMetrics(m_agent.port(), m_token);
        QCOMPARE(scrape.status, 200);
        QVERIFY(scrape.body.contains("runbox_executions_total{tier=\"strong\",kind=\"shell\","
                                     "state=\"failed\"} 1\n"));
        QVERIFY(scrape.body.contains("runbox_execution_duration_seconds_bucket{tier=\"strong\","
                                     "le=\"+Inf\"} 2\n"));
        const int rc = promtoolCheck(promtool, scrape.body, &said);
        QVERIFY2(rc == 0 && said.trimmed().isEmpty(),
                 qPrintable(QStringLiteral("rc %1: %2\n%3")
                                .arg(rc)
                                .arg(QString::fromUtf8(said), QString::fromUtf8(scrape.body))));
    }

    void testRealPrometheusScrapesTheAgent() {
        const QString prometheus = QStandardPaths::findExecutable(QStringLiteral("prometheus"));
        QVERIFY(!prometheus.isEmpty()); // main() skipped the test without it
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString config = dir.filePath(QStringLiteral("prometheus.yml"));
        QFile yml(config);
        QVERIFY(yml.open(QIODevice::WriteOnly));
        yml.write(QStringLiteral("global:\n"
                                 "  scrape_interval: 1s\n"
                                 "  scrape_timeout: 1s\n"
                                 "  evaluation_interval: 1s\n"
                                 "scrape_configs:\n"
                                 "  - job_name: runbox\n"
                                 "    metrics_path: /metrics\n"
                                 "    bearer_token_file: %1\n"
                                 "    static_configs:\n"
                                 "      - targets: ['127.0.0.1:%2']\n")
                      .arg(m_agent.stateDir() + QStringLiteral("/metrics.token"))
                      .arg(m_agent.port())
                      .toUtf8());
        yml.close();
        const quint16 port = freePort();
        QVERIFY(port != 0);
        QProcess server;
        server.setProcessChannelMode(QProcess::MergedChannels);
        server.start(prometheus,
                     {QStringLiteral("--config.file=") + config,
                      QStringLiteral("--storage.tsdb.path=") + dir.filePath(QStringLiteral("tsdb")),
                      QStringLiteral("--web.listen-address=127.0.0.1:%1").arg(port)});
        QVERIFY2(server.waitForStarted(10000), qPrintable(server.errorString()));
        const auto stopServer = qScopeGuard([&server] {
            server.terminate();
            if (!server.waitForFinished(15000))
                server.kill();
            server.waitForFinished(5000);
        });

        QString up;
        QJsonArray series;
        const QDeadlineTimer deadline(90000);
        while (!deadline.hasExpired() && server.state() == QProcess::Running) {
            const QJsonArray result = promQuery(port, QStringLiteral("up{job=\"runbox\"}"));
            up = result.isEmpty() ? QString()
                                  : result[0].toObject().value("value").toArray().at(1).toString();
            if (up == QLatin1String("1")) {
                series =
                    promQuery(port, QStringLiteral("runbox_executions_total{state=\"failed\"}"));
                if (!series.isEmpty())
                    break;
            }
            QThread::msleep(250);
        }
        QVERIFY2(up == QLatin1String("1"), server.readAll().right(4000).constData());
        QVERIFY2(!series.isEmpty(), server.readAll().right(4000).constData());
        const QJsonObject labels = series[0].toObject().value("metric").toObject();
        QCOMPARE(labels.value("tier").toString(), QStringLiteral("strong"));
        QCOMPARE(labels.value("kind").toString(), QStringLiteral("shell"));
        QCOMPARE(series[0].toObject().value("value").toArray().at(1).toString(),
                 QStringLiteral("1"));
        // Prometheus's own scrapes are counted by the agent, under the route pattern.
        const RawHttpResponse scrape = scrapeMetrics(m_agent.port(), m_token);
        QVERIFY(parseExposition(scrape.body)
                    .value(QStringLiteral("runbox_http_requests_total{route=\"/metrics\","
                                          "method=\"GET\",code=\"200\"}")) >= 2);
    }

private:
    AgentProcess m_agent;
    QByteArray m_token;
};

int main(int argc, char** argv) {
    for (const char* tool : {"promtool", "prometheus"})
        if (QStandardPaths::findExecutable(QString::fromLatin1(tool)).isEmpty()) {
            fprintf(stderr,
                    "SKIPPED test_metrics_prometheus: %s is not installed (Debian package "
                    "prometheus; scripts/install-test-deps installs it, .ci/run runs that)\n",
                    tool);
            return 77; // SKIP_RETURN_CODE
        }
    QCoreApplication app(argc, argv);
    TestMetricsPrometheus test;
    return QTest::qExec(&test, argc, argv);
}
#include "test_metrics_prometheus.moc"
