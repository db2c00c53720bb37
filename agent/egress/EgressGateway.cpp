#include "agent/egress/EgressGateway.h"

#include "agent/egress/EgressConnection.h"
#include "agent/egress/EgressRelay.h"
#include "agent/egress/Resolver.h"

#include <QFile>
#include <QLocalServer>
#include <QTcpServer>

#include <functional>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

namespace runbox::egress {

namespace {

// The servers hand raw descriptors to the gateway: FdStream needs them for half-close, which
// Qt's sockets cannot do. QLocalServer for an execution's unix socket, QTcpServer for a listener
// adopted from a light workspace's network namespace.
template <typename Server, typename Descriptor> class DescriptorServer final : public Server {
public:
    std::function<void(int)> onDescriptor;

protected:
    void incomingConnection(Descriptor socketDescriptor) override {
        const int fd = int(socketDescriptor);
        if (onDescriptor)
            onDescriptor(fd);
        else
            ::close(fd);
    }
};

using UnixDescriptorServer = DescriptorServer<QLocalServer, quintptr>;
using TcpDescriptorServer = DescriptorServer<QTcpServer, qintptr>;

bool isListeningTcpSocket(int fd) {
    int type = 0, listening = 0, protocol = 0;
    socklen_t length = sizeof type;
    if (::getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) != 0 || type != SOCK_STREAM)
        return false;
    length = sizeof listening;
    if (::getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) != 0 || !listening)
        return false;
    length = sizeof protocol;
    return ::getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &protocol, &length) == 0 &&
           protocol == IPPROTO_TCP;
}

} // namespace

struct EgressGateway::Listener {
    UnixDescriptorServer server;
    QString path;
};

struct EgressGateway::WorkspaceListener {
    TcpDescriptorServer server;
};

EgressGateway::EgressGateway(const NetworkPolicy& policy, std::shared_ptr<Resolver> resolver,
                             const EgressGatewayOptions& options, QObject* parent)
    : QObject(parent), m_policy(policy), m_resolver(std::move(resolver)), m_options(options),
      m_relay(std::make_shared<EgressRelay>()) {
    qRegisterMetaType<EgressDecision>();
}

EgressGateway::~EgressGateway() {
    const QStringList ids = m_listeners.keys();
    for (const QString& id : ids)
        closeListener(id);
    const QStringList workspaces = m_workspaceListeners.keys();
    for (const QString& id : workspaces)
        closeWorkspaceListener(id);
}

bool EgressGateway::listen(const QString& socketPath, const QString& executionId, QString* error) {
    const auto setError = [error](const QString& message) {
        if (error)
            *error = message;
        return false;
    };
    if (m_listeners.contains(executionId))
        return setError(
            QStringLiteral("execution %1 already has an egress socket").arg(executionId));
    const QByteArray native = QFile::encodeName(socketPath);
    if (native.size() >= qsizetype(sizeof(sockaddr_un::sun_path)))
        return setError(QStringLiteral("egress socket path %1 is %2 bytes; unix sockets allow "
                                       "%3: shorten the state directory")
                            .arg(socketPath)
                            .arg(native.size())
                            .arg(sizeof(sockaddr_un::sun_path) - 1));
    struct stat st {};
    if (::lstat(native.constData(), &st) == 0) {
        if (!S_ISSOCK(st.st_mode))
            return setError(QStringLiteral("%1 exists and is not a socket").arg(socketPath));
        ::unlink(native.constData());
    }
    auto listener = std::make_shared<Listener>();
    listener->path = socketPath;
    listener->server.setMaxPendingConnections(128);
    listener->server.setListenBacklogSize(128);
    if (!listener->server.listen(socketPath))
        return setError(QStringLiteral("cannot listen on %1: %2")
                            .arg(socketPath, listener->server.errorString()));
    if (::chmod(native.constData(), 0600) != 0) {
        listener->server.close();
        ::unlink(native.constData());
        return setError(QStringLiteral("cannot chmod 0600 %1").arg(socketPath));
    }
    listener->server.onDescriptor = [this, executionId](int fd) {
        accept(executionId, QString(), fd);
    };
    m_listeners.insert(executionId, listener);
    return true;
}

