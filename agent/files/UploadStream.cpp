#include "agent/files/UploadStream.h"

#include "agent/files/ChunkedUploadDecoder.h"

#include <QCoreApplication>
#include <QPointer>
#include <QThreadPool>

#include <atomic>
#include <deque>
#include <functional>
#include <mutex>

namespace runbox::files {

/// Shared by the stream (event-loop thread) and its jobs (pool threads). The queue and flags are
/// under the mutex; upload and decoder belong to the one running job (or, when none runs, to
/// whoever holds the mutex); owner is touched on the event-loop thread only.
struct UploadStream::State {
    QThreadPool* pool = nullptr;
    QPointer<UploadStream> owner;
    std::mutex mutex;
    std::deque<QByteArray> queue;
    qint64 queuedBytes = 0;
    bool inputEnded = false;
    bool running = false;  ///< a job is queued or running on the pool
    bool stopped = false;  ///< destroyed, failed or finished: no more work
    bool finished = false; ///< every byte decoded, verified and written
    std::atomic<qint64> written{0};
    std::optional<workspace::WorkspaceUpload> upload;
    std::unique_ptr<ChunkedUploadDecoder> decoder;
    UploadLimits limits;
};

namespace {

/// Runs @p fn on the event-loop thread with the stream, if it still exists then.
template <typename S, typename Fn> void postToOwner(const std::shared_ptr<S>& state, Fn fn) {
    QMetaObject::invokeMethod(
        QCoreApplication::instance(),
        [state, fn = std::move(fn)] {
            if (auto* owner = state->owner.data())
                fn(owner);
        },
        Qt::QueuedConnection);
}

} // namespace

UploadStream::UploadStream(QThreadPool* pool, workspace::WorkspaceUpload upload,
                           UploadLimits limits, std::unique_ptr<ChunkedUploadDecoder> decoder,
                           QObject* parent)
    : QObject(parent), m_state(std::make_shared<State>()) {
    m_state->pool = pool;
    m_state->owner = this;
    m_state->upload.emplace(std::move(upload));
    m_state->decoder = std::move(decoder);
    m_state->limits = std::move(limits);
}

UploadStream::~UploadStream() {
    cancel();
}

void UploadStream::cancel() {
    std::optional<workspace::WorkspaceUpload> abandoned;
    {
        std::lock_guard lock(m_state->mutex);
        m_state->stopped = true;
        m_state->queue.clear();
        if (!m_state->running) { // else the running job drops it when it sees stopped
            abandoned = std::move(m_state->upload);
            m_state->upload.reset();
        }
    }
    // abandoned goes out of scope here: the uncommitted upload is aborted.
}

void UploadStream::startJobLocked() {
    m_state->running = true;
    m_state->pool->start([state = m_state] { runJob(state); });
}

void UploadStream::push(QByteArray raw) {
    if (raw.isEmpty())
        return;
    std::lock_guard lock(m_state->mutex);
    if (m_state->stopped || m_state->inputEnded)
        return;
    m_state->queuedBytes += raw.size();
    m_state->queue.push_back(std::move(raw));
    if (!m_state->running)
        startJobLocked();
}

void UploadStream::endInput() {
    std::lock_guard lock(m_state->mutex);
    if (m_state->stopped || m_state->inputEnded)
        return;
    m_state->inputEnded = true;
    if (!m_state->running)
        startJobLocked();
}

bool UploadStream::hasRoom() const {
    std::lock_guard lock(m_state->mutex);
    return m_state->queuedBytes < kHighWaterBytes;
}

std::optional<workspace::WorkspaceUpload> UploadStream::takeUpload() {
    std::lock_guard lock(m_state->mutex);
    if (!m_state->finished || m_state->running)
        return std::nullopt;
    std::optional<workspace::WorkspaceUpload> out = std::move(m_state->upload);
    m_state->upload.reset();
    return out;
}

qint64 UploadStream::bytesWritten() const {
    return m_state->written.load();
}

void UploadStream::runJob(std::shared_ptr<State> s) {
    // Decoded bytes: checked against the limits, then written (hashed there unless verified by
    // the decoder).
    const ChunkedUploadDecoder::DataSink sink = [&s](QByteArrayView data) {
        const qint64 total = s->written.load() + data.size();
        if (auto err = s->limits.check(total))
            return err;
        const workspace::Status st = s->upload->write(data.data(), data.size());
        if (!st)
            return std::optional<Error>(st.error());
        s->written.store(total);
        return std::optional<Error>();
    };
    qint64 processed = 0;
    for (;;) {
        QByteArray piece;
        bool atEnd = false;
        {
            std::lock_guard lock(s->mutex);
            if (s->stopped) {
                s->running = false;
                s->upload.reset(); // abandoned by a stream that is gone
                return;
            }
            if (s->queue.empty() && !s->inputEnded) {
                s->running = false;
                return;
            }
            if (processed >= kFairShareBytes) { // to the back of the pool's queue
                s->pool->start([s] { runJob(s); });
                return;
            }
            atEnd = s->queue.empty();
            if (!atEnd) {
                piece = std::move(s->queue.front());
                s->queue.pop_front();
            }
        }
        std::optional<Error> error;
        if (atEnd)
            error = s->decoder ? s->decoder->finish() : std::nullopt;
        else
            error = s->decoder ? s->decoder->feed(piece, sink) : sink(piece);
        processed += piece.size();
        bool wanted = false;
        {
            std::lock_guard lock(s->mutex);
            wanted = s->queuedBytes >= kHighWaterBytes &&
                     s->queuedBytes - piece.size() < kHighWaterBytes;
            s->queuedBytes -= piece.size();
            if (error || atEnd) {
                s->stopped = true;
                s->finished = !error;
                s->queue.clear();
                if (error)
                    s->upload.reset(); // aborted before anyone hears of the failure
                s->running = false;
            }
        }
        if (error) {
            postToOwner(s, [e = *error](UploadStream* o) { Q_EMIT o->failed(e); });
            return;
        }
        if (atEnd) {
            postToOwner(s, [](UploadStream* o) { Q_EMIT o->finished(); });
            return;
        }
        if (wanted)
            postToOwner(s, [](UploadStream* o) { Q_EMIT o->bodyWanted(); });
    }
}

} // namespace runbox::files
