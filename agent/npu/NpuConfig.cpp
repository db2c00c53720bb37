#include "agent/npu/NpuConfig.h"

#include "agent/config/ConfigValues.h"

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

NpuConfig NpuConfig::fromConfig(const config::ConfigValues& values) {
    using config::Key;
    NpuConfig c;
    auto take = [&values](Key key, QString* field) {
        if (values.isSet(key))
            *field = values.text(key);
    };
    take(Key::NpuDeviceRoot, &c.deviceRoot);
    take(Key::NpuSmi, &c.npuSmiPath);
    take(Key::NpuDriverPath, &c.driverPath);
    take(Key::NpuToolkitPath, &c.toolkitPath);
    take(Key::NpuInstallInfo, &c.installInfoPath);
    take(Key::NpuWorkloads, &c.workloadCatalogPath);
    c.dcmiLibraryPaths = values.list(Key::NpuDcmiPaths);
    c.probeBinds = values.list(Key::NpuProbeBinds);
    c.cacheTtlMs = int(values.number(Key::NpuCacheTtlMs));
    c.probeTimeoutMs = int(values.number(Key::NpuProbeTimeoutMs));
    c.busyPolicy = values.text(Key::NpuBusyPolicy) == QLatin1String("refuse")
                       ? ChipBusyPolicy::Refuse
                       : ChipBusyPolicy::Queue;
    c.brokerEnabled = values.boolean(Key::NpuBroker);
    return c;
}

} // namespace runbox::npu
