#pragma once

#include <QCoreApplication>
#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QString>

namespace runbox::console {

/// One workspace as `GET /v1/workspaces` lists it or `POST /v1/workspaces` answers it
/// (docs/contracts.md "Workspaces and executions"; agent/api/WorkspaceRoutes.cpp). Only what the
/// agent reports is filled: a field it left out (or sent with another type) stays at its
/// "unknown" value, so a surprising body never crashes the console, it only shows less.
struct WorkspaceInfo {
    Q_DECLARE_TR_FUNCTIONS(runbox::console::WorkspaceInfo)

public:
    QString id;
    QString isolation;        ///< `strong` | `light` (the tier); "" when not said
    QDateTime createdAt;      ///< UTC; invalid when unknown
    qint64 uid = -1;          ///< the workspace's sandbox uid; -1 when not reported
    QString environmentBuild; ///< the science environment this is the build workspace of
    qint64 idleTimeoutS =
        -1;               ///< light: evicted after this many idle seconds (0 = never); -1 unknown
    QDateTime lastUsedAt; ///< light: UTC, when a route last named it; invalid: unknown
    QDateTime idleDeadlineAt;       ///< light: UTC, evicted then if still idle; invalid: none now
    QJsonObject confinement;        ///< light: the Landlock / network confinement, as reported
    QJsonObject lastBoundsKill;     ///< light: the last background-bounds kill (empty when none)
    QString environmentId;          ///< light: the science environment it was created with
    qint64 recordedExecutions = -1; ///< executions the agent keeps records of; -1 unknown
    QDateTime lastExecutionAt;      ///< UTC, the newest recorded one's creation; invalid: none
    QString token;                  ///< scoped token: only in a create answer, never in a listing
    QJsonObject raw;                ///< the object as received

    /// Reads one workspace object; anything missing keeps its default.
    static WorkspaceInfo fromJson(const QJsonObject& o);
    /// Every workspace of a `{"workspaces":[…]}` answer, in the agent's order; entries that are
    /// not objects or have no id are skipped.
    static QList<WorkspaceInfo> listFromJson(const QJsonObject& answer);

    bool isLight() const { return isolation == QLatin1String("light"); }
    /// Translated label of a tier ("Strong", "Light"); the raw value when unknown.
    static QString isolationLabel(const QString& isolation);
    /// One translated sentence about the last bounds kill ("" when none).
    QString boundsKillText() const;
};

/// The 201 answer of `POST /v1/workspaces`: the workspaces made (each with its scoped token) and
/// how many of those asked for were not made (`rejected`: capacity, `maxLightWorkspaces`, the
/// pool's capacity on a pool host).
struct WorkspaceCreateResult {
    QList<WorkspaceInfo> workspaces;
    int rejected = 0;

    static WorkspaceCreateResult fromJson(const QJsonObject& answer);
};

} // namespace runbox::console
