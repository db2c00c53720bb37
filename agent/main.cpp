// runbox-agent: the headless daemon. Start-up contract (docs/contracts.md "Processes and
// start-up"): creates <state>/agent.token on first start, writes <state>/agent.url once ready, logs
// one summary line; on SIGTERM stops listening, ends the running sync executions and exits.
#include "agent/AgentRuntime.h"

#include <QCoreApplication>

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("runbox-agent"));
    QCoreApplication::setApplicationVersion(QStringLiteral(RUNBOX_VERSION));
    runbox::AgentRuntime runtime;
    const int startCode = runtime.start(app.arguments().mid(1));
    if (startCode >= 0)
        return startCode;
    return app.exec();
}
