#pragma once

#include <QObject>
#include <QPointer>
#include <QSaveFile>

#include <memory>

class QNetworkReply;

namespace runbox::console {

class AgentConnection;

/// Saves a managed execution's whole retained log to a file: reads
/// `GET /v1/executions/{id}/log?offset=0` (not following) and writes stdout and stderr bytes in
/// arrival order as they come, so memory stays bounded whatever the log's size. A retention gap
/// is written as a one-line marker. The file appears only when everything was written.
class LogDownloader final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LogDownloader)
public:
    LogDownloader(AgentConnection* connection, const QString& executionId, const QString& path,
                  QObject* parent = nullptr);
    ~LogDownloader() override;

    void start();
    void abort();

Q_SIGNALS:
    void progress(qint64 bytesWritten);
    /// @p error is empty on success (translated otherwise).
    void finished(const QString& error);

private:
    void done(const QString& error);

    QPointer<AgentConnection> m_connection;
    QString m_executionId;
    std::unique_ptr<QSaveFile> m_file;
    QPointer<QNetworkReply> m_reply;
    qint64 m_written = 0;
    bool m_done = false;
};

} // namespace runbox::console
