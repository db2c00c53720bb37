#include "console/widgets/FilePreview.h"

#include "console/connection/AgentConnection.h"
#include "console/connection/FileTransfer.h"
#include "shared/ApiClient.h"

#include <QFontDatabase>
#include <QLabel>
#include <QLocale>
#include <QNetworkReply>
#include <QPlainTextEdit>
#include <QStringDecoder>
#include <QVBoxLayout>

namespace runbox::console {

FilePreview::FilePreview(QWidget* parent)
    : QWidget(parent), m_status(new QLabel(this)), m_text(new QPlainTextEdit(this)) {
    m_status->setObjectName(QStringLiteral("filePreviewStatus"));
    m_status->setWordWrap(true);
    m_text->setObjectName(QStringLiteral("filePreviewText"));
    m_text->setReadOnly(true);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_status);
    layout->addWidget(m_text, 1);
    clear();
}

void FilePreview::clear() {
    ++m_generation;
    m_path.clear();
    m_text->clear();
    m_status->setText(tr("Select a text file of at most %1 to preview it.")
                          .arg(QLocale().formattedDataSize(kMaxBytes)));
}

QString FilePreview::text() const {
    return m_text->toPlainText();
}

QString FilePreview::statusText() const {
    return m_status->text();
}

void FilePreview::showStatus(const QString& path, const QString& status) {
    m_text->clear();
    m_status->setText(status);
    Q_EMIT ready(path, false);
}

void FilePreview::show(AgentConnection* connection, const QString& workspaceId, const QString& path,
                       const FileEntry& entry) {
    const int generation = ++m_generation;
    m_path = path;
    if (entry.isLink())
        return showStatus(path, tr("%1 is a link to %2: the console never follows links.")
                                    .arg(entry.name, entry.linkTarget));
    if (entry.type != FileEntry::Type::File)
        return showStatus(path, tr("%1 is not a regular file.").arg(entry.name));
    if (entry.size > kMaxBytes)
        return showStatus(path, tr("%1 is larger than %2: download it to read it.")
                                    .arg(entry.name, QLocale().formattedDataSize(kMaxBytes)));
    if (entry.size == 0) { // nothing to read (and a Range on it would be unsatisfiable)
        m_text->clear();
        m_status->setText(tr("%1 · %2").arg(entry.name, QLocale().formattedDataSize(0)));
        Q_EMIT ready(path, true);
        return;
    }
    if (!connection || !connection->client())
        return showStatus(path, tr("Not connected."));
    m_text->clear();
    m_status->setText(tr("Reading %1…").arg(entry.name));
    QNetworkReply* reply = connection->client()->send(
        "GET", FileTransfer::route(workspaceId, path), {}, "application/json",
        {{"Range", "bytes=0-" + QByteArray::number(kMaxBytes - 1)}});
    // The reply stays the client's child: if this preview goes first, the client deletes it.
    connect(reply, &QNetworkReply::finished, this, [this, reply, generation, path, entry] {
        reply->deleteLater();
        if (generation != m_generation)
            return; // another file was chosen meanwhile
        ApiResponse r;
        r.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        r.body = reply->read(kMaxBytes + 1);
        r.networkError = reply->errorString();
        if (!r.ok())
            return showStatus(path, tr("Could not read %1: %2").arg(entry.name, r.errorMessage()));
        if (r.body.contains('\0'))
            return showStatus(path, tr("%1 is not text.").arg(entry.name));
        QStringDecoder utf8(QStringDecoder::Utf8);
        const QString text = utf8(r.body.left(kMaxBytes));
        if (utf8.hasError())
            return showStatus(path, tr("%1 is not UTF-8 text.").arg(entry.name));
        m_text->setPlainText(text);
        m_status->setText(
            tr("%1 · %2").arg(entry.name, QLocale().formattedDataSize(r.body.size())));
        Q_EMIT ready(path, true);
    });
}

} // namespace runbox::console
