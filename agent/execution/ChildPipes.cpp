#include "agent/execution/ChildPipes.h"

#include <QSocketNotifier>

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

namespace runbox::execution {

namespace {

constexpr qint64 kReadChunk = 64 * 1024;

void setNonBlocking(int fd) {
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0)
        ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

} // namespace

ChildPipes::ChildPipes(qint64 readBudget, QObject* parent)
    : QObject(parent), m_readBudget(qMax(kReadChunk, readBudget)) {}

ChildPipes::~ChildPipes() {
    close(Stdout);
    close(Stderr);
    closeStdin();
}

void ChildPipes::adopt(int stdinFd, const QByteArray& stdinData, int stdoutFd, int stderrFd) {
    m_out[Stdout] = stdoutFd;
    m_out[Stderr] = stderrFd;
    for (int s : {Stdout, Stderr}) {
        if (m_out[s] < 0)
            continue;
        setNonBlocking(m_out[s]);
        m_outNotifier[s] = new QSocketNotifier(m_out[s], QSocketNotifier::Read, this);
        m_outNotifier[s]->setEnabled(!m_paused);
        connect(m_outNotifier[s], &QSocketNotifier::activated, this,
                [this, s] { drain(s, m_readBudget); });
    }
    m_stdin = stdinFd;
    m_stdinData = stdinData;
    if (m_stdin < 0)
        return;
    if (m_stdinData.isEmpty())
        return closeStdin();
    setNonBlocking(m_stdin);
    m_stdinNotifier = new QSocketNotifier(m_stdin, QSocketNotifier::Write, this);
    connect(m_stdinNotifier, &QSocketNotifier::activated, this, &ChildPipes::writeStdin);
    writeStdin();
}

void ChildPipes::writeStdin() {
    while (m_stdin >= 0 && m_stdinWritten < m_stdinData.size()) {
        const ssize_t n = ::write(m_stdin, m_stdinData.constData() + m_stdinWritten,
                                  size_t(m_stdinData.size() - m_stdinWritten));
        if (n > 0) {
            m_stdinWritten += n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return; // the notifier calls again
        break;      // EPIPE: the child does not read its stdin
    }
    closeStdin();
}

void ChildPipes::closeStdin() {
    delete m_stdinNotifier;
    m_stdinNotifier = nullptr;
    m_stdinData.clear();
    if (m_stdin >= 0)
        ::close(m_stdin);
    m_stdin = -1;
}

qint64 ChildPipes::drain(int stream, qint64 budget, bool ignorePause) {
    qint64 read = 0;
    while (m_out[stream] >= 0 && read < budget && (ignorePause || !m_paused)) {
        // Straight into the array that is handed on (no copy for large reads); small reads get
        // an array of their own size, so that a chatty child does not pin 64 KiB each.
        QByteArray data(kReadChunk, Qt::Uninitialized);
        const ssize_t n = ::read(m_out[stream], data.data(), size_t(kReadChunk));
        if (n > 0) {
            if (n < 4096)
                data = QByteArray(data.constData(), n);
            else
                data.truncate(n);
            read += n;
            m_bytes[stream] += n;
            Q_EMIT output(stream, data);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            break;
        close(stream); // EOF or a read error
        Q_EMIT streamClosed(stream);
        break;
    }
    return read;
}

void ChildPipes::setPaused(bool paused) {
    m_paused = paused;
    for (QSocketNotifier* n : m_outNotifier)
        if (n)
            n->setEnabled(!paused);
}

void ChildPipes::close(int stream) {
    delete m_outNotifier[stream];
    m_outNotifier[stream] = nullptr;
    if (m_out[stream] >= 0)
        ::close(m_out[stream]);
    m_out[stream] = -1;
}

} // namespace runbox::execution
