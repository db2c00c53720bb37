#include "support/FileApiAgent.h"

#include "shared/ApiClient.h"
#include "shared/Crypto.h"
#include "shared/NdjsonReader.h"
#include "shared/RequestSigner.h"

#include <QDateTime>
#include <QDeadlineTimer>
#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkReply>
#include <QProcessEnvironment>
#include <QTcpSocket>
#include <QTest>
#include <QTimer>

#include <csignal>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace runbox::testsupport {

namespace {

constexpr uid_t kNobody = 65534;

/// Parses one response out of @p buf; false while incomplete. @p closed: no more bytes come.
bool parseResponse(QByteArray* buf, bool closed, RawResponse* out) {
    for (;;) {
        const qsizetype end = buf->indexOf("\r\n\r\n");
        if (end < 0)
            return false;
        if (buf->startsWith("HTTP/1.1 100")) {
            buf->remove(0, end + 4);
            continue;
        }
        RawResponse r;
        r.head = buf->left(end);
        r.status = r.head.mid(9, 3).toInt();
        const QByteArray rest = buf->mid(end + 4);
        const QByteArray length = r.header("content-length");
        if (r.status == 304 || r.status == 204) {
            *out = r;
            return true;
        }
        if (!length.isEmpty()) {
            if (rest.size() < length.toLongLong())
                return false;
            r.body = rest.left(length.toLongLong());
        } else if (r.header("transfer-encoding").toLower() == "chunked") {
            qsizetype pos = 0;
            for (;;) {
                const qsizetype eol = rest.indexOf("\r\n", pos);
                if (eol < 0)
                    return false;
                bool ok = false;
                const qint64 size = rest.mid(pos, eol - pos).toLongLong(&ok, 16);
                if (!ok)
                    return false;
                if (size == 0)
                    break;
                if (rest.size() < eol + 2 + size + 2)
                    return false;
                r.body += rest.mid(eol + 2, size);
                pos = eol + 2 + size + 2;
            }
        } else {
            if (!closed)
                return false;
            r.body = rest;
        }
        *out = r;
        return true;
    }
}

} // namespace

QByteArray RawResponse::header(const QByteArray& lowerName) const {
    for (const QByteArray& line : head.split('\n')) {
        const qsizetype colon = line.indexOf(':');
        if (colon > 0 && line.left(colon).trimmed().toLower() == lowerName)
            return line.mid(colon + 1).trimmed();
    }
    return {};
}

std::unique_ptr<QTcpSocket> RawHttp::start(const QByteArray& method, const QByteArray& target,
                                           const QList<QPair<QByteArray, QByteArray>>& extraHeaders,
                                           const QByteArray& body,
                                           const QByteArray& signedBodySha256,
                                           int timeoutMs) const {
    auto s = std::make_unique<QTcpSocket>();
    s->connectToHost(QHostAddress::LocalHost, m_port);
    if (!s->waitForConnected(5000))
        return nullptr;
    QByteArray head = method + ' ' + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
    const QByteArray hash = signedBodySha256.isEmpty() ? crypto::sha256Hex(body) : signedBodySha256;
    for (const auto& [name, value] : RequestSigner::headersForHash(
             m_token, method, target, hash, QDateTime::currentMSecsSinceEpoch()))
        head += name + ": " + value + "\r\n";
    for (const auto& [name, value] : extraHeaders)
        head += name + ": " + value + "\r\n";
    s->write(head + "\r\n");
    QDeadlineTimer deadline(timeoutMs);
    // Write the body in pieces; stop as soon as the server answers (an early 413).
    for (qsizetype pos = 0; pos < body.size() && s->state() == QAbstractSocket::ConnectedState;) {
        const qsizetype n = std::min<qsizetype>(256 * 1024, body.size() - pos);
        s->write(body.constData() + pos, n);
        pos += n;
        while (s->bytesToWrite() > 0 && s->state() == QAbstractSocket::ConnectedState &&
               !deadline.hasExpired() && s->bytesAvailable() == 0)
            s->waitForBytesWritten(100);
        if (s->bytesAvailable() > 0 || s->waitForReadyRead(0))
            break;
    }
    while (s->bytesToWrite() > 0 && s->state() == QAbstractSocket::ConnectedState &&
           !deadline.hasExpired())
        s->waitForBytesWritten(100);
    return s;
}

