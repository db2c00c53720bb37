// A host NPU broker job's life through the REAL agent (docs/npu.md "Host broker"): cancel ends
// its whole process group (through /v1/npu/jobs and /v1/executions), it is an execution of kind
// broker with the same log, its result lists the outputs it left (409 while it runs), and it
// survives an agent SIGKILL as `lost`. The routes and their refusals: test_npu_broker_routes.
#include "NpuBrokerFixture.h"

#include <QCryptographicHash>
#include <QTimer>

#include <csignal>

using namespace runbox;
using namespace runbox::testsupport;

class TestNpuBrokerJobs final : public NpuBrokerFixture {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        QString error;
        const QString skip = startBrokerAgent(&error);
        if (!skip.isEmpty())
            QSKIP(qPrintable(skip));
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    void cleanupTestCase() { stopBrokerAgent(); }

    void testCancelEndsTheJobsWholeGroup() {
        QString id;
        const int pgid = startHoldJob(&id); // 0 unless 202 and the job wrote its group id
        QVERIFY(pgid > 1);
        // Positive control: the shell and both sleepers run in the job's group.
        QVERIFY2(membersOfGroup(pgid).size() >= 3, qPrintable(QString::number(pgid)));

        const ApiResponse cancelled =
            client()->call("POST", "/v1/npu/jobs/" + id.toUtf8() + "/cancel");
        QCOMPARE(cancelled.status, 200);
        const QJsonObject job = waitForJob(id, [](const QJsonObject& j) {
            const QString s = j.value("state").toString();
            return s != QLatin1String("queued") && s != QLatin1String("running");
        });
        QCOMPARE(job.value("state").toString(), QStringLiteral("cancelled"));
        QVERIFY2(membersOfGroup(pgid).isEmpty(), qPrintable(QString::number(pgid)));
    }

    void testJobIsAnExecutionOfKindBroker() {
        // A broker job is listed, read and followed through the execution routes, from the
        // same record and the same log as /v1/npu/jobs.
        const ApiResponse r = submit({{"workloadId", "npu.echo"},
                                      {"workspace", m_ws},
                                      {"inputs", QJsonObject{{"data", "data.txt"}}}});
        QCOMPARE(r.status, 202);
        const QByteArray id = r.json().value("id").toString().toUtf8();
        const NdjsonResult npuLog =
            collectNdjson(client(), "GET", "/v1/npu/jobs/" + id + "/log?follow=true");
        QVERIFY(npuLog.finished && !npuLog.events.isEmpty());
        QCOMPARE(npuLog.events.last().value("status").toString(), QStringLiteral("completed"));

        const QJsonObject record = waitForExecution(client(), QString::fromUtf8(id), isFinalState);
        QCOMPARE(record.value("executionId").toString().toUtf8(), id);
        QCOMPARE(record.value("kind").toString(), QStringLiteral("broker"));
        QCOMPARE(record.value("workspace").toString(), m_ws);
        QCOMPARE(record.value("state").toString(), QStringLiteral("completed"));
        QCOMPARE(record.value("exitCode").toInt(-1), 0);
        QCOMPARE(record.value("provenance").toObject().value("workloadId").toString(),
                 QStringLiteral("npu.echo"));
        const qint64 stdoutBytes = record.value("logBytes").toObject().value("stdout").toInteger();
        QCOMPARE(stdoutBytes, qint64(outputOf(npuLog).size()) - 5); // "oops\n" is stderr

        auto listed = [&](const QByteArray& query) {
            const ApiResponse list = client()->call("GET", "/v1/executions" + query);
            if (list.status != 200)
                return false;
            for (const QJsonValue& v : list.json().value("executions").toArray())
                if (v.toObject().value("executionId").toString().toUtf8() == id)
                    return true;
            return false;
        };
        QVERIFY(listed(""));
        QVERIFY(listed("?kind=broker"));
        QVERIFY(listed("?workspace=" + m_ws.toUtf8() + "&kind=broker,shell"));
        QVERIFY(!listed("?kind=shell")); // control: the filter filters
        QCOMPARE(client()->call("GET", "/v1/executions?kind=nonsense").status, 400);

        // Followed from any offset through the execution route: exactly the same bytes.
        const NdjsonResult log =
            collectNdjson(client(), "GET", "/v1/executions/" + id + "/log?follow=true");
        QVERIFY(log.finished);
        QCOMPARE(outputOf(log), outputOf(npuLog));
        QCOMPARE(log.events.last().value("type").toString(), QStringLiteral("exit"));
        QCOMPARE(log.events.last().value("status").toString(), QStringLiteral("completed"));
        const NdjsonResult tail =
            collectNdjson(client(), "GET", "/v1/executions/" + id + "/log?offset=7");
        QCOMPARE(outputOf(tail), outputOf(npuLog).mid(7));
        // Past the end of the finished log: refused, as for any execution.
        const NdjsonResult past =
            collectNdjson(client(), "GET", "/v1/npu/jobs/" + id + "/log?offset=100000");
        QCOMPARE(past.status, 400);
        QCOMPARE(past.errorCode(), QStringLiteral("invalid_offset"));
    }

