#include "agent/files/FileDownload.h"

#include <algorithm>

namespace runbox::files {

FileDownload::FileDownload(http::HttpExchange* exchange,
                           std::shared_ptr<const workspace::WorkspaceFs> fs,
                           workspace::ReadHandle handle, qint64 first, qint64 length,
                           QObject* parent)
    : QObject(parent), m_exchange(exchange),
      m_stream(new http::ResponseStream(exchange, {kHighWaterBytes, kHighWaterBytes}, this)),
      m_fs(std::move(fs)), m_handle(std::move(handle)), m_offset(first), m_remaining(length) {
    m_stream->setPump([this] { pumpOnce(); });
    connect(exchange, &http::HttpExchange::clientGone, this, &FileDownload::deleteLater);
    connect(exchange, &QObject::destroyed, this, &FileDownload::deleteLater);
}

void FileDownload::start() {
    m_stream->pump();
}

void FileDownload::pumpOnce() {
    if (m_ended)
        return;
    while (m_exchange && !m_exchange->isClientGone() && m_remaining > 0 && m_stream->hasRoom()) {
        QByteArray block(std::min(m_remaining, kBlockBytes), Qt::Uninitialized);
        const qint64 n = m_handle.readAt(m_offset, block.data(), block.size());
        if (n <= 0) { // shrank or failed: endFixed() closes the connection on a short body
            m_remaining = 0;
            break;
        }
        block.truncate(n);
        m_offset += n;
        m_remaining -= n;
        m_exchange->writeFixed(block);
    }
    if (m_remaining <= 0 || !m_exchange || m_exchange->isClientGone())
        end();
}

void FileDownload::end() {
    if (m_ended)
        return;
    m_ended = true;
    if (m_exchange) {
        m_exchange->disconnect(this);
        m_exchange->endFixed();
    }
    m_remaining = 0;
    deleteLater();
}

} // namespace runbox::files
