// The host NPU broker's routes through the REAL agent (docs/npu.md "Host broker"): a whitelisted
// workload runs and its log streams like an execution's; under a root agent it runs as the
// workspace's uid; unknown workloads, inputs escaping the workspace and other workspaces' tokens
// are refused; with the broker off every route is a 404. A job's life (cancel, results, the
// execution record, an agent SIGKILL): test_npu_broker_jobs.
#include "NpuBrokerFixture.h"

#include <sys/stat.h>

using namespace runbox;
using namespace runbox::testsupport;

class TestNpuBrokerRoutes final : public NpuBrokerFixture {
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

    void testWorkloadsAreListedWithoutTheirArgv() {
        const ApiResponse r = client()->call("GET", "/v1/npu/workloads");
        QCOMPARE(r.status, 200);
        const QJsonArray workloads = r.json().value("workloads").toArray();
        QCOMPARE(workloads.size(), 5);
        const QJsonObject echo = workloads[0].toObject();
        QCOMPARE(echo.value("id").toString(), QStringLiteral("npu.echo"));
        QCOMPARE(echo.value("inputs").toArray(), QJsonArray{"data"});
        QVERIFY(!echo.contains("program") && !echo.contains("args"));
        QVERIFY(client()
                    ->call("GET", "/v1/health")
                    .json()
                    .value("npu")
                    .toObject()
                    .value("broker")
                    .toBool());
    }

    void testWhitelistedWorkloadRunsAndItsLogStreams() {
        const ApiResponse r = submit({{"workloadId", "npu.echo"},
                                      {"workspace", m_ws},
                                      {"inputs", QJsonObject{{"data", "data.txt"}}}});
        QCOMPARE(r.status, 202);
        const QString id = r.json().value("id").toString();
        QVERIFY(!id.isEmpty());
        QCOMPARE(r.json().value("workspace").toString(), m_ws);

        const NdjsonResult log =
            collectNdjson(client(), "GET", "/v1/npu/jobs/" + id.toUtf8() + "/log?follow=true");
        QVERIFY(log.finished);
        QCOMPARE(log.status, 200);
        QVERIFY(!log.events.isEmpty());
        QByteArray out;
        QByteArray err;
        qint64 expectedOffset = 0;
        for (int i = 0; i + 1 < log.events.size(); ++i) {
            const QJsonObject ev = log.events[i];
            const QString type = ev.value("type").toString();
            QVERIFY2(type == QLatin1String("stdout") || type == QLatin1String("stderr"),
                     qPrintable(type));
            // One logical numbering across both streams, contiguous.
            QCOMPARE(ev.value("offset").toInteger(), expectedOffset);
            const QByteArray bytes = ExecOutcome::eventBytes(ev);
            expectedOffset += bytes.size();
            (type == QLatin1String("stdout") ? out : err) += bytes;
        }
        const QJsonObject exit = log.events.last();
        QCOMPARE(exit.value("type").toString(), QStringLiteral("exit"));
        QCOMPARE(exit.value("status").toString(), QStringLiteral("completed"));
        QCOMPARE(exit.value("exitCode").toInt(), 0);
        QCOMPARE(out, QByteArray("job:" + id.toUtf8() + "\nhello from the workspace\nsecret=\n"));
        QCOMPARE(err, QByteArray("oops\n"));

        // Resuming from an offset gives exactly the rest.
        const NdjsonResult tail =
            collectNdjson(client(), "GET", "/v1/npu/jobs/" + id.toUtf8() + "/log?offset=4");
        QByteArray rest;
        for (const QJsonObject& ev : tail.events)
            if (ev.value("type").toString() != QLatin1String("exit"))
                rest += ExecOutcome::eventBytes(ev);
        QCOMPARE(qint64(rest.size()), expectedOffset - 4);
        QCOMPARE(tail.events.last().value("type").toString(), QStringLiteral("exit"));

        const QJsonObject job = client()->call("GET", "/v1/npu/jobs/" + id.toUtf8()).json();
        QCOMPARE(job.value("state").toString(), QStringLiteral("completed"));
        bool listed = false;
        for (const QJsonValue& v :
             client()->call("GET", "/v1/npu/jobs").json().value("jobs").toArray())
            listed |= v.toObject().value("id").toString() == id;
        QVERIFY(listed);
    }

