// The host NPU broker through the REAL agent (docs/npu.md "Host broker"): a whitelisted workload
// runs and its log streams like an execution's; unknown workloads and inputs escaping the workspace
// are refused; cancel ends the job's whole process group; with the broker off every route is a 404.
#include "support/AgentProcess.h"
#include "support/NpuAgentFixture.h"
#include "support/SimulatedNpuHost.h"

#include "shared/ApiClient.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>

using namespace runbox;
using namespace runbox::testsupport;
using runbox::tests::SimulatedNpuHost;

namespace {

/// The operator's catalog: an echo of a workspace file, a job that holds its group, and one that
/// says who it runs as and whether it can write chip 1's node under @p deviceRoot.
QByteArray catalogJson(const QString& deviceRoot) {
    const QJsonObject echo{
        {"id", "npu.echo"},
        {"label", "Echo an input"},
        {"description", "prints a workspace file"},
        {"program", "/bin/sh"},
        {"args", QJsonArray{"-c",
                            "echo job:$RUNBOX_NPU_JOB_ID; cat \"$1\"; echo oops >&2; "
                            "echo secret=$RUNBOX_TEST_SECRET_TOKEN",
                            "echo", "${input:data}"}}};
    const QJsonObject hold{{"id", "npu.hold"},
                           {"label", "Hold the group"},
                           {"program", "/bin/sh"},
                           {"args", QJsonArray{"-c",
                                               "echo $$ > \"$1/pgid.tmp\"; sleep 300 & sleep 300 & "
                                               "mv \"$1/pgid.tmp\" \"$1/pgid\"; wait",
                                               "hold", "${workspace}"}}};
    const QJsonObject whoami{{"id", "npu.whoami"},
                             {"label", "Who am I"},
                             {"program", "/bin/sh"},
                             {"args", QJsonArray{"-c",
                                                 "id -u; id -G; touch \"$1/made-by-job\"; "
                                                 "test -w \"$2/davinci1\" && echo rw || echo no-rw",
                                                 "whoami", "${workspace}", deviceRoot}}};
    // Writes two files and a link under ${workspace}/out (the result route's outputs).
    const QJsonObject write{
        {"id", "npu.write"},
        {"label", "Write outputs"},
        {"program", "/bin/sh"},
        {"args", QJsonArray{"-c",
                            "mkdir -p \"$1/out\"; printf abc > \"$1/out/a.bin\"; "
                            "head -c 200000 /dev/urandom > \"$1/out/b.bin\"; "
                            "ln -sf /etc/passwd \"$1/out/link\"; echo wrote",
                            "write", "${workspace}"}}};
    // Says something, then runs until killed (its pid is its group's id).
    const QJsonObject chatty{{"id", "npu.chatty"},
                             {"label", "Chatty"},
                             {"program", "/bin/sh"},
                             {"args", QJsonArray{"-c",
                                                 "echo started; echo $$ > \"$1/chatty.pid\"; "
                                                 "exec sleep 300",
                                                 "chatty", "${workspace}"}}};
    return QJsonDocument(QJsonObject{{"workloads", QJsonArray{echo, hold, whoami, write, chatty}}})
        .toJson();
}

/// Process ids whose process group is @p pgid (zombies excluded: they no longer run).
QList<int> membersOfGroup(int pgid) {
    QList<int> members;
    const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs);
    for (const QString& entry : entries) {
        bool isPid = false;
        const int pid = entry.toInt(&isPid);
        if (!isPid)
            continue;
        QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
        if (!stat.open(QIODevice::ReadOnly))
            continue;
        const QByteArray text = stat.readAll();
        // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses.
        const QList<QByteArray> fields = text.mid(text.lastIndexOf(')') + 2).split(' ');
        if (fields.size() > 2 && fields[0] != "Z" && fields[2].toInt() == pgid)
            members << pid;
    }
    return members;
}

} // namespace

class TestNpuBrokerRoutes final : public QObject {
    Q_OBJECT
private:
    std::unique_ptr<SimulatedNpuHost> m_host;
    QTemporaryDir m_catalogDir;
    std::unique_ptr<AgentProcess> m_agent;
    std::unique_ptr<QTemporaryDir> m_registry;
    AgentOptions m_options; ///< to start the agent again on the same state (after SIGKILL)
    QString m_ws;

