#pragma once

#include <QHostAddress>
#include <QList>
#include <QObject>
#include <QString>

class QSocketNotifier;
class QTimer;

namespace runbox::egress {

/// Dials exactly the given (already checked) addresses, in order, with a non-blocking TCP
/// connect and a per-address timeout; moves on to the next address when one fails. It never
/// resolves anything.
class UpstreamDialer final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(UpstreamDialer)
public:
    /// @p connectTimeoutMs applies to each address separately.
    UpstreamDialer(const QList<QHostAddress>& addresses, quint16 port, int connectTimeoutMs,
                   QObject* parent = nullptr);
    ~UpstreamDialer() override;

    /// Starts dialling; emits connected() or failed() exactly once, later (never from start()).
    void start();

Q_SIGNALS:
    /// A connected non-blocking socket; the receiver owns @p fd.
    void connected(int fd, const QHostAddress& address);
    /// Every address failed; @p timedOut when the last failure was a timeout.
    void failed(const QString& message, bool timedOut);

private:
    void tryNext();
    void onWritable();
    void onTimeout();
    void abandonCurrent();

    QList<QHostAddress> m_addresses;
    quint16 m_port;
    int m_connectTimeoutMs;
    qsizetype m_next = 0;
    int m_fd = -1;
    QSocketNotifier* m_notifier = nullptr;
    QTimer* m_timer = nullptr;
    QString m_lastError;
    bool m_lastTimedOut = false;
};

} // namespace runbox::egress
