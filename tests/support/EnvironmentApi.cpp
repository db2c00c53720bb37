#include "support/EnvironmentApi.h"

#include "support/ManagedApi.h"

#include <QJsonArray>

namespace runbox::testsupport {

QJsonObject waitForBuildRecord(ApiClient& client, const QString& executionId, int timeoutMs) {
    const QJsonObject record = waitUntilFinal(client, executionId, timeoutMs);
    if (record.value("state").toString() != QLatin1String("completed"))
        qWarning("build %s: %s %s: %s", qPrintable(executionId),
                 qPrintable(record.value("state").toString()),
                 qPrintable(record.value("statusReason").toString()),
                 qPrintable(readLog(client, executionId, 0, false).bytes));
    return record;
}

QJsonObject environmentOf(ApiClient& client, const QString& environmentId) {
    return client.call("GET", "/v1/environments/" + environmentId.toUtf8()).json();
}

int revisionCountOf(ApiClient& client, const QString& environmentId) {
    return int(client.call("GET", "/v1/environments/" + environmentId.toUtf8() + "/revisions")
                   .json()
                   .value("revisions")
                   .toArray()
                   .size());
}

QStringList snapshotOf(ApiClient& client, const QString& revisionId) {
    QStringList out;
    for (const QJsonValue& p :
         client.call("GET", "/v1/environment-revisions/" + revisionId.toUtf8() + "/snapshot")
             .json()
             .value("packages")
             .toArray())
        out << p["name"].toString() + '=' + p["version"].toString();
    return out;
}

QJsonObject errorOf(const ApiResponse& response) {
    return response.json().value("error").toObject();
}

} // namespace runbox::testsupport
