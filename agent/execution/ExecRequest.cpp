#include "agent/execution/ExecRequest.h"

#include "agent/sandbox/EnvPolicy.h"

#include <QJsonArray>
#include <QRegularExpression>

#include <cmath>

namespace runbox::execution {

namespace {

Error bad(const char* code, const QString& message) {
    return Error{ErrorKind::InvalidArgument, QLatin1String(code), message};
}

/// Reads an optional non-negative integer field; JSON numbers are doubles, so reject fractions
/// and anything beyond 2^53.
std::optional<Error> readInteger(const QJsonObject& body, const char* field, const char* code,
                                 qint64* out, bool* present) {
    const QJsonValue v = body.value(QLatin1String(field));
    *present = !(v.isUndefined() || v.isNull());
    if (!*present)
        return std::nullopt;
    const double d = v.toDouble(-1);
    if (!v.isDouble() || d < 0 || std::floor(d) != d || d > 9007199254740992.0)
        return bad(code,
                   QStringLiteral("%1 must be a non-negative integer").arg(QLatin1String(field)));
    *out = qint64(d);
    return std::nullopt;
}

} // namespace

std::optional<Error> refuseUnknownFields(const QJsonObject& body, const QStringList& known,
                                         const QStringList& alsoKnown) {
    for (auto it = body.begin(); it != body.end(); ++it)
        if (!known.contains(it.key()) && !alsoKnown.contains(it.key()))
            return bad("invalid_request", QStringLiteral("unknown field \"%1\"").arg(it.key()));
    return std::nullopt;
}

QStringList ExecRequest::sandboxCommand() const {
    if (kind == QLatin1String("shell"))
        return {QStringLiteral("/usr/bin/bash"), QStringLiteral("--noprofile"),
                QStringLiteral("--norc"),        QStringLiteral("-euo"),
                QStringLiteral("pipefail"),      QStringLiteral("-s")};
    if (kind == QLatin1String("python"))
        return {QStringLiteral("/usr/bin/python3"), QStringLiteral("-I"), QStringLiteral("-")};
    if (kind == QLatin1String("r"))
        return {QStringLiteral("/usr/bin/R"), QStringLiteral("--vanilla"),
                QStringLiteral("--slave")};
    return argv;
}

QString ExecRequest::validateCwd(const QString& cwd, QString* error) {
    if (cwd.isEmpty() || cwd == QLatin1String("/workspace") || cwd == QLatin1String("."))
        return {};
    QString rel = cwd;
    if (rel.startsWith(QLatin1String("/workspace/")))
        rel = rel.mid(11);
    if (rel.toUtf8().size() > 4096) {
        *error = QStringLiteral("cwd is longer than 4096 bytes");
        return {};
    }
    if (rel.startsWith('/') || rel.contains(QChar(0)) || rel.contains('\\')) {
        *error = QStringLiteral("cwd must be a path relative to the workspace");
        return {};
    }
    if (rel.endsWith('/'))
        rel.chop(1);
    for (const QString& seg : rel.split('/')) {
        if (seg.isEmpty() || seg == QLatin1String(".") || seg == QLatin1String("..")) {
            *error = QStringLiteral("cwd may not contain empty, '.' or '..' segments");
            return {};
        }
    }
    return rel;
}

bool ExecRequest::hasFeature(const QString& field) const {
    const QJsonValue value = features.value(field);
    if (value.isUndefined() || value.isNull())
        return false;
    if (value.isArray())
        return !value.toArray().isEmpty();
    if (value.isObject())
        return !value.toObject().isEmpty();
    return true;
}

std::optional<Error> ExecRequest::parse(const QJsonObject& body, const ExecLimits& limits,
                                        ExecRequest* out) {
    ExecRequest r;
    static const QStringList known = {"kind",
                                      "code",
                                      "argv",
                                      "stdin",
                                      "cwd",
                                      "env",
                                      "executionId",
                                      "executionTimeoutMs",
                                      "maxOutputBytes",
                                      "maxWorkspaceBytes",
                                      "maxMemoryBytes",
                                      "maxProcesses",
                                      "maxCpuMillicores",
                                      "kernelMode",
                                      "workspace"};
    if (auto err = refuseUnknownFields(body, known, limits.featureFields))
        return err;
    for (const QString& field : limits.featureFields)
        if (body.contains(field))
            r.features.insert(field, body.value(field));

    const QJsonValue kernelMode = body.value(QLatin1String("kernelMode"));
    if (kernelMode.toString() == QLatin1String("persistent"))
        return bad("persistent_kernel_unsupported",
                   QStringLiteral("kernelMode \"persistent\" is not supported: every execution is "
                                  "a fresh process (use \"ephemeral\" or omit it)"));
    if (!kernelMode.isUndefined() && kernelMode.toString() != QLatin1String("ephemeral"))
        return bad("invalid_request", QStringLiteral("kernelMode must be \"ephemeral\""));

    const bool hasArgv = body.contains(QLatin1String("argv"));
    const bool hasKind = body.contains(QLatin1String("kind"));
    if (hasArgv == hasKind)
        return bad("invalid_request",
                   QStringLiteral("give either \"kind\" with \"code\", or \"argv\""));
    if (hasKind) {
        r.kind = body.value(QLatin1String("kind")).toString();
        if (r.kind != QLatin1String("shell") && r.kind != QLatin1String("python") &&
            r.kind != QLatin1String("r"))
            return bad("invalid_kind",
                       QStringLiteral("kind must be \"shell\", \"python\" or \"r\""));
        if (r.kind == QLatin1String("r") && !limits.rAvailable)
            return bad("r_unavailable",
                       QStringLiteral("R is not installed on this host (install r-base-core)"));
        const QJsonValue code = body.value(QLatin1String("code"));
        if (!code.isString())
            return bad("invalid_request", QStringLiteral("code must be a string"));
        r.code = code.toString();
        if (body.contains(QLatin1String("stdin")))
            return bad("invalid_request",
                       QStringLiteral("stdin cannot be combined with kind: the code is the "
                                      "interpreter's stdin; use argv to pass stdin"));
        r.stdinData = r.code.toUtf8();
    } else {
        r.kind = QStringLiteral("argv");
        const QJsonValue argv = body.value(QLatin1String("argv"));
        if (!argv.isArray() || argv.toArray().isEmpty())
            return bad("invalid_argv", QStringLiteral("argv must be a non-empty array of strings"));
        for (const QJsonValue& a : argv.toArray()) {
            if (!a.isString() || a.toString().contains(QChar(0)))
                return bad("invalid_argv",
                           QStringLiteral("argv items must be strings without NUL"));
            r.argv << a.toString();
        }
        if (r.argv.first().isEmpty())
            return bad("invalid_argv", QStringLiteral("argv[0] is empty"));
        const QJsonValue in = body.value(QLatin1String("stdin"));
        if (!in.isUndefined() && !in.isString())
            return bad("invalid_request", QStringLiteral("stdin must be a string"));
        r.stdinData = in.toString().toUtf8();
    }

    QString cwdError;
    const QJsonValue cwd = body.value(QLatin1String("cwd"));
    if (!cwd.isUndefined() && !cwd.isString())
        return bad("invalid_cwd", QStringLiteral("cwd must be a string"));
    r.cwd = validateCwd(cwd.toString(), &cwdError);
    if (!cwdError.isEmpty())
        return bad("invalid_cwd", cwdError);

    if (auto err = sandbox::EnvPolicy::parse(body.value(QLatin1String("env")), &r.env))
        return *err;

    const QJsonValue id = body.value(QLatin1String("executionId"));
    if (!id.isUndefined()) {
        static const QRegularExpression idPattern(QStringLiteral("^[A-Za-z0-9._:-]{1,128}$"));
        if (!id.isString() || !idPattern.match(id.toString()).hasMatch())
            return bad("invalid_execution_id",
                       QStringLiteral("executionId must match ^[A-Za-z0-9._:-]{1,128}$"));
        r.executionId = id.toString();
    }

    bool present = false;
    r.timeoutMs = limits.defaultTimeoutMs;
    if (auto err =
            readInteger(body, "executionTimeoutMs", "invalid_timeout", &r.timeoutMs, &present))
        return err;
    if (limits.maxTimeoutMs > 0 && (r.timeoutMs == 0 || r.timeoutMs > limits.maxTimeoutMs))
        return bad("invalid_timeout",
                   QStringLiteral("executionTimeoutMs may be at most %1").arg(limits.maxTimeoutMs));
    r.maxOutputBytes = limits.defaultMaxOutputBytes;
    if (auto err = readInteger(body, "maxOutputBytes", "invalid_output_limit", &r.maxOutputBytes,
                               &present))
        return err;
    if (limits.maxOutputBytesCeiling > 0 &&
        (r.maxOutputBytes == 0 || r.maxOutputBytes > limits.maxOutputBytesCeiling))
        return bad(
            "invalid_output_limit",
            QStringLiteral("maxOutputBytes may be at most %1").arg(limits.maxOutputBytesCeiling));
    // The resource bounds (docs/bounds.md): only these keys go to tighten(), whose timeout and
    // output fields are answered above with their own codes.
    QJsonObject boundsFields;
    for (const char* key :
         {"maxWorkspaceBytes", "maxMemoryBytes", "maxProcesses", "maxCpuMillicores"})
        if (body.contains(QLatin1String(key)) && !body.value(QLatin1String(key)).isNull())
            boundsFields.insert(QLatin1String(key), body.value(QLatin1String(key)));
    store::ExecutionLimits bounds;
    if (auto err = store::tighten(limits.quotas, boundsFields, &bounds))
        return *err;
    r.bounds = bounds;

    for (auto it = limits.featureChecks.cbegin(); it != limits.featureChecks.cend(); ++it)
        if (it.value() && body.contains(it.key()))
            if (auto err = it.value()(body.value(it.key())))
                return err;

    *out = std::move(r);
    return std::nullopt;
}

} // namespace runbox::execution
