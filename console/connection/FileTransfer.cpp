#include "console/connection/FileTransfer.h"

#include "shared/ApiClient.h"

#include <QFile>
#include <QNetworkReply>
#include <QSaveFile>
#include <QUrl>

namespace runbox::console {

namespace {
constexpr qint64 kMaxErrorBody = 64 * 1024;
constexpr qint64 kReadBufferBytes = 1024 * 1024;
} // namespace

FileTransfer::FileTransfer(Direction direction, ApiClient* client, QByteArray route,
                           QString localPath, QString remotePath, QObject* parent)
    : QObject(parent), m_direction(direction), m_client(client), m_route(std::move(route)),
      m_localPath(std::move(localPath)), m_remotePath(std::move(remotePath)) {}

FileTransfer::~FileTransfer() {
    if (m_reply) {
        m_reply->disconnect(this);
        m_reply->abort();
        m_reply->deleteLater();
    }
    if (m_sink)
        m_sink->cancelWriting();
}

QByteArray FileTransfer::route(const QString& workspaceId, const QString& remotePath) {
    QByteArrayList segments;
    for (const QString& s : remotePath.split(u'/', Qt::SkipEmptyParts))
        segments << QUrl::toPercentEncoding(s);
    return "/v1/workspaces/" + QUrl::toPercentEncoding(workspaceId) + "/files/" +
           segments.join('/');
}

FileTransfer* FileTransfer::upload(ApiClient* client, const QString& workspaceId,
                                   const QString& localPath, const QString& remotePath,
                                   bool overwrite, QObject* parent) {
    QByteArray target = route(workspaceId, remotePath);
    if (overwrite)
        target += "?conflict=overwrite";
    return new FileTransfer(Direction::Upload, client, target, localPath, remotePath, parent);
}

FileTransfer* FileTransfer::download(ApiClient* client, const QString& workspaceId,
                                     const QString& remotePath, const QString& localPath,
                                     QObject* parent) {
    return new FileTransfer(Direction::Download, client, route(workspaceId, remotePath), localPath,
                            remotePath, parent);
}

void FileTransfer::start() {
    if (m_state != State::Waiting)
        return;
    if (!m_client)
        return finish(State::Failed, tr("not connected"));
    m_state = State::Running;
    if (m_direction == Direction::Upload)
        startUpload();
    else
        startDownload();
}

void FileTransfer::startUpload() {
    m_source = std::make_unique<QFile>(m_localPath);
    if (!m_source->open(QIODevice::ReadOnly))
        return finish(State::Failed,
                      tr("cannot read %1: %2").arg(m_localPath, m_source->errorString()));
    m_total = m_source->size();
    Q_EMIT progress(0, m_total);
    m_reply = m_client->sendChunkSigned("PUT", m_route, m_source.get(), m_total);
    watchReply();
    connect(m_reply, &QNetworkReply::uploadProgress, this, [this](qint64 sent, qint64 total) {
        if (total <= 0 || m_state != State::Running)
            return;
        // Encoded bytes sent → file bytes: the framing is spread evenly over the chunks.
        const qint64 done = qMin(m_total, qint64(double(sent) / double(total) * double(m_total)));
        if (done > m_done) {
            m_done = done;
            Q_EMIT progress(m_done, m_total);
        }
    });
    connect(m_reply, &QNetworkReply::readyRead, this, [this] {
        if (m_errorBody.size() < kMaxErrorBody)
            m_errorBody += m_reply->read(kMaxErrorBody - m_errorBody.size());
        else
            m_reply->readAll();
    });
    connect(m_reply, &QNetworkReply::finished, this, &FileTransfer::onReplyFinished);
}

void FileTransfer::startDownload() {
    m_sink = std::make_unique<QSaveFile>(m_localPath);
    if (!m_sink->open(QIODevice::WriteOnly))
        return finish(State::Failed,
                      tr("cannot write %1: %2").arg(m_localPath, m_sink->errorString()));
    m_reply = m_client->send("GET", m_route, {});
    watchReply();
    m_reply->setReadBufferSize(kReadBufferBytes);
    connect(m_reply, &QNetworkReply::downloadProgress, this, [this](qint64, qint64 total) {
        if (total >= 0)
            m_total = total;
    });
    connect(m_reply, &QNetworkReply::readyRead, this, &FileTransfer::onDownloadData);
    connect(m_reply, &QNetworkReply::finished, this, &FileTransfer::onReplyFinished);
}

void FileTransfer::watchReply() {
    // The reply stays the client's child (its QNetworkAccessManager must outlive it): when the
    // connection goes, the reply goes with it and the transfer fails.
    connect(m_reply, &QObject::destroyed, this, [this] {
        m_reply = nullptr; // half destroyed: not to be touched
        if (m_state == State::Running)
            finish(State::Failed, tr("the connection was closed"));
    });
}

void FileTransfer::onDownloadData() {
    const int status = m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (status != 200) {
        if (m_errorBody.size() < kMaxErrorBody)
            m_errorBody += m_reply->read(kMaxErrorBody - m_errorBody.size());
        else
            m_reply->readAll();
        return;
    }
    if (m_reply->rawHeader("X-Runbox-Entry-Type") == "directory") {
        return finish(State::Failed,
                      tr("%1 is a folder: only files are downloaded").arg(m_remotePath));
    }
    const QVariant length = m_reply->header(QNetworkRequest::ContentLengthHeader);
    if (length.isValid())
        m_total = length.toLongLong();
    char buffer[64 * 1024];
    for (;;) {
        const qint64 n = m_reply->read(buffer, sizeof buffer);
        if (n <= 0)
            break;
        if (m_sink->write(buffer, n) != n) {
            const QString why = m_sink->errorString();
            return finish(State::Failed, tr("cannot write %1: %2").arg(m_localPath, why));
        }
        m_done += n;
    }
    Q_EMIT progress(m_done, m_total);
}

void FileTransfer::onReplyFinished() {
    if (m_state != State::Running)
        return;
    if (m_direction == Direction::Download && m_reply->error() == QNetworkReply::NoError)
        onDownloadData(); // whatever came with the end
    if (m_state != State::Running)
        return;
    const ApiResponse r = ApiClient::responseOf(m_reply, m_errorBody);
    if (!r.ok())
        return finish(State::Failed, r.errorMessage());
    if (m_direction == Direction::Download) {
        if (m_total >= 0 && m_done != m_total)
            return finish(State::Failed,
                          tr("the download ended after %1 of %2 bytes").arg(m_done).arg(m_total));
        if (!m_sink->commit())
            return finish(State::Failed,
                          tr("cannot write %1: %2").arg(m_localPath, m_sink->errorString()));
        m_sink.reset();
    }
    m_total = m_direction == Direction::Upload ? m_total : m_done;
    m_done = m_total;
    Q_EMIT progress(m_done, m_total);
    finish(State::Done);
}

void FileTransfer::cancel() {
    if (m_state == State::Waiting || m_state == State::Running)
        finish(State::Cancelled);
}

void FileTransfer::finish(State state, const QString& error) {
    if (m_state == State::Done || m_state == State::Failed || m_state == State::Cancelled)
        return;
    m_state = state;
    m_error = error;
    if (m_reply) {
        QNetworkReply* reply = m_reply.data();
        m_reply = nullptr;
        reply->disconnect(this);
        if (reply->isRunning())
            reply->abort();
        reply->deleteLater();
    }
    if (m_sink) {
        m_sink->cancelWriting();
        m_sink.reset();
    }
    // m_source stays open until the transfer is deleted: the aborted reply's body reads it.
    Q_EMIT finished();
}

} // namespace runbox::console
