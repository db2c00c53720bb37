#include "support/ManagedApi.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QJsonDocument>
#include <QNetworkReply>
#include <QPointer>
#include <QTest>
#include <QTimer>

#include <unistd.h>

namespace runbox::testsupport {

ApiResponse submitExecution(ApiClient& client, const QString& workspaceId, QJsonObject body) {
    body.insert(QStringLiteral("workspace"), workspaceId);
    return client.call("POST", "/v1/executions", body);
}

QJsonObject executionRecord(ApiClient& client, const QString& executionId) {
    const ApiResponse r = client.call("GET", "/v1/executions/" + executionId.toUtf8());
    return r.status == 200 ? r.json() : QJsonObject();
}

bool isFinalState(const QString& state) {
    return !state.isEmpty() && state != QLatin1String("queued") &&
           state != QLatin1String("running");
}

QJsonObject waitForRecord(ApiClient& client, const QString& executionId,
                          const std::function<bool(const QJsonObject&)>& done, int timeoutMs) {
    QDeadlineTimer deadline(timeoutMs);
    QJsonObject record;
    for (;;) {
        record = executionRecord(client, executionId);
        if (done(record) || deadline.hasExpired())
            return record;
        QTest::qWait(20);
    }
}

QJsonObject waitUntilFinal(ApiClient& client, const QString& executionId, int timeoutMs) {
    return waitForRecord(
        client, executionId,
        [](const QJsonObject& r) {
            return isFinalState(r.value(QLatin1String("state")).toString());
        },
        timeoutMs);
}

bool LogCapture::endsWithExit() const {
    return !events.isEmpty() &&
           events.constLast().value(QLatin1String("type")).toString() == QLatin1String("exit");
}

LogCapture readLog(ApiClient& client, const QString& executionId, qint64 offset, bool follow,
                   int timeoutMs, const std::function<bool(const QJsonObject&)>& onEvent) {
    LogCapture capture;
    QByteArray path =
        "/v1/executions/" + executionId.toUtf8() + "/log?offset=" + QByteArray::number(offset);
    if (follow)
        path += "&follow=true";
    QEventLoop loop;
    bool ended = false;
    QPointer<QNetworkReply> reply;
    reply = client.stream(
        "GET", path, {},
        [&](const QJsonObject& ev) {
            capture.events.append(ev);
            const QString type = ev.value(QLatin1String("type")).toString();
            const qint64 at = ev.value(QLatin1String("offset")).toInteger(-1);
            if (type == QLatin1String("stdout") || type == QLatin1String("stderr")) {
                const QByteArray data =
                    ev.contains(QLatin1String("dataBase64"))
                        ? QByteArray::fromBase64(
                              ev.value(QLatin1String("dataBase64")).toString().toLatin1())
                        : ev.value(QLatin1String("data")).toString().toUtf8();
                if (capture.firstOffset < 0)
                    capture.firstOffset = at;
                else if (at != capture.nextOffset)
                    capture.contiguous = false;
                capture.nextOffset = at + data.size();
                capture.bytes += data;
                (type == QLatin1String("stdout") ? capture.stdoutBytes : capture.stderrBytes) +=
                    data;
            } else if (type == QLatin1String("gap")) {
                capture.nextOffset = at + ev.value(QLatin1String("bytes")).toInteger();
            } else if (type == QLatin1String("exit")) {
                capture.exitEvent = ev;
            }
            if (onEvent && !onEvent(ev) && reply) {
                capture.aborted = true;
                QTimer::singleShot(0, reply.data(), [reply] {
                    if (reply)
                        reply->abort();
                });
            }
        },
        [&](const ApiResponse& r) {
            capture.status = r.status;
            ended = true;
            loop.quit();
        });
    QTimer::singleShot(timeoutMs, &loop, [&] {
        capture.timedOut = true;
        if (reply)
            reply->abort();
    });
    if (!ended)
        loop.exec();
    return capture;
}

QList<int> processesWithMarker(const QByteArray& marker) {
    QList<int> pids;
    const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs);
    for (const QString& entry : entries) {
        bool ok = false;
        const int pid = entry.toInt(&ok);
        if (!ok || pid == int(::getpid()))
            continue;
        QFile cmdline(QStringLiteral("/proc/%1/cmdline").arg(pid));
        if (cmdline.open(QIODevice::ReadOnly) && cmdline.readAll().contains(marker))
            pids.append(pid);
    }
    return pids;
}

} // namespace runbox::testsupport
