#pragma once

#include "agent/store/QuotaSettings.h"

#include "agent/Error.h"

#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

namespace runbox::execution {

/// The one check of a request body's field names (docs/contracts.md "API conventions": unknown
/// fields are refused rather than ignored): InvalidArgument (400) `invalid_request` `unknown field
/// "NAME"` for the first field of @p body (in key order) that is in neither @p known nor @p
/// alsoKnown. Used by ExecRequest::parse and by the routes whose bodies are not exec requests (the
/// NPU broker's `POST /v1/npu/jobs`).
std::optional<Error> refuseUnknownFields(const QJsonObject& body, const QStringList& known,
                                         const QStringList& alsoKnown = {});

/// Limits a request is checked against (bytes, ms; 0 = unlimited where said).
struct ExecLimits {
    /// A feature's check of the form of its section (type, size, element types), given the
    /// value as sent (null included): an error refuses the request.
    using FeatureCheck = std::function<std::optional<Error>(const QJsonValue&)>;

    qint64 defaultTimeoutMs = 600000;
    qint64 maxTimeoutMs = 0; ///< 0 = no ceiling
    qint64 defaultMaxOutputBytes = 1LL << 30;
    qint64 maxOutputBytesCeiling = 0; ///< 0 = no ceiling
    bool rAvailable = false;          ///< R is installed on the host
    /// The quotas in force (store::QuotaSettings): a request's maxWorkspaceBytes, maxMemoryBytes
    /// and maxProcesses may only tighten them (store::tighten).
    store::QuotaSettings quotas;
    /// Request fields the agent's features own (e.g. the NPU's `npuDevices`): kept as sent in
    /// ExecRequest::features for the feature to validate; any other unknown field is refused.
    QStringList featureFields;
    /// The form checks of feature fields, by field (ExecutionManager::addRequestFeature): run by
    /// ExecRequest::parse on every section present, so a malformed section is refused the same
    /// way whether or not the feature can serve the request here (no NPU, a light workspace).
    QMap<QString, FeatureCheck> featureChecks;
};

/// A validated exec request (docs/contracts.md "Exec request"): what to run, with what, under which
/// limits.
struct ExecRequest {
    QString kind;         ///< "shell" | "python" | "r" | "argv"
    QString code;         ///< script for kind shell/python/r (sent on stdin)
    QStringList argv;     ///< for kind argv
    QByteArray stdinData; ///< bytes written to the command's stdin
    QString cwd;          ///< workspace-relative, normalised ("" = workspace root)
    QMap<QString, QString> env;
    QString executionId;       ///< client idempotency key, may be empty
    qint64 timeoutMs = 0;      ///< 0 = unlimited
    qint64 maxOutputBytes = 0; ///< stdout + stderr; 0 = unlimited
    /// maxWorkspaceBytes, maxMemoryBytes and maxProcesses this run is bound by (the setting, or
    /// the request's tighter value; 0 = unlimited). Only those three of the struct are used;
    /// absent for a request not made by parse() (the settings then apply).
    std::optional<store::ExecutionLimits> bounds;
    /// The feature sections of the request (ExecLimits::featureFields), as sent until their
    /// feature has validated them (the NPU feature replaces `npuDevices` with the canonical
    /// chip list). The core reads none of them.
    QJsonObject features;

    /// Whether the request asks for feature @p field: present, and not null, [] or {}.
    bool hasFeature(const QString& field) const;

    /// The argv run inside the sandbox: `bash --noprofile --norc -euo pipefail -s`,
    /// `python3 -I -`, `R --vanilla --slave`, or argv itself.
    QStringList sandboxCommand() const;

    /// Parses and validates a request body. Errors are 400s naming the field:
    /// invalid_request, invalid_kind, invalid_argv, invalid_env, invalid_cwd, invalid_timeout,
    /// invalid_output_limit, persistent_kernel_unsupported, r_unavailable, invalid_execution_id,
    /// invalid_quota and quota_override_not_tighter (maxWorkspaceBytes, maxMemoryBytes,
    /// maxProcesses: store::tighten). Feature sections are validated by their feature: here
    /// only by its form check (ExecLimits::featureChecks), after the core fields; what they
    /// name, later.
    static std::optional<Error> parse(const QJsonObject& body, const ExecLimits& limits,
                                      ExecRequest* out);
    /// Validates a workspace-relative cwd: no leading '/', no '.', '..' or empty segments, no
    /// NUL or backslash, at most 4096 bytes. Returns the normalised path or an error text.
    static QString validateCwd(const QString& cwd, QString* error);
};

} // namespace runbox::execution
