#include "support/DeepChain.h"

#include "shared/ApiClient.h"
#include "support/AgentProcess.h"

#include <QDebug>

namespace runbox::testsupport {

QString deepChainCode(int levels) {
    return QStringLiteral("import os\nos.mkdir('chain'); os.chdir('chain')\n"
                          "for _ in range(%1):\n    os.mkdir('d'); os.chdir('d')\n"
                          "print('made')\n")
        .arg(levels);
}

QString workspaceWithDeepChain(AgentProcess& agent, int levels, QByteArray* token) {
    const QString id = agent.createWorkspace(token);
    if (id.isEmpty())
        return {};
    const ExecOutcome made = agent.python(id, deepChainCode(levels), {}, 280000);
    if (made.status() != QLatin1String("completed") ||
        made.stdoutText().trimmed() != QLatin1String("made")) {
        qWarning() << "chain of" << levels << made.status() << made.stdoutText()
                   << made.stderrText() << made.exitEvent << agent.log().right(2000);
        agent.client()->call("DELETE", "/v1/workspaces/" + id.toUtf8(), {}, 280000);
        return {};
    }
    return id;
}

} // namespace runbox::testsupport
