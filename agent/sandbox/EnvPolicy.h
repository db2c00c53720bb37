#pragma once

#include "agent/Error.h"

#include <QJsonValue>
#include <QMap>
#include <QString>

#include <optional>

namespace runbox::sandbox {

/// Which environment variables a request may set inside a sandbox.
///
/// Names must match `^[A-Za-z_][A-Za-z0-9_]*$` (POSIX.1-2017 §8.1 portable names). Refused:
/// names the agent sets itself (HOME, PYTHONNOUSERSITE, the proxy variables, RUNBOX_*) and names
/// that change how programs load or start (LD_*, BASH_ENV, ENV, BASH_FUNC_*, PYTHONHOME,
/// PYTHONSTARTUP, …: see ld.so(8), bash(1) INVOCATION, python(1) ENVIRONMENT). Values must not
/// contain NUL; at most 128 KiB per value and 1 MiB in all.
class EnvPolicy final {
public:
    /// Parses the request's `env` JSON object into a map, or returns an InvalidArgument
    /// `invalid_env` error naming the first offending variable.
    static std::optional<Error> parse(const QJsonValue& env, QMap<QString, QString>* out);
    /// Why @p name may not be set, or an empty string when it may.
    static QString refusalReason(const QString& name);
};

} // namespace runbox::sandbox
