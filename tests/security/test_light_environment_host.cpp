// The mount step of a light workspace's science environment, against the host alone (no agent,
// no HTTP; docs/light-workspaces.md "Supervisor"): a prefix under the environment root is bound
// read-only at /opt/science-env with the host interpreters masked; the zygote refuses a prefix
// elsewhere, the supervisor one that is not the directory the agent opened, and a host without
// a mount namespace refuses an environment at create. Root only. Each refusal after its
// positive control.
#include "LightTestSupport.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace lighttest;

namespace {

constexpr const char* kPrefix = "e0123456789abcdef/r0123456789abcdef";

} // namespace

class TestLightEnvironmentHost final : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_masked; ///< a host interpreter to mask (a regular file under /usr/bin)

    std::unique_ptr<LightWorkspaceHost> makeHost(const QString& name, uid_t firstUid,
                                                 bool pidNamespace) {
        LightHostConfig config;
        config.workspaceRoot = m_dir.path() + '/' + name;
        config.supervisorPath = QStringLiteral(RUNBOX_BINARY_DIR "/agent/runbox-light-supervisor");
        config.uids.first = firstUid;
        config.uids.count = 32;
        config.pidNamespace = pidNamespace;
        config.controlPlanePorts = {1};
        config.sweepPasses = 20;
        config.prestartSupervisors = false; // the supervisor starts at the first exec
        config.spareHomes = 0;
        config.environmentRoot = m_dir.path() + QStringLiteral("/environments");
        config.maskedInterpreters = {m_masked};
        return std::make_unique<LightWorkspaceHost>(config);
    }
    /// A revision-like prefix at @p path: bin/hello prints "hello from the prefix".
    static bool makePrefix(const QString& path) {
        if (!QDir().mkpath(path + "/bin"))
            return false;
        QFile hello(path + "/bin/hello");
        if (!hello.open(QIODevice::WriteOnly))
            return false;
        hello.write("#!/bin/sh\necho hello from the prefix\n");
        hello.close();
        return ::chmod(QFile::encodeName(hello.fileName()).constData(), 0755) == 0 &&
               ::chmod(QFile::encodeName(path).constData(), 0755) == 0;
    }
    /// Runs `echo ran` in @p id up to 10 times until a try ends setup_failed; none may run
    /// anything. The setup failure's message, or "" when no try said it. (One try is enough
    /// since an exec racing the supervisor's SetupFailed waits for it; the retries are a bound.)
    static QString setupFailure(LightWorkspaceHost& host, const QString& id, bool* ranAnything) {
        *ranAnything = false;
        for (int attempt = 0; attempt < 10; ++attempt) {
            const RunResult r = sh(host, id, QStringLiteral("echo ran"));
            if (r.out.contains("ran") || r.status.kind == LightExitStatus::Kind::Exited)
                *ranAnything = true;
            if (r.status.kind == LightExitStatus::Kind::SetupFailed)
                return r.status.message;
        }
        return {};
    }
    QString make(LightWorkspaceHost& host, const QString& prefix, QString* error = nullptr) {
        LightWorkspaceOptions options;
        options.environmentPrefix = prefix;
        LightCreateResult result;
        if (const auto err = host.create(options, 1, &result)) {
            if (error)
                *error = err->code + ": " + err->message;
            return {};
        }
        return result.workspaces.value(0).id;
    }

