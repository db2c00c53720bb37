#pragma once

#include "agent/http/HttpExchange.h"
#include "agent/http/ResponseStream.h"
#include "agent/workspace/WorkspaceFs.h"

#include <QObject>
#include <QPointer>

#include <memory>

namespace runbox::files {

/// Streams bytes [first, first + length) of an open workspace file into a response started with
/// HttpExchange::beginFixed(): pread(2) in blocks of kBlockBytes while less than
/// kHighWaterBytes wait in the socket, resuming below it (http::ResponseStream), so memory stays
/// flat whatever the file size and however slow the client. The length is fixed at open time
/// (fstat): a file that grows meanwhile is sent up to that length; one that shrinks ends the
/// response short and the connection is closed. Deletes itself at the end or when the client
/// leaves.
class FileDownload final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FileDownload)
public:
    static constexpr qint64 kBlockBytes = 512 * 1024;
    static constexpr qint64 kHighWaterBytes = 2 * 1024 * 1024;

    /// @p fs keeps the workspace's descriptors alive while the download runs.
    FileDownload(http::HttpExchange* exchange, std::shared_ptr<const workspace::WorkspaceFs> fs,
                 workspace::ReadHandle handle, qint64 first, qint64 length,
                 QObject* parent = nullptr);

    /// Starts sending (the response head must already be written).
    void start();

private:
    /// One round of the pump (http::ResponseStream::pump: re-entrancy safe).
    void pumpOnce();
    void end();

    QPointer<http::HttpExchange> m_exchange;
    http::ResponseStream* m_stream; ///< backpressure and pump (writes go through m_exchange)
    std::shared_ptr<const workspace::WorkspaceFs> m_fs;
    workspace::ReadHandle m_handle;
    qint64 m_offset;
    qint64 m_remaining;
    bool m_ended = false;
};

} // namespace runbox::files