bool EgressGateway::adoptWorkspaceListener(int listenerFd, const QString& workspaceId,
                                           QString* error) {
    if (!isListeningTcpSocket(listenerFd)) {
        ::close(listenerFd);
        if (error)
            *error = QStringLiteral("the workspace's gateway descriptor is not a listening TCP "
                                    "socket");
        return false;
    }
    closeWorkspaceListener(workspaceId);
    auto listener = std::make_shared<WorkspaceListener>();
    listener->server.setMaxPendingConnections(128);
    if (!listener->server.setSocketDescriptor(listenerFd)) {
        ::close(listenerFd);
        if (error)
            *error = QStringLiteral("cannot adopt the workspace's gateway socket: %1")
                         .arg(listener->server.errorString());
        return false;
    }
    listener->server.onDescriptor = [this, workspaceId](int fd) {
        accept(QString(), workspaceId, fd);
    };
    m_workspaceListeners.insert(workspaceId, listener);
    return true;
}

void EgressGateway::closeWorkspaceListener(const QString& workspaceId) {
    if (const std::shared_ptr<WorkspaceListener> listener =
            m_workspaceListeners.take(workspaceId)) {
        listener->server.onDescriptor = nullptr;
        listener->server.close(); // closes the descriptor: the namespace can go
    }
    abortConnections(QString(), workspaceId);
}

void EgressGateway::accept(const QString& executionId, const QString& workspaceId, int fd) {
    const QString key = workspaceId.isEmpty() ? QStringLiteral("e:") + executionId
                                              : QStringLiteral("w:") + workspaceId;
    int& open = m_openConnections[key];
    if (open >= m_options.maxConnectionsPerSandbox) {
        ::close(fd);
        return;
    }
    ++open;
    // A TCP client cannot pass descriptors, so the hand-over check the connection makes on its
    // first read only ever sees plain bytes there.
    auto* connection =
        new EgressConnection(fd, executionId, m_policy, *m_resolver, m_options, m_relay, this);
    m_connections.append(connection);
    if (!workspaceId.isEmpty())
        m_workspaceOfConnection.insert(connection, workspaceId);
    // On destruction, not on finished(): a connection that never sent a byte reports nothing.
    connect(connection, &QObject::destroyed, this, [this, key, connection] {
        m_workspaceOfConnection.remove(connection);
        if (--m_openConnections[key] <= 0)
            m_openConnections.remove(key);
    });
    connect(connection, &EgressConnection::finished, this,
            [this, connection, workspaceId](const EgressDecision& decision) {
                m_connections.removeAll(connection);
                EgressDecision attributed = decision;
                if (!workspaceId.isEmpty())
                    attributed.workspaceId = workspaceId;
                Q_EMIT decisionMade(attributed);
            });
}

void EgressGateway::closeListener(const QString& executionId) {
    const std::shared_ptr<Listener> listener = m_listeners.take(executionId);
    if (listener) {
        listener->server.onDescriptor = nullptr;
        listener->server.close(); // QLocalServer::close removes the socket file
        ::unlink(QFile::encodeName(listener->path).constData());
    }
    abortConnections(executionId, QString());
}

void EgressGateway::abortConnections(const QString& executionId, const QString& workspaceId) {
    const QList<QPointer<EgressConnection>> connections = m_connections;
    for (const QPointer<EgressConnection>& connection : connections) {
        if (!connection)
            continue;
        const bool match = workspaceId.isEmpty()
                               ? connection->executionId() == executionId &&
                                     !m_workspaceOfConnection.contains(connection.data())
                               : m_workspaceOfConnection.value(connection.data()) == workspaceId;
        if (match)
            connection->abort();
    }
}

QString EgressGateway::socketPath(const QString& executionId) const {
    const std::shared_ptr<Listener> listener = m_listeners.value(executionId);
    return listener ? listener->path : QString();
}

int EgressGateway::activeConnectionCount() const {
    int count = 0;
    for (const QPointer<EgressConnection>& connection : m_connections)
        count += connection ? 1 : 0;
    return count;
}

} // namespace runbox::egress
