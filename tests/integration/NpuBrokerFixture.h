#pragma once
// The set-up shared by the host NPU broker tests through the real agent (test_npu_broker_routes,
// test_npu_broker_jobs; docs/npu.md "Host broker"): a simulated Ascend host, the operator's
// workload catalog, the agent with the broker on and one workspace holding data.txt.
#include "support/AgentProcess.h"
#include "support/NpuAgentFixture.h"
#include "support/SimulatedNpuHost.h"

#include "shared/ApiClient.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <functional>
#include <memory>

namespace runbox::testsupport {

/// The operator's catalog: an echo of a workspace file, a job that holds its group, and one that
/// says who it runs as and whether it can write chip 1's node under @p deviceRoot.
inline QByteArray catalogJson(const QString& deviceRoot) {
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
inline QList<int> membersOfGroup(int pgid) {
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

/// Base of the broker test classes: owns the simulated host, the catalog and the agent, and the
/// helpers their checks use. The test class calls startBrokerAgent() from initTestCase() and
/// stopBrokerAgent() from cleanupTestCase().
class NpuBrokerFixture : public QObject {
protected:
    std::unique_ptr<tests::SimulatedNpuHost> m_host;
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

    /// Starts the simulated host (4 chips) and the agent with the broker on (under
    /// RUNBOX_TEST_ROOT_AGENT=1 as root, see prepareRootAgentIfAsked), creates the workspace and
    /// its data.txt. Returns why the test must be skipped (not root, no bwrap: the caller QSKIPs
    /// with it, since QSKIP must be in the test function); empty otherwise, with @p error set on
    /// a failure.
    QString startBrokerAgent(QString* error) {
        if (!AgentProcess::runningAsRoot())
            return QStringLiteral("the simulated host needs root (mknod)");
        if (QStandardPaths::findExecutable("bwrap").isEmpty())
            return QStringLiteral("bwrap is not installed");
        m_host = std::make_unique<tests::SimulatedNpuHost>(4);
        if (!m_host->isValid()) {
            *error = m_host->error();
            return {};
        }
        if (!shareWithAgent(m_host->root()) || !shareWithAgent(m_catalogDir.path())) {
            *error = QStringLiteral("cannot share the simulated host with the agent");
            return {};
        }
        QFile catalog(m_catalogDir.filePath(QStringLiteral("workloads.json")));
        if (!catalog.open(QIODevice::WriteOnly)) {
            *error = QStringLiteral("cannot write the workload catalog");
            return {};
        }
        catalog.write(catalogJson(m_host->deviceRoot()));
        catalog.close();
        m_agent = std::make_unique<AgentProcess>();
        AgentOptions options;
        options.extraEnv = simulatedNpuEnvironment(*m_host);
        options.extraEnv.insert("RUNBOX_NPU_BROKER", "1");
        options.extraEnv.insert("RUNBOX_NPU_WORKLOADS", catalog.fileName());
        options.extraEnv.insert("RUNBOX_TEST_SECRET_TOKEN", "must-not-leak");
        if (!prepareRootAgentIfAsked(*m_host, &options, &m_registry)) {
            *error = QStringLiteral("cannot prepare the root agent's device nodes");
            return {};
        }
        m_options = options;
        if (!m_agent->start(options)) {
            *error = m_agent->errorString();
            return {};
        }
        m_ws = m_agent->createWorkspace();
        if (m_ws.isEmpty()) {
            *error = m_agent->errorString();
            return {};
        }
        QFile data(wsFile(QStringLiteral("data.txt")));
        if (!data.open(QIODevice::WriteOnly)) {
            *error = QStringLiteral("cannot write data.txt");
            return {};
        }
        data.write("hello from the workspace\n");
        return {};
    }

    void stopBrokerAgent() {
        if (m_agent)
            m_agent->stop();
    }
};

} // namespace runbox::testsupport
