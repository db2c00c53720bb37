#pragma once

#include <QObject>
#include <QPointer>
#include <QString>

#include <memory>

class QFile;
class QNetworkReply;
class QSaveFile;

namespace runbox {
class ApiClient;
}

namespace runbox::console {

/// One file copied between this computer and a workspace through the file API
/// (docs/contracts.md "Workspace file API"), streamed so that nothing is held whole in memory:
/// - upload: the local file is read, hashed and signed chunk by chunk as the socket takes it
///   (ApiClient::sendChunkSigned, docs/upload-integrity.md); the agent publishes the file only
///   once the last chunk verified, so a cancelled upload leaves nothing;
/// - download: `GET …/files/{path}` written to a QSaveFile as it arrives; the local file appears
///   only when complete, a cancelled or failed download leaves nothing.
/// Progress counts file bytes; cancel() stops at once. Deletes itself never: the owner does.
class FileTransfer final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FileTransfer)
public:
    enum class Direction { Upload, Download };
    enum class State { Waiting, Running, Done, Failed, Cancelled };
    Q_ENUM(State)

    /// An upload of @p localPath to @p remotePath (workspace-relative, "/"-separated) of
    /// @p workspaceId; an existing file there is replaced when @p overwrite.
    static FileTransfer* upload(ApiClient* client, const QString& workspaceId,
                                const QString& localPath, const QString& remotePath, bool overwrite,
                                QObject* parent = nullptr);
    /// A download of @p remotePath of @p workspaceId to @p localPath.
    static FileTransfer* download(ApiClient* client, const QString& workspaceId,
                                  const QString& remotePath, const QString& localPath,
                                  QObject* parent = nullptr);
    ~FileTransfer() override;

    /// Starts the transfer (once).
    void start();
    /// Stops it; nothing partial stays (see the class comment).
    void cancel();

    Direction direction() const { return m_direction; }
    State state() const { return m_state; }
    QString localPath() const { return m_localPath; }
    QString remotePath() const { return m_remotePath; }
    qint64 bytesDone() const { return m_done; }
    /// File bytes in all; -1 until known (a download's Content-Length).
    qint64 bytesTotal() const { return m_total; }
    /// Why it failed (translated, or the agent's message); "" otherwise.
    QString errorText() const { return m_error; }

    /// The API route of @p remotePath of @p workspaceId, each segment percent-encoded.
    static QByteArray route(const QString& workspaceId, const QString& remotePath);

Q_SIGNALS:
    void progress(qint64 done, qint64 total);
    /// Done, Failed or Cancelled.
    void finished();

private:
    FileTransfer(Direction direction, ApiClient* client, QByteArray route, QString localPath,
                 QString remotePath, QObject* parent);
    void startUpload();
    void startDownload();
    void watchReply();
    void onDownloadData();
    void onReplyFinished();
    void finish(State state, const QString& error = {});

    Direction m_direction;
    QPointer<ApiClient> m_client;
    QByteArray m_route;
    QString m_localPath;
    QString m_remotePath;
    State m_state = State::Waiting;
    qint64 m_done = 0;
    qint64 m_total = -1;
    QString m_error;
    QPointer<QNetworkReply> m_reply; ///< the client's child, not ours
    std::unique_ptr<QFile> m_source;
    std::unique_ptr<QSaveFile> m_sink;
    QByteArray m_errorBody; ///< a refusal's body (at most 64 KiB)
};

} // namespace runbox::console
