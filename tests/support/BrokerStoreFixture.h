#pragma once

// Header-only: the store a BrokerJobRunner records its jobs in, for tests that run the runner
// without an agent (a temporary state directory with the agent's database and LogStore).

#include "agent/npu/BrokerJobRunner.h"
#include "agent/npu/BrokerJobStore.h"
#include "agent/store/Database.h"
#include "agent/store/LogStore.h"
#include "agent/store/WorkspaceRepository.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QSignalSpy>
#include <QTemporaryDir>

#include <memory>

namespace runbox::testsupport {

/// A database + LogStore in a temporary state directory with one workspace row (workspaceId),
/// and the BrokerJobStore over them.
class BrokerStoreFixture final {
public:
    static inline const QString workspaceId = QStringLiteral("w-broker-test");

    /// The state directory goes below @p parentDir (default: the temporary directory; a test
    /// that records thousands of jobs passes /dev/shm, where fsync costs nothing).
    explicit BrokerStoreFixture(const QString& parentDir = QDir::tempPath())
        : m_dir(parentDir + QStringLiteral("/runbox-broker-store-XXXXXX")) {}

    /// Opens the store; the workspace row points at @p workspaceRoot. False with @p error.
    bool open(const QString& workspaceRoot, QString* error) {
        if (m_jobs)
            return true; // initTestCase of a test with global rows
        if (!m_dir.isValid()) {
            *error = QStringLiteral("no temporary directory");
            return false;
        }
        m_database = store::Database::open(m_dir.path(), error);
        if (!m_database)
            return false;
        m_logs = std::make_unique<store::LogStore>(m_dir.path());
        if (!m_logs->initialize(error))
            return false;
        store::WorkspaceRecord ws;
        ws.id = workspaceId;
        ws.isolation = QStringLiteral("strong");
        ws.rootPath = workspaceRoot;
        if (auto err = store::WorkspaceRepository(*m_database).insert({ws})) {
            *error = err->message;
            return false;
        }
        m_jobs = std::make_unique<npu::BrokerJobStore>(*m_database, m_logs.get());
        return true;
    }

    npu::BrokerJobStore* jobs() const { return m_jobs.get(); }
    store::LogStore* logs() const { return m_logs.get(); }
    const store::Database& database() const { return *m_database; }

    /// Every chunk of @p id's log, in order.
    QList<store::LogChunk> chunks(const QString& id) const {
        QList<store::LogChunk> all;
        store::LogReadResult r;
        qint64 offset = 0;
        do {
            if (m_logs->read(id, offset, 1 << 20, &r))
                return all;
            all += r.chunks;
            offset = r.nextOffset;
        } while (!r.chunks.isEmpty());
        return all;
    }
    /// The bytes of one stream of @p id's log from that stream's byte @p from on.
    QByteArray stream(const QString& id, npu::BrokerJob::Stream which, qint64 from = 0) const {
        const auto kind = which == npu::BrokerJob::Stream::Stdout ? store::LogChunk::Kind::Stdout
                                                                  : store::LogChunk::Kind::Stderr;
        QByteArray out;
        for (const store::LogChunk& chunk : chunks(id))
            if (chunk.kind == kind)
                out += chunk.data;
        return out.mid(from);
    }
    /// The record of job @p id (a default one when there is none).
    store::ExecutionRecord record(const QString& id) const {
        store::ExecutionRecord r;
        m_jobs->get(id, &r);
        return r;
    }

private:
    QTemporaryDir m_dir;
    std::unique_ptr<store::Database> m_database;
    std::unique_ptr<store::LogStore> m_logs;
    std::unique_ptr<npu::BrokerJobStore> m_jobs;
};

/// Waits until @p runner has recorded job @p id as final (jobFinished()), @p timeoutMs at most.
inline bool waitRecorded(npu::BrokerJobRunner* runner, npu::BrokerJobStore* jobs, const QString& id,
                         int timeoutMs = 20000) {
    store::ExecutionRecord r;
    if (!jobs->get(id, &r) && store::isTerminal(r.state))
        return true;
    QSignalSpy spy(runner, &npu::BrokerJobRunner::jobFinished);
    QDeadlineTimer deadline(timeoutMs);
    while (!deadline.hasExpired()) {
        if (!jobs->get(id, &r) && store::isTerminal(r.state))
            return true;
        spy.wait(50);
    }
    return false;
}

} // namespace runbox::testsupport
