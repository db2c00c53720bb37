// LightPrivileges: root may run light workspaces; an unprivileged process is told what it lacks.
#include "agent/light/LightPrivileges.h"

#include <QTest>

#include <sys/wait.h>
#include <unistd.h>

using namespace runbox::light;

class TestLightPrivileges final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void testUnprivilegedProcessIsToldWhy() {
        if (::geteuid() != 0)
            QSKIP("needs root to drop to nobody");
        QVERIFY(LightPrivileges::check().sufficient); // positive control: root may
        int channel[2];
        QCOMPARE(::pipe(channel), 0);
        const pid_t child = ::fork();
        if (child == 0) {
            ::close(channel[0]);
            if (::setresgid(65534, 65534, 65534) != 0 || ::setresuid(65534, 65534, 65534) != 0)
                ::_exit(1);
            const LightPrivileges privileges = LightPrivileges::check();
            const QByteArray reason = privileges.reason.toUtf8();
            [[maybe_unused]] const ssize_t sent =
                ::write(channel[1], reason.constData(), reason.size());
            ::_exit(privileges.sufficient ? 2 : 0);
        }
        ::close(channel[1]);
        char buffer[512] = {};
        const ssize_t got = ::read(channel[0], buffer, sizeof(buffer) - 1);
        ::close(channel[0]);
        int status = 0;
        ::waitpid(child, &status, 0);
        QCOMPARE(WEXITSTATUS(status), 0);
        QVERIFY(got > 0);
        QVERIFY(QByteArray(buffer).contains("CAP_SETUID"));
    }
};

QTEST_GUILESS_MAIN(TestLightPrivileges)
#include "test_light_privileges.moc"
