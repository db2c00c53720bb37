#pragma once

#include "agent/workspace/WorkspaceFd.h"

#include <QByteArray>
#include <QString>

#include <sys/types.h>

namespace runbox::http {

/// A listening unix stream socket at a path, for HttpServer::setSocketDescriptor (QTcpServer
/// accepts on any stream socket; each accepted descriptor becomes a QTcpSocket as a TCP one
/// does). docs/contracts.md "Unix socket":
/// - the socket file is mode 0660 with group @p group (connect(2) needs write permission on it,
///   unix(7)), made so before it appears at the path: bound under a temporary name in the same
///   directory, chmod/chown, listen, then rename(2) onto the path, so no one ever connects to
///   it with looser permissions;
/// - a stale socket left at the path (no one accepts: connect gives ECONNREFUSED) is replaced;
///   a live one (another agent), or anything that is not a socket, is an error;
/// - the directory and every one on the way to it must be the agent's or root's to change
///   (SocketDirectory); the socket is bound, given its mode and renamed through that
///   directory's descriptor, never by the path again;
/// - the file is removed when this object goes, if it is still the one it made (same device
///   and inode).
class UnixListenSocket final {
public:
    UnixListenSocket() = default;
    UnixListenSocket(const UnixListenSocket&) = delete;
    UnixListenSocket& operator=(const UnixListenSocket&) = delete;
    ~UnixListenSocket() { remove(); }

    /// Opens the socket at the absolute @p path for @p group ("" = `runbox` when that group
    /// exists, else the process's group) with a listen backlog of @p backlog. Returns the
    /// reason on failure (path too long, not a socket there, a live socket there, unknown
    /// group, bind/chown/listen/rename errors with strerror), empty on success.
    QString open(const QString& path, const QString& group, int backlog);
    /// The listening descriptor (owned by the caller from now on: QTcpServer closes it).
    int takeDescriptor();
    /// Unlinks the socket file if it is still the one open() made; idempotent.
    void remove();

    QString path() const { return m_path; }
    gid_t gid() const { return m_gid; }

private:
    int m_fd = -1;
    QString m_path;
    workspace::UniqueFd m_directory; ///< O_PATH, the socket's directory
    QByteArray m_name;               ///< the socket's name in it
    gid_t m_gid = 0;
    dev_t m_dev = 0;
    ino_t m_ino = 0;
};

} // namespace runbox::http
