#pragma once
// Sandboxed code's side of a check-then-use race, shared by the escape tests
// (test_workspace_escape, test_broker_input_race): a thread that keeps swapping real directories
// inside a workspace with symlinks that lead out of it.

#include <QByteArray>
#include <QFile>
#include <QFileInfo>
#include <QList>
#include <QPair>
#include <QString>

#include <atomic>
#include <fcntl.h>
#include <stdio.h>
#include <thread>
#include <unistd.h>

namespace securitytest {

/// Exchanges each pair of entries of directory @p dir (a real directory and a symlink) with
/// renameat2(RENAME_EXCHANGE) — atomically, so each name is always one or the other — in a loop
/// on its own thread, from construction until stop() or destruction.
class SwapRace final {
public:
    using Pairs = QList<QPair<QByteArray, QByteArray>>;

    SwapRace(const QString& dir, Pairs pairs)
        : m_dirFd(::open(QFile::encodeName(dir).constData(), O_PATH | O_DIRECTORY | O_CLOEXEC)),
          m_pairs(std::move(pairs)), m_dir(dir) {
        m_thread = std::thread([this] {
            while (!m_stop.load(std::memory_order_relaxed)) {
                for (const auto& [name, partner] : m_pairs)
                    ::renameat2(m_dirFd, name.constData(), m_dirFd, partner.constData(),
                                RENAME_EXCHANGE);
                m_swaps.fetch_add(1, std::memory_order_relaxed);
            }
        });
    }
    ~SwapRace() { stop(); }
    SwapRace(const SwapRace&) = delete;
    SwapRace& operator=(const SwapRace&) = delete;

    /// False when the directory could not be opened (the race does nothing then).
    bool isValid() const { return m_dirFd >= 0; }
    /// Rounds done so far (each exchanges every pair once).
    long swaps() const { return m_swaps.load(); }

    /// Stops and joins the thread, then swaps back every pair whose first name was left a
    /// symlink, so the names are as they were set up.
    void stop() {
        if (!m_thread.joinable())
            return;
        m_stop = true;
        m_thread.join();
        for (const auto& [name, partner] : m_pairs)
            if (QFileInfo(m_dir + QLatin1Char('/') + QString::fromLocal8Bit(name)).isSymLink())
                ::renameat2(m_dirFd, name.constData(), m_dirFd, partner.constData(),
                            RENAME_EXCHANGE);
        if (m_dirFd >= 0)
            ::close(m_dirFd);
        m_dirFd = -1;
    }

    /// Positive control for the race: reads @p path by name, as a path-based opener would,
    /// until it yields @p outsideContent. Bounded by iterations, not time; yields so a starved
    /// swapper gets to run. True when the race is live (an escape was seen).
    static bool pathReaderEscapes(const QString& path, const QByteArray& outsideContent) {
        for (int i = 0; i < 200000; ++i) {
            QFile file(path);
            if (file.open(QIODevice::ReadOnly) && file.readAll() == outsideContent)
                return true;
            std::this_thread::yield();
        }
        return false;
    }

private:
    int m_dirFd = -1;
    Pairs m_pairs;
    QString m_dir;
    std::atomic<bool> m_stop{false};
    std::atomic<long> m_swaps{0};
    std::thread m_thread;
};

} // namespace securitytest
