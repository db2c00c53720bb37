#pragma once

#include "agent/Error.h"
#include "agent/store/Database.h"

#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace runbox::store {

/// One file an execution left behind, as hashed when it ended.
struct ExecutionOutput {
    QString path;         ///< workspace-relative POSIX path
    qint64 sizeBytes = 0; ///< bytes hashed
    QString sha256;       ///< 64 lowercase hex digits of those bytes

    /// `{"path": str, "sizeBytes": n, "sha256": "<64 hex>"}`.
    QJsonObject toJson() const;
    bool operator==(const ExecutionOutput&) const = default;
};

/// The `execution_outputs` table: the outputs of broker jobs (docs/npu.md "Host broker", the
/// result route), written once before the job's terminal state is recorded. Any thread.
/// Errors: the store errors of storeError() (Internal (500) `store_error`, Unavailable (503)
/// `store_busy`).
class ExecutionOutputRepository final {
public:
    explicit ExecutionOutputRepository(const Database& database) : m_database(database) {}

    /// Records @p outputs of @p executionId in one commit (Durability::Normal: the terminal
    /// state recorded after it is Acknowledged and syncs it too). A path recorded twice keeps
    /// the last value.
    std::optional<Error> record(const QString& executionId, const QList<ExecutionOutput>& outputs);
    /// The outputs of @p executionId sorted by path (empty when it has none).
    std::optional<Error> list(const QString& executionId, QList<ExecutionOutput>* out) const;

private:
    const Database& m_database;
};

} // namespace runbox::store
