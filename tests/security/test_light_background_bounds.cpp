// Light workspaces and the execution bounds (docs/bounds.md "Light workspaces between
// executions"): a request's maxProcesses is its exec's RLIMIT_NPROC. Real attacks from real
// workspaces of a root agent, each after a positive control.
#include "LightAgentFixture.h"

#include <QtTest>

using namespace lightagent;

namespace {
/// Forks up to 50 children that wait on a pipe; prints how many it made and the errno it met.
const char kForkLoop[] = "import os\nr, w = os.pipe()\npids = []\nerr = 0\nfor i in range(50):\n"
                         "    try:\n        pid = os.fork()\n    except OSError as e:\n"
                         "        err = e.errno\n        break\n    if pid == 0:\n"
                         "        os.close(w); os.read(r, 1); os._exit(0)\n    pids.append(pid)\n"
                         "os.close(w)\nfor p in pids: os.waitpid(p, 0)\nprint(len(pids), err)";
} // namespace

class TestLightBackgroundBounds final : public QObject {
    Q_OBJECT

private:
    Agent m_agent;

private Q_SLOTS:
    void initTestCase() {
        if (::geteuid() != 0)
            QSKIP("light workspaces need root (setuid/chown); run this test as root");
        QString error;
        QVERIFY2(m_agent.start({{QStringLiteral("RUNBOX_LIGHT_UID_FIRST"), QStringLiteral("54000")},
                                {QStringLiteral("RUNBOX_LIGHT_UID_COUNT"), QStringLiteral("200")}},
                               &error),
                 qPrintable(error));
        const QJsonObject light =
            m_agent.client().call("GET", "/v1/health").json().value("light").toObject();
        if (!light.value("available").toBool())
            QSKIP(qPrintable(QStringLiteral("light tier unavailable here: %1")
                                 .arg(light.value("reason").toString())));
    }

    void testRequestMaxProcessesBindsTheExec() {
        const Workspace ws = m_agent.createOne();
        QVERIFY(!ws.id.isEmpty());
        const QJsonObject loop{{"argv", QJsonArray{"python3", "-c", kForkLoop}}};
        const Outcome free = exec(m_agent.client(), ws.id, loop);
        QVERIFY2(free.status() == QLatin1String("completed"), qPrintable(free.describe()));
        QCOMPARE(free.out, QByteArray("50 0\n"));

        QJsonObject bounded = loop;
        bounded.insert("maxProcesses", 20);
        const Outcome limited = exec(m_agent.client(), ws.id, bounded);
        QVERIFY2(limited.status() == QLatin1String("completed"), qPrintable(limited.describe()));
        const QList<QByteArray> fields = limited.out.trimmed().split(' ');
        QCOMPARE(fields.size(), 2);
        qInfo("maxProcesses 20: %d forks, errno %d", fields[0].toInt(), fields[1].toInt());
        QVERIFY(fields[0].toInt() >= 10 && fields[0].toInt() < 20);
        QCOMPARE(fields[1].toInt(), EAGAIN);
    }
};

QTEST_GUILESS_MAIN(TestLightBackgroundBounds)
#include "test_light_background_bounds.moc"
