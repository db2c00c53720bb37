// Retention against the real agent (docs/STORE.md "Retention"): with a small
// RUNBOX_LOG_STORE_MAX_BYTES, managed executions that produce output push the log store over
// its bound, the oldest finished are removed (GET → 404, their ids stay taken) while the newest
// stay readable, /v1/health `logStore` shows the figures, and a restart measures the same size.
#include "support/AgentProcess.h"
#include "support/ManagedApi.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QTest>

using namespace runbox;
using namespace runbox::testsupport;

namespace {

constexpr qint64 kOutputBytes = 40000;
constexpr qint64 kMaxBytes = 100000; // two logs fit, three do not

QJsonObject writesOutput(const QString& id) {
    return {{"executionId", id},
            {"argv",
             QJsonArray{"/usr/bin/bash", "-c",
                        QStringLiteral("head -c %1 /dev/zero | tr '\\0' x").arg(kOutputBytes)}}};
}

} // namespace

class TestLogStoreRetention final : public QObject {
    Q_OBJECT
private:
    AgentProcess m_agent;
    AgentOptions m_options;
    ApiClient& client() { return *m_agent.client(); }

    int statusOf(const QString& id) {
        return client().call("GET", "/v1/executions/" + id.toUtf8(), {}).status;
    }
    QJsonObject logStore() {
        return client().call("GET", "/v1/health", {}, 30000).json().value("logStore").toObject();
    }
    bool runToCompletion(const QString& ws, const QString& id) {
        const ApiResponse r = submitExecution(client(), ws, writesOutput(id));
        if (r.status != 202) {
            qWarning("submit %s: %d %s", qPrintable(id), r.status, r.body.constData());
            return false;
        }
        return waitUntilFinal(client(), id).value("state").toString() == QLatin1String("completed");
    }

private Q_SLOTS:
    void initTestCase() {
        m_options.extraEnv.insert(QStringLiteral("RUNBOX_LOG_STORE_MAX_BYTES"),
                                  QString::number(kMaxBytes));
        QVERIFY2(m_agent.start(m_options), qPrintable(m_agent.errorString()));
    }

    void testOldestFinishedAreRemovedOverTheBoundNewestStay() {
        const QJsonObject empty = logStore();
        QCOMPARE(empty.value("maxBytes").toInteger(), kMaxBytes);
        QCOMPARE(empty.value("retentionDays").toInteger(), qint64(30));
        QCOMPARE(empty.value("executions").toInteger(), qint64(0));
        QCOMPARE(empty.value("bytes").toInteger(), qint64(0));

        const QString ws = m_agent.createWorkspace();
        QVERIFY(!ws.isEmpty());
        QVERIFY(runToCompletion(ws, QStringLiteral("ret-1")));
        QVERIFY(runToCompletion(ws, QStringLiteral("ret-2")));
        // Positive control: two logs fit under the bound, nothing is removed.
        const QJsonObject two = logStore();
        QCOMPARE(two.value("executions").toInteger(), qint64(2));
        QVERIFY2(two.value("bytes").toInteger() > 2 * kOutputBytes,
                 qPrintable(QString::number(two.value("bytes").toInteger())));
        QVERIFY(two.value("bytes").toInteger() <= kMaxBytes);
        QCOMPARE(statusOf(QStringLiteral("ret-1")), 200);

        QVERIFY(runToCompletion(ws, QStringLiteral("ret-3")));
        QTRY_COMPARE_WITH_TIMEOUT(statusOf(QStringLiteral("ret-1")), 404, 10000);
        QCOMPARE(statusOf(QStringLiteral("ret-2")), 200);
        QVERIFY(runToCompletion(ws, QStringLiteral("ret-4")));
        QTRY_COMPARE_WITH_TIMEOUT(statusOf(QStringLiteral("ret-2")), 404, 10000);
        const ApiResponse gone = client().call("GET", "/v1/executions/ret-1", {});
        QCOMPARE(gone.json().value("error").toObject().value("code").toString(),
                 QStringLiteral("execution_not_found"));

        // The newest stay, with their whole output.
        for (const char* id : {"ret-3", "ret-4"}) {
            QCOMPARE(statusOf(QLatin1String(id)), 200);
            const LogCapture log = readLog(client(), QLatin1String(id), 0, false);
            QCOMPARE(log.status, 200);
            QCOMPARE(qint64(log.stdoutBytes.size()), kOutputBytes);
        }
        const QJsonObject after = logStore();
        QCOMPARE(after.value("executions").toInteger(), qint64(2));
        const qint64 bytes = after.value("bytes").toInteger();
        qInfo("logStore: %lld bytes with ret-3 and ret-4 kept, %lld with ret-1 and ret-2 before "
              "the third",
              qlonglong(bytes), qlonglong(two.value("bytes").toInteger()));
        QVERIFY2(bytes > 2 * kOutputBytes && bytes <= kMaxBytes,
                 qPrintable(QString::number(bytes)));

        // A removed id is still taken.
        const ApiResponse replay = submitExecution(client(), ws, writesOutput("ret-1"));
        QCOMPARE(replay.status, 409);
        QCOMPARE(replay.json().value("error").toObject().value("code").toString(),
                 QStringLiteral("duplicate_execution_id"));

        // A restart measures the log store again: the same figures as the running total.
        QVERIFY2(m_agent.stop(), qPrintable(m_agent.log()));
        QVERIFY2(m_agent.start(m_options), qPrintable(m_agent.errorString()));
        const QJsonObject restarted = logStore();
        QCOMPARE(restarted.value("bytes").toInteger(), bytes);
        QCOMPARE(restarted.value("executions").toInteger(), qint64(2));
        QCOMPARE(statusOf(QStringLiteral("ret-3")), 200);
    }
};

QTEST_GUILESS_MAIN(TestLogStoreRetention)
#include "test_log_store_retention.moc"
