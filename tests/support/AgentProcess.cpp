#include "support/AgentProcess.h"
#include "support/AgentMounts.h"

#include "shared/ApiClient.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTest>

#include <csignal>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace runbox::testsupport {

namespace {
constexpr char kSetpriv[] = "/usr/bin/setpriv";

/// setpriv(1) arguments that drop to @p uid (and gid @p uid, no supplementary groups). The
/// parent-death signal is set after the credential change (which would clear it, prctl(2)): an
/// agent never outlives a test that crashed or was killed by ctest's timeout.
QStringList setprivPrefix(uid_t uid, const QStringList& more = {}) {
    return QStringList{QStringLiteral("--reuid=%1").arg(uid), QStringLiteral("--regid=%1").arg(uid),
                       QStringLiteral("--clear-groups"), QStringLiteral("--pdeathsig"),
                       QStringLiteral("KILL")}
           << more << QStringLiteral("--");
}
} // namespace

AgentProcess::AgentProcess(QObject* parent) : QObject(parent) {
    m_process.setProcessChannelMode(QProcess::MergedChannels);
    connect(&m_process, &QProcess::readyRead, this, [this] { m_log += m_process.readAll(); });
}

AgentProcess::~AgentProcess() {
    if (isRunning())
        stop();
    m_client.reset();
    if (m_stateDir)
        detachAgentMounts(m_stateDir->path());
}

bool AgentProcess::runningAsRoot() {
    return ::geteuid() == 0;
}

bool AgentProcess::fail(const QString& message) {
    m_error = message;
    return false;
}

bool AgentProcess::checkBinaryReachable(const QString& agentPath) {
    if (!runningAsRoot())
        return QFileInfo(agentPath).isExecutable() ||
               fail(QStringLiteral("%1 is not executable; build the agent first").arg(agentPath));
    // The agent runs as another user: every directory above the binary must be searchable by it.
    QProcess probe;
    probe.start(QLatin1String(kSetpriv), setprivPrefix(m_uid) << QStringLiteral("/usr/bin/test")
                                                              << QStringLiteral("-x") << agentPath);
    if (!probe.waitForFinished(10000) || probe.exitStatus() != QProcess::NormalExit ||
        probe.exitCode() != 0)
        return fail(QStringLiteral("uid %1 cannot execute %2: make the build directory and every "
                                   "directory above it world-searchable (chmod o+x)")
                        .arg(m_uid)
                        .arg(agentPath));
    return true;
}

bool AgentProcess::start(const AgentOptions& options) {
    if (isRunning())
        return fail(QStringLiteral("the agent is already running"));
    m_error.clear();
    m_client.reset();
    const bool dropToUnprivileged = runningAsRoot() && !options.runAsRoot;
    m_uid = dropToUnprivileged ? options.unprivilegedUid : ::geteuid();
    const QString agentPath = options.agentPath.isEmpty()
                                  ? QStringLiteral(RUNBOX_BINARY_DIR "/agent/runbox-agent")
                                  : options.agentPath;
    if (!checkBinaryReachable(agentPath))
        return false;

    // The first start makes the state directory; later ones (after stop() or kill()) reuse it.
    if (!m_stateDir)
        m_stateDir = std::make_unique<QTemporaryDir>(
            (options.stateParentDir.isEmpty() ? QDir::tempPath() : options.stateParentDir) +
            QStringLiteral("/runbox-itest-XXXXXX"));
    if (!m_stateDir->isValid())
        return fail(QStringLiteral("cannot create a temporary state directory"));
    const QByteArray state = QFile::encodeName(m_stateDir->path());
    if (dropToUnprivileged && ::chown(state.constData(), m_uid, m_uid) != 0)
        return fail(QStringLiteral("cannot chown %1 to %2").arg(m_stateDir->path()).arg(m_uid));
    ::chmod(state.constData(), 0700);

    // A previous run's URL (the agent was killed) must not be mistaken for readiness.
    const QString urlPath = m_stateDir->filePath(QStringLiteral("agent.url"));
    QFile::remove(urlPath);
    QFile::remove(m_stateDir->filePath(QStringLiteral("agent.tls-url")));
    m_tlsUrl.clear();

    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const QString& key : env.keys())
        if (key.startsWith(QLatin1String("RUNBOX_")))
            env.remove(key);
    env.insert(QStringLiteral("HOME"), m_stateDir->path());
