#pragma once

#include <QHostAddress>
#include <QString>
#include <QStringList>

namespace runbox::config {

/// Everything the agent is started with. Sources, later ones winning: defaults, the config file
/// (`<stateDir>/agent.conf`, INI), `RUNBOX_*` environment variables, the command line.
struct AgentConfig {
    QString stateDir; ///< --state-dir; default $STATE_DIRECTORY or ~/.local/state/runbox
    QHostAddress listenAddress = QHostAddress::LocalHost; ///< --listen HOST:PORT (127.0.0.1:4311)
    quint16 listenPort = 4311;                   ///< 0 picks a free port (written to agent.url)
    QString bwrapPath = QStringLiteral("bwrap"); ///< --bwrap / RUNBOX_BWRAP
    qint64 signatureWindowMs =
        30000;                     ///< ±window for X-Runbox-Timestamp (RUNBOX_SIGNATURE_WINDOW_MS)
    qint64 setupTimeoutMs = 10000; ///< a sandbox whose set-up takes longer is setup_failed
    qint64 defaultExecutionTimeoutMs =
        600000; ///< when the request gives none (RUNBOX_EXECUTION_TIMEOUT_MS)
    qint64 maxOutputBytes = 1LL << 30;       ///< default per-execution output limit
    qint64 maxRequestBodyBytes = 16LL << 20; ///< JSON request bodies (uploads are streamed)
    qint64 headerTimeoutMs = 10000;          ///< a client must send its request head within this
    qint64 idleTimeoutMs = 120000;           ///< keep-alive connections idle longer are closed
    QString logLevel = QStringLiteral("info");

    /// Parses @p args (argv without the program name) over defaults and environment. On a bad
    /// option returns false and sets @p error to a one-line message naming it.
    bool parse(const QStringList& args, QString* error);
    /// The usage text for --help.
    static QString usage();
};

} // namespace runbox::config
