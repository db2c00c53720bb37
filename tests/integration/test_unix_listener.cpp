// The unix-socket listener (--listen-unix; docs/contracts.md "Unix socket"), against the real
// agent: signed requests and a sync exec over the socket as over TCP, refusals the same (an
// unsigned request is 401); the socket file is mode 0660 with its group, named in /v1/health,
// removed at a clean stop; a stale one is replaced at start, while a live one, a file that is
// not a socket, a directory others may write (the socket's or one on the way to it), another
// user's symlink on the way and an unknown group stop the start. As root, a uid outside the
// group cannot connect at all (after the owner's positive control).
#include "support/AgentProcess.h"
#include "support/RawHttp.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>

#include <cerrno>
#include <cstring>
#include <grp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

using namespace runbox;
using namespace runbox::testsupport;

namespace {

/// One request over the unix socket at @p path (Connection: close); the raw response, or "".
QByteArray roundTrip(const QString& path, const QByteArray& request) {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    const QByteArray encoded = QFile::encodeName(path);
    std::memcpy(address.sun_path, encoded.constData(), size_t(encoded.size()));
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        ::close(fd);
        return {};
    }
    (void)::write(fd, request.constData(), size_t(request.size()));
    QByteArray response;
    char buffer[65536];
    timeval timeout{30, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;)
        response.append(buffer, qsizetype(n));
    ::close(fd);
    return response;
}

QByteArray signedRequest(const QByteArray& token, const QByteArray& method,
                         const QByteArray& target, const QByteArray& body = {}) {
    HeaderList headers =
        signedHeaders(token, method, target, body, QDateTime::currentMSecsSinceEpoch());
    headers.append(qMakePair(QByteArray("Connection"), QByteArray("close")));
    if (!body.isEmpty())
        headers.append(qMakePair(QByteArray("Content-Type"), QByteArray("application/json")));
    return buildRequest(method, target, headers, body);
}

/// Uid ranges of this test's own (other root agents' tests may run at the same time).
QMap<QString, QString> ownUidRanges() {
    return {{QStringLiteral("RUNBOX_STRONG_UID_FIRST"), QStringLiteral("1896000000")},
            {QStringLiteral("RUNBOX_STRONG_UID_COUNT"), QStringLiteral("4096")},
            {QStringLiteral("RUNBOX_LIGHT_UID_FIRST"), QStringLiteral("58600")},
            {QStringLiteral("RUNBOX_LIGHT_UID_COUNT"), QStringLiteral("64")}};
}

/// Options for an agent that also listens on the unix socket @p path.
AgentOptions listeningOn(const QString& path) {
    AgentOptions options;
    options.extraArgs = {"--listen-unix", path};
    options.extraEnv = ownUidRanges();
    return options;
}

/// The agent binary started with @p args: its exit status and output (it must refuse, quickly).
QPair<int, QString> refusedStart(const QStringList& args) {
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    const QMap<QString, QString> ranges = ownUidRanges();
    for (auto it = ranges.begin(); it != ranges.end(); ++it)
        env.insert(it.key(), it.value());
    p.setProcessEnvironment(env);
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(QStringLiteral(RUNBOX_BINARY_DIR "/agent/runbox-agent"), args);
    if (!p.waitForFinished(30000)) {
        p.terminate(); // a clean stop: a root agent detaches its mounts
        if (!p.waitForFinished(10000))
            p.kill();
        p.waitForFinished();
        return {-1, QStringLiteral("still running: ") + QString::fromUtf8(p.readAll())};
    }
    return {p.exitCode(), QString::fromUtf8(p.readAll())};
}

} // namespace

