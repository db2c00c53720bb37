// installer/systemd/light-workspaces.conf (docs/service.md "Light workspaces"): a non-root agent
// holding exactly the drop-in's capabilities as ambient capabilities (setpriv, as systemd's
// AmbientCapabilities= does, with no_new_privs as NoNewPrivileges=yes) runs strong and light
// executions, and neither its bwraps nor workspace code get any of them. Positive controls: the
// same capabilities reach a program a plain exec starts, and bwrap then refuses to run. Needs
// root (setpriv to another uid); skips otherwise. Uids: 1882000000.. (this test's range).
#include "shared/ApiClient.h"
#include "support/AgentProcess.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace runbox;
using namespace runbox::testsupport;

namespace {

constexpr uid_t kAgentUid = 65534;

/// The capability names of the drop-in's AmbientCapabilities= line ("setuid", …).
QStringList dropInCapabilities() {
    QFile file(QStringLiteral(RUNBOX_SOURCE_DIR "/installer/systemd/light-workspaces.conf"));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    for (const QByteArray& line : file.readAll().split('\n'))
        if (line.startsWith("AmbientCapabilities="))
            return QString::fromLatin1(line.mid(qstrlen("AmbientCapabilities=")))
                .toLower()
                .replace(QStringLiteral("cap_"), QString())
                .split(QLatin1Char(' '), Qt::SkipEmptyParts);
    return {};
}

/// setpriv(1) arguments that give the capabilities as ambient ones, and nothing else.
QStringList capabilityArgs(const QStringList& caps) {
    QStringList plus;
    for (const QString& c : caps)
        plus << QLatin1Char('+') + c;
    const QString list = plus.join(QLatin1Char(','));
    return {QStringLiteral("--no-new-privs"),
            QStringLiteral("--inh-caps"),
            list,
            QStringLiteral("--ambient-caps"),
            list,
            QStringLiteral("--bounding-set"),
            QStringLiteral("-all,") + list};
}

/// The Cap* lines of /proc/self/status as @p program sees them, started as the agent would be.
QProcess* startWithCaps(const QStringList& caps, const QStringList& command) {
    auto* p = new QProcess;
    p->setProcessChannelMode(QProcess::MergedChannels);
    p->start(QStringLiteral("/usr/bin/setpriv"),
             QStringList{QStringLiteral("--reuid=%1").arg(kAgentUid),
                         QStringLiteral("--regid=%1").arg(kAgentUid),
                         QStringLiteral("--clear-groups")}
                 << capabilityArgs(caps) << QStringLiteral("--") << command);
    return p;
}

/// True when no CapInh/CapPrm/CapEff/CapAmb line of a /proc/PID/status text has a bit set.
bool holdsNoCapability(const QByteArray& status) {
    static const QRegularExpression kSets(QStringLiteral("^Cap(Inh|Prm|Eff|Amb):\\s*([0-9a-f]+)$"),
                                          QRegularExpression::MultilineOption);
    int seen = 0;
    for (auto it = kSets.globalMatch(QString::fromLatin1(status)); it.hasNext();) {
        if (it.next().captured(2).toULongLong(nullptr, 16) != 0)
            return false;
        ++seen;
    }
    return seen == 4;
}

} // namespace

class TestServiceCapabilities final : public QObject {
    Q_OBJECT

    QStringList m_caps;
    std::unique_ptr<QTemporaryDir> m_parent;
    AgentProcess m_agent;

    ExecOutcome sh(const QString& ws, const QString& script) {
        return m_agent.exec(ws, QJsonObject{{"argv", QJsonArray{"/bin/sh", "-c", script}}});
    }

private Q_SLOTS:
    void initTestCase() {
        if (!AgentProcess::runningAsRoot())
            QSKIP("needs root: the agent is started as another uid with capabilities");
        m_caps = dropInCapabilities();
        QVERIFY2(m_caps.contains("setuid") && m_caps.contains("setgid"),
                 qPrintable(m_caps.join(' ')));
        // Under the build tree, not /tmp (docs/light-workspaces.md: the light root must stay
        // outside the host runtime dirs the workspaces get masked).
        m_parent = std::make_unique<QTemporaryDir>(
            QStringLiteral(RUNBOX_BINARY_DIR "/service-caps-XXXXXX"));
        QVERIFY(m_parent->isValid());
        QCOMPARE(::chmod(QFile::encodeName(m_parent->path()).constData(), 0711), 0);
        QVERIFY(QDir().mkdir(m_parent->filePath("run")));
        QCOMPARE(
            ::chown(QFile::encodeName(m_parent->filePath("run")).constData(), kAgentUid, kAgentUid),
            0);
    }

