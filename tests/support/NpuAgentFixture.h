#pragma once

// Helpers for tests that run the real agent against a simulated Ascend host (header-only).

#include "shared/ApiClient.h"
#include "support/AgentProcess.h"
#include "support/SimulatedNpuHost.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QNetworkReply>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <functional>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>

namespace runbox::testsupport {

/// The RUNBOX_NPU_* variables that point an agent at @p host: its device root, its fake
/// npu-smi, its install info, no DCMI, driver/toolkit paths that do not exist, and its state
/// directory bound into the probe sandbox (the fake reads which chips are occupied there).
inline QMap<QString, QString> simulatedNpuEnvironment(const tests::SimulatedNpuHost& host) {
    return {{"RUNBOX_NPU_DEVICE_ROOT", host.deviceRoot()},
            {"RUNBOX_NPU_SMI", host.npuSmiPath()},
            {"RUNBOX_NPU_INSTALL_INFO", host.installInfoPath()},
            {"RUNBOX_NPU_DCMI_PATHS", "/nonexistent/libdcmi.so"},
            {"RUNBOX_NPU_DRIVER_PATH", "/nonexistent/Ascend/driver"},
            {"RUNBOX_NPU_TOOLKIT_PATH", "/nonexistent/Ascend/toolkit"},
            {"RUNBOX_NPU_PROBE_BINDS", host.stateDir()}};
}

/// Lets the unprivileged agent reach a directory the test created (QTemporaryDir is 0700).
inline bool shareWithAgent(const QString& dir) {
    return ::chmod(QFile::encodeName(dir).constData(), 0755) == 0;
}

/// The simulated chips' group under a root agent (RUNBOX_TEST_ROOT_AGENT=1).
inline constexpr gid_t kSimulatedDeviceGroup = 4242;

/// With RUNBOX_TEST_ROOT_AGENT set (ctest runs some binaries a second time so): @p options run
/// the agent as root with its own uid-range registry in @p registry, and @p host's device nodes
/// become 0660 root:kSimulatedDeviceGroup, so sandboxes and jobs reach them only through that
/// group (docs/contracts.md "No sandbox is host root"). Returns false only when that fails;
/// does nothing (true) without the variable.
inline bool prepareRootAgentIfAsked(const tests::SimulatedNpuHost& host, AgentOptions* options,
                                    std::unique_ptr<QTemporaryDir>* registry) {
    if (!qEnvironmentVariableIsSet("RUNBOX_TEST_ROOT_AGENT"))
        return true;
    options->runAsRoot = true;
    *registry = std::make_unique<QTemporaryDir>();
    options->extraEnv.insert(QStringLiteral("RUNBOX_UID_RANGE_REGISTRY"), (*registry)->path());
    const QDir dev(host.deviceRoot());
    for (const QString& node : dev.entryList(QDir::System | QDir::Files)) {
        const QByteArray path = QFile::encodeName(dev.filePath(node));
        if (::chown(path.constData(), 0, kSimulatedDeviceGroup) != 0 ||
            ::chmod(path.constData(), 0660) != 0)
            return false;
    }
    return true;
}

/// An NDJSON response, collected.
struct NdjsonResult {
    int status = 0;
    QByteArray errorBody;
    QList<QJsonObject> events;
    bool finished = false;

    QString errorCode() const {
        return QJsonDocument::fromJson(errorBody)
            .object()
            .value(QLatin1String("error"))
            .toObject()
            .value(QLatin1String("code"))
            .toString();
    }
};

/// Runs @p method @p path through @p client and collects every NDJSON event until the response
/// ends or @p timeoutMs passes (then it is aborted and `finished` stays false).
inline NdjsonResult collectNdjson(ApiClient* client, const QByteArray& method,
                                  const QByteArray& path, const QByteArray& body = {},
                                  int timeoutMs = 60000) {
    NdjsonResult result;
    QEventLoop loop;
    QNetworkReply* reply = client->stream(
        method, path, body, [&result](const QJsonObject& ev) { result.events.append(ev); },
        [&result, &loop](const ApiResponse& r) {
            result.status = r.status;
            if (r.status != 200)
                result.errorBody = r.body;
            result.finished = true;
            loop.quit();
        });
    QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
    loop.exec();
    if (!result.finished && reply)
        reply->abort();
    return result;
}

/// Polls `GET /v1/executions/{id}` until @p done accepts the record or @p timeoutMs passes;
/// returns the last record seen.
inline QJsonObject waitForExecution(ApiClient* client, const QString& id,
                                    const std::function<bool(const QJsonObject&)>& done,
                                    int timeoutMs = 60000) {
    QJsonObject record;
    QDeadlineTimer deadline(timeoutMs);
    while (!deadline.hasExpired()) {
        record = client->call("GET", "/v1/executions/" + id.toUtf8(), {}, 10000).json();
        if (done(record))
            break;
        QTest::qWait(50);
    }
    return record;
}

/// Whether an execution record's state is final.
inline bool isFinalState(const QJsonObject& record) {
    const QString state = record.value(QLatin1String("state")).toString();
    return !state.isEmpty() && state != QLatin1String("queued") &&
           state != QLatin1String("running");
}

} // namespace runbox::testsupport
