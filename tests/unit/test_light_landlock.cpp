// LandlockRuleset: ABI detection, attribute sizes per ABI, and real enforcement in a child.
#include "agent/light/helper/LandlockRuleset.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <arpa/inet.h>
#include <cerrno>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace runbox::light;

namespace {

/// Runs @p body in a forked child; returns its exit code (or −signal).
template <typename Body> int inChild(Body body) {
    const pid_t child = ::fork();
    if (child == 0)
        ::_exit(body());
    int status = 0;
    ::waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

int tcp(bool bindIt, quint16 port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const int result = bindIt
                           ? ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address))
                           : ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
    const int err = result == 0 ? 0 : errno;
    ::close(fd);
    return err;
}

} // namespace

class TestLightLandlock final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void testAbiIsDetectedAtRunTime() {
        std::string why;
        const int abi = LandlockRuleset::probeAbi(&why);
        if (abi < 1)
            QSKIP(why.c_str());
        QVERIFY(abi >= 1);
    }

    void testAttributeSizeMatchesTheFieldsTheAbiKnows() {
        QCOMPARE(landlock::rulesetAttrSize(1), std::size_t{8});
        QCOMPARE(landlock::rulesetAttrSize(3), std::size_t{8});
        QCOMPARE(landlock::rulesetAttrSize(4), std::size_t{16});
        QCOMPARE(landlock::rulesetAttrSize(5), std::size_t{16});
        QCOMPARE(landlock::rulesetAttrSize(6), std::size_t{24});
        QCOMPARE(landlock::rulesetAttrSize(7), std::size_t{24});
        QCOMPARE(landlock::fsRightsForAbi(1), 0x1fffull);
        QCOMPARE(landlock::fsRightsForAbi(3), 0x7fffull);
        QCOMPARE(landlock::fsRightsForAbi(5), 0xffffull);
        QCOMPARE(landlock::netRightsForAbi(3), 0ull);
        QCOMPARE(landlock::scopesForAbi(5), 0ull);
        QCOMPARE(landlock::scopesForAbi(6), 3ull);
    }

    void testRulesetConfinesFilesystemAndTcp() {
        const int abi = LandlockRuleset::probeAbi();
        if (abi < 6)
            QSKIP("needs Landlock ABI 6");
        QTemporaryDir allowed, denied;
        QVERIFY(allowed.isValid() && denied.isValid());
        const QByteArray allowedFile = QFile::encodeName(allowed.filePath(QStringLiteral("f")));
        const QByteArray deniedFile = QFile::encodeName(denied.filePath(QStringLiteral("f")));
        const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof(address);
        QCOMPARE(::bind(listener, reinterpret_cast<sockaddr*>(&address), length), 0);
        QCOMPARE(::listen(listener, 4), 0);
        ::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length);
        const quint16 open = ntohs(address.sin_port);
        // Positive control without the ruleset: everything works.
        QCOMPARE(inChild([&] {
                     const int fd = ::open(deniedFile.constData(), O_WRONLY | O_CREAT, 0600);
                     return fd >= 0 && tcp(true, 0) == 0 ? 0 : 1;
                 }),
                 0);
        const int result = inChild([&] {
            LandlockRuleset ruleset;
            std::string why;
            if (!ruleset.create(abi, true, &why) ||
                !ruleset.allowPath(allowed.path().toLocal8Bit().constData(), rights::kEverything,
                                   false, &why) ||
                !ruleset.allowPath("/nonexistent-runbox", rights::kReadOnly, true, &why) ||
                !ruleset.allowConnectPort(open, &why) || !ruleset.restrictSelf(&why))
                return 10;
            if (::open(allowedFile.constData(), O_WRONLY | O_CREAT, 0600) < 0)
                return 11;
            if (::open(deniedFile.constData(), O_RDONLY) >= 0 || errno != EACCES)
                return 12;
            if (tcp(true, 0) != EACCES)
                return 13;
            if (tcp(false, open) != 0)
                return 14;
            if (tcp(false, static_cast<quint16>(open == 65535 ? 65534 : open + 1)) != EACCES)
                return 15;
            return 0;
        });
        ::close(listener);
        QCOMPARE(result, 0);
    }

    void testMissingRequiredPathIsAnError() {
        if (LandlockRuleset::probeAbi() < 1)
            QSKIP("no Landlock");
        LandlockRuleset ruleset;
        std::string why;
        QVERIFY(ruleset.create(LandlockRuleset::probeAbi(), true, &why));
        QVERIFY(!ruleset.allowPath("/nonexistent-runbox", rights::kReadOnly, false, &why));
        QVERIFY(!why.empty());
    }
};

QTEST_GUILESS_MAIN(TestLightLandlock)
#include "test_light_landlock.moc"
