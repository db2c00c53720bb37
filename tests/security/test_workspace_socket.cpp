// WorkspaceSocket (the port proxy's way into a light workspace): a socket is reached only when it
// is the workspace's own — a real socket, owned by its uid, through real directories, served by
// a process of its uid. Needs root (it plays the workspace uid in a child).
#include "agent/http/ErrorStatus.h"
#include "agent/proxy/WorkspaceSocket.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <fcntl.h>
#include <grp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

using runbox::Error;
using runbox::proxy::WorkspaceSocket;

namespace {

constexpr uid_t kUid = 43999; // outside the test agents' ranges; never a real account here

/// Listens on @p path (a fresh unix socket) as @p uid in a child process; returns its pid once
/// the socket is listening (or −1).
pid_t listenAs(uid_t uid, const QByteArray& path) {
    int ready[2];
    if (::pipe(ready) != 0)
        return -1;
    const pid_t child = ::fork();
    if (child == 0) {
        ::close(ready[0]);
        if (::setgroups(0, nullptr) != 0 || ::setresgid(uid, uid, uid) != 0 ||
            ::setresuid(uid, uid, uid) != 0)
            ::_exit(1);
        const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::strncpy(address.sun_path, path.constData(), sizeof(address.sun_path) - 1);
        if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
            ::listen(fd, 8) != 0)
            ::_exit(2);
        const char byte = 1;
        [[maybe_unused]] const ssize_t n = ::write(ready[1], &byte, 1);
        ::pause();
        ::_exit(0);
    }
    ::close(ready[1]);
    char byte = 0;
    const bool ok = ::read(ready[0], &byte, 1) == 1;
    ::close(ready[0]);
    if (!ok) {
        ::waitpid(child, nullptr, 0);
        return -1;
    }
    return child;
}

void stop(pid_t child) {
    if (child > 0) {
        ::kill(child, SIGKILL);
        ::waitpid(child, nullptr, 0);
    }
}

} // namespace

class TestWorkspaceSocket final : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_home, m_other;
    int m_homeFd = -1;

    int connectPort(int port, Error* error) {
        return WorkspaceSocket::connect(m_homeFd, kUid, port, error);
    }

private Q_SLOTS:
    void initTestCase() {
        if (::geteuid() != 0)
            QSKIP("needs root to play the workspace uid");
        QVERIFY(m_dir.isValid());
        ::chmod(QFile::encodeName(m_dir.path()).constData(), 0755);
        m_home = m_dir.path() + QStringLiteral("/home");
        m_other = m_dir.path() + QStringLiteral("/other");
        for (const QString& d : {m_home + QStringLiteral("/.runbox/proxy"), m_other}) {
            QVERIFY(QDir().mkpath(d));
        }
        for (const QString& d : {m_home, m_home + QStringLiteral("/.runbox"),
                                 m_home + QStringLiteral("/.runbox/proxy"), m_other})
            QCOMPARE(::chown(QFile::encodeName(d).constData(), kUid, kUid), 0);
        m_homeFd = ::open(QFile::encodeName(m_home).constData(), O_PATH | O_DIRECTORY | O_CLOEXEC);
        QVERIFY(m_homeFd >= 0);
    }

    void cleanupTestCase() {
        if (m_homeFd >= 0)
            ::close(m_homeFd);
    }

    void testTheWorkspacesOwnSocketConnects() {
        const pid_t server = listenAs(kUid, QFile::encodeName(m_home + "/.runbox/proxy/80.sock"));
        QVERIFY(server > 0);
        Error error;
        const int fd = connectPort(80, &error);
        stop(server);
        QVERIFY2(fd >= 0, qPrintable(error.message));
        ::close(fd);
    }

    void testMissingSocketIsNotListening() {
        Error error;
        QCOMPARE(connectPort(81, &error), -1);
        QCOMPARE(runbox::http::httpStatus(error.kind), 502);
        QCOMPARE(error.code, QStringLiteral("proxy_not_listening"));
    }

    void testSymlinkToAnotherSocketIsRefused() {
        // (testTheWorkspacesOwnSocketConnects is the positive control: same uid, same kind.)
        const QByteArray target = QFile::encodeName(m_other + "/82.sock");
        const pid_t server = listenAs(kUid, target);
        QVERIFY(server > 0);
        QVERIFY(::symlink(target.constData(),
                          QFile::encodeName(m_home + "/.runbox/proxy/82.sock").constData()) == 0);
        Error error;
        const int fd = connectPort(82, &error);
        stop(server);
        QCOMPARE(fd, -1);
        QCOMPARE(runbox::http::httpStatus(error.kind), 403);
        QCOMPARE(error.code, QStringLiteral("proxy_socket_refused"));
    }

    void testSymlinkedDirectoryIsRefused() {
        QTemporaryDir home2(m_dir.path() + QStringLiteral("/home2-XXXXXX"));
        QVERIFY(QDir().mkpath(m_other + QStringLiteral("/proxy")));
        QCOMPARE(::chown(QFile::encodeName(m_other + "/proxy").constData(), kUid, kUid), 0);
        const QByteArray real = QFile::encodeName(m_other + "/proxy/83.sock");
        const pid_t server = listenAs(kUid, real);
        QVERIFY(server > 0);
        QVERIFY(::symlink(QFile::encodeName(m_other).constData(),
                          QFile::encodeName(home2.path() + "/.runbox").constData()) == 0);
        const int home2Fd =
            ::open(QFile::encodeName(home2.path()).constData(), O_PATH | O_DIRECTORY);
        Error error;
        const int fd = WorkspaceSocket::connect(home2Fd, kUid, 83, &error);
        ::close(home2Fd);
        stop(server);
        QCOMPARE(fd, -1);
        QCOMPARE(runbox::http::httpStatus(error.kind), 403);
    }

    void testSocketOfAnotherOwnerIsRefused() {
        const pid_t server = listenAs(0, QFile::encodeName(m_home + "/.runbox/proxy/84.sock"));
        QVERIFY(server > 0);
        Error error;
        const int fd = connectPort(84, &error);
        stop(server);
        QCOMPARE(fd, -1);
        QCOMPARE(runbox::http::httpStatus(error.kind), 403);
        QVERIFY(error.message.contains(QLatin1String("owned by uid 0")));
    }

    void testSocketChownedToTheUidButServedByAnotherIsRefused() {
        // Owner check passes (the file is chowned to the uid); the peer credentials do not.
        const QByteArray path = QFile::encodeName(m_home + "/.runbox/proxy/85.sock");
        const pid_t server = listenAs(0, path);
        QVERIFY(server > 0);
        QCOMPARE(::lchown(path.constData(), kUid, kUid), 0);
        Error error;
        const int fd = connectPort(85, &error);
        stop(server);
        QCOMPARE(fd, -1);
        QCOMPARE(runbox::http::httpStatus(error.kind), 403);
        QVERIFY(error.message.contains(QLatin1String("served by uid 0")));
    }

    void testRegularFileIsRefused() {
        const QByteArray path = QFile::encodeName(m_home + "/.runbox/proxy/86.sock");
        QFile file(QString::fromLocal8Bit(path));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.close();
        QCOMPARE(::chown(path.constData(), kUid, kUid), 0);
        Error error;
        QCOMPARE(connectPort(86, &error), -1);
        QCOMPARE(runbox::http::httpStatus(error.kind), 403);
        QVERIFY(error.message.contains(QLatin1String("not a socket")));
    }
};

QTEST_GUILESS_MAIN(TestWorkspaceSocket)
#include "test_workspace_socket.moc"
