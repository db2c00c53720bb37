#pragma once

#include "agent/egress/EgressRelay.h"

#include <QByteArray>
#include <QObject>
#include <QString>

#include <deque>

class QSocketNotifier;

namespace runbox::egress {

/// A non-blocking stream socket (TCP or unix) driven by QSocketNotifier, with what the Qt socket
/// classes lack for a proxy: half-close (shutdown(SHUT_WR) once the queue is drained, while
/// still reading) and reading that can be paused for back-pressure.
class FdStream final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FdStream)
public:
    /// Takes ownership of @p fd (made non-blocking); closes it when destroyed.
    explicit FdStream(int fd, QObject* parent = nullptr);
    ~FdStream() override;

    /// Queues @p data; writes as much as the socket takes now, the rest when writable.
    void write(const QByteArray& data);
    /// Bytes queued but not yet accepted by the kernel.
    qint64 pendingWriteBytes() const { return m_pending; }
    /// Half-close: shutdown(SHUT_WR) as soon as the queue is empty. Reading continues.
    void shutdownWrite();
    /// Stops (false) or resumes (true) reading; used for back-pressure.
    void setReadEnabled(bool enabled);
    bool readFinished() const { return m_readEof; }
    bool writeShutDown() const { return m_writeShutDown; }
    /// Closes the descriptor now; no more signals.
    void close();
    /// Lets the peer hand over another socket as the very first thing it sends: one NUL byte
    /// carrying exactly one descriptor (SCM_RIGHTS, unix(7)), as `runbox-egress-bridge
    /// --hand-over` does. A connected stream socket (AF_UNIX, AF_INET, AF_INET6) then replaces
    /// this stream's socket (the marker byte is not reported); anything else passed with the
    /// marker fails the stream ("handed-over descriptor is not a connected stream socket").
    /// Call before the first read; a plain first read disables it.
    void acceptHandOver() { m_handOverPossible = true; }
    /// Hands the descriptor over (to EgressRelay) with the bytes still queued for it and its
    /// half-close state; the stream is closed afterwards (fd -1, no more signals) but does not
    /// close the descriptor.
    RelaySide release();
    bool isOpen() const { return m_fd >= 0; }

Q_SIGNALS:
    /// Bytes read (at most 256 KiB per signal).
    void received(const QByteArray& data);
    /// The peer shut down its writing side (read returned 0).
    void readEof();
    /// The write queue became empty after bytes were written.
    void drained();
    /// A read or write failed (e.g. ECONNRESET, EPIPE); @p message is strerror text.
    void failed(const QString& message);

private:
    void onReadable();
    void onWritable();
    void flush();
    void fail(int error);
    bool readHandOver(); ///< the first read when a hand-over may come; false: stop reading now
    void adopt(int fd);

    int m_fd;
    QSocketNotifier* m_readNotifier = nullptr;
    QSocketNotifier* m_writeNotifier = nullptr;
    std::deque<QByteArray> m_queue;
    qsizetype m_headOffset = 0;
    qint64 m_pending = 0;
    bool m_readEnabled = true;
    bool m_handOverPossible = false;
    bool m_readEof = false;
    bool m_shutdownRequested = false;
    bool m_writeShutDown = false;
};

} // namespace runbox::egress