    ApiClient* client() const { return m_agent->client(); }
    QString wsFile(const QString& name) const {
        return m_agent->workspaceDir(m_ws) + QLatin1Char('/') + name;
    }
    ApiResponse submit(const QJsonObject& body) {
        return client()->call("POST", "/v1/npu/jobs", body);
    }
    /// Submits npu.hold and waits (30 s at most) until it wrote its process group id; returns
    /// it, or 0 when the submit was not answered 202 or the id never came. @p id: the job's.
    int startHoldJob(QString* id) {
        QFile::remove(wsFile(QStringLiteral("pgid")));
        const ApiResponse r = submit({{"workloadId", "npu.hold"}, {"workspace", m_ws}});
        if (r.status != 202)
            return 0;
        *id = r.json().value("id").toString();
        QDeadlineTimer deadline(30000);
        while (!QFile::exists(wsFile(QStringLiteral("pgid"))) && !deadline.hasExpired())
            QTest::qWait(20);
        QFile pgidFile(wsFile(QStringLiteral("pgid")));
        return pgidFile.open(QIODevice::ReadOnly) ? pgidFile.readAll().trimmed().toInt() : 0;
    }
    /// The bytes of a log stream's output events (exit and other events skipped).
    static QByteArray outputOf(const NdjsonResult& log) {
        QByteArray bytes;
        for (const QJsonObject& ev : log.events) {
            const QString type = ev.value("type").toString();
            if (type == QLatin1String("stdout") || type == QLatin1String("stderr"))
                bytes += ExecOutcome::eventBytes(ev);
        }
        return bytes;
    }
    static bool isFinal(const QJsonObject& job) {
        const QString s = job.value("state").toString();
        return !s.isEmpty() && s != QLatin1String("queued") && s != QLatin1String("running");
    }
    QJsonObject waitForJob(const QString& id, const std::function<bool(const QJsonObject&)>& done) {
        QJsonObject job;
        QDeadlineTimer deadline(60000);
        while (!deadline.hasExpired()) {
            job = client()->call("GET", "/v1/npu/jobs/" + id.toUtf8()).json();
            if (done(job))
                break;
            QTest::qWait(50);
        }
        return job;
    }

private Q_SLOTS:
    void initTestCase() {
        if (!AgentProcess::runningAsRoot())
            QSKIP("the simulated host needs root (mknod)");
        if (QStandardPaths::findExecutable("bwrap").isEmpty())
            QSKIP("bwrap is not installed");
        m_host = std::make_unique<SimulatedNpuHost>(4);
        QVERIFY2(m_host->isValid(), qPrintable(m_host->error()));
        QVERIFY(shareWithAgent(m_host->root()));
        QVERIFY(shareWithAgent(m_catalogDir.path()));
        QFile catalog(m_catalogDir.filePath(QStringLiteral("workloads.json")));
        QVERIFY(catalog.open(QIODevice::WriteOnly));
        catalog.write(catalogJson(m_host->deviceRoot()));
        catalog.close();
        m_agent = std::make_unique<AgentProcess>();
        AgentOptions options;
        options.extraEnv = simulatedNpuEnvironment(*m_host);
        options.extraEnv.insert("RUNBOX_NPU_BROKER", "1");
        options.extraEnv.insert("RUNBOX_NPU_WORKLOADS", catalog.fileName());
        options.extraEnv.insert("RUNBOX_TEST_SECRET_TOKEN", "must-not-leak");
        QVERIFY(prepareRootAgentIfAsked(*m_host, &options, &m_registry));
        m_options = options;
        QVERIFY2(m_agent->start(options), qPrintable(m_agent->errorString()));
        m_ws = m_agent->createWorkspace();
        QVERIFY2(!m_ws.isEmpty(), qPrintable(m_agent->errorString()));
        QFile data(wsFile(QStringLiteral("data.txt")));
        QVERIFY(data.open(QIODevice::WriteOnly));
        data.write("hello from the workspace\n");
    }

    void cleanupTestCase() {
        if (m_agent)
            m_agent->stop();
    }

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
