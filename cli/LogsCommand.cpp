#include "cli/LogsCommand.h"

#include "cli/CliOptions.h"
#include "cli/ExecOptions.h"
#include "cli/HttpStream.h"
#include "shared/ApiClient.h"
#include "shared/LogFrames.h"

#include <QEventLoop>
#include <QJsonDocument>
#include <QTextStream>
#include <QTimer>

#include <QThread>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <unistd.h>

namespace runbox::cli {

namespace {
constexpr int kMaxFruitlessAttempts = 30;
constexpr int kRetryDelayMs = 1000;
} // namespace

namespace {

/// Writes all of @p bytes to @p fd (retrying short writes and EINTR); false on error.
bool writeFd(int fd, QByteArrayView bytes) {
    while (!bytes.isEmpty()) {
        const ssize_t n = ::write(fd, bytes.data(), size_t(bytes.size()));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        bytes = bytes.sliced(n);
    }
    return true;
}

/// streamLog() in the framed format (docs/managed.md): one plain socket, output bytes written
/// straight to fds 1 and 2 as they arrive.
LogStreamResult streamLogFrames(ApiClient& client, const QString& executionId, qint64 offset,
                                bool follow, const char* command) {
    QTextStream err(stderr);
    LogStreamResult result;
    result.nextOffset = offset;
    int fruitless = 0;
    fflush(stdout);
    fflush(stderr);
    for (;;) {
        QByteArray path = "/v1/executions/" + QUrl::toPercentEncoding(executionId) +
                          "/log?format=frames&offset=" + QByteArray::number(result.nextOffset);
        if (follow)
            path += "&follow=true";
        bool progressed = false;
        bool streamError = false;
        bool outputError = false;
        logframes::FrameDecoder decoder(
            [&](logframes::FrameType stream, QByteArrayView bytes) {
                progressed = true;
                if (!writeFd(stream == logframes::FrameType::Stdout ? 1 : 2, bytes))
                    outputError = true;
                result.nextOffset += bytes.size();
            },
            [&](const QJsonObject& ev) {
                progressed = true;
                const QString type = ev.value(QLatin1String("type")).toString();
                if (type == QLatin1String("gap")) {
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
            });
        bool protocolError = false;
        const StreamResult r = streamGet(
            client.baseUrl(), client.token(), client.pinnedSha256(), client.clockOffsetMs(), path,
            {{"Accept", logframes::kMediaType}},
            [&](QByteArrayView body) {
                if (!decoder.feed(body))
                    protocolError = true;
                return !protocolError && !outputError;
            },
            follow ? -1 : 60000);
        if (outputError) {
            err << "runbox " << command << ": cannot write the output: " << strerror(errno)
                << Qt::endl;
            return result;
        }
        if (protocolError) {
            err << "runbox " << command << ": " << decoder.errorString() << Qt::endl;
            return result;
        }
        if (r.status != 0 && r.status != 200) {
            const ApiResponse answer{r.status, r.errorBody, {}};
            err << "runbox " << command << ": " << r.status << ' ' << answer.errorCode() << ": "
                << answer.errorMessage() << Qt::endl;
            return result;
        }
        if (r.status == 0 && !follow) {
            err << "runbox " << command << ": " << r.transportError << Qt::endl;
            result.failureExit = kExitConnection;
            return result;
        }
        if (streamError)
            return result;
        if (!result.exitEvent.isEmpty() || (!follow && r.complete))
            break;
        fruitless = progressed ? 0 : fruitless + 1;
        if (fruitless >= kMaxFruitlessAttempts) {
            err << "runbox " << command << ": giving up at offset " << result.nextOffset << ": "
                << (r.transportError.isEmpty() ? QStringLiteral("no progress") : r.transportError)
                << Qt::endl;
            result.failureExit = kExitConnection;
            return result;
        }
        if (!progressed)
            QThread::msleep(kRetryDelayMs);
    }
    if (result.droppedBytes > 0)
        err << "runbox " << command << ": " << result.droppedBytes
            << " bytes of this log were dropped by retention (maxOutputBytes)" << Qt::endl;
    result.ok = true;
    return result;
}

} // namespace

LogStreamResult streamLog(ApiClient& client, const QString& executionId, qint64 offset, bool follow,
                          bool json, const char* command) {
    if (!json)
        return streamLogFrames(client, executionId, offset, follow, command);
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
            result.failureExit = reportFailure(command, final);
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
            result.failureExit = kExitConnection;
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

int runLogs(ApiClient& client, const QStringList& args) {
    static const char kUsage[] = "runbox logs [-f|--follow] [--offset N] [--json] ID";
    ParsedArgs parsed;
    if (!parseCommandArgs("logs", args,
                          {{QStringLiteral("--follow"), false, QStringLiteral("-f")},
                           {QStringLiteral("--json")},
                           {QStringLiteral("--offset"), true}},
                          kUsage, &parsed))
        return kExitUsage;
    const bool follow = parsed.has(QStringLiteral("--follow"));
    const bool json = parsed.has(QStringLiteral("--json"));
    const QString offsetText = parsed.value(QStringLiteral("--offset"));
    bool ok = true;
    const qint64 offset = offsetText.isEmpty() ? 0 : offsetText.toLongLong(&ok);
    if (!ok || offset < 0)
        return usageError(
            "logs", QStringLiteral("--offset takes a byte offset (a whole number >= 0)"), kUsage);
    if (parsed.positional.size() != 1 || parsed.dashDash)
        return usageError("logs", QStringLiteral("give one execution id"), kUsage);
    const LogStreamResult r =
        streamLog(client, parsed.positional.first(), offset, follow, json, "logs");
    if (!r.ok)
        return r.failureExit;
    return follow ? exitStatusOf(r.exitEvent, "logs") : kExitOk;
}

} // namespace runbox::cli
