#include "agent/light/LightExecMessage.h"

#include "agent/light/helper/SupervisorProtocol.h"

namespace runbox::light {

namespace {

Error badRequest(const QString& code, const QString& message) {
    return Error{ErrorKind::InvalidArgument, code, message};
}

} // namespace

std::optional<Error> LightExecMessage::validateEnv(const QMap<QString, QString>& env) {
    qsizetype total = 0;
    for (auto it = env.cbegin(); it != env.cend(); ++it) {
        const QString& name = it.key();
        if (name.isEmpty() || name.contains(QLatin1Char('=')) || name.contains(QChar(0)))
            return badRequest(QStringLiteral("invalid_env"),
                              QStringLiteral("environment names must be non-empty, without '=' "
                                             "or NUL"));
        if (it.value().contains(QChar(0)))
            return badRequest(QStringLiteral("invalid_env"),
                              QStringLiteral("environment value of %1 contains NUL").arg(name));
        total += name.toUtf8().size() + it.value().toUtf8().size() + 2;
        if (total > kMaxEnvBytes)
            return badRequest(QStringLiteral("invalid_env"),
                              QStringLiteral("environment larger than %1 bytes").arg(kMaxEnvBytes));
    }
    return std::nullopt;
}

std::optional<Error> LightExecMessage::validatePorts(const QList<quint16>& ports,
                                                     const QList<quint16>& forbidden) {
    if (ports.size() > static_cast<qsizetype>(wire::kMaxPorts))
        return badRequest(QStringLiteral("invalid_network_policy"),
                          QStringLiteral("at most %1 allowed ports").arg(wire::kMaxPorts));
    for (quint16 port : ports) {
        if (port == 0)
            return badRequest(QStringLiteral("invalid_network_policy"),
                              QStringLiteral("port 0 is not a port"));
        if (forbidden.contains(port))
            return Error{ErrorKind::PermissionDenied, QStringLiteral("policy_forbidden"),
                         QStringLiteral("port %1 is the agent's control plane and is never "
                                        "reachable from a workspace")
                             .arg(port)};
    }
    return std::nullopt;
}

std::optional<Error> LightExecMessage::validateCwd(const QString& cwd) {
    if (cwd.contains(QChar(0)) || cwd.startsWith(QLatin1Char('/')))
        return badRequest(QStringLiteral("invalid_cwd"),
                          QStringLiteral("cwd must be relative to the workspace home"));
    for (const QString& segment : cwd.split(QLatin1Char('/'))) {
        if (segment == QLatin1String(".."))
            return badRequest(QStringLiteral("invalid_cwd"),
                              QStringLiteral("cwd must not contain '..'"));
    }
    return std::nullopt;
}

QMap<QString, QString> LightExecMessage::buildEnv(const QString& workspaceId, const QString& home,
                                                  const QMap<QString, QString>& workspaceEnv,
                                                  const QMap<QString, QString>& requestEnv) {
    const QString user = QStringLiteral("runbox-") + workspaceId;
    QMap<QString, QString> env{
        {QStringLiteral("USER"), user},
        {QStringLiteral("LOGNAME"), user},
        {QStringLiteral("HOME"), home},
        {QStringLiteral("PATH"),
         home + QStringLiteral("/.local/bin:/usr/local/sbin:"
                               "/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")},
        {QStringLiteral("TMPDIR"), home + QStringLiteral("/.tmp")},
        {QStringLiteral("RUNBOX_WORKSPACE_ID"), workspaceId},
    };
    for (auto it = workspaceEnv.cbegin(); it != workspaceEnv.cend(); ++it)
        env.insert(it.key(), it.value());
    for (auto it = requestEnv.cbegin(); it != requestEnv.cend(); ++it)
        env.insert(it.key(), it.value());
    return env;
}

std::optional<Error> LightExecMessage::encode(std::uint64_t execId, const LightExecRequest& request,
                                              const QMap<QString, QString>& env,
                                              const QString& home, bool narrowPorts,
                                              QByteArray* out) {
    if (request.argv.isEmpty() || request.argv.first().isEmpty())
        return badRequest(QStringLiteral("invalid_argv"), QStringLiteral("argv must not be empty"));
    if (auto error = validateCwd(request.cwd))
        return error;
    QByteArray strings;
    for (const QString& arg : request.argv) {
        if (arg.contains(QChar(0)))
            return badRequest(QStringLiteral("invalid_argv"),
                              QStringLiteral("argv entries must not contain NUL"));
        strings += arg.toUtf8();
        strings += '\0';
    }
    for (auto it = env.cbegin(); it != env.cend(); ++it) {
        strings += it.key().toUtf8();
        strings += '=';
        strings += it.value().toUtf8();
        strings += '\0';
    }
    strings += (request.cwd.isEmpty() ? home : home + QLatin1Char('/') + request.cwd).toUtf8();
    strings += '\0';

    auto header = wire::make<wire::ExecRequest>(wire::Type::Exec, execId);
    const qsizetype total = static_cast<qsizetype>(sizeof(header)) + strings.size();
    if (total > static_cast<qsizetype>(wire::kMaxExecMessage))
        return Error{ErrorKind::TooLarge, QStringLiteral("request_too_large"),
                     QStringLiteral("argv + env + cwd exceed %1 bytes").arg(wire::kMaxExecMessage)};
    header.header.size = static_cast<std::uint32_t>(total);
    header.flags = request.killTreeOnExit ? wire::kExecKillTreeOnExit : 0;
    header.argc = static_cast<std::uint32_t>(request.argv.size());
    header.envc = static_cast<std::uint32_t>(env.size());
    if (narrowPorts && request.allowedConnectPorts) {
        header.flags |= wire::kExecNarrowPorts;
        header.portCount = static_cast<std::uint32_t>(request.allowedConnectPorts->size());
        for (qsizetype i = 0; i < request.allowedConnectPorts->size(); ++i)
            header.ports[i] = request.allowedConnectPorts->at(i);
    }
    header.stringsSize = static_cast<std::uint32_t>(strings.size());
    header.maxProcs = static_cast<std::uint64_t>(qMax<qint64>(0, request.maxProcesses));
    out->clear();
    out->reserve(total);
    out->append(reinterpret_cast<const char*>(&header), sizeof(header));
    out->append(strings);
    return std::nullopt;
}

} // namespace runbox::light
