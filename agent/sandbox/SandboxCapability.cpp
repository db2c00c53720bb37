#include "agent/sandbox/SandboxCapability.h"

#include "agent/sandbox/SeccompProfile.h"

#include <QJsonArray>

namespace runbox::sandbox {

QString toString(ProcMode mode) {
    switch (mode) {
    case ProcMode::New:
        return QStringLiteral("new");
    case ProcMode::Bind:
        return QStringLiteral("bind");
    }
    return QStringLiteral("new");
}

QString toString(UsernsBlocking blocking) {
    switch (blocking) {
    case UsernsBlocking::Supported:
        return QStringLiteral("blocked");
    case UsernsBlocking::OptionUnknown:
        return QStringLiteral("option-unknown");
    case UsernsBlocking::OptionRejected:
        return QStringLiteral("option-rejected");
    case UsernsBlocking::Unusable:
        return QStringLiteral("unusable");
    }
    return QStringLiteral("unusable");
}

QString SandboxCapability::summaryLine() const {
    const QString version =
        bwrapVersion.isEmpty() ? QStringLiteral("bubblewrap (version unknown)") : bwrapVersion;
    if (!usable) {
        QString line = QStringLiteral("sandbox: %1 at %2 UNUSABLE").arg(version, bwrapPath);
        if (!detail.isEmpty())
            line += QStringLiteral(" (%1)").arg(detail);
        line += QStringLiteral("; executions are refused with 503 sandbox_unavailable");
        return line;
    }

    QStringList parts;
    parts << QStringLiteral("sandbox: %1 usable").arg(version);
    parts << (procMode == ProcMode::New ? QStringLiteral("/proc new")
                                        : QStringLiteral("/proc bind (host process list visible)"));
    parts << (usernsBlocking == UsernsBlocking::Supported
                  ? QStringLiteral("nested userns blocked")
                  : QStringLiteral("nested userns not blocked by bwrap (%1)")
                        .arg(toString(usernsBlocking)));
    const QString arch = SeccompProfile::nativeArch();
    parts << (arch.isEmpty() ? QStringLiteral("seccomp unavailable on this architecture")
                             : QStringLiteral("seccomp %1").arg(arch));
    if (!warnings.isEmpty())
        parts << QStringLiteral("%1 warning(s), see /v1/health").arg(warnings.size());
    return parts.join(QStringLiteral("; "));
}

QJsonObject SandboxCapability::toJson() const {
    QJsonObject json;
    json.insert(QStringLiteral("usable"), usable);
    json.insert(QStringLiteral("bwrapPath"), bwrapPath);
    json.insert(QStringLiteral("bwrapVersion"), bwrapVersion);
    json.insert(QStringLiteral("procMode"), toString(procMode));
    json.insert(QStringLiteral("nestedUserns"), toString(usernsBlocking));
    json.insert(QStringLiteral("sizedTmpfs"), sizedTmpfs);
    json.insert(QStringLiteral("detail"), detail);
    json.insert(QStringLiteral("procDetail"), procDetail);
    json.insert(QStringLiteral("warnings"), QJsonArray::fromStringList(warnings));
    json.insert(QStringLiteral("unusableReason"), unusableReason);
    return json;
}

} // namespace runbox::sandbox