#if defined(__SANITIZE_ADDRESS__)
    // ASan keeps up to 256 MiB of freed memory in quarantine, which RSS counts: shrink it so that
    // the tests' memory checks measure the agent's buffering, not the allocator's.
    env.insert(QStringLiteral("ASAN_OPTIONS"),
               env.value(QStringLiteral("ASAN_OPTIONS")) + QStringLiteral(":quarantine_size_mb=8"));
#endif
    for (auto it = options.extraEnv.begin(); it != options.extraEnv.end(); ++it)
        env.insert(it.key(), it.value());
    m_process.setProcessEnvironment(env);
    m_process.setWorkingDirectory(m_stateDir->path());

    QStringList args{QStringLiteral("--state-dir"), m_stateDir->path(), QStringLiteral("--listen"),
                     QStringLiteral("127.0.0.1:0")};
    if (options.tls)
        args << QStringLiteral("--listen-tls") << QStringLiteral("127.0.0.1:0");
    args << options.extraArgs;
    QStringList command = dropToUnprivileged ? QStringList{QLatin1String(kSetpriv)}
                                                   << setprivPrefix(m_uid, options.setprivArgs)
                                             : QStringList{};
    command << agentPath << args;
    if (!options.launchWrapper.isEmpty())
        command = options.launchWrapper + command;
    if (!dropToUnprivileged || !options.launchWrapper.isEmpty())
        m_process.setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGKILL); });
    m_process.start(command.first(), command.mid(1));
    if (!m_process.waitForStarted(10000))
        return fail(QStringLiteral("cannot start %1: %2").arg(agentPath, m_process.errorString()));

    QDeadlineTimer deadline(options.startTimeoutMs);
    while (!QFile::exists(urlPath)) {
        if (m_process.state() == QProcess::NotRunning)
            return fail(QStringLiteral("the agent exited during start-up (code %1): %2")
                            .arg(m_process.exitCode())
                            .arg(log()));
        if (deadline.hasExpired())
            return fail(QStringLiteral("agent.url did not appear within %1 ms: %2")
                            .arg(options.startTimeoutMs)
                            .arg(log()));
        QTest::qWait(20);
    }
    QFile urlFile(urlPath);
    QFile tokenFile(m_stateDir->filePath(QStringLiteral("agent.token")));
    if (!urlFile.open(QIODevice::ReadOnly) || !tokenFile.open(QIODevice::ReadOnly))
        return fail(
            QStringLiteral("cannot read agent.url / agent.token in %1").arg(m_stateDir->path()));
    m_url = QUrl(QString::fromUtf8(urlFile.readAll().trimmed()));
    m_token = tokenFile.readAll().trimmed();
    if (!m_url.isValid() || m_url.port() <= 0 || m_token.isEmpty())
        return fail(QStringLiteral("agent.url or agent.token is malformed"));
    if (options.tls) { // written before agent.url
        QFile tlsUrlFile(m_stateDir->filePath(QStringLiteral("agent.tls-url")));
        if (tlsUrlFile.open(QIODevice::ReadOnly))
            m_tlsUrl = QUrl(QString::fromUtf8(tlsUrlFile.readAll().trimmed()));
        if (!m_tlsUrl.isValid() || m_tlsUrl.scheme() != QLatin1String("https"))
            return fail(QStringLiteral("agent.tls-url is missing or malformed: %1").arg(log()));
    }
    m_client = std::make_unique<ApiClient>(m_url, m_token);
    return true;
}

bool AgentProcess::isRunning() const {
    return m_process.state() != QProcess::NotRunning;
}

bool AgentProcess::stop(int timeoutMs) {
    if (!isRunning())
        return m_process.exitStatus() == QProcess::NormalExit && m_process.exitCode() == 0;
    ::kill(pid_t(m_process.processId()), SIGTERM);
    if (!m_process.waitForFinished(timeoutMs)) {
        m_process.kill();
        m_process.waitForFinished(5000);
        return false;
    }
    m_log += m_process.readAll();
    return m_process.exitStatus() == QProcess::NormalExit && m_process.exitCode() == 0;
}