    void testResultListsOutputsWithSizesAndSha256() {
        QDir(wsFile("out")).removeRecursively();
        const ApiResponse r = submit({{"workloadId", "npu.write"}, {"workspace", m_ws}});
        QCOMPARE(r.status, 202);
        const QByteArray id = r.json().value("id").toString().toUtf8();
        const QJsonObject job = waitForJob(QString::fromUtf8(id), isFinal);
        QCOMPARE(job.value("state").toString(), QStringLiteral("completed"));

        const ApiResponse result = client()->call("GET", "/v1/npu/jobs/" + id + "/result");
        QCOMPARE(result.status, 200);
        QCOMPARE(result.json().value("id").toString().toUtf8(), id);
        QCOMPARE(result.json().value("state").toString(), QStringLiteral("completed"));
        QMap<QString, QJsonObject> outputs;
        for (const QJsonValue& v : result.json().value("outputs").toArray())
            outputs.insert(v.toObject().value("path").toString(), v.toObject());
        // Regular files only: the link the job planted is no output (and was not followed).
        QCOMPARE(outputs.keys(), (QStringList{"out/a.bin", "out/b.bin"}));
        QVERIFY(result.json().value("createdFiles").toArray().contains("out/link"));
        for (const QString& path : outputs.keys()) {
            QFile file(wsFile(path));
            QVERIFY(file.open(QIODevice::ReadOnly));
            const QByteArray bytes = file.readAll();
            QCOMPARE(outputs[path].value("sizeBytes").toInteger(), qint64(bytes.size()));
            QCOMPARE(outputs[path].value("sha256").toString(),
                     QString::fromLatin1(
                         QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex()));
        }
        QCOMPARE(outputs["out/a.bin"].value("sizeBytes").toInteger(), 3);
        QCOMPARE(outputs["out/b.bin"].value("sizeBytes").toInteger(), 200000);

        // The result is what the job left when it ended, not what the workspace holds later.
        const QJsonObject before = outputs["out/a.bin"];
        QFile a(wsFile("out/a.bin"));
        QVERIFY(a.open(QIODevice::WriteOnly | QIODevice::Truncate));
        a.write("changed afterwards");
        a.close();
        const ApiResponse again = client()->call("GET", "/v1/npu/jobs/" + id + "/result");
        bool same = false;
        for (const QJsonValue& v : again.json().value("outputs").toArray())
            same |= v.toObject() == before;
        QVERIFY(same);

        // Unknown job: 404; another workspace's token: 404.
        const ApiResponse unknown = client()->call("GET", "/v1/npu/jobs/no-such-job/result");
        QCOMPARE(unknown.status, 404);
        QCOMPARE(unknown.errorCode(), QStringLiteral("job_not_found"));
        QByteArray otherToken;
        QVERIFY(!m_agent->createWorkspace(&otherToken).isEmpty());
        ApiClient other(m_agent->baseUrl(), otherToken);
        QCOMPARE(other.call("GET", "/v1/npu/jobs/" + id + "/result").status, 404);
    }

    void testResultIsRefusedWhileTheJobRuns() {
        QFile::remove(wsFile(QStringLiteral("pgid")));
        const ApiResponse r = submit({{"workloadId", "npu.hold"}, {"workspace", m_ws}});
        QCOMPARE(r.status, 202);
        const QByteArray id = r.json().value("id").toString().toUtf8();
        const ApiResponse running = client()->call("GET", "/v1/npu/jobs/" + id + "/result");
        QCOMPARE(running.status, 409);
        QCOMPARE(running.errorCode(), QStringLiteral("job_not_finished"));
        QCOMPARE(client()->call("POST", "/v1/npu/jobs/" + id + "/cancel").status, 200);
        QCOMPARE(waitForJob(QString::fromUtf8(id), isFinal).value("state").toString(),
                 QStringLiteral("cancelled"));
        QCOMPARE(client()->call("GET", "/v1/npu/jobs/" + id + "/result").status, 200);
    }

    void testCancelThroughTheExecutionsRouteEndsTheGroup() {
        QString id;
        const int pgid = startHoldJob(&id); // 0 unless 202 and the job wrote its group id
        QVERIFY(pgid > 1);
        QVERIFY2(membersOfGroup(pgid).size() >= 3, qPrintable(QString::number(pgid))); // control
        const NdjsonResult follower = [&] {
            // A follower of the execution log gets the exit event once the cancel is done.
            QTimer::singleShot(300, [&] {
                const ApiResponse cancelled =
                    client()->call("POST", "/v1/executions/" + id.toUtf8() + "/cancel");
                QCOMPARE(cancelled.status, 200);
                QCOMPARE(cancelled.json().value("kind").toString(), QStringLiteral("broker"));
            });
            return collectNdjson(client(), "GET",
                                 "/v1/executions/" + id.toUtf8() + "/log?follow=true");
        }();
        QVERIFY(follower.finished && !follower.events.isEmpty());
        QCOMPARE(follower.events.last().value("type").toString(), QStringLiteral("exit"));
        QCOMPARE(follower.events.last().value("status").toString(), QStringLiteral("cancelled"));
        const QJsonObject record = waitForExecution(client(), id, isFinalState);
        QCOMPARE(record.value("state").toString(), QStringLiteral("cancelled"));
        QVERIFY2(membersOfGroup(pgid).isEmpty(), qPrintable(QString::number(pgid)));
    }

