#pragma once

#include <QByteArray>
#include <QJsonDocument>
#include <QStringList>

namespace runbox::testsupport {

/// What one run of the `runbox` CLI gave: its exit status (-1 when it crashed or ran past the
/// deadline and was killed), stdout and stderr.
struct CliResult {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
    QJsonDocument json() const { return QJsonDocument::fromJson(out); }
};

/// Runs the built CLI (AgentProcess::cliPath()) with @p args, waiting @p timeoutMs at most
/// (then killed: exitCode -1, no output kept).
CliResult runCli(const QStringList& args, int timeoutMs = 60000);

} // namespace runbox::testsupport
