// The host NPU broker through the REAL agent (docs/npu.md "Host broker"): a whitelisted workload
// runs and its log streams like an execution's; unknown workloads and inputs escaping the workspace
// are refused; cancel ends the job's whole process group; with the broker off every route is a 404.
#include "support/AgentProcess.h"
#include "support/NpuAgentFixture.h"
#include "support/SimulatedNpuHost.h"

#include "shared/ApiClient.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

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
    return QJsonDocument(QJsonObject{{"workloads", QJsonArray{echo, hold, whoami}}}).toJson();
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
    QString m_ws;

    ApiClient* client() const { return m_agent->client(); }
    QString wsFile(const QString& name) const {
        return m_agent->workspaceDir(m_ws) + QLatin1Char('/') + name;
    }
    ApiResponse submit(const QJsonObject& body) {
        return client()->call("POST", "/v1/npu/jobs", body);
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
        QCOMPARE(workloads.size(), 3);
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
        QFile::remove(wsFile(QStringLiteral("pgid")));
        const ApiResponse r = submit({{"workloadId", "npu.hold"}, {"workspace", m_ws}});
        QCOMPARE(r.status, 202);
        const QString id = r.json().value("id").toString();
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(wsFile(QStringLiteral("pgid"))), 30000);
        QFile pgidFile(wsFile(QStringLiteral("pgid")));
        QVERIFY(pgidFile.open(QIODevice::ReadOnly));
        const int pgid = pgidFile.readAll().trimmed().toInt();
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