RawResponse RawHttp::finish(QTcpSocket* s, int timeoutMs) {
    RawResponse out;
    if (!s)
        return out;
    QDeadlineTimer deadline(timeoutMs);
    QByteArray buf;
    while (!deadline.hasExpired()) {
        buf += s->readAll();
        const bool closed = s->state() != QAbstractSocket::ConnectedState;
        if (parseResponse(&buf, closed, &out) || closed)
            break;
        s->waitForReadyRead(100);
    }
    return out;
}

RawResponse RawHttp::send(const QByteArray& method, const QByteArray& target,
                          const QList<QPair<QByteArray, QByteArray>>& extraHeaders,
                          const QByteArray& body, const QByteArray& signedBodySha256,
                          int timeoutMs) const {
    std::unique_ptr<QTcpSocket> s =
        start(method, target, extraHeaders, body, signedBodySha256, timeoutMs);
    return finish(s.get(), timeoutMs);
}

std::unique_ptr<QTcpSocket> RawHttp::startPut(const QByteArray& target,
                                              const QByteArray& body) const {
    const QByteArray hash = crypto::sha256Hex(body);
    return start(
        "PUT", target,
        {{"X-Runbox-Content-SHA256", hash}, {"Content-Length", QByteArray::number(body.size())}},
        body, hash);
}

RawResponse RawHttp::put(const QByteArray& target, const QByteArray& body) const {
    const QByteArray hash = crypto::sha256Hex(body);
    return send(
        "PUT", target,
        {{"X-Runbox-Content-SHA256", hash}, {"Content-Length", QByteArray::number(body.size())}},
        body, hash);
}

FileApiAgent::FileApiAgent() {
    m_process.setProcessChannelMode(QProcess::MergedChannels);
}

FileApiAgent::~FileApiAgent() {
    m_client.reset();
    if (m_process.state() != QProcess::NotRunning) {
        ::kill(pid_t(m_process.processId()), SIGTERM);
        if (!m_process.waitForFinished(10000)) {
            m_process.kill();
            m_process.waitForFinished(5000);
        }
    }
}

QString FileApiAgent::log() {
    m_log += m_process.readAll();
    return QString::fromUtf8(m_log);
}

bool FileApiAgent::start(const QMap<QString, QString>& env) {
    const bool root = ::geteuid() == 0;
    m_uid = root ? kNobody : ::geteuid();
    const QString agent = QStringLiteral(RUNBOX_BINARY_DIR "/agent/runbox-agent");
    m_stateDir = std::make_unique<QTemporaryDir>(QDir::tempPath() +
                                                 QStringLiteral("/runbox-fileapi-XXXXXX"));
    if (!m_stateDir->isValid()) {
        m_error = QStringLiteral("cannot create a state directory");
        return false;
    }
    const QByteArray state = QFile::encodeName(m_stateDir->path());
    if (root && ::chown(state.constData(), m_uid, m_uid) != 0) {
        m_error = QStringLiteral("cannot chown the state directory");
        return false;
    }
    QProcessEnvironment penv = QProcessEnvironment::systemEnvironment();
    for (const QString& key : penv.keys())
        if (key.startsWith(QLatin1String("RUNBOX_")))
            penv.remove(key);
    penv.insert(QStringLiteral("HOME"), m_stateDir->path());
    for (auto it = env.begin(); it != env.end(); ++it)
        penv.insert(it.key(), it.value());
    m_process.setProcessEnvironment(penv);
    m_process.setWorkingDirectory(m_stateDir->path());
    const QStringList args{QStringLiteral("--state-dir"), m_stateDir->path(),
                           QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0")};
    if (root) {
        // The parent-death signal is set after the uid change (which clears it, prctl(2)).
        m_process.start(QStringLiteral("/usr/bin/setpriv"),
                        QStringList{QStringLiteral("--reuid=%1").arg(m_uid),
                                    QStringLiteral("--regid=%1").arg(m_uid),
                                    QStringLiteral("--clear-groups"), QStringLiteral("--pdeathsig"),
                                    QStringLiteral("KILL"), QStringLiteral("--"), agent} +
                            args);
    } else {
        m_process.setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGKILL); });
        m_process.start(agent, args);
    }
    if (!m_process.waitForStarted(10000)) {
        m_error = QStringLiteral("cannot start %1: %2").arg(agent, m_process.errorString());
        return false;
    }
    const QString urlPath = m_stateDir->filePath(QStringLiteral("agent.url"));
    QDeadlineTimer deadline(30000);
    while (!QFile::exists(urlPath)) {
        if (m_process.state() == QProcess::NotRunning || deadline.hasExpired()) {
            m_error = QStringLiteral("the agent did not start: %1").arg(log());
            return false;
        }
        QTest::qWait(20);
    }
    QFile urlFile(urlPath), tokenFile(m_stateDir->filePath(QStringLiteral("agent.token")));
    if (!urlFile.open(QIODevice::ReadOnly) || !tokenFile.open(QIODevice::ReadOnly)) {
        m_error = QStringLiteral("cannot read agent.url / agent.token");
        return false;
    }
    m_url = QUrl(QString::fromUtf8(urlFile.readAll().trimmed()));
    m_token = tokenFile.readAll().trimmed();
    m_client = std::make_unique<ApiClient>(m_url, m_token);
    return true;
}

