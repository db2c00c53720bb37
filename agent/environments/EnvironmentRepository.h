#pragma once

#include "agent/Error.h"
#include "agent/store/Database.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace runbox::environments {

/// One row of the environments table (schema 7, agent/store/Migrations.cpp).
struct EnvironmentRow {
    QString id;                ///< "e" + 16 hex
    QString name;              ///< unique among live environments
    QString language;          ///< "python" ("r" reserved)
    QString provisioner;       ///< "venv"
    QString currentRevisionId; ///< "" until a revision is ready
    QString buildWorkspaceId;  ///< the agent-owned workspace its builds run in
    qint64 createdMs = 0;
};

/// One row of environment_revisions: immutable once ready (docs/environments.md "Model").
struct RevisionRow {
    QString id; ///< "r" + 16 hex
    QString environmentId;
    int seq = 0;         ///< 1, 2, … per environment
    QString status;      ///< "building" | "ready" | "failed"
    QJsonObject spec;    ///< {"provisioner","packages":[…],"packageSources":[…]}
    QString prefixPath;  ///< host path of its prefix (bound at /opt/science-env)
    QString executionId; ///< the provisioning execution
    QByteArray snapshot; ///< canonical snapshot JSON (ready only)
    QString snapshotSha256;
    QString statusReason; ///< why it failed
    qint64 createdMs = 0;
    qint64 finishedMs = 0;      ///< 0 while building
    qint64 prefixRemovedMs = 0; ///< when its prefix was removed (EnvironmentService's sweep)

    /// `{"id","environmentId","seq","status","spec","executionId","statusReason",
    /// "snapshotSha256"|null,"createdAt","finishedAt"|null,"prefixRemovedAt"|null}` (never the
    /// host path).
    QJsonObject toJson() const;
};

/// The environments and environment_revisions tables. Main thread. Errors: NotFound
/// `environment_not_found` / `environment_revision_not_found`, Conflict `environment_exists`
/// (a live environment has the name), and the store's errors.
class EnvironmentRepository final {
public:
    explicit EnvironmentRepository(const store::Database& database) : m_database(database) {}

    std::optional<Error> insertEnvironment(const EnvironmentRow& row);
    std::optional<Error> setBuildWorkspace(const QString& environmentId,
                                           const QString& workspaceId);
    /// Live environments, oldest first.
    std::optional<Error> listEnvironments(QList<EnvironmentRow>* out) const;
    std::optional<Error> getEnvironment(const QString& id, EnvironmentRow* out) const;
    std::optional<Error> markEnvironmentDeleted(const QString& id);

    /// Inserts @p row with the next seq of its environment (set in @p row).
    std::optional<Error> insertRevision(RevisionRow* row);
    std::optional<Error> setRevisionExecution(const QString& revisionId,
                                              const QString& executionId);
    /// Ends a building revision: ready with its snapshot (and, in the same transaction, the
    /// environment's current revision moves to it), or failed with @p reason.
    std::optional<Error> finishRevision(const QString& revisionId, bool ready,
                                        const QByteArray& snapshot, const QString& sha256,
                                        const QString& reason);
    /// The revisions of @p environmentId, by seq.
    std::optional<Error> listRevisions(const QString& environmentId, QList<RevisionRow>* out) const;
    std::optional<Error> getRevision(const QString& id, RevisionRow* out) const;
    /// Ready revisions whose prefix is still there, that are not their live environment's
    /// current one and were finished at or before @p finishedBeforeMs.
    std::optional<Error> listSweepable(qint64 finishedBeforeMs, QList<RevisionRow>* out) const;
    std::optional<Error> markPrefixRemoved(const QString& revisionId);
    /// Start-up: every revision still `building` (its build died with the previous agent) is
    /// marked failed; returns them (their half-built prefixes are removed by the caller).
    std::optional<Error> failUnfinished(QList<RevisionRow>* out);

private:
    const store::Database& m_database;
};

} // namespace runbox::environments
