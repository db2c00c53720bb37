// Rlimits / RlimitsJson: validated ranges, overflow-safe conversion, real setrlimit in a child.
#include "agent/light/RlimitsJson.h"

#include "agent/http/ErrorStatus.h"

#include <QJsonDocument>
#include <QTest>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace runbox::light;

class TestLightRlimits final : public QObject {
    Q_OBJECT

private:
    static std::optional<Rlimits> parse(const QByteArray& json, runbox::Error* error) {
        return RlimitsJson::fromJson(QJsonDocument::fromJson(json).object(), error);
    }

private Q_SLOTS:
    void testDefaultsFollowTheIssue() {
        runbox::Error error;
        const auto limits = parse("{}", &error);
        QVERIFY(limits);
        QCOMPARE(limits->maxProcs, 256u);
        QCOMPARE(limits->maxMemoryBytes, 2048ull << 20);
        QCOMPARE(limits->maxOpenFiles, 4096u);
        QVERIFY(limits->validate(nullptr));
    }

    void testValuesAreConvertedToBytes() {
        runbox::Error error;
        const auto limits = parse(R"({"maxProcs":10,"maxMemoryMb":512,"maxOpenFiles":64,
                                      "maxFileSizeMb":3,"maxCpuSeconds":5,"other":"ignored"})",
                                  &error);
        QVERIFY(limits);
        QCOMPARE(limits->maxProcs, 10u);
        QCOMPARE(limits->maxMemoryBytes, 512ull << 20);
        QCOMPARE(limits->maxFileSizeBytes, 3ull << 20);
        QCOMPARE(limits->maxCpuSeconds, 5u);
        QCOMPARE(RlimitsJson::toJson(*limits).value(QStringLiteral("maxMemoryMb")).toInt(), 512);
    }

    void testBadValuesAre400_data() {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("field");
        QTest::newRow("zero procs") << QByteArray(R"({"maxProcs":0})") << "maxProcs";
        QTest::newRow("too few procs for the supervisor")
            << QByteArray(R"({"maxProcs":3})") << "maxProcs";
        QTest::newRow("too many procs") << QByteArray(R"({"maxProcs":4097})") << "maxProcs";
        QTest::newRow("negative") << QByteArray(R"({"maxProcs":-1})") << "maxProcs";
        QTest::newRow("fraction") << QByteArray(R"({"maxProcs":1.5})") << "maxProcs";
        QTest::newRow("string") << QByteArray(R"({"maxProcs":"256"})") << "maxProcs";
        QTest::newRow("bool") << QByteArray(R"({"maxOpenFiles":true})") << "maxOpenFiles";
        // 2^54 MiB would overflow a byte count (the reference pool's 0.5.0 bug).
        QTest::newRow("overflowing memory")
            << QByteArray(R"({"maxMemoryMb":18014398509481984})") << "maxMemoryMb";
        QTest::newRow("huge") << QByteArray(R"({"maxMemoryMb":1e300})") << "maxMemoryMb";
        QTest::newRow("too small memory") << QByteArray(R"({"maxMemoryMb":1})") << "maxMemoryMb";
        QTest::newRow("file size") << QByteArray(R"({"maxFileSizeMb":0})") << "maxFileSizeMb";
        QTest::newRow("cpu") << QByteArray(R"({"maxCpuSeconds":99999999})") << "maxCpuSeconds";
    }

    void testBadValuesAre400() {
        QFETCH(QByteArray, json);
        QFETCH(QString, field);
        runbox::Error error;
        QVERIFY(!parse(json, &error));
        QCOMPARE(runbox::http::httpStatus(error.kind), 400);
        QCOMPARE(error.code, QStringLiteral("invalid_limit"));
        QVERIFY2(error.message.contains(field), qPrintable(error.message));
    }

    void testApplyToSelfSetsHardLimitsAndNoCore() {
        Rlimits limits;
        limits.maxProcs = 77;
        limits.maxOpenFiles = 99;
        limits.maxMemoryBytes = 300ull << 20;
        const pid_t child = ::fork();
        if (child == 0) {
            if (!limits.applyToSelf(nullptr))
                ::_exit(10);
            rlimit value{};
            ::getrlimit(RLIMIT_NPROC, &value);
            if (value.rlim_cur != 77 || value.rlim_max != 77)
                ::_exit(11);
            ::getrlimit(RLIMIT_NOFILE, &value);
            if (value.rlim_max != 99)
                ::_exit(12);
            ::getrlimit(RLIMIT_AS, &value);
            if (value.rlim_max != (300ull << 20))
                ::_exit(13);
            ::getrlimit(RLIMIT_CORE, &value);
            if (value.rlim_max != 0)
                ::_exit(14);
            // Soft = hard: raising is refused once the limit is in force.
            value.rlim_cur = value.rlim_max = 200;
            ::_exit(::setrlimit(RLIMIT_NPROC, &value) == 0 && ::geteuid() != 0 ? 15 : 0);
        }
        int status = 0;
        QCOMPARE(::waitpid(child, &status, 0), child);
        QVERIFY(WIFEXITED(status));
        QCOMPARE(WEXITSTATUS(status), 0);
    }

    void testApplyRefusesInvalidLimits() {
        Rlimits limits;
        limits.maxProcs = 0;
        std::string why;
        QVERIFY(!limits.applyToSelf(&why)); // checked before any setrlimit
        QVERIFY(why.find("maxProcs") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestLightRlimits)
#include "test_light_rlimits.moc"
