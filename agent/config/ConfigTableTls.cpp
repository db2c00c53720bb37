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
    };
}

} // namespace runbox::config
