#pragma once

#include "agent/execution/OutputFramer.h"
#include "agent/http/HttpExchange.h"

#include <QObject>
#include <QPointer>

namespace runbox::npu {
class BrokerJob;
}

namespace runbox::api {

/// Streams one host broker job's output as NDJSON, in the same shapes as an execution's log
/// (ExecutionRoutes): `{"type":"stdout"|"stderr","offset","data"|"dataBase64"}` frames with
/// *logical* offsets (stdout and stderr share one numbering in arrival order, so `?offset=N`
/// resumes exactly), then `{"type":"exit","status","exitCode","signal","durationMs","reason",
/// "truncated"}` last once the job is final. Without follow it stops at the current end (no
/// exit event while the job runs); with follow it waits for more. Reading pauses while more
/// than 1 MiB waits for the client. Deletes itself when done or when the client goes.
class BrokerLogSession final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(BrokerLogSession)
public:
    BrokerLogSession(http::HttpExchange* exchange, npu::BrokerJob* job, qint64 offset, bool follow,
                     QObject* parent = nullptr);

    /// The exit event of a final job.
    static QJsonObject exitEventOf(const npu::BrokerJob& job);

private:
    void pump();
    void pumpOnce();
    void finish(bool withExit);
    void write(const QJsonObject& event);

    QPointer<http::HttpExchange> m_exchange;
    QPointer<npu::BrokerJob> m_job;
    execution::OutputFramer m_framer;
    qint64 m_offset;      ///< first logical byte the client wants
    int m_nextChunk = 0;  ///< index of the next chunk of the job to read
    qint64 m_logical = 0; ///< logical offset where chunk m_nextChunk starts
    bool m_follow;
    bool m_finished = false;
    bool m_pumping = false; ///< inside pump(): a nested call only asks for another round
    bool m_pumpAgain = false;
};

} // namespace runbox::api