    void testJobsOfARootAgentRunAsTheWorkspaceUid() {
        // Under a root agent (RUNBOX_TEST_ROOT_AGENT=1) a job is never host root: it runs as the
        // workspace's own uid, reaches its chip through the node's group (0660 root:4242) and
        // writes the workspace as its owner. Rootless: the job runs as the agent (control).
        const ApiResponse r = submit(
            {{"workloadId", "npu.whoami"}, {"workspace", m_ws}, {"npuDevices", QJsonArray{1}}});
        QCOMPARE(r.status, 202);
        const QString id = r.json().value("id").toString();
        const NdjsonResult log =
            collectNdjson(client(), "GET", "/v1/npu/jobs/" + id.toUtf8() + "/log?follow=true");
        QVERIFY(log.finished && !log.events.isEmpty());
        QByteArray out;
        for (const QJsonObject& ev : log.events)
            if (ev.value("type").toString() == QLatin1String("stdout"))
                out += ExecOutcome::eventBytes(ev);
        QCOMPARE(log.events.last().value("status").toString(), QStringLiteral("completed"));
        const QList<QByteArray> lines = out.split('\n');
        QVERIFY2(lines.size() >= 3, out.constData());
        struct stat workspace {};
        QCOMPARE(::stat(QFile::encodeName(m_agent->workspaceDir(m_ws)).constData(), &workspace), 0);
        struct stat made {};
        QCOMPARE(::stat(QFile::encodeName(wsFile("made-by-job")).constData(), &made), 0);
        if (!qEnvironmentVariableIsSet("RUNBOX_TEST_ROOT_AGENT")) {
            QCOMPARE(lines[0].toUInt(), uint(::getuid() == 0 ? 65534 : ::getuid()));
            return;
        }
        QVERIFY2(lines[0].toUInt() != 0, out.constData());
        QCOMPARE(lines[0].toUInt(), uint(workspace.st_uid));
        QVERIFY2(lines[1].split(' ').contains(QByteArray::number(kSimulatedDeviceGroup)),
                 out.constData());
        QCOMPARE(lines[2], QByteArray("rw"));
        QCOMPARE(uint(made.st_uid), uint(workspace.st_uid));
    }

    void testUnknownWorkloadIsRefused() {
        const ApiResponse r = submit({{"workloadId", "npu.rm-rf"}, {"workspace", m_ws}});
        QCOMPARE(r.status, 400);
        QCOMPARE(r.errorCode(), QStringLiteral("unknown_workload"));
    }

    void testUnknownFieldIsRefusedAndNoJobIsMade_data() {
        QTest::addColumn<QString>("field");
        QTest::newRow("id") << QStringLiteral("id");
        QTest::newRow("executionId") << QStringLiteral("executionId");
        QTest::newRow("misspelt jobId") << QStringLiteral("jobid");
    }

    void testUnknownFieldIsRefusedAndNoJobIsMade() {
        QFETCH(QString, field);
        const QJsonObject good{{"workloadId", "npu.echo"},
                               {"workspace", m_ws},
                               {"inputs", QJsonObject{{"data", "data.txt"}}}};
        const auto jobCount = [this] {
            return client()->call("GET", "/v1/npu/jobs").json().value("jobs").toArray().size();
        };
        // Positive control: the same body without the unknown field makes a job.
        const qsizetype before = jobCount();
        const ApiResponse made = submit(good);
        QCOMPARE(made.status, 202);
        QCOMPARE(jobCount(), before + 1);

        QJsonObject body = good;
        body.insert(field, QStringLiteral("job-with-unknown-field"));
        const ApiResponse r = submit(body);
        QCOMPARE(r.status, 400);
        QCOMPARE(r.errorCode(), QStringLiteral("invalid_request"));
        QCOMPARE(r.errorMessage(), QStringLiteral("unknown field \"%1\"").arg(field));
        QCOMPARE(jobCount(), before + 1);
    }

    void testInputEscapingTheWorkspaceIsRefused_data() {
        QTest::addColumn<QString>("input");
        QTest::newRow("dotdot") << QStringLiteral("../../agent.token");
        QTest::newRow("absolute") << QStringLiteral("/etc/passwd");
        QTest::newRow("symlink out") << QStringLiteral("escape");
    }

