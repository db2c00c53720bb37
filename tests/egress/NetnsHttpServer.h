#pragma once

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QProcess>
#include <QString>

namespace runbox::egress::testing {

/// A plain HTTP server that the test runs in a network namespace of its own (egress tests):
/// `ip netns add`, a veth pair with a /30 of 10.199.0.0/16 (host end .1, namespace end .2, the
/// pair chosen from the test's pid and checked to be unused), and a small Python server on a
/// port the test picks, inside the namespace that answers every request with `200 netns-hello` and
/// reports each connection and request line. Nothing outside the namespace and the veth pair that
/// the test created is touched; the destructor removes both.
class NetnsHttpServer final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(NetnsHttpServer)
public:
    static constexpr const char* kBody = "netns-hello\n";

    NetnsHttpServer();
    ~NetnsHttpServer() override;

    /// Builds the namespace and starts the server. False with @p whyNot when this host cannot
    /// (not root, no `ip`, no python3, namespaces refused): the caller skips what needs it.
    /// The server listens on @p port (any: the namespace is empty).
    bool start(quint16 port, QString* whyNot);
    quint16 port() const { return m_port; }
    bool isRunning() const { return m_running; }

    QString address() const { return m_serverAddress; } ///< the server, inside the namespace
    QString cidr() const { return m_cidr; }             ///< the /30 of the veth pair
    /// Connections the server accepted so far (reads its pending output first).
    int connections();
    /// Request lines the server received so far ("GET /hello HTTP/1.1").
    QList<QByteArray> requestLines();

private:
    bool run(const QStringList& args, QString* error);
    void readOutput();
    void teardown();

    QString m_namespace, m_hostVeth, m_nsVeth, m_hostAddress, m_serverAddress, m_cidr;
    QProcess m_server;
    quint16 m_port = 0;
    QByteArray m_pending;
    int m_connections = 0;
    QList<QByteArray> m_requests;
    bool m_namespaceCreated = false;
    bool m_vethCreated = false;
    bool m_running = false;
};

} // namespace runbox::egress::testing
