#include "support/CliRun.h"

#include "support/AgentProcess.h"

#include <QProcess>

namespace runbox::testsupport {

CliResult runCli(const QStringList& args, int timeoutMs) {
    QProcess p;
    p.start(AgentProcess::cliPath(), args);
    CliResult r;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

} // namespace runbox::testsupport
