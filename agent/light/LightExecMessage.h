#pragma once

#include "agent/Error.h"
#include "agent/light/LightTypes.h"

#include <QByteArray>
#include <QMap>
#include <QString>

#include <cstdint>
#include <optional>

namespace runbox::light {

/// Checks and encodes what a light exec carries: env maps, argv, cwd, ports, and the wire Exec
/// message the supervisor reads. All errors are InvalidArgument (400; PermissionDenied 403 for a
/// forbidden port, TooLarge 413 for size) with a snake_case code.
class LightExecMessage final {
public:
    static constexpr int kMaxEnvBytes = 64 * 1024; ///< per env map (names + values)

    /// Names non-empty, without '=' or NUL; values without NUL; total ≤ kMaxEnvBytes.
    static std::optional<Error> validateEnv(const QMap<QString, QString>& env);
    /// 1..65535, not one of @p forbidden (PermissionDenied, 403 policy_forbidden), at most
    /// wire::kMaxPorts.
    static std::optional<Error> validatePorts(const QList<quint16>& ports,
                                              const QList<quint16>& forbidden);
    /// A relative path inside the home: no NUL, not absolute, no ".." segment. "" is the home.
    static std::optional<Error> validateCwd(const QString& cwd);

    /// The environment of an exec: USER, LOGNAME, HOME, PATH (~/.local/bin first), TMPDIR
    /// (~/.tmp), RUNBOX_WORKSPACE_ID; then @p workspaceEnv; then @p requestEnv on top.
    static QMap<QString, QString> buildEnv(const QString& workspaceId, const QString& home,
                                           const QMap<QString, QString>& workspaceEnv,
                                           const QMap<QString, QString>& requestEnv);

    /// The Exec message for @p request (argv and cwd validated here, env/ports by the caller).
    static std::optional<Error> encode(std::uint64_t execId, const LightExecRequest& request,
                                       const QMap<QString, QString>& env, const QString& home,
                                       bool narrowPorts, QByteArray* out);
};

} // namespace runbox::light
