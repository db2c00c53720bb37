#include "agent/tls/PlaintextListen.h"

namespace runbox::tls {

bool isLoopback(const QHostAddress& address) {
    bool isV4 = false;
    const quint32 v4 = address.toIPv4Address(&isV4); // also the IPv4-mapped IPv6 form
    if (isV4)
        return (v4 >> 24) == 127;
    return address.isLoopback();
}

std::optional<Error> plaintextListenRefusal(const QHostAddress& address,
                                            bool allowPlaintextRemote) {
    if (allowPlaintextRemote || isLoopback(address))
        return std::nullopt;
    return Error{ErrorKind::PermissionDenied, QStringLiteral("plaintext_remote_refused"),
                 QStringLiteral("refusing plain HTTP on %1, which is not a loopback address: "
                                "signed requests protect their integrity, not the "
                                "confidentiality of what travels (outputs, logs, files, the "
                                "tokens of new workspaces would cross the network readable). "
                                "Listen with TLS instead (--listen-tls HOST:PORT, clients pin "
                                "its fingerprint), keep --listen on 127.0.0.1 and reach it "
                                "through an SSH tunnel, or, on a network you trust, give "
                                "--allow-plaintext-remote")
                     .arg(address.toString())};
}

} // namespace runbox::tls