    void testJobSurvivesAgentSigkillAsLost() {
        QFile::remove(wsFile(QStringLiteral("chatty.pid")));
        const ApiResponse r = submit({{"workloadId", "npu.chatty"}, {"workspace", m_ws}});
        QCOMPARE(r.status, 202);
        const QByteArray id = r.json().value("id").toString().toUtf8();
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(wsFile(QStringLiteral("chatty.pid"))), 30000);
        QTRY_COMPARE_WITH_TIMEOUT(
            client()->call("GET", "/v1/npu/jobs/" + id).json().value("stdoutBytes").toInt(), 8,
            10000);
        QFile pidFile(wsFile(QStringLiteral("chatty.pid")));
        QVERIFY(pidFile.open(QIODevice::ReadOnly));
        const int pgid = pidFile.readAll().trimmed().toInt();
        QVERIFY(pgid > 1);

        m_agent->kill(); // SIGKILL: the agent cannot record anything more
        // Positive control: the job outlives the agent (its own session, no parent-death).
        QTest::qWait(200);
        QVERIFY2(!membersOfGroup(pgid).isEmpty(), qPrintable(QString::number(pgid)));
        QVERIFY2(m_agent->start(m_options), qPrintable(m_agent->errorString()));
        // The new agent ends the group the dead one left running (found by this test: it ran
        // on, holding its chips, as a `lost` job).
        QTRY_VERIFY2_WITH_TIMEOUT(membersOfGroup(pgid).isEmpty(), qPrintable(QString::number(pgid)),
                                  10000);
        const QJsonObject job = client()->call("GET", "/v1/npu/jobs/" + id).json();
        QCOMPARE(job.value("state").toString(), QStringLiteral("lost"));
        const QJsonObject record = client()->call("GET", "/v1/executions/" + id).json();
        QCOMPARE(record.value("state").toString(), QStringLiteral("lost"));
        QCOMPARE(record.value("kind").toString(), QStringLiteral("broker"));
        QVERIFY(!record.value("statusReason").toString().isEmpty());
        // Its log is kept and readable from offset 0, through both routes, then the exit.
        for (const QByteArray& path :
             {"/v1/npu/jobs/" + id + "/log?offset=0", "/v1/executions/" + id + "/log?offset=0"}) {
            const NdjsonResult log = collectNdjson(client(), "GET", path);
            QVERIFY2(log.finished && log.status == 200, path.constData());
            QCOMPARE(outputOf(log), QByteArray("started\n"));
            QCOMPARE(log.events.last().value("type").toString(), QStringLiteral("exit"));
            QCOMPARE(log.events.last().value("status").toString(), QStringLiteral("lost"));
        }
        // Still listed, never re-run, and final: cancel leaves it as it is, the result is empty.
        bool listed = false;
        for (const QJsonValue& v :
             client()->call("GET", "/v1/npu/jobs").json().value("jobs").toArray())
            listed |= v.toObject().value("id").toString().toUtf8() == id;
        QVERIFY(listed);
        QCOMPARE(client()->call("POST", "/v1/executions/" + id + "/cancel").json().value("state"),
                 QJsonValue("lost"));
        const ApiResponse result = client()->call("GET", "/v1/npu/jobs/" + id + "/result");
        QCOMPARE(result.status, 200);
        QCOMPARE(result.json().value("state").toString(), QStringLiteral("lost"));
        QVERIFY(result.json().value("outputs").toArray().isEmpty());
        // A lost id stays taken (ids are kept forever).
        const ApiResponse reuse = submit(
            {{"workloadId", "npu.chatty"}, {"workspace", m_ws}, {"jobId", QString::fromUtf8(id)}});
        QCOMPARE(reuse.status, 409);
        QCOMPARE(reuse.errorCode(), QStringLiteral("duplicate_job"));
        QTest::qWait(500);
        QCOMPARE(client()->call("GET", "/v1/npu/jobs/" + id).json().value("state").toString(),
                 QStringLiteral("lost"));
        for (int member : membersOfGroup(pgid)) // the dead agent's job: not ours to leave behind
            ::kill(member, SIGKILL);
    }
};

QTEST_GUILESS_MAIN(TestNpuBrokerJobs)
#include "test_npu_broker_jobs.moc"
