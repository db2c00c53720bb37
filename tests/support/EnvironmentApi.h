#pragma once

// The science environments' routes as the integration tests use them (docs/environments.md).
#include "shared/ApiClient.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace runbox::testsupport {

/// Waits up to @p timeoutMs for build execution @p executionId to end and returns its record;
/// a build that did not complete is reported with its state, reason and log (qWarning).
QJsonObject waitForBuildRecord(ApiClient& client, const QString& executionId,
                               int timeoutMs = 180000);
/// `GET /v1/environments/{id}` (the error body when there is none).
QJsonObject environmentOf(ApiClient& client, const QString& environmentId);
/// How many revisions environment @p environmentId has.
int revisionCountOf(ApiClient& client, const QString& environmentId);
/// The snapshot of revision @p revisionId as "name=version" lines, in the snapshot's order.
QStringList snapshotOf(ApiClient& client, const QString& revisionId);
/// The `error` object of a refusal.
QJsonObject errorOf(const ApiResponse& response);

} // namespace runbox::testsupport