class TestUnixListener final : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir; ///< where the sockets go: 01777, so an unprivileged agent may bind
    AgentProcess m_agent;
    QString m_path;

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        QVERIFY(::chmod(QFile::encodeName(m_dir.path()).constData(), 01777) == 0);
        m_path = m_dir.filePath("agent.sock");
        QVERIFY2(m_agent.start(listeningOn(m_path)),
                 qPrintable(m_agent.errorString() + m_agent.log()));
    }

    void testSignedRequestsAndExecsWorkOverTheSocket() {
        struct stat st {};
        QCOMPARE(::lstat(QFile::encodeName(m_path).constData(), &st), 0);
        QVERIFY(S_ISSOCK(st.st_mode));
        QCOMPARE(st.st_mode & 07777, 0660u);
        QCOMPARE(st.st_uid, m_agent.agentUid());
        const struct group* runbox = ::getgrnam("runbox");
        if (!runbox) // else the agent's own group
            QVERIFY(st.st_gid != 0 || m_agent.agentUid() == 0);

        // Positive control over TCP, then the same over the socket.
        const QByteArray workspace = m_agent.createWorkspace().toUtf8();
        QVERIFY(!workspace.isEmpty());
        QByteArray r = roundTrip(m_path, signedRequest(m_agent.token(), "GET", "/v1/workspaces"));
        QVERIFY2(r.startsWith("HTTP/1.1 200") && r.contains(workspace), r.constData());
        r = roundTrip(m_path, signedRequest(m_agent.token(), "GET", "/v1/health"));
        QVERIFY2(r.contains(("\"path\":\"" + m_path + "\"").toUtf8()), r.constData());
        r = roundTrip(m_path, signedRequest(m_agent.token(), "POST",
                                            "/v1/workspaces/" + workspace + "/exec",
                                            R"({"argv":["/bin/echo","over-unix"]})"));
        QVERIFY2(r.startsWith("HTTP/1.1 200") && r.contains("over-unix"), r.constData());
        // The same refusals: unsigned, or signed with another token.
        r = roundTrip(m_path, buildRequest("GET", "/v1/workspaces", {{"Connection", "close"}}));
        QVERIFY2(r.startsWith("HTTP/1.1 401"), r.constData());
        r = roundTrip(m_path, signedRequest(QByteArray(64, 'a'), "GET", "/v1/workspaces"));
        QVERIFY2(r.startsWith("HTTP/1.1 401"), r.constData());
    }

    void testAUidOutsideTheGroupCannotConnect() {
        if (!AgentProcess::runningAsRoot())
            QSKIP("needs root to run a client as another uid");
        const QString probe = QStringLiteral("import socket,sys\ns=socket.socket(socket.AF_UNIX)\n"
                                             "try:\n s.connect(sys.argv[1]); print('connected')\n"
                                             "except OSError as e: print('refused', e.errno)\n");
        // The owner (the agent's uid) connects: the control.
        QProcess owner;
        owner.start("setpriv", {"--reuid", QString::number(m_agent.agentUid()), "--regid",
                                QString::number(m_agent.agentUid()), "--clear-groups",
                                "/usr/bin/python3", "-c", probe, m_path});
        QVERIFY(owner.waitForFinished(30000));
        QCOMPARE(owner.readAllStandardOutput().trimmed(), QByteArray("connected"));
        // A uid and gid that are neither the socket's owner nor its group.
        struct stat st {};
        QCOMPARE(::lstat(QFile::encodeName(m_path).constData(), &st), 0);
        const QString strangerId = QString::number(st.st_gid == 61999 ? 61998 : 61999);
        QVERIFY(st.st_uid != strangerId.toUInt());
        QProcess stranger;
        stranger.start("setpriv", {"--reuid", strangerId, "--regid", strangerId, "--clear-groups",
                                   "/usr/bin/python3", "-c", probe, m_path});
        QVERIFY(stranger.waitForFinished(30000));
        QCOMPARE(stranger.readAllStandardOutput().trimmed(),
                 QByteArray("refused ") + QByteArray::number(EACCES));
    }

    void testADirectoryOnTheWayOthersMayWriteIsRefused() {
        // parent/inner/a.sock, inner sticky (the agent may bind there whatever its uid).
        const QString parent = m_dir.filePath("parent");
        const QString inner = parent + "/inner";
        QVERIFY(QDir().mkpath(inner));
        QVERIFY(::chmod(QFile::encodeName(parent).constData(), 0755) == 0);
        QVERIFY(::chmod(QFile::encodeName(inner).constData(), 01777) == 0);
        // Positive control: with a private parent the agent listens there.
        AgentProcess control;
        QVERIFY2(control.start(listeningOn(inner + "/a.sock")),
                 qPrintable(control.errorString() + control.log()));
        QVERIFY(QFile::exists(inner + "/a.sock"));
        QVERIFY(control.stop());
        // The parent world-writable and not sticky: anyone could rename inner away and put a
        // directory of their own, with an impostor socket, in its place.
        QVERIFY(::chmod(QFile::encodeName(parent).constData(), 0777) == 0);
        QTemporaryDir other;
        auto [status, out] = refusedStart({"--state-dir", other.path(), "--listen", "127.0.0.1:0",
                                           "--listen-unix", inner + "/a.sock"});
        QVERIFY2(status > 0 && out.contains("may be written by others") && out.contains(parent) &&
                     out.contains("not sticky"),
                 qPrintable(out));
        QVERIFY(!QFile::exists(inner + "/a.sock"));
    }

    void testAnotherUsersSymlinkOnTheWayIsRefused() {
        if (!AgentProcess::runningAsRoot())
            QSKIP("needs root to make a symlink of another uid");
        // A root-owned directory, reached through a symlink in a sticky directory (as /tmp).
        const QString target = m_dir.filePath("root-dir");
        const QString sticky = m_dir.filePath("sticky");
        QVERIFY(QDir().mkdir(target) && QDir().mkdir(sticky));
        QVERIFY(::chmod(QFile::encodeName(target).constData(), 01777) == 0);
        QVERIFY(::chmod(QFile::encodeName(sticky).constData(), 01777) == 0);
        // Positive control: root's own link is followed (as Debian's /var/run -> /run).
        const QString rootLink = sticky + "/root-link";
        QVERIFY(QFile::link(target, rootLink));
        AgentProcess control;
        QVERIFY2(control.start(listeningOn(rootLink + "/a.sock")),
                 qPrintable(control.errorString() + control.log()));
        QVERIFY(QFile::exists(target + "/a.sock"));
        QVERIFY(control.stop());
        // The attack: nobody's link to the same directory; nobody could later replace it with a
        // directory holding an impostor socket that collects the tokens clients send.
        const QString userLink = sticky + "/user-link";
        QVERIFY(QFile::link(target, userLink));
        QVERIFY(::lchown(QFile::encodeName(userLink).constData(), 65534, 65534) == 0);
        QTemporaryDir other;
        auto [status, out] = refusedStart({"--state-dir", other.path(), "--listen", "127.0.0.1:0",
                                           "--listen-unix", userLink + "/b.sock"});
        QVERIFY2(status > 0 && out.contains(userLink + " is a symlink of uid 65534"),
                 qPrintable(out));
        QVERIFY(!QFile::exists(target + "/b.sock"));
    }

    void testStartRefusalsAndTheStaleSocket() {
        // A live socket: a second agent must not take it over.
        QTemporaryDir other;
        auto [status, out] = refusedStart(
            {"--state-dir", other.path(), "--listen", "127.0.0.1:0", "--listen-unix", m_path});
        QVERIFY2(status != 0 && out.contains("in use"), qPrintable(out));
        QVERIFY(QFile::exists(m_path)); // and the live one is still there

        // Not a socket.
        const QString plain = m_dir.filePath("plain-file");
        QFile f(plain);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.close();
        std::tie(status, out) = refusedStart(
            {"--state-dir", other.path(), "--listen", "127.0.0.1:0", "--listen-unix", plain});
        QVERIFY2(status != 0 && out.contains("not a socket"), qPrintable(out));
        QVERIFY(QFile::exists(plain));

        // A directory others may write (not sticky): anyone there could swap the socket or
        // race its mode onto another file, so the agent refuses it.
        const QString open = m_dir.filePath("open-dir");
        QVERIFY(QDir().mkdir(open));
        QVERIFY(::chmod(QFile::encodeName(open).constData(), 0777) == 0);
        std::tie(status, out) = refusedStart({"--state-dir", other.path(), "--listen",
                                              "127.0.0.1:0", "--listen-unix", open + "/a.sock"});
        QVERIFY2(status != 0 && out.contains("may be written by others"), qPrintable(out));
        QVERIFY(!QFile::exists(open + "/a.sock"));
        if (AgentProcess::runningAsRoot()) { // a directory of another user
            QVERIFY(::chmod(QFile::encodeName(open).constData(), 0755) == 0);
            QVERIFY(::chown(QFile::encodeName(open).constData(), 62010, 62010) == 0);
            std::tie(status, out) =
                refusedStart({"--state-dir", other.path(), "--listen", "127.0.0.1:0",
                              "--listen-unix", open + "/a.sock"});
            QVERIFY2(status != 0 && out.contains("may be written by others"), qPrintable(out));
        }

        // An unknown group.
        std::tie(status, out) =
            refusedStart({"--state-dir", other.path(), "--listen", "127.0.0.1:0", "--listen-unix",
                          m_dir.filePath("g.sock"), "--listen-unix-group", "no-such-group-runbox"});
        QVERIFY2(status != 0 && out.contains("no-such-group-runbox"), qPrintable(out));
        QVERIFY(!QFile::exists(m_dir.filePath("g.sock")));

        // A crash leaves the socket file; the next start replaces it and serves on it.
        m_agent.kill();
        QVERIFY(QFile::exists(m_path));
        QVERIFY2(m_agent.start(listeningOn(m_path)), qPrintable(m_agent.errorString()));
        QByteArray r = roundTrip(m_path, signedRequest(m_agent.token(), "GET", "/v1/workspaces"));
        QVERIFY2(r.startsWith("HTTP/1.1 200"), r.constData());

        // A clean stop removes it.
        QVERIFY(m_agent.stop());
        QVERIFY(!QFile::exists(m_path));
    }
};

QTEST_GUILESS_MAIN(TestUnixListener)
#include "test_unix_listener.moc"
