#pragma once

#include "shared/ApiClient.h"

#include <QColor>
#include <QCoreApplication>
#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace runbox::console {

/// Whether @p r says the agent has no such route (404 `not_found`, or 405/501): the feature is
/// not offered by this agent yet, as opposed to a missing resource (404 `…_not_found`).
bool isRouteMissing(const ApiResponse& r);

/// One execution as `GET /v1/executions[/{id}]` returns it (docs/managed.md), or as the console
/// builds it from a sync exec stream (`started` and `exit` events).
struct ExecutionInfo {
    Q_DECLARE_TR_FUNCTIONS(runbox::console::ExecutionInfo)

public:
    QString id;
    QString workspace;
    QString kind;  ///< shell | python | r | argv
    QString state; ///< queued | running | completed | failed | timed_out | cancelled | …
    std::optional<int> queuePosition;
    QDateTime createdAt, startedAt, finishedAt; ///< UTC; invalid when unknown
    std::optional<int> exitCode;
    QString signal; ///< "SIGKILL" or "9", empty when none
    std::optional<qint64> durationMs;
    QString statusReason;
    QList<int> npuDevices; ///< chip logic ids of the permission epoch
    /// The science environment it ran in and its revision (permission epoch, docs/environments.md
    /// "Selection"); empty when it ran with the host's interpreters.
    QString environmentId, environmentRevisionId;
    QJsonObject raw; ///< the record as received

    static ExecutionInfo fromJson(const QJsonObject& record);
    /// Updates state, exit code, signal, duration and changed files from an `exit` event.
    void applyExitEvent(const QJsonObject& exitEvent);
    bool isTerminal() const;
    /// The duration, or the time since start while running (ms), when known.
    std::optional<qint64> effectiveDurationMs(const QDateTime& nowUtc) const;

    /// Every state name, in lifecycle order.
    static QStringList allStates();
    /// Translated label of a state ("Timed out").
    static QString stateLabel(const QString& state);
    /// The colour a state is drawn in (green completed, red failed…).
    static QColor stateColor(const QString& state);
    /// Resource path of the state's icon.
    static QString stateIcon(const QString& state);
};

} // namespace runbox::console
