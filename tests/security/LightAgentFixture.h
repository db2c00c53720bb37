#pragma once
// The real runbox-agent, started as root (light workspaces need it) on a free loopback port with
// a fresh state directory under the build tree (not /tmp, so the workspaces' host runtime dirs are
// masked as in production), plus small helpers to run sync execs through the HTTP API.

#include "shared/ApiClient.h"
#include "shared/NdjsonReader.h"
#include "support/AgentMounts.h"
#include "support/TestFiles.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>
#include <QUrl>

#include <csignal>
#include <functional>
#include <memory>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace lightagent {

using runbox::ApiClient;
using runbox::ApiResponse;

/// What a sync exec streamed back.
struct Outcome {
    int httpStatus = 0;
    QByteArray body; ///< raw body (the error body when not 200)
    QByteArray out, err;
    QJsonObject exit;
    QList<QJsonObject> events;

    QString status() const { return exit.value(QLatin1String("status")).toString(); }
    int exitCode() const { return exit.value(QLatin1String("exitCode")).toInt(-1); }
    QString errorCode() const {
        return QJsonDocument::fromJson(body)
            .object()
            .value("error")
            .toObject()
            .value("code")
            .toString();
    }
    QString describe() const {
        return QStringLiteral("http %1, status %2, exit %3, out %4, err %5, body %6")
            .arg(httpStatus)
            .arg(status())
            .arg(exitCode())
            .arg(QString::fromUtf8(out.left(200)), QString::fromUtf8(err.left(200)),
                 QString::fromUtf8(body.left(300)));
    }
};

/// Bytes of a stdout/stderr event (`data`, or `dataBase64`).
inline QByteArray eventBytes(const QJsonObject& event) {
    if (event.contains(QLatin1String("dataBase64")))
        return QByteArray::fromBase64(
            event.value(QLatin1String("dataBase64")).toString().toLatin1());
    return event.value(QLatin1String("data")).toString().toUtf8();
}

/// Collects a whole NDJSON exec response.
inline Outcome parseOutcome(const ApiResponse& response) {
    Outcome o;
    o.httpStatus = response.status;
    o.body = response.body;
    if (response.status != 200)
        return o;
    runbox::NdjsonReader reader;
    for (const QJsonObject& event : reader.feed(response.body)) {
        o.events << event;
        const QString type = event.value(QLatin1String("type")).toString();
        if (type == QLatin1String("stdout"))
            o.out += eventBytes(event);
        else if (type == QLatin1String("stderr"))
            o.err += eventBytes(event);
        else if (type == QLatin1String("exit"))
            o.exit = event;
    }
    return o;
}

inline Outcome exec(ApiClient& client, const QString& id, const QJsonObject& body,
                    int timeoutMs = 120000) {
    return parseOutcome(client.callRaw("POST", "/v1/workspaces/" + id.toUtf8() + "/exec",
                                       QJsonDocument(body).toJson(QJsonDocument::Compact),
                                       timeoutMs));
}

inline Outcome sh(ApiClient& client, const QString& id, const QString& script,
                  QJsonObject extra = {}) {
    extra.insert(QStringLiteral("argv"), QJsonArray{"/bin/sh", "-c", script});
    return exec(client, id, extra);
}

/// Polls @p condition (spinning the event loop) for up to @p boundMs — a bound, not a timing
/// assertion.
inline bool waitUntil(const std::function<bool()>& condition, int boundMs = 15000) {
    QElapsedTimer timer;
    timer.start();
    while (!condition()) {
        if (timer.elapsed() > boundMs)
            return false;
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        QThread::msleep(20);
    }
    return true;
}

/// One light workspace as created.
struct Workspace {
    QString id;
    QByteArray token;
    uid_t uid = 0;
    QString home;
};

