#pragma once

#include <QCoreApplication>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace runbox::console {

/// One line of a health conclusion: a topic, what was found, and why it matters.
struct HealthFinding {
    enum class Severity { Ok, Info, Warning, Error };
    Severity severity = Severity::Info;
    QString topic;       ///< e.g. "/proc", "Nested user namespaces"
    QString summary;     ///< what the agent found, short
    QString explanation; ///< what it means for the sandbox (what is lost, what to do)
};

/// Reads an agent's `GET /v1/health` answer (docs/contracts.md "API conventions",
/// agent/api/HealthRoutes.cpp) and turns it into translated findings for the overview. Fields an
/// agent does not send yet (egress, Landlock, execution counts, disk use) are reported as "not
/// reported by this agent" rather than guessed.
class HealthReport final {
    Q_DECLARE_TR_FUNCTIONS(runbox::console::HealthReport)

public:
    explicit HealthReport(const QJsonObject& health);

    QString version() const;
    int protocol() const;
    /// Whether executions can run at all (sandbox usable and ready).
    bool sandboxUsable() const;
    /// One line: "Sound", "Sound, with 2 warnings" or "Unusable: executions are refused".
    QString sandboxHeadline() const;
    /// The worst severity among sandboxFindings().
    HealthFinding::Severity sandboxSeverity() const;
    /// bubblewrap, /proc shape, nested-userns blocking, seccomp arch, Landlock ABI, then each
    /// of the agent's own warnings, each with its explanation.
    QList<HealthFinding> sandboxFindings() const;
    /// Whether egress through the gateway is available, and why not.
    HealthFinding egressFinding() const;
    /// Languages the agent runs ("shell", "python", "r").
    QStringList languages() const;
    qint64 defaultTimeoutMs() const;
    qint64 maxOutputBytes() const;
    /// Number of workspaces, when reported.
    std::optional<qint64> workspaceCount() const;
    /// Bytes used by workspaces on disk, when reported.
    std::optional<qint64> workspaceBytes() const;
    /// Running / queued executions, when the health answer carries them.
    std::optional<qint64> runningCount() const;
    std::optional<qint64> queuedCount() const;
    qint64 uptimeMs() const;
    /// The pool this agent is a host of (`/v1/health` "pool", docs/contracts.md "Pool hosts"):
    /// "Pool team-a: 40 workspaces, capacity 100, 60 free" (free "?" when not reported); empty
    /// when the agent carries no pool.
    QString poolSummary() const;

private:
    std::optional<qint64> number(std::initializer_list<const char*> path) const;

    QJsonObject m_health;
};

/// "10.00 GiB", "512.00 MiB", "1.5 KiB", "12 bytes": binary units, two decimals (translated).
QString formatBytes(qint64 bytes);
/// "2 h 5 min", "45 s", "850 ms" (translated).
QString formatDurationMs(qint64 ms);

} // namespace runbox::console
