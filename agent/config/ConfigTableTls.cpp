#include "agent/config/ConfigTableRows.h"

namespace runbox::config {

QList<OptionSpec> tlsOptionRows() {
    using G = OptionGroup;
    using T = OptionType;
    return {
        {.key = Key::ListenTls,
         .name = "listenTls",
         .type = T::HostPort,
         .group = G::General,
         .defaultNote = "none: no TLS listener",
         .envVar = "RUNBOX_LISTEN_TLS",
         .flag = "--listen-tls",
         .metaVar = "HOST:PORT",
         .fileKey = "listenTls",
         .help = "Listen address of the TLS listener (TLS 1.2 or 1.3, no renegotiation; the "
                 "same routes and signed requests as --listen); port 0 picks a free port "
                 "(written to agent.tls-url). Clients pin its certificate's SHA-256 fingerprint "
                 "(runbox-agent --print-fingerprint; docs/contracts.md \"TLS and pinning\")."},
        {.key = Key::TlsCert,
         .name = "tlsCert",
         .type = T::Path,
         .group = G::General,
         .defaultNote = "<state-dir>/tls-cert.pem, generated on the first start with a TLS "
                        "listener (ECDSA P-256, self-signed, 10 years) and kept",
         .envVar = "RUNBOX_TLS_CERT",
         .flag = "--tls-cert",
         .metaVar = "FILE",
         .fileKey = "tlsCert",
         .flags = kMakeAbsolute,
         .help = "The TLS listener's certificate (PEM; intermediates may follow the leaf), "
                 "given by the operator together with tlsKey."},
        {.key = Key::TlsKey,
         .name = "tlsKey",
         .type = T::Path,
         .group = G::General,
         .defaultNote = "<state-dir>/tls-key.pem (mode 0600), generated with the certificate",
         .envVar = "RUNBOX_TLS_KEY",
         .flag = "--tls-key",
         .metaVar = "FILE",
         .fileKey = "tlsKey",
         .flags = kMakeAbsolute,
         .help = "The private key of tlsCert (unencrypted PEM, EC or RSA)."},
        {.key = Key::AllowPlaintextRemote,
         .name = "allowPlaintextRemote",
         .type = T::Boolean,
         .group = G::General,
         .defaultValue = "false",
         .envVar = "RUNBOX_ALLOW_PLAINTEXT_REMOTE",
         .flag = "--allow-plaintext-remote",
         .metaVar = "[BOOL]",
         .fileKey = "allowPlaintextRemote",
         .help = "Lets --listen use an address that is not loopback (127.0.0.0/8, ::1). Off, "
                 "the agent refuses to start so: signed requests protect integrity, not the "
                 "confidentiality of outputs and files. The flag alone means true."},
        {.key = Key::ListenUnix,
         .name = "listenUnix",
         .type = T::Path,
         .group = G::General,
         .defaultNote = "none: no unix-socket listener",
         .envVar = "RUNBOX_LISTEN_UNIX",
         .flag = "--listen-unix",
         .metaVar = "PATH",
         .fileKey = "listenUnix",
         .flags = kMakeAbsolute,
         .help = "A unix stream socket the agent also listens on (for SSH tunnels: ssh -L "
                 "PORT:PATH), with the same routes, signed requests and connection bounds as "
                 "--listen; mode 0660, group listenUnixGroup. A stale socket there is replaced; "
                 "a live one (another agent), or anything that is not a socket, stops the start "
                 "(docs/contracts.md \"Unix socket\")."},
        {.key = Key::ListenUnixGroup,
         .name = "listenUnixGroup",
         .type = T::String,
         .group = G::General,
         .defaultNote = "runbox when that group exists, else the agent's own group",
         .envVar = "RUNBOX_LISTEN_UNIX_GROUP",
         .flag = "--listen-unix-group",
         .metaVar = "GROUP",
         .fileKey = "listenUnixGroup",
         .help = "The group that may connect to listenUnix (its members hold a token still: "
                 "every request is signed). An unknown group stops the start."},
    };
}

} // namespace runbox::config