/// The agent process. The destructor stops it (SIGTERM, then SIGKILL) and removes its state.
class Agent final {
public:
    Agent() = default;
    ~Agent() {
        stop();
        if (m_dir)
            runbox::testsupport::detachAgentMounts(m_dir->path());
    }
    Agent(const Agent&) = delete;
    Agent& operator=(const Agent&) = delete;

    /// Starts the agent with @p env added (RUNBOX_LIGHT_UID_FIRST etc.). False with @p error.
    bool start(const QMap<QString, QString>& env, QString* error) {
        // The supervisor masks /tmp, /run, /var/tmp and /dev/shm with empty tmpfs: homes below
        // them could not be reached, so a build tree there keeps its light state elsewhere.
        QString base = QStringLiteral(RUNBOX_BINARY_DIR "/tests/light-agent");
        for (const char* masked : {"/tmp/", "/run/", "/var/tmp/", "/dev/shm/"})
            if (base.startsWith(QLatin1String(masked)))
                base = QStringLiteral("/var/lib/runbox-tests/light-agent");
        QDir().mkpath(base);
        m_dir = std::make_unique<QTemporaryDir>(base + QStringLiteral("/state-XXXXXX"));
        if (!m_dir->isValid()) {
            *error = QStringLiteral("cannot create a state directory");
            return false;
        }
        m_env = env;
        return launch(error);
    }

    /// SIGKILLs the agent (a crash: no clean-up of its own) and waits for it to be gone.
    void crash() {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.kill();
            m_process.waitForFinished(10000);
        }
    }

    /// Starts the agent again on the same state directory (after crash() or stop()).
    bool restart(QString* error) {
        QFile::remove(m_dir->path() + QStringLiteral("/agent.url"));
        return launch(error);
    }

private:
    bool launch(QString* error) {
        const QMap<QString, QString>& env = m_env;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        for (auto it = env.cbegin(); it != env.cend(); ++it)
            environment.insert(it.key(), it.value());
#if defined(__SANITIZE_ADDRESS__)
        // As in AgentProcess: a small quarantine, so memory checks see buffering, not ASan.
        environment.insert(QStringLiteral("ASAN_OPTIONS"),
                           environment.value(QStringLiteral("ASAN_OPTIONS")) +
                               QStringLiteral(":quarantine_size_mb=8"));
#endif
        m_process.setProcessEnvironment(environment);
        m_process.setProcessChannelMode(QProcess::MergedChannels);
        m_process.setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGTERM); });
        m_process.start(QStringLiteral(RUNBOX_BINARY_DIR "/agent/runbox-agent"),
                        {QStringLiteral("--state-dir"), m_dir->path(), QStringLiteral("--listen"),
                         QStringLiteral("127.0.0.1:0")});
        if (!m_process.waitForStarted(10000)) {
            *error = m_process.errorString();
            return false;
        }
        const QString urlFile = m_dir->path() + QStringLiteral("/agent.url");
        if (!waitUntil([&] { return QFile::exists(urlFile); }, 60000)) {
            *error = QStringLiteral("agent.url never appeared: ") + log();
            return false;
        }
        QFile url(urlFile), token(m_dir->path() + QStringLiteral("/agent.token"));
        if (!url.open(QIODevice::ReadOnly) || !token.open(QIODevice::ReadOnly)) {
            *error = QStringLiteral("cannot read agent.url / agent.token");
            return false;
        }
        m_url = QUrl(QString::fromUtf8(url.readAll().trimmed()));
        m_token = token.readAll().trimmed();
        m_client = std::make_unique<ApiClient>(m_url, m_token);
        return true;
    }

