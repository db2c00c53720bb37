#pragma once

#include <QByteArray>
#include <QString>

namespace runbox {

/// Reading a file that holds a secret or a token (the pool's secret, the agent's token files,
/// the CLI's --token-file): one home for the rules of docs/contracts.md "Processes and
/// start-up" and "Pool credential". The path is opened once (open(2) O_RDONLY | O_CLOEXEC |
/// O_NONBLOCK | O_NOCTTY, symlinks followed) and everything is checked and read on that one
/// descriptor (fstat(2)), so nothing can be swapped in between:
/// - a regular file: a FIFO, a socket or a device is refused at once (O_NONBLOCK: opening a
///   FIFO no one writes does not hang);
/// - owned by the process's effective uid (whoever owns it may read it, or put a secret of
///   their choosing in it);
/// - mode & 077 == 0: neither group nor others may read or write it ("chmod 600 it");
/// - at most kMaxBytes bytes.
class PrivateFile final {
public:
    static constexpr qsizetype kMaxBytes = 4096; ///< a secret or a token is far shorter

    /// Reads the private file @p path into @p contents (whole, at most @p maxBytes). Returns
    /// false with @p error set to a reason naming the path and what to change: it cannot be
    /// opened (strerror, e.g. "No such file or directory"), is not a regular file, is "owned by
    /// uid N, not by this user (uid M)", "may be read or written by group or others (mode
    /// 0644); chmod 600 it", or is larger than @p maxBytes.
    static bool read(const QString& path, QByteArray* contents, QString* error,
                     qsizetype maxBytes = kMaxBytes);

    /// Who may own the file besides the process's effective uid.
    enum class Owner {
        ThisUser,      ///< the effective uid only (a secret the process acts on: its own token)
        ThisUserOrAny, ///< and, for root, any user (a client's token file: root reading an
                       ///< unprivileged agent's token is an operator's everyday case)
    };
    /// read() with @p owner's rule for the file's owner.
    static bool read(const QString& path, QByteArray* contents, QString* error, Owner owner,
                     qsizetype maxBytes = kMaxBytes);
};

} // namespace runbox
