#include "cli/LogsCommand.h"

#include "cli/CliOptions.h"
#include "cli/ExecOptions.h"
#include "shared/ApiClient.h"

#include <QEventLoop>
#include <QJsonDocument>
#include <QTextStream>
#include <QTimer>

#include <cstdio>

namespace runbox::cli {

namespace {
constexpr int kMaxFruitlessAttempts = 30;
constexpr int kRetryDelayMs = 1000;
} // namespace

LogStreamResult streamLog(ApiClient& client, const QString& executionId, qint64 offset, bool follow,
                          bool json, const char* command) {
    QTextStream err(stderr);
    LogStreamResult result;
    result.nextOffset = offset;
    int fruitless = 0;
    for (;;) {
        QByteArray path = "/v1/executions/" + QUrl::toPercentEncoding(executionId) +
                          "/log?offset=" + QByteArray::number(result.nextOffset);
        if (follow)
            path += "&follow=true";
        bool progressed = false;
        bool streamError = false;
        ApiResponse final;
        QEventLoop loop;
        client.stream(
            "GET", path, {},
            [&](const QJsonObject& ev) {
                progressed = true;
                const QString type = ev.value(QLatin1String("type")).toString();
                if (json)
                    writeBytes(stdout, QJsonDocument(ev).toJson(QJsonDocument::Compact) + '\n');
                if (type == QLatin1String("stdout") || type == QLatin1String("stderr")) {
                    const QByteArray bytes = eventBytes(ev);
                    const qint64 at = ev.value(QLatin1String("offset")).toInteger();
                    // Whole frames start at or after the requested offset; never repeat a byte.
                    const qint64 skip = std::max<qint64>(0, result.nextOffset - at);
                    if (skip < bytes.size()) {
                        if (!json)
                            writeBytes(type == QLatin1String("stdout") ? stdout : stderr,
                                       bytes.mid(skip));
                        result.nextOffset = at + bytes.size();
                    }
                } else if (type == QLatin1String("gap")) {
                    const qint64 at = ev.value(QLatin1String("offset")).toInteger();
                    const qint64 n = ev.value(QLatin1String("bytes")).toInteger();
                    result.droppedBytes += n;
                    result.nextOffset = std::max(result.nextOffset, at + n);
                } else if (type == QLatin1String("exit")) {
                    result.exitEvent = ev;
                } else if (type == QLatin1String("error")) {
                    streamError = true;
                    err << "runbox " << command << ": "
                        << ev.value(QLatin1String("message")).toString() << Qt::endl;
                }
            },
            [&](const ApiResponse& r) {
                final = r;
                loop.quit();
            });
        loop.exec();
        if ((final.status != 0 && final.status != 200) || (!follow && final.status == 0)) {
            err << "runbox " << command << ": " << final.status << ' ' << final.errorCode() << ": "
                << final.errorMessage() << Qt::endl;
            return result;
        }
        if (streamError)
            return result;
        if (!result.exitEvent.isEmpty() || (!follow && final.status == 200))
            break;
        // Following, and the stream ended without the exit event: resume where it stopped.
        fruitless = progressed ? 0 : fruitless + 1;
        if (fruitless >= kMaxFruitlessAttempts) {
            err << "runbox " << command << ": giving up at offset " << result.nextOffset << ": "
                << (final.status == 0 ? final.networkError : QStringLiteral("no progress"))
                << Qt::endl;
            return result;
        }
        QEventLoop wait;
        QTimer::singleShot(progressed ? 0 : kRetryDelayMs, &wait, &QEventLoop::quit);
        wait.exec();
    }
    if (result.droppedBytes > 0)
        err << "runbox " << command << ": " << result.droppedBytes
            << " bytes of this log were dropped by retention (maxOutputBytes)" << Qt::endl;
    result.ok = true;
    return result;
}

int runLogs(ApiClient& client, QStringList args) {
    QTextStream err(stderr);
    QString error;
    const bool follow =
        takeFlag(&args, QStringLiteral("-f")) || takeFlag(&args, QStringLiteral("--follow"));
    const bool json = takeFlag(&args, QStringLiteral("--json"));
    const QString offsetText = takeOption(&args, QStringLiteral("--offset"), &error);
    bool ok = true;
    const qint64 offset = offsetText.isEmpty() ? 0 : offsetText.toLongLong(&ok);
    if (!error.isEmpty() || !ok || offset < 0 || args.size() != 1 || args.first().startsWith('-')) {
        err << "runbox logs: "
            << (!error.isEmpty() ? error
                : !ok || offset < 0
                    ? QStringLiteral("--offset takes a byte offset (a whole number >= 0)")
                    : QStringLiteral("usage: runbox logs [-f] [--offset N] [--json] ID"))
            << Qt::endl;
        return 2;
    }
    const LogStreamResult r = streamLog(client, args.first(), offset, follow, json, "logs");
    if (!r.ok)
        return 1;
    return follow ? exitStatusOf(r.exitEvent, "logs") : 0;
}

} // namespace runbox::cli
