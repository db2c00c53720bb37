#include "console/connection/LogDownloader.h"

#include "console/connection/AgentConnection.h"

#include <QNetworkReply>
#include <QUrl>

namespace runbox::console {

LogDownloader::LogDownloader(AgentConnection* connection, const QString& executionId,
                             const QString& path, QObject* parent)
    : QObject(parent), m_connection(connection), m_executionId(executionId),
      m_file(std::make_unique<QSaveFile>(path)) {}

LogDownloader::~LogDownloader() {
    m_done = true;
    if (m_reply)
        m_reply->abort();
}

void LogDownloader::start() {
    if (!m_connection)
        return done(tr("Not connected."));
    if (!m_file->open(QIODevice::WriteOnly))
        return done(m_file->errorString());
    const QByteArray path =
        "/v1/executions/" + QUrl::toPercentEncoding(m_executionId) + "/log?offset=0";
    m_reply = m_connection->stream(
        "GET", path, {}, this,
        [this](const QJsonObject& ev) {
            if (m_done)
                return;
            const QString type = ev.value(QLatin1String("type")).toString();
            QByteArray bytes;
            if (type == QLatin1String("stdout") || type == QLatin1String("stderr")) {
                bytes = ev.contains(QLatin1String("dataBase64"))
                            ? QByteArray::fromBase64(
                                  ev.value(QLatin1String("dataBase64")).toString().toLatin1())
                            : ev.value(QLatin1String("data")).toString().toUtf8();
            } else if (type == QLatin1String("gap")) {
                bytes = tr("\n[… %1 bytes dropped by retention …]\n")
                            .arg(qint64(ev.value(QLatin1String("bytes")).toDouble()))
                            .toUtf8();
            }
            if (bytes.isEmpty())
                return;
            if (m_file->write(bytes) != bytes.size()) {
                done(m_file->errorString());
                if (m_reply)
                    m_reply->abort();
                return;
            }
            m_written += bytes.size();
            Q_EMIT progress(m_written);
        },
        [this](const ApiResponse& r) {
            m_reply = nullptr;
            if (r.status != 200)
                return done(tr("The agent did not send the log (HTTP %1): %2")
                                .arg(r.status)
                                .arg(r.status == 0 ? r.networkError : r.errorMessage()));
            done({});
        });
}

void LogDownloader::abort() {
    if (m_reply)
        m_reply->abort();
    done(tr("Cancelled."));
}

void LogDownloader::done(const QString& error) {
    if (m_done)
        return;
    m_done = true;
    QString result = error;
    if (result.isEmpty() && !m_file->commit())
        result = m_file->errorString();
    if (!result.isEmpty())
        m_file->cancelWriting();
    Q_EMIT finished(result);
}

} // namespace runbox::console