    void testControlCapabilitiesReachAPlainExecAndBwrapRefusesThem() {
        std::unique_ptr<QProcess> status(startWithCaps(
            m_caps, {QStringLiteral("/bin/cat"), QStringLiteral("/proc/self/status")}));
        QVERIFY(status->waitForFinished(10000));
        const QByteArray text = status->readAll();
        QVERIFY2(!holdsNoCapability(text), text.constData());
        QVERIFY2(text.contains("NoNewPrivs:\t1"), text.constData());
        std::unique_ptr<QProcess> bwrap(
            startWithCaps(m_caps, {QStringLiteral("bwrap"), QStringLiteral("--help")}));
        QVERIFY(bwrap->waitForFinished(10000));
        QVERIFY(bwrap->exitCode() != 0);
        QVERIFY2(bwrap->readAll().contains("Unexpected capabilities but not setuid"),
                 "bwrap ran with inherited capabilities");
    }

    void testAgentStartsWithTheDropInsCapabilities() {
        AgentOptions options;
        options.stateParentDir = m_parent->path();
        options.unprivilegedUid = kAgentUid;
        options.setprivArgs = capabilityArgs(m_caps);
        options.extraEnv = {{"RUNBOX_LIGHT_UID_FIRST", "1882000000"},
                            {"RUNBOX_LIGHT_UID_COUNT", "100"},
                            {"RUNBOX_STRONG_UID_FIRST", "1882001000"},
                            {"RUNBOX_STRONG_UID_COUNT", "100"},
                            {"RUNBOX_UID_RANGE_REGISTRY", m_parent->filePath("run/uid-ranges")}};
        QVERIFY2(m_agent.start(options), qPrintable(m_agent.errorString()));
        QFile status(QStringLiteral("/proc/%1/status").arg(m_agent.pid()));
        QVERIFY(status.open(QIODevice::ReadOnly));
        const QByteArray fields = status.readAll();
        QVERIFY2(fields.contains("Uid:\t65534") && !holdsNoCapability(fields), fields.constData());
        const ApiResponse health = m_agent.client()->call("GET", "/v1/health", {}, 30000);
        QCOMPARE(health.status, 200);
        const QJsonObject json = health.json();
        QVERIFY2(json.value("sandbox").toObject().value("usable").toBool(),
                 QJsonDocument(json).toJson().constData());
        QVERIFY2(json.value("light").toObject().value("available").toBool(),
                 QJsonDocument(json.value("light").toObject()).toJson().constData());
    }

    void testStrongExecutionRunsAsItsWorkspaceUidWithoutCapabilities() {
        const QString ws = m_agent.createWorkspace();
        QVERIFY2(!ws.isEmpty(), qPrintable(m_agent.errorString() + m_agent.log()));
        const ExecOutcome run =
            sh(ws, QStringLiteral("echo data > made.txt; cat /proc/self/status"));
        QVERIFY2(run.status() == QLatin1String("completed"),
                 qPrintable(run.describe() + m_agent.log()));
        QVERIFY2(holdsNoCapability(run.stdoutBytes), run.stdoutBytes.constData());
        QVERIFY2(run.exitEvent.value("createdFiles").toArray().contains("made.txt"),
                 QJsonDocument(run.exitEvent).toJson().constData());
        // The file API reaches what the workspace's uid wrote.
        const ApiResponse file = m_agent.client()->call(
            "GET", "/v1/workspaces/" + ws.toUtf8() + "/files/made.txt", {}, 30000);
        QCOMPARE(file.status, 200);
        QCOMPARE(file.body, QByteArray("data\n"));
    }

    void testLightExecutionRunsAsItsUidWithoutCapabilities() {
        const ApiResponse created = m_agent.client()->call(
            "POST", "/v1/workspaces", QJsonObject{{"isolation", "light"}}, 30000);
        QVERIFY2(created.status == 201, created.body.constData());
        const QJsonObject ws = created.json().value("workspaces").toArray().first().toObject();
        const QString id = ws.value("id").toString();
        const qint64 uid = ws.value("uid").toInteger();
        QVERIFY2(uid >= 1882000000 && uid < 1882000100, created.body.constData());
        const ExecOutcome run =
            sh(id, QStringLiteral("id -u; echo x > made.txt; cat /proc/self/status"));
        QVERIFY2(run.status() == QLatin1String("completed"),
                 qPrintable(run.describe() + m_agent.log()));
        QCOMPARE(run.stdoutBytes.split('\n').value(0), QByteArray::number(uid));
        QVERIFY2(holdsNoCapability(run.stdoutBytes), run.stdoutBytes.constData());
        const ApiResponse file = m_agent.client()->call(
            "GET", "/v1/workspaces/" + id.toUtf8() + "/files/made.txt", {}, 30000);
        QCOMPARE(file.status, 200);
        const ApiResponse removed =
            m_agent.client()->call("DELETE", "/v1/workspaces/" + id.toUtf8(), {}, 30000);
        QVERIFY2(removed.status == 200, removed.body.constData());
    }

    void cleanupTestCase() {
        if (m_agent.isRunning())
            QVERIFY2(m_agent.stop(), qPrintable(m_agent.log()));
    }
};

QTEST_GUILESS_MAIN(TestServiceCapabilities)
#include "test_service_capabilities.moc"
