// BrokerEnvironment: host jobs get Ascend/CANN/MindSpore/HCCL variables, never secrets.
#include "agent/npu/BrokerEnvironment.h"

#include <QtTest>

using namespace runbox::npu;

class TestBrokerEnvironment final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void testScrubKeepsNpuVariablesAndDropsSecrets() {
        QProcessEnvironment source;
        const QStringList kept{"ASCEND_HOME_PATH",
                               "ASCEND_OPP_PATH",
                               "CANN_HOME",
                               "MS_ROLE",
                               "MINDSPORE_HOME",
                               "HCCL_CONNECT_TIMEOUT",
                               "PATH",
                               "LD_LIBRARY_PATH",
                               "PYTHONPATH",
                               "HOME",
                               "LANG",
                               "RANK_ID"};
        const QStringList dropped{"ASCEND_API_KEY",
                                  "HCCL_TOKEN",
                                  "MS_SECRET",
                                  "CANN_PASSWORD",
                                  "aws_secret_access_key",
                                  "RUNBOX_TOKEN",
                                  "GITHUB_TOKEN",
                                  "SSH_AUTH_SOCK",
                                  "USER",
                                  "LD_PRELOAD",
                                  "RUNBOX_NPU_BROKER",
                                  "MS_PRIVATE_KEY",
                                  "NPU_CREDENTIALS"};
        for (const QString& name : kept + dropped)
            source.insert(name, "v");
        const QProcessEnvironment scrubbed = BrokerEnvironment::scrub(source);
        for (const QString& name : kept)
            QVERIFY2(scrubbed.contains(name), qPrintable(name));
        for (const QString& name : dropped)
            QVERIFY2(!scrubbed.contains(name), qPrintable(name));
    }

    void testJobVariablesAreAdded() {
        QProcessEnvironment source;
        source.insert("ASCEND_RT_VISIBLE_DEVICES", "0,1,2,3,4,5,6,7");
        const QProcessEnvironment env = BrokerEnvironment::forJob(source, "/ws", "job-1", {2, 5});
        QCOMPARE(env.value("ASCEND_RT_VISIBLE_DEVICES"), QStringLiteral("2,5"));
        QCOMPARE(env.value("RUNBOX_NPU_WORKSPACE"), QStringLiteral("/ws"));
        QCOMPARE(env.value("RUNBOX_NPU_JOB_ID"), QStringLiteral("job-1"));
        QCOMPARE(env.value("PATH"), QStringLiteral("/usr/local/bin:/usr/bin:/bin"));
        // No chip named: the operator's own ASCEND_RT_VISIBLE_DEVICES stays.
        QCOMPARE(
            BrokerEnvironment::forJob(source, "/ws", "j", {}).value("ASCEND_RT_VISIBLE_DEVICES"),
            QStringLiteral("0,1,2,3,4,5,6,7"));
    }
};

QTEST_GUILESS_MAIN(TestBrokerEnvironment)
#include "test_broker_environment.moc"
