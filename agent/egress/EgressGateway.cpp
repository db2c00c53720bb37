#include "agent/egress/EgressGateway.h"

#include "agent/egress/EgressConnection.h"
#include "agent/egress/EgressRelay.h"
#include "agent/egress/Resolver.h"

#include <QFile>
#include <QLocalServer>

#include <functional>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

namespace runbox::egress {

namespace {

// QLocalServer hands raw descriptors to the gateway: FdStream needs them for half-close,
// which QLocalSocket cannot do.
class DescriptorServer final : public QLocalServer {
public:
    std::function<void(int)> onDescriptor;

protected:
    void incomingConnection(quintptr socketDescriptor) override {
        const int fd = int(socketDescriptor);
        if (onDescriptor)
            onDescriptor(fd);
        else
            ::close(fd);
    }
};

} // namespace

struct EgressGateway::Listener {
    DescriptorServer server;
    QString path;
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
    listener->server.onDescriptor = [this, executionId](int fd) { accept(executionId, fd); };
    m_listeners.insert(executionId, listener);
    return true;
}

void EgressGateway::accept(const QString& executionId, int fd) {
    auto* connection =
        new EgressConnection(fd, executionId, m_policy, *m_resolver, m_options, m_relay, this);
    m_connections.append(connection);
    connect(connection, &EgressConnection::finished, this,
            [this, connection](const EgressDecision& decision) {
                m_connections.removeAll(connection);
                Q_EMIT decisionMade(decision);
            });
}

void EgressGateway::closeListener(const QString& executionId) {
    const std::shared_ptr<Listener> listener = m_listeners.take(executionId);
    if (listener) {
        listener->server.onDescriptor = nullptr;
        listener->server.close(); // QLocalServer::close removes the socket file
        ::unlink(QFile::encodeName(listener->path).constData());
    }
    const QList<QPointer<EgressConnection>> connections = m_connections;
    for (const QPointer<EgressConnection>& connection : connections) {
        if (connection && connection->executionId() == executionId)
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
