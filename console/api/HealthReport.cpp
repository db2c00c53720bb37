#include "console/api/HealthReport.h"

#include <QJsonArray>
#include <QLocale>

namespace runbox::console {

namespace {
QJsonValue at(const QJsonObject& root, std::initializer_list<const char*> path) {
    QJsonValue v = root;
    for (const char* key : path)
        v = v.toObject().value(QLatin1String(key));
    return v;
}
} // namespace

HealthReport::HealthReport(const QJsonObject& health) : m_health(health) {}

std::optional<qint64> HealthReport::number(std::initializer_list<const char*> path) const {
    const QJsonValue v = at(m_health, path);
    if (!v.isDouble())
        return std::nullopt;
    return qint64(v.toDouble());
}

QString HealthReport::version() const {
    return m_health.value(QLatin1String("version")).toString();
}

int HealthReport::protocol() const {
    return m_health.value(QLatin1String("protocol")).toInt();
}

bool HealthReport::sandboxUsable() const {
    const QJsonObject s = m_health.value(QLatin1String("sandbox")).toObject();
    return s.value(QLatin1String("usable")).toBool() &&
           s.value(QLatin1String("ready")).toBool(true);
}

HealthFinding::Severity HealthReport::sandboxSeverity() const {
    HealthFinding::Severity worst = HealthFinding::Severity::Ok;
    for (const HealthFinding& f : sandboxFindings())
        worst = std::max(worst, f.severity);
    return worst;
}

QString HealthReport::sandboxHeadline() const {
    if (m_health.isEmpty())
        return tr("Not known yet");
    if (!sandboxUsable())
        return tr("Unusable: executions are refused");
    int warnings = 0;
    for (const HealthFinding& f : sandboxFindings())
        warnings += f.severity == HealthFinding::Severity::Warning ? 1 : 0;
    return warnings == 0 ? tr("Sound") : tr("Sound, with %n warning(s)", nullptr, warnings);
}

QList<HealthFinding> HealthReport::sandboxFindings() const {
    using S = HealthFinding::Severity;
    QList<HealthFinding> out;
    const QJsonObject s = m_health.value(QLatin1String("sandbox")).toObject();
    if (s.isEmpty())
        return out;
    const QString version = s.value(QLatin1String("bwrapVersion")).toString();
    const QString path = s.value(QLatin1String("bwrapPath")).toString();
    if (!sandboxUsable()) {
        QString why = s.value(QLatin1String("unavailableReason")).toString();
        if (why.isEmpty())
            why = s.value(QLatin1String("unusableReason")).toString();
        if (why.isEmpty())
            why = s.value(QLatin1String("detail")).toString();
        out.append({S::Error, tr("Sandbox"), tr("Unusable"),
                    tr("No sandbox can be built, so the agent runs nothing (it never falls back "
                       "to running code unsandboxed). %1")
                        .arg(why)});
    }
    out.append({S::Ok, tr("bubblewrap"), version.isEmpty() ? tr("version unknown") : version,
                tr("Every execution is a fresh bubblewrap sandbox (%1).").arg(path)});

    const QString procMode = s.value(QLatin1String("procMode")).toString();
    if (procMode == QLatin1String("bind")) {
        out.append({S::Warning, tr("/proc"), tr("bound from the host"),
                    tr("The kernel refused a fresh /proc, so the host's /proc is bound read-only: "
                       "code in a sandbox can see the host's process list and command lines. "
                       "Cause: %1")
                        .arg(s.value(QLatin1String("procDetail")).toString())});
    } else if (!procMode.isEmpty()) {
        out.append({S::Ok, tr("/proc"), tr("own PID namespace"),
                    tr("Each sandbox sees only its own processes.")});
    }

    const QString userns = s.value(QLatin1String("nestedUserns")).toString();
    if (userns == QLatin1String("blocked")) {
        out.append({S::Ok, tr("Nested user namespaces"), tr("blocked"),
                    tr("bubblewrap's --disable-userns stops sandboxed code from creating user "
                       "namespaces of its own.")});
    } else if (userns == QLatin1String("option-unknown")) {
        out.append({S::Warning, tr("Nested user namespaces"), tr("not blocked by bubblewrap"),
                    tr("This bubblewrap is older than 0.8 and has no --disable-userns; only the "
                       "seccomp filter stops sandboxed code from creating namespaces. Upgrade "
                       "bubblewrap to restore the second layer.")});
    } else if (userns == QLatin1String("option-rejected")) {
        out.append({S::Warning, tr("Nested user namespaces"), tr("not blocked by bubblewrap"),
                    tr("The kernel refused --disable-userns (for example a read-only /proc/sys "
                       "inside a container); only the seccomp filter stops sandboxed code from "
                       "creating namespaces.")});
    }

    const QJsonObject seccomp = m_health.value(QLatin1String("seccomp")).toObject();
    const QString arch = seccomp.value(QLatin1String("arch")).toString();
    const QString seccompError = seccomp.value(QLatin1String("error")).toString();
    if (!seccompError.isEmpty()) {
        out.append({S::Error, tr("seccomp"), tr("filter unavailable"), seccompError});
    } else if (!arch.isEmpty()) {
        out.append({S::Ok, tr("seccomp"), arch,
                    tr("A syscall filter for %1 is loaded into every sandbox; denied calls fail "
                       "with %2.")
                        .arg(arch, seccomp.value(QLatin1String("deniedAction"))
                                       .toString(QStringLiteral("EPERM")))});
    } else {
        out.append({S::Warning, tr("seccomp"), tr("architecture not reported"),
                    tr("The agent did not say which syscall filter it loads.")});
    }

    // Memory bounds (docs/bounds.md): "memory": {"mode","reason","blindSpots"}.
    const QJsonObject memory = m_health.value(QLatin1String("memory")).toObject();
    const QString mode = memory.value(QLatin1String("mode")).toString();
    const QString memoryWhy = memory.value(QLatin1String("reason")).toString();
    if (mode == QLatin1String("cgroup2")) {
        out.append({S::Ok, tr("Memory bounds"), tr("cgroup v2"),
                    tr("Each execution has its own cgroup; the kernel enforces its memory and "
                       "process limits. %1")
                        .arg(memoryWhy)});
    } else if (mode == QLatin1String("watchdog")) {
        out.append({S::Warning, tr("Memory bounds"), tr("watchdog"),
                    tr("No delegated cgroup: the agent samples each execution's memory and "
                       "ends it as memory_exceeded past its limit; %1. %2")
                        .arg(memory.value(QLatin1String("blindSpots")).toArray().first().toString(),
                             memoryWhy)});
    } else if (mode == QLatin1String("none")) {
        out.append({S::Error, tr("Memory bounds"), tr("none"),
                    tr("Executions with a memory limit are refused (503 limit_unenforceable). %1")
                        .arg(memoryWhy)});
    }

    // CPU limit (docs/bounds.md): "cpu": {"mode":"cgroup2"|"none","reason"}.
    const QJsonObject cpu = m_health.value(QLatin1String("cpu")).toObject();
    if (cpu.value(QLatin1String("mode")).toString() == QLatin1String("cgroup2"))
        out.append({S::Ok, tr("CPU limit"), tr("cgroup v2 cpu.max"),
                    cpu.value(QLatin1String("reason")).toString()});
    else if (!cpu.isEmpty())
        out.append({S::Info, tr("CPU limit"), tr("not enforceable here"),
                    tr("Leave \"CPU per execution\" unlimited on this host: executions under a "
                       "limit are refused. %1")
                        .arg(cpu.value(QLatin1String("reason")).toString())});

    // Landlock confines light workspaces: "light": {"available","reason","warnings",
    // "confinement":{"landlockAbi",…}} (docs/light-workspaces.md), or an older "landlock": {"abi"}.
    const QJsonObject light = m_health.value(QLatin1String("light")).toObject();
    std::optional<qint64> abi = number({"light", "confinement", "landlockAbi"});
    if (!abi)
        abi = number({"landlock", "abi"});
    if (!abi)
        abi = number({"sandbox", "landlockAbi"});
    if (!light.isEmpty() && !light.value(QLatin1String("available")).toBool(true)) {
        out.append(
            {S::Warning, tr("Light workspaces"), tr("unavailable"),
             light.value(QLatin1String("reason")).toString(tr("The agent gave no reason."))});
    } else if (!abi) {
        out.append({S::Info, tr("Landlock"), tr("not reported by this agent"),
                    tr("Landlock confines light workspaces; this agent does not report its ABI.")});
    } else if (*abi <= 0) {
        out.append({S::Warning, tr("Landlock"), tr("unavailable"),
                    tr("The kernel has no Landlock: light workspaces cannot be confined and are "
                       "refused.")});
    } else {
        out.append({S::Ok, tr("Landlock"), tr("ABI %1").arg(*abi),
                    tr("Light workspaces are confined to their home by a Landlock ruleset.")});
    }
    for (const QJsonValue& w : light.value(QLatin1String("warnings")).toArray())
        out.append({S::Warning, tr("Light workspaces"), w.toString(), w.toString()});

    for (const QJsonValue& w : s.value(QLatin1String("warnings")).toArray())
        out.append({S::Warning, tr("Agent warning"), w.toString(), w.toString()});
    return out;
}

HealthFinding HealthReport::egressFinding() const {
    using S = HealthFinding::Severity;
    const QJsonValue egress = m_health.value(QLatin1String("egress"));
    if (!egress.isObject())
        return {S::Info, tr("Egress"), tr("not reported by this agent"),
                tr("This agent does not offer egress through the gateway yet: sandboxes have no "
                   "network at all.")};
    const QJsonObject e = egress.toObject();
    QString reason = e.value(QLatin1String("reason")).toString();
    if (reason.isEmpty())
        reason = e.value(QLatin1String("unavailableReason")).toString();
    if (e.value(QLatin1String("available")).toBool())
        return {S::Ok, tr("Egress"), tr("available"),
                reason.isEmpty() ? tr("Sandboxes reach allowed domains through the gateway when "
                                      "the network policy allows them.")
                                 : reason};
    return {S::Warning, tr("Egress"), tr("unavailable"),
            reason.isEmpty() ? tr("The agent gave no reason.") : reason};
}

QStringList HealthReport::languages() const {
    QStringList out;
    for (const QJsonValue& v : m_health.value(QLatin1String("languages")).toArray())
        out.append(v.toString());
    return out;
}

qint64 HealthReport::defaultTimeoutMs() const {
    return number({"limits", "executionTimeoutMs"}).value_or(0);
}

qint64 HealthReport::maxOutputBytes() const {
    return number({"limits", "maxOutputBytes"}).value_or(0);
}

std::optional<qint64> HealthReport::workspaceCount() const {
    if (auto n = number({"workspaces"}))
        return n;
    return number({"workspaces", "count"});
}

std::optional<qint64> HealthReport::workspaceBytes() const {
    if (auto n = number({"workspaces", "bytes"}))
        return n;
    return number({"disk", "workspaceBytes"});
}

std::optional<qint64> HealthReport::runningCount() const {
    return number({"executions", "running"});
}

std::optional<qint64> HealthReport::queuedCount() const {
    return number({"executions", "queued"});
}

qint64 HealthReport::uptimeMs() const {
    return number({"uptimeMs"}).value_or(0);
}

QString formatBytes(qint64 bytes) {
    const QLocale locale;
    if (bytes < 1024)
        return QCoreApplication::translate("runbox::console::Format", "%1 B").arg(bytes);
    const char* units[] = {QT_TRANSLATE_NOOP("runbox::console::Format", "%1 KiB"),
                           QT_TRANSLATE_NOOP("runbox::console::Format", "%1 MiB"),
                           QT_TRANSLATE_NOOP("runbox::console::Format", "%1 GiB"),
                           QT_TRANSLATE_NOOP("runbox::console::Format", "%1 TiB"),
                           QT_TRANSLATE_NOOP("runbox::console::Format", "%1 PiB")};
    double value = double(bytes) / 1024.0;
    int unit = 0;
    while (value >= 1024.0 && unit < 4) {
        value /= 1024.0;
        ++unit;
    }
    return QCoreApplication::translate("runbox::console::Format", units[unit])
        .arg(locale.toString(value, 'f', 2));
}

QString formatDurationMs(qint64 ms) {
    if (ms < 1000)
        return QCoreApplication::translate("runbox::console::Format", "%1 ms").arg(ms);
    const qint64 s = ms / 1000;
    if (s < 60)
        return QCoreApplication::translate("runbox::console::Format", "%1 s")
            .arg(QLocale().toString(ms / 1000.0, 'f', 1));
    if (s < 3600)
        return QCoreApplication::translate("runbox::console::Format", "%1 min %2 s")
            .arg(s / 60)
            .arg(s % 60);
    if (s < 86400)
        return QCoreApplication::translate("runbox::console::Format", "%1 h %2 min")
            .arg(s / 3600)
            .arg((s % 3600) / 60);
    return QCoreApplication::translate("runbox::console::Format", "%1 d %2 h")
        .arg(s / 86400)
        .arg((s % 86400) / 3600);
}

QString HealthReport::poolSummary() const {
    const QJsonObject pool = m_health.value(QLatin1String("pool")).toObject();
    if (pool.value(QLatin1String("name")).toString().isEmpty())
        return {};
    const QJsonValue free = pool.value(QLatin1String("free"));
    return tr("Pool %1: %2 workspaces, capacity %3, %4 free")
        .arg(pool.value(QLatin1String("name")).toString(),
             QString::number(qint64(pool.value(QLatin1String("workspaces")).toDouble())),
             QString::number(qint64(pool.value(QLatin1String("capacity")).toDouble())),
             free.isDouble() ? QString::number(qint64(free.toDouble())) : tr("?"));
}

} // namespace runbox::console