private Q_SLOTS:
    void initTestCase() {
        if (::geteuid() != 0)
            QSKIP("the light host needs root");
        QVERIFY(m_dir.isValid());
        QVERIFY(::chmod(QFile::encodeName(m_dir.path()).constData(), 0711) == 0);
        QVERIFY(QDir().mkpath(m_dir.path() + "/environments/e0123456789abcdef"));
        for (const QString& dir :
             {m_dir.path() + "/environments", m_dir.path() + "/environments/e0123456789abcdef"})
            QVERIFY(::chmod(QFile::encodeName(dir).constData(), 0711) == 0);
        QVERIFY(makePrefix(m_dir.path() + "/environments/" + kPrefix));
        for (const QString& name : QDir("/usr/bin").entryList({"python3.*"}, QDir::Files)) {
            struct stat st {};
            if (::lstat(QFile::encodeName("/usr/bin/" + name).constData(), &st) == 0 &&
                S_ISREG(st.st_mode) && st.st_size > 0) {
                m_masked = "/usr/bin/" + name;
                break;
            }
        }
        if (m_masked.isEmpty())
            QSKIP("no python3.X regular file under /usr/bin to mask");
    }

    void testThePrefixIsBoundReadOnlyAndTheInterpreterMasked() {
        auto host = makeHost("bound", 61300, true);
        QVERIFY2(host->start(), qPrintable(host->availability().reason));
        if (!host->supportsEnvironments())
            QSKIP("no mount namespace per workspace here");
        const QString id = make(*host, m_dir.path() + "/environments/" + kPrefix);
        QVERIFY(!id.isEmpty());
        const RunResult r = sh(*host, id,
                               "/opt/science-env/bin/hello; wc -c < " + m_masked +
                                   "; touch /opt/science-env/x 2>&1 || echo refused");
        QVERIFY2(r.finished, r.err.constData());
        const QStringList lines = QString::fromUtf8(r.out).trimmed().split('\n');
        QCOMPARE(lines.value(0), QStringLiteral("hello from the prefix"));
        QCOMPARE(lines.value(1), QStringLiteral("0"));
        QVERIFY2(lines.value(2).contains("Read-only file system"), r.out.constData());
        QCOMPARE(lines.value(3), QStringLiteral("refused"));
        QVERIFY(!QFile::exists(m_dir.path() + "/environments/" + kPrefix + "/x"));
        // The host's file is untouched.
        QVERIFY(QFileInfo(m_masked).size() > 0);
    }

    void testTheZygoteRefusesAPrefixOutsideTheEnvironmentRoot() {
        auto host = makeHost("outside", 61340, true);
        QVERIFY2(host->start(), qPrintable(host->availability().reason));
        if (!host->supportsEnvironments())
            QSKIP("no mount namespace per workspace here");
        const QString good = make(*host, m_dir.path() + "/environments/" + kPrefix);
        QCOMPARE(sh(*host, good, "/opt/science-env/bin/hello").out,
                 QByteArray("hello from the prefix\n")); // positive control
        // /etc is a directory the agent could open, but no revision's prefix.
        const QString bad = make(*host, QStringLiteral("/etc"));
        QVERIFY(!bad.isEmpty());
        bool ran = false;
        const QString why = setupFailure(*host, bad, &ran);
        QVERIFY(!ran);
        QVERIFY2(why.contains("environment prefix is not"), qPrintable(why));
    }

    void testTheSupervisorRefusesAPrefixSwappedAfterCreate() {
        auto host = makeHost("swapped", 61380, true);
        QVERIFY2(host->start(), qPrintable(host->availability().reason));
        if (!host->supportsEnvironments())
            QSKIP("no mount namespace per workspace here");
        const QString other = m_dir.path() + "/environments/e1111111111111111/r1111111111111111";
        QVERIFY(makePrefix(other));
        const QString id = make(*host, other);
        QVERIFY(!id.isEmpty());
        // Before its supervisor starts, another directory takes the prefix's path.
        QVERIFY(QDir().rename(other, other + ".old"));
        QVERIFY(makePrefix(other));
        bool ran = false;
        const QString why = setupFailure(*host, id, &ran);
        QVERIFY(!ran);
        QVERIFY2(why.contains("not the directory the agent opened"), qPrintable(why));
    }

    void testAHostWithoutAMountNamespaceRefusesAnEnvironment() {
        auto host = makeHost("nons", 61420, false);
        QVERIFY2(host->start(), qPrintable(host->availability().reason));
        QVERIFY(!host->supportsEnvironments());
        QVERIFY(!make(*host, QString()).isEmpty()); // positive control: no environment
        QString error;
        QVERIFY(make(*host, m_dir.path() + "/environments/" + kPrefix, &error).isEmpty());
        QVERIFY2(error.startsWith("light_environment_unavailable") && error.contains("root agent"),
                 qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(TestLightEnvironmentHost)
#include "test_light_environment_host.moc"
