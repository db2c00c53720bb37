#pragma once

#include <QByteArray>
#include <QObject>

class QSocketNotifier;

namespace runbox::execution {

/// The parent's ends of one child's stdin, stdout and stderr pipes on the event loop, shared by
/// the strong backend (SandboxProcess) and the light one (LightRun). stdin is written from a
/// buffer without blocking and closed once written (EPIPE: the child does not read its stdin,
/// which is its right); stdout and stderr are read as they become readable and handed on by
/// output(), at most readBudget bytes per wake-up so that one chatty child cannot hold the event
/// loop; setPaused() stops reading for backpressure (the pipe then fills and the child blocks).
/// A stream's EOF or read error closes it and emits streamClosed() once. Owns the descriptors it
/// adopted; the destructor closes whatever is still open.
class ChildPipes final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ChildPipes)
public:
    enum Stream { Stdout = 0, Stderr = 1 };

    /// @p readBudget: bytes read per stream and wake-up, at most (a multiple of 64 KiB reads).
    explicit ChildPipes(qint64 readBudget, QObject* parent = nullptr);
    ~ChildPipes() override;

    /// Takes the write end @p stdinFd (-1: none) and the read ends @p stdoutFd, @p stderrFd, makes
    /// them non-blocking and starts watching them. @p stdinData is written to stdin, which is then
    /// closed; empty: stdin is closed at once.
    void adopt(int stdinFd, const QByteArray& stdinData, int stdoutFd, int stderrFd);

    /// Reads @p stream now until EAGAIN, EOF or @p budget bytes; with @p ignorePause also while
    /// paused (a finished child's last output). Returns the bytes read.
    qint64 drain(int stream, qint64 budget, bool ignorePause = false);
    void setPaused(bool paused);
    bool isPaused() const { return m_paused; }
    /// True while @p stream has not reached EOF nor been closed.
    bool isOpen(int stream) const { return m_out[stream] >= 0; }
    bool anyOpen() const { return isOpen(Stdout) || isOpen(Stderr); }
    /// Closes @p stream without waiting for EOF (a child whose descendants keep the pipe open);
    /// streamClosed() is not emitted for it.
    void close(int stream);
    /// Bytes read from @p stream so far.
    qint64 bytesRead(int stream) const { return m_bytes[stream]; }

Q_SIGNALS:
    void output(int stream, const QByteArray& data);
    /// @p stream reached EOF or a read error: it is closed now.
    void streamClosed(int stream);

private:
    void writeStdin();
    void closeStdin();

    qint64 m_readBudget;
    int m_out[2] = {-1, -1};
    int m_stdin = -1;
    QByteArray m_stdinData;
    qsizetype m_stdinWritten = 0;
    QSocketNotifier* m_outNotifier[2] = {nullptr, nullptr};
    QSocketNotifier* m_stdinNotifier = nullptr;
    qint64 m_bytes[2] = {0, 0};
    bool m_paused = false;
};

} // namespace runbox::execution
