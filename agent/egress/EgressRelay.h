#pragma once

#include <QByteArray>
#include <QString>
#include <QtGlobal>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace runbox::egress {

/// One side of a connection handed to the relay: its descriptor and what FdStream still held.
struct RelaySide {
    int fd = -1;
    QByteArray queued;              ///< bytes accepted for this socket but not yet written to it
    bool readEof = false;           ///< the peer already shut down its writing side
    bool writeShutDown = false;     ///< shutdown(SHUT_WR) was already done on this socket
    bool shutdownRequested = false; ///< shutdown(SHUT_WR) is due once `queued` is written
};

/// Moves the bytes of established egress connections (CONNECT tunnels, and the response of a
/// forwarded request once the request is complete) on one thread of its own, socket → pipe →
/// socket with splice(2) (no copy through user space; recv/send when splice is refused), so
/// that a download neither waits for nor holds up the agent's main thread (API, SQLite, other
/// executions). Everything else of a connection (parsing, the decision and its record) stays on
/// the main thread; only the descriptors of a decided connection travel here.
///
/// Thread-safety: add(), remove() and the Tunnel counters may be used from any thread; the
/// `done` callback runs on the relay thread, with the relay's lock held, never after remove()
/// for that tunnel has returned.
class EgressRelay final {
    Q_DISABLE_COPY_MOVE(EgressRelay)
public:
    /// Tunnel: both directions, half-close travels on, over when both sides are shut.
    /// Response: upstream → client as in Tunnel; bytes from the client are read and dropped
    /// (the request is complete); over when the response is through and the client's writing
    /// side is shut.
    enum class Mode { Tunnel, Response };

    /// The shared state of one relayed connection (counters readable from any thread).
    struct Tunnel {
        std::atomic<qint64> bytesUp{0};        ///< bytes read from the client (Tunnel mode)
        std::atomic<qint64> bytesDown{0};      ///< bytes read from the upstream
        std::atomic<qint64> lastActivityMs{0}; ///< steady clock, ms, of the last byte moved
    };

    /// Called once on the relay thread when a tunnel is over by itself: @p error is empty when
    /// it ended normally, else the strerror text of the failed read or write.
    using Done = std::function<void(const QString& error)>;

    EgressRelay();
    /// Stops the thread; open tunnels are closed without their `done` being called.
    ~EgressRelay();

    /// False if the relay thread could not be started (then add() must not be called).
    bool available() const { return m_thread.joinable(); }
    /// Takes ownership of both descriptors and relays them until the tunnel is over or
    /// removed. Returns the tunnel's counters; nullptr (descriptors closed) if !available().
    std::shared_ptr<Tunnel> add(RelaySide client, RelaySide upstream, Mode mode, Done done);
    /// Stops @p tunnel now and closes its descriptors (no `done` call any more). Waits for at
    /// most one round of the relay thread. No-op if the tunnel is over already.
    void remove(const std::shared_ptr<Tunnel>& tunnel);
    /// Milliseconds on the steady clock (the unit of Tunnel::lastActivityMs).
    static qint64 nowMs();

private:
    struct Flow;
    struct Entry;
    void run();
    void wake();
    static bool pump(Flow& flow, bool readable, bool writable, QString* error);

    std::mutex m_mutex;
    std::vector<std::unique_ptr<Entry>> m_entries; ///< guarded by m_mutex
    bool m_stopping = false;                       ///< guarded by m_mutex
    int m_wakeFd = -1;
    std::thread m_thread;
};

} // namespace runbox::egress