void AgentProcess::kill() {
    if (!isRunning())
        return;
    ::kill(pid_t(m_process.processId()), SIGKILL);
    m_process.waitForFinished(10000);
    log();
}

QString AgentProcess::tlsFingerprint() const {
    if (!m_stateDir)
        return {};
    QProcess print;
    print.start(
        QStringLiteral(RUNBOX_BINARY_DIR "/agent/runbox-agent"),
        {QStringLiteral("--print-fingerprint"), QStringLiteral("--state-dir"), m_stateDir->path()});
    if (!print.waitForFinished(30000) || print.exitCode() != 0)
        return {};
    return QString::fromLatin1(print.readAllStandardOutput()).trimmed();
}

QString AgentProcess::cliPath() {
    return QStringLiteral(RUNBOX_BINARY_DIR "/cli/runbox");
}

QStringList AgentProcess::cliConnectionArgs() const {
    return {QStringLiteral("--url"), m_url.toString(), QStringLiteral("--token"),
            QString::fromLatin1(m_token)};
}

QString AgentProcess::log() {
    m_log += m_process.readAll();
    return QString::fromUtf8(m_log);
}

qint64 AgentProcess::pid() const {
    return m_process.processId();
}

QString AgentProcess::workspaceDir(const QString& workspaceId) const {
    return m_stateDir->filePath(QStringLiteral("workspaces/") + workspaceId);
}

QString AgentProcess::createWorkspace(QByteArray* workspaceToken) {
    const ApiResponse r =
        m_client->call("POST", "/v1/workspaces", QJsonObject{{"isolation", "strong"}}, 30000);
    const QJsonObject ws = r.json().value(QLatin1String("workspaces")).toArray().first().toObject();
    const QString id = ws.value(QLatin1String("id")).toString();
    if (r.status != 201 || id.isEmpty()) {
        m_error = QStringLiteral("POST /v1/workspaces answered %1: %2")
                      .arg(r.status)
                      .arg(QString::fromUtf8(r.body) + r.networkError);
        return {};
    }
    if (workspaceToken)
        *workspaceToken = ws.value(QLatin1String("token")).toString().toLatin1();
    return id;
}

int AgentProcess::workspaceCount() {
    const ApiResponse r = m_client->call("GET", "/v1/workspaces", {}, 30000);
    if (r.status != 200)
        return -1;
    return int(r.json().value(QLatin1String("workspaces")).toArray().size());
}

ExecOutcome AgentProcess::exec(const QString& workspaceId, const QJsonObject& body, int timeoutMs) {
    ExecStream stream(m_client.get(), workspaceId, body);
    if (!stream.waitForFinished(timeoutMs)) {
        stream.abort();
        ExecOutcome out = stream.outcome();
        out.waitTimedOut = true;
        return out;
    }
    return stream.outcome();
}

ExecOutcome AgentProcess::shell(const QString& workspaceId, const QString& code,
                                const QJsonObject& extra, int timeoutMs) {
    QJsonObject body = extra;
    body.insert(QStringLiteral("kind"), QStringLiteral("shell"));
    body.insert(QStringLiteral("code"), code);
    return exec(workspaceId, body, timeoutMs);
}

ExecOutcome AgentProcess::python(const QString& workspaceId, const QString& code,
                                 const QJsonObject& extra, int timeoutMs) {
    QJsonObject body = extra;
    body.insert(QStringLiteral("kind"), QStringLiteral("python"));
    body.insert(QStringLiteral("code"), code);
    return exec(workspaceId, body, timeoutMs);
}

ExecStream* AgentProcess::execStreaming(const QString& workspaceId, const QJsonObject& body) {
    return new ExecStream(m_client.get(), workspaceId, body, this);
}

qint64 AgentProcess::rssKiB() const {
    QFile status(QStringLiteral("/proc/%1/status").arg(pid()));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray& line : status.readAll().split('\n'))
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').first().toLongLong();
    return -1;
}

} // namespace runbox::testsupport
