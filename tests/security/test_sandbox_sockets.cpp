// Under network policy "none" the sandbox opens no socket at all, and host sockets (path and
// abstract unix sockets, D-Bus) are out of reach.
#include "shared/RequestSigner.h"
#include "support/AgentProcess.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTest>

#include <cerrno>
#include <cstring>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

using namespace runbox;
using namespace runbox::testsupport;

namespace {
/// A listening unix socket; @p abstract puts @p name in the abstract namespace (leading NUL).
int listenUnix(const QByteArray& name, bool abstract) {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    const int offset = abstract ? 1 : 0;
    std::memcpy(addr.sun_path + offset, name.constData(),
                std::min<size_t>(size_t(name.size()), sizeof addr.sun_path - 1 - offset));
    const socklen_t len = socklen_t(offsetof(sockaddr_un, sun_path) + offset + name.size());
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
        ::listen(fd, 4) != 0) {
        if (fd >= 0)
            ::close(fd);
        return -1;
    }
    return fd;
}

bool connectUnix(const QByteArray& name, bool abstract) {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    const int offset = abstract ? 1 : 0;
    std::memcpy(addr.sun_path + offset, name.constData(), size_t(name.size()));
    const socklen_t len = socklen_t(offsetof(sockaddr_un, sun_path) + offset + name.size());
    const bool ok = fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&addr), len) == 0;
    if (fd >= 0)
        ::close(fd);
    return ok;
}

/// Python that tries to connect to a unix socket and prints CONNECTED or the errno name.
QString connectScript(const QByteArray& address) {
    return QStringLiteral("import socket, errno\n"
                          "try:\n"
                          "    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
                          "    s.connect(%1)\n"
                          "    print('CONNECTED')\n"
                          "except OSError as e:\n"
                          "    print(errno.errorcode.get(e.errno, e.errno))\n")
        .arg(QString::fromLatin1(address));
}
} // namespace

class TestSandboxSocketIsolation final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(m_agent.start(), qPrintable(m_agent.errorString()));
        m_ws = m_agent.createWorkspace();
        QVERIFY2(!m_ws.isEmpty(), qPrintable(m_agent.errorString()));
        const QByteArray nonce = RequestSigner::newNonce().left(16);
        m_abstractName = "runbox-canary-" + nonce;
        m_abstractFd = listenUnix(m_abstractName, true);
        QVERIFY2(m_abstractFd >= 0, strerror(errno));
        const QString runDir = QFileInfo(QStringLiteral("/run")).isWritable()
                                   ? QStringLiteral("/run")
                                   : QDir::tempPath();
        m_pathSocket = QFile::encodeName(runDir) + "/runbox-canary-" + nonce + ".sock";
        m_pathFd = listenUnix(m_pathSocket, false);
        QVERIFY2(m_pathFd >= 0, strerror(errno));
    }
    void cleanupTestCase() {
        ::close(m_abstractFd);
        ::close(m_pathFd);
        ::unlink(m_pathSocket.constData());
        QVERIFY2(m_agent.stop(), qPrintable(m_agent.log()));
    }

    void testPositiveControlHostClientsReachTheCanaries() {
        QVERIFY(connectUnix(m_abstractName, true));
        QVERIFY(connectUnix(m_pathSocket, false));
        // Inside, the sandbox itself works and can use pipes (IPC that needs no socket).
        const ExecOutcome r = m_agent.python(
            m_ws, QStringLiteral("import os\nr, w = os.pipe()\nos.write(w, b'pipe ok')\n"
                                 "print(os.read(r, 7).decode())"));
        QCOMPARE(r.stdoutBytes, QByteArray("pipe ok\n"));
    }

    void testSocketCallsFailWithEperm() {
        const ExecOutcome r = m_agent.python(
            m_ws,
            QStringLiteral("import socket, errno\n"
                           "fams = [('inet', socket.AF_INET, socket.SOCK_STREAM),\n"
                           "        ('inet-dgram', socket.AF_INET, socket.SOCK_DGRAM),\n"
                           "        ('inet6', socket.AF_INET6, socket.SOCK_STREAM),\n"
                           "        ('unix', socket.AF_UNIX, socket.SOCK_STREAM),\n"
                           "        ('netlink', socket.AF_NETLINK, socket.SOCK_RAW)]\n"
                           "for name, fam, typ in fams:\n"
                           "    try:\n"
                           "        socket.socket(fam, typ)\n"
                           "        print(name, 'OPENED')\n"
                           "    except OSError as e:\n"
                           "        print(name, errno.errorcode.get(e.errno, e.errno))\n"
                           "try:\n"
                           "    socket.socketpair()\n"
                           "    print('socketpair OPENED')\n"
                           "except OSError as e:\n"
                           "    print('socketpair', errno.errorcode.get(e.errno, e.errno))\n"));
        QVERIFY2(r.status() == QLatin1String("completed"), qPrintable(r.describe()));
        QCOMPARE(r.stdoutBytes, QByteArray("inet EPERM\ninet-dgram EPERM\ninet6 EPERM\n"
                                           "unix EPERM\nnetlink EPERM\nsocketpair EPERM\n"));
    }

    void testAbstractSocketCanaryIsUnreachable() {
        const ExecOutcome r = m_agent.python(m_ws, connectScript("'\\0" + m_abstractName + "'"));
        QVERIFY2(r.status() == QLatin1String("completed"), qPrintable(r.describe()));
        QVERIFY2(!r.stdoutBytes.contains("CONNECTED"), r.stdoutBytes.constData());
        QCOMPARE(r.stdoutBytes, QByteArray("EPERM\n"));
    }

    void testHostSocketPathsAreUnreachable_data() {
        QTest::addColumn<QByteArray>("path");
        QTest::newRow("canary") << QByteArray();
        QTest::newRow("dbus system bus") << QByteArray("/run/dbus/system_bus_socket");
        QTest::newRow("dbus via /var/run") << QByteArray("/var/run/dbus/system_bus_socket");
        QTest::newRow("systemd notify") << QByteArray("/run/systemd/notify");
        QTest::newRow("docker") << QByteArray("/run/docker.sock");
    }
    void testHostSocketPathsAreUnreachable() {
        QFETCH(QByteArray, path);
        if (path.isEmpty())
            path = m_pathSocket;
        const ExecOutcome r = m_agent.python(
            m_ws, QStringLiteral("import os, glob\nprint(os.path.exists('%1'), "
                                 "glob.glob('/run/*.sock') + glob.glob('/var/run/*.sock'))\n")
                          .arg(QString::fromLatin1(path)) +
                      connectScript("'" + path + "'"));
        QVERIFY2(r.status() == QLatin1String("completed"), qPrintable(r.describe()));
        QVERIFY2(r.stdoutBytes.startsWith("False []\n"), r.stdoutBytes.constData());
        QVERIFY2(!r.stdoutBytes.contains("CONNECTED"), r.stdoutBytes.constData());
    }

private:
    AgentProcess m_agent;
    QString m_ws;
    QByteArray m_abstractName;
    QByteArray m_pathSocket;
    int m_abstractFd = -1;
    int m_pathFd = -1;
};

QTEST_GUILESS_MAIN(TestSandboxSocketIsolation)
#include "test_sandbox_sockets.moc"