    void testInputEscapingTheWorkspaceIsRefused() {
        QFETCH(QString, input);
        QFile::link(QStringLiteral("/etc"), wsFile(QStringLiteral("escape")));
        const ApiResponse r = submit({{"workloadId", "npu.echo"},
                                      {"workspace", m_ws},
                                      {"inputs", QJsonObject{{"data", input}}}});
        QCOMPARE(r.status, 400);
        QCOMPARE(r.errorCode(), QStringLiteral("invalid_input"));
    }

    void testUnknownWorkspaceIsNotFound() {
        const ApiResponse r = submit({{"workloadId", "npu.echo"},
                                      {"workspace", "w0000000000000000"},
                                      {"inputs", QJsonObject{{"data", "data.txt"}}}});
        QCOMPARE(r.status, 404);
        QCOMPARE(r.errorCode(), QStringLiteral("workspace_not_found"));
    }

    void testJobsOfAnotherWorkspaceAreHiddenFromItsToken() {
        QByteArray otherToken;
        const QString other = m_agent->createWorkspace(&otherToken);
        QVERIFY(!other.isEmpty());
        const ApiResponse mine = submit({{"workloadId", "npu.echo"},
                                         {"workspace", m_ws},
                                         {"inputs", QJsonObject{{"data", "data.txt"}}}});
        QCOMPARE(mine.status, 202);
        const QString id = mine.json().value("id").toString();
        ApiClient otherClient(m_agent->baseUrl(), otherToken);
        QCOMPARE(otherClient.call("GET", "/v1/npu/jobs/" + id.toUtf8()).status, 404);
        QCOMPARE(otherClient.call("POST", "/v1/npu/jobs/" + id.toUtf8() + "/cancel").status, 404);
        for (const QJsonValue& v :
             otherClient.call("GET", "/v1/npu/jobs").json().value("jobs").toArray())
            QVERIFY(v.toObject().value("id").toString() != id);
        const ApiResponse foreign =
            otherClient.call("POST", "/v1/npu/jobs",
                             QJsonObject{{"workloadId", "npu.echo"},
                                         {"workspace", m_ws},
                                         {"inputs", QJsonObject{{"data", "data.txt"}}}});
        QCOMPARE(foreign.status, 404);
    }

    void testBrokerRoutesAre404WhenOff() {
        AgentProcess off;
        AgentOptions options;
        options.extraEnv = simulatedNpuEnvironment(*m_host);
        options.extraEnv.insert("RUNBOX_NPU_WORKLOADS",
                                m_catalogDir.filePath(QStringLiteral("workloads.json")));
        QVERIFY2(off.start(options), qPrintable(off.errorString()));
        // Positive control: the agent answers NPU routes that are always on.
        QCOMPARE(off.client()->call("GET", "/v1/npu/chips").status, 200);
        const QString ws = off.createWorkspace();
        const QList<QPair<QByteArray, QByteArray>> routes = {
            {"GET", "/v1/npu/workloads"},    {"POST", "/v1/npu/jobs"},
            {"GET", "/v1/npu/jobs"},         {"GET", "/v1/npu/jobs/abc"},
            {"GET", "/v1/npu/jobs/abc/log"}, {"POST", "/v1/npu/jobs/abc/cancel"}};
        for (const auto& [method, path] : routes) {
            const ApiResponse r = off.client()->call(
                method, path,
                method == "POST" ? QJsonObject{{"workloadId", "npu.echo"}, {"workspace", ws}}
                                 : QJsonObject{});
            QVERIFY2(r.status == 404, qPrintable(QString::fromLatin1(method + ' ' + path)));
            QCOMPARE(r.errorCode(), QStringLiteral("not_found"));
        }
        QVERIFY(!off.client()
                     ->call("GET", "/v1/health")
                     .json()
                     .value("npu")
                     .toObject()
                     .value("broker")
                     .toBool());
        QVERIFY(off.stop());
    }
};

QTEST_GUILESS_MAIN(TestNpuBrokerRoutes)
#include "test_npu_broker_routes.moc"
