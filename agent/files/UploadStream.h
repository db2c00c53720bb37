#pragma once

#include "agent/Error.h"
#include "agent/files/UploadLimits.h"
#include "agent/workspace/WorkspaceUpload.h"

#include <QByteArray>
#include <QObject>

#include <memory>
#include <optional>

class QThreadPool;

namespace runbox::files {

class ChunkedUploadDecoder;

/// Moves one upload's body off the event loop: the event loop push()es the raw body pieces it
/// reads from the connection; jobs on a thread pool decode them (a ChunkedUploadDecoder for a
/// chunk-signed body, else the bytes are the file and WorkspaceUpload hashes them), check the
/// UploadLimits on every decoded byte and write them into the WorkspaceUpload (which starts
/// their writeback as it goes). One job at a time per upload, in order; a job hands its thread
/// back when the queue is empty, or after kFairShareBytes so that concurrent uploads share the
/// pool.
///
/// Backpressure: at most about kHighWaterBytes wait in the queue; the producer checks hasRoom()
/// before reading more from the connection and resumes on bodyWanted(). Memory per upload stays
/// bounded whatever the client's speed.
///
/// Signals (event-loop thread): bodyWanted() once the queue drained below the high-water mark,
/// failed() with the first error (decoding, limits, I/O; the upload is aborted), finished() once
/// endInput() was called and every byte is decoded, verified and written; takeUpload() then hands
/// the still uncommitted upload over for its commit. Destroying the stream aborts an upload not
/// taken (once a running job notices).
class UploadStream final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(UploadStream)
public:
    /// Queued raw bytes above which the producer pauses.
    static constexpr qint64 kHighWaterBytes = 8 * 1024 * 1024;
    /// Bytes one job processes before it lets other uploads' jobs run.
    static constexpr qint64 kFairShareBytes = 64 * 1024 * 1024;

    /// @p decoder: null for a body that is the file itself.
    UploadStream(QThreadPool* pool, workspace::WorkspaceUpload upload, UploadLimits limits,
                 std::unique_ptr<ChunkedUploadDecoder> decoder, QObject* parent = nullptr);
    ~UploadStream() override;

    /// Queues @p raw body bytes (event-loop thread). Ignored after an error.
    void push(QByteArray raw);
    /// No more body bytes will come: finish decoding and writing, then finished().
    void endInput();
    /// Stops decoding and aborts the upload: at once, or, while a job runs, once it notices
    /// (idempotent; also done by the destructor).
    void cancel();
    /// Fewer than kHighWaterBytes wait: the producer may read more.
    bool hasRoom() const;
    /// The upload, after finished() (std::nullopt before or after an error).
    std::optional<workspace::WorkspaceUpload> takeUpload();
    /// Decoded bytes written so far (final after finished()).
    qint64 bytesWritten() const;

Q_SIGNALS:
    void bodyWanted();
    void failed(const runbox::Error& error);
    void finished();

private:
    struct State;
    static void runJob(std::shared_ptr<State> state);
    void startJobLocked();

    std::shared_ptr<State> m_state;
};

} // namespace runbox::files
