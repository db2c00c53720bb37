#pragma once

#include <QByteArray>
#include <QString>

namespace runbox::testsupport {

class AgentProcess;

/// Python that makes a chain of @p levels directories named `d` under `chain` in one exec
/// (a tenant's deep tree, made from inside the sandbox), printing `made` at the end.
QString deepChainCode(int levels);

/// A new strong workspace of @p agent holding a chain of @p levels directories (deepChainCode,
/// one sync exec); its token in @p token when given. Empty (after a qWarning saying why) when
/// the workspace or the chain could not be made.
QString workspaceWithDeepChain(AgentProcess& agent, int levels, QByteArray* token = nullptr);

} // namespace runbox::testsupport
