#include "agent/npu/NpuConfig.h"

#include <QDir>
#include <QFileInfo>

namespace runbox::npu {

QString NpuConfig::resolvedNpuSmiPath() const {
    if (!npuSmiPath.isEmpty())
        return npuSmiPath;
    for (const char* candidate :
         {"/usr/local/bin/npu-smi", "/usr/local/sbin/npu-smi", "/usr/bin/npu-smi"}) {
        const QFileInfo info(QString::fromLatin1(candidate));
        if (info.isFile() && info.isExecutable())
            return info.filePath();
    }
    return {};
}

QStringList NpuConfig::resolvedDcmiPaths() const {
    return dcmiLibraryPaths.isEmpty() ? defaultDcmiPaths(driverPath) : dcmiLibraryPaths;
}

QStringList NpuConfig::defaultDcmiPaths(const QString& driverPath) {
    return {driverPath + QStringLiteral("/lib64/driver/libdcmi.so"),
            QStringLiteral("/usr/local/dcmi/libdcmi.so"),
            driverPath + QStringLiteral("/lib64/libdcmi.so")};
}

NpuConfig NpuConfig::fromEnvironment(const QProcessEnvironment& env) {
    return fromEnvironment(env, NpuConfig());
}

NpuConfig NpuConfig::fromEnvironment(const QProcessEnvironment& env, NpuConfig base) {
    auto take = [&env](const char* name, QString* field) {
        const QString value = env.value(QString::fromLatin1(name));
        if (!value.isEmpty())
            *field = value;
    };
    take("RUNBOX_NPU_DEVICE_ROOT", &base.deviceRoot);
    take("RUNBOX_NPU_SMI", &base.npuSmiPath);
    take("RUNBOX_NPU_DRIVER_PATH", &base.driverPath);
    take("RUNBOX_NPU_TOOLKIT_PATH", &base.toolkitPath);
    take("RUNBOX_NPU_INSTALL_INFO", &base.installInfoPath);
    take("RUNBOX_NPU_WORKLOADS", &base.workloadCatalogPath);
    const QString dcmi = env.value(QStringLiteral("RUNBOX_NPU_DCMI_PATHS"));
    if (!dcmi.isEmpty())
        base.dcmiLibraryPaths = dcmi.split(QLatin1Char(':'), Qt::SkipEmptyParts);
    for (const QString& path : env.value(QStringLiteral("RUNBOX_NPU_PROBE_BINDS"))
                                   .split(QLatin1Char(':'), Qt::SkipEmptyParts))
        if (QDir::isAbsolutePath(path))
            base.probeBinds.append(QDir::cleanPath(path));
    auto takeMs = [&env](const char* name, int* field) {
        bool ok = false;
        const int value = env.value(QString::fromLatin1(name)).toInt(&ok);
        if (ok && value > 0)
            *field = value;
    };
    takeMs("RUNBOX_NPU_CACHE_TTL_MS", &base.cacheTtlMs);
    takeMs("RUNBOX_NPU_PROBE_TIMEOUT_MS", &base.probeTimeoutMs);
    const QString policy = env.value(QStringLiteral("RUNBOX_NPU_BUSY_POLICY")).toLower();
    if (policy == QLatin1String("refuse"))
        base.busyPolicy = ChipBusyPolicy::Refuse;
    else if (policy == QLatin1String("queue"))
        base.busyPolicy = ChipBusyPolicy::Queue;
    const QString broker = env.value(QStringLiteral("RUNBOX_NPU_BROKER")).toLower();
    if (!broker.isEmpty())
        base.brokerEnabled = broker == QLatin1String("1") || broker == QLatin1String("true") ||
                             broker == QLatin1String("yes");
    return base;
}

} // namespace runbox::npu
