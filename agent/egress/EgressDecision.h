#pragma once

#include <QDateTime>
#include <QJsonObject>
#include <QMetaType>
#include <QString>

namespace runbox::egress {

/// One egress request as the gateway decided and carried it; reported once per proxied
/// connection when it closes, so the byte counts are final.
///
/// `allowed` is the policy decision. `reason` is a stable snake_case code:
/// - allowed: "allowed", or what ended it early: "upstream_unreachable",
///   "upstream_connect_timeout", "idle_timeout", "client_timeout";
/// - denied (403): "policy_none", "ip_literal", "not_in_allowlist", "dns_failed",
///   "no_addresses", "address_refused";
/// - bad request (400): "malformed_request", "malformed_target", "host_mismatch",
///   "request_too_large".
struct EgressDecision {
    QString executionId; ///< "" for a light workspace's connection (not tied to one execution)
    /// The light workspace whose private network the connection came from; "" for an execution's
    /// socket (the service records the execution's workspace with it).
    QString workspaceId;
    QString host; ///< canonical host name, or what the client sent when it was refused
    int port = 0; ///< 0 when the request never named one
    bool allowed = false;
    QString reason;
    QString message;      ///< human text (also the body of an error response)
    qint64 bytesUp = 0;   ///< bytes sent to the upstream server (tunnel payload or request)
    qint64 bytesDown = 0; ///< bytes received from the upstream server
    QDateTime at;         ///< when the decision was made (UTC)

    /// `{"executionId","host","port","allowed","reason","message","bytesUp","bytesDown","at"}`
    /// plus `"workspaceId"` when set; "at" in ISO 8601 with milliseconds, UTC.
    QJsonObject toJson() const;
};

} // namespace runbox::egress

Q_DECLARE_METATYPE(runbox::egress::EgressDecision)
