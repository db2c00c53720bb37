#pragma once

#include <QJsonObject>
#include <QString>

/// The version of the agent's HTTP API (docs/contracts.md "API conventions", "Protocol
/// versions"): the agent says it in `GET /health` and `GET /v1/health` as `protocol`, and the
/// console and the CLI refuse an agent whose protocol is not the one they were built for, with a
/// message naming both versions, before they send anything else.
namespace runbox::protocol {

/// The protocol this build speaks and serves. Raised on every change an older client would
/// misread (a renamed field or route, a changed meaning); additions keep it.
constexpr int kVersion = 1;

/// Empty when @p health (the JSON body of `GET /health` or `GET /v1/health`) names protocol
/// kVersion. Otherwise the refusal for a user, e.g. "the agent at URL speaks protocol 2
/// (runbox-agent 0.9.0); this runbox-console speaks protocol 1 (0.8.0): use a runbox-console
/// of the agent's release". A body without a numeric `protocol` is refused too (not a Runbox
/// agent of any release). @p agentUrl and @p clientName (e.g. "runbox", "runbox-console") only
/// go into the message.
QString mismatch(const QJsonObject& health, const QString& agentUrl, const QString& clientName);

} // namespace runbox::protocol