qint64 FileApiAgent::rssKiB() const {
    QFile status(QStringLiteral("/proc/%1/status").arg(pid()));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray& line : status.readAll().split('\n'))
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').first().toLongLong();
    return -1;
}

QString FileApiAgent::workspaceDir(const QString& id) const {
    return m_stateDir->filePath(QStringLiteral("workspaces/") + id);
}

QString FileApiAgent::createWorkspace(QByteArray* token) {
    const ApiResponse r =
        m_client->call("POST", "/v1/workspaces", QJsonObject{{"isolation", "strong"}});
    const QJsonObject ws = r.json().value(QLatin1String("workspaces")).toArray().first().toObject();
    if (token)
        *token = ws.value(QLatin1String("token")).toString().toLatin1();
    if (r.status != 201)
        m_error = QString::fromUtf8(r.body);
    return ws.value(QLatin1String("id")).toString();
}

bool FileApiAgent::setQuotas(const QJsonObject& patch) {
    const ApiResponse r = m_client->call("PUT", "/v1/settings/quotas", patch);
    if (r.status != 200)
        m_error = QString::fromUtf8(r.body);
    return r.status == 200;
}

ExecResult FileApiAgent::shell(const QString& workspaceId, const QString& code, int timeoutMs) {
    ExecResult result;
    QEventLoop loop;
    bool done = false;
    const QByteArray body = QJsonDocument(QJsonObject{{"kind", "shell"}, {"code", code}})
                                .toJson(QJsonDocument::Compact);
    QNetworkReply* reply = m_client->stream(
        "POST", "/v1/workspaces/" + workspaceId.toUtf8() + "/exec", body,
        [&](const QJsonObject& ev) {
            const QString type = ev.value(QLatin1String("type")).toString();
            const QByteArray data =
                ev.contains(QLatin1String("dataBase64"))
                    ? QByteArray::fromBase64(
                          ev.value(QLatin1String("dataBase64")).toString().toLatin1())
                    : ev.value(QLatin1String("data")).toString().toUtf8();
            if (type == QLatin1String("stdout"))
                result.stdoutBytes += data;
            else if (type == QLatin1String("stderr"))
                result.stderrBytes += data;
            else if (type == QLatin1String("exit")) {
                result.status = ev.value(QLatin1String("status")).toString();
                result.exitCode = ev.value(QLatin1String("exitCode")).toInt(-1);
            }
        },
        [&](const ApiResponse& r) {
            result.httpStatus = r.status;
            result.errorBody = r.body;
            done = true;
            loop.quit();
        });
    QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
    if (!done)
        loop.exec();
    if (!done)
        reply->abort();
    return result;
}

} // namespace runbox::testsupport