public:
    void stop() {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.terminate();
            if (!m_process.waitForFinished(20000)) {
                m_process.kill();
                m_process.waitForFinished(5000);
            }
        }
    }

    QString log() {
        m_log += m_process.readAll();
        return QString::fromUtf8(m_log);
    }
    QString stateDir() const {
        return m_dir ? m_dir->path() : QString();
    }
    QUrl url() const {
        return m_url;
    }
    QByteArray token() const {
        return m_token;
    }
    ApiClient& client() {
        return *m_client;
    }
    qint64 pid() const {
        return m_process.processId();
    }

    /// The usual set-up of a light test: starts the agent with light uids
    /// [@p uidFirst, @p uidFirst + @p uidCount), reads `/v1/health`, and creates two light
    /// workspaces into @p a and @p b (distinct uids). Returns why the test must be skipped (not
    /// root, or the light tier unavailable here: the caller QSKIPs with it, since QSKIP must be
    /// in the test function); empty otherwise, with @p error set when the set-up failed.
    QString startWithTwoWorkspaces(uid_t uidFirst, int uidCount, Workspace* a, Workspace* b,
                                   QString* error) {
        if (::geteuid() != 0)
            return QStringLiteral("light workspaces need root (setuid/chown); run this test as "
                                  "root");
        if (!start({{QStringLiteral("RUNBOX_LIGHT_UID_FIRST"), QString::number(uidFirst)},
                    {QStringLiteral("RUNBOX_LIGHT_UID_COUNT"), QString::number(uidCount)}},
                   error))
            return {};
        const ApiResponse health = m_client->call("GET", "/v1/health");
        const QJsonObject light = health.json().value("light").toObject();
        if (!light.value("available").toBool())
            return QStringLiteral("light tier unavailable here: %1")
                .arg(light.value("reason").toString());
        *a = createOne();
        *b = createOne();
        if (a->id.isEmpty() || b->id.isEmpty())
            *error = QStringLiteral("cannot create light workspaces A and B: ") + log();
        else if (a->uid == b->uid)
            *error = QStringLiteral("workspaces A and B share uid %1").arg(a->uid);
        return {};
    }

    /// The `confinement` of workspace @p id as `GET /v1/workspaces` reports it ({} if unlisted).
    QJsonObject confinementOf(const QString& id) {
        for (const QJsonValue& v :
             m_client->call("GET", "/v1/workspaces").json().value("workspaces").toArray())
            if (v.toObject().value("id").toString() == id)
                return v.toObject().value("confinement").toObject();
        return {};
    }
    /// `POST /v1/workspaces {isolation: light, …extra}`; the 201 body.
    ApiResponse createLight(QJsonObject extra = {}) {
        extra.insert(QStringLiteral("isolation"), QStringLiteral("light"));
        return m_client->call("POST", "/v1/workspaces", extra, 60000);
    }
    /// One light workspace (empty id on failure).
    Workspace createOne(QJsonObject extra = {}) {
        Workspace ws;
        const ApiResponse r = createLight(extra);
        const QJsonArray items = r.json().value("workspaces").toArray();
        if (r.status != 201 || items.size() != 1)
            return ws;
        const QJsonObject item = items.first().toObject();
        ws.id = item.value("id").toString();
        ws.token = item.value("token").toString().toUtf8();
        ws.uid = uid_t(item.value("uid").toDouble());
        ws.home = homeOwnedBy(ws.uid);
        if (ws.home.isEmpty()) { // a check on the home would then test nothing: fail instead
            qWarning("no home owned by uid %u under %s/light", unsigned(ws.uid),
                     qPrintable(stateDir()));
            ws.id.clear();
        }
        return ws;
    }
    /// The home of the live light workspace with @p uid: the directory under `<state>/light`
    /// owned by it (a home keeps the name of the spare it was made from, not the workspace id).
    QString homeOwnedBy(uid_t uid) const {
        const QString root = stateDir() + QStringLiteral("/light");
        const QStringList homes = runbox::testsupport::directoriesOwnedBy(root, uid);
        return homes.isEmpty() ? QString() : root + QLatin1Char('/') + homes.first();
    }

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    QMap<QString, QString> m_env;
    QProcess m_process;
    QByteArray m_log;
    QUrl m_url;
    QByteArray m_token;
    std::unique_ptr<ApiClient> m_client;
};

} // namespace lightagent
