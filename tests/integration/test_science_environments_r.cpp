// R science environments end to end, with no network (docs/environments.md, the r-lib
// provisioner): a local CRAN-like repository of source packages built here with R CMD build
// (rpkb imports rpka), an environment built by the real agent's sandboxed provisioning execution,
// selected by strong executions of the r and shell kinds. Each refusal comes after its positive
// control. Needs the host's R (r-base-core, scripts/install-deps); skipped, saying so, without it.
#include "support/AgentProcess.h"
#include "support/CranRepository.h"
#include "support/EnvironmentApi.h"
#include "support/ExecStream.h"
#include "support/ManagedApi.h"

#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace runbox;
using namespace runbox::testsupport;

namespace {

QJsonObject error(const ApiResponse& r) {
    return errorOf(r);
}

} // namespace

class TestScienceEnvironmentsR final : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_repository;
    QTemporaryDir m_host; ///< the host canary and secret the hostile package goes after
    AgentProcess m_agent;
    AgentOptions m_options;
    QString m_envId;
    QString m_ws;
    QString m_buildWorkspace;
    ApiClient& client() { return *m_agent.client(); }

    QString waitForBuild(const QString& executionId) {
        return waitForBuildRecord(client(), executionId).value("state").toString();
    }
    QJsonObject environment() { return environmentOf(client(), m_envId); }
    ApiResponse install(const QByteArray& verb, const QJsonArray& packages) {
        return client().call("POST", "/v1/environments/" + m_envId.toUtf8() + '/' + verb,
                             QJsonObject{{"packages", packages}});
    }
    QStringList snapshotOf(const QString& revisionId) {
        return testsupport::snapshotOf(client(), revisionId);
    }
    int revisionCount() { return revisionCountOf(client(), m_envId); }

private Q_SLOTS:
    void initTestCase() {
        if (!QFileInfo(QStringLiteral("/usr/lib/R/bin/Rscript")).isExecutable())
            QSKIP("the host has no R (install r-base-core): the r-lib provisioner cannot run");
        QVERIFY(m_repository.isValid() && m_host.isValid());
        QString error;
        QVERIFY2(addRSourcePackage(m_repository.path(),
                                   {"rpka", "1.0", "answer <- function() 42", {}, {}}, &error),
                 qPrintable(error));
        QVERIFY2(addRSourcePackage(
                     m_repository.path(),
                     {"rpkb", "0.1", "twice <- function() 2 * rpka::answer()", "rpka", {}}, &error),
                 qPrintable(error));
        // A package whose configure script (run by R CMD INSTALL during the build) goes after
        // the host: writes a canary path, reads a secret, leaves a mark where it may write.
        QFile secret(m_host.path() + "/secret");
        QVERIFY(secret.open(QIODevice::WriteOnly) && secret.write("host-secret-7731") > 0);
        secret.close();
        // World-writable and world-readable: only the sandbox stands between the build and them.
        QVERIFY(::chmod(QFile::encodeName(m_host.path()).constData(), 0777) == 0);
        secret.setPermissions(QFile::ReadOwner | QFile::ReadOther);
        // It also tries to leave the revision changeable (world-writable, a setuid copy of sh),
        // to plant things in the build workspace for the next build, and a FIFO where builds
        // used to write their package list.
        const QString configure =
            QStringLiteral("#!/bin/sh\n"
                           "ls -A /workspace > /opt/science-env/workspace-at-build\n"
                           "echo planted > %1/canary 2>/dev/null\n"
                           "cat %1/secret > /opt/science-env/leak 2>/dev/null\n"
                           "cat /etc/shadow >> /opt/science-env/leak 2>/dev/null\n"
                           "echo ran > /opt/science-env/configure-ran\n"
                           "cp /bin/sh /opt/science-env/suid_sh && chmod 6755 "
                           "/opt/science-env/suid_sh\n"
                           "chmod 0777 /opt/science-env /opt/science-env/library\n"
                           "stat -c %a /opt/science-env/suid_sh /opt/science-env "
                           "> /opt/science-env/modes-in-build\n"
                           "mkdir -p /workspace/planted && echo x > /workspace/planted/x\n"
                           "mkfifo /workspace/.runbox-snapshot.json 2>/dev/null\n"
                           "exit 0\n")
                .arg(m_host.path());
        QVERIFY2(addRSourcePackage(m_repository.path(),
                                   {"rpkhostile", "1.0", "hello <- function() 'hi'", {}, configure},
                                   &error),
                 qPrintable(error));
        // A package that writes 36 MiB into the prefix in files of 6 MiB (each under an 8 MiB
        // RLIMIT_FSIZE).
        QVERIFY2(addRSourcePackage(m_repository.path(),
                                   {"rpkbig",
                                    "1.0",
                                    "big <- function() 1",
                                    {},
                                    "#!/bin/sh\n"
                                    "for i in 1 2 3 4 5 6; do\n"
                                    "  head -c 6291456 /dev/zero > /opt/science-env/fill$i\n"
                                    "done\n"
                                    "exit 0\n"},
                                   &error),
                 qPrintable(error));
        // A package with C code, compiled during the build by the host's compiler (r-base-dev).
        if (compilerPresent())
            QVERIFY2(addRSourcePackage(m_repository.path(),
                                       {"rpkc",
                                        "1.0",
                                        "answer_c <- function() .Call(\"rpkc_answer\", PACKAGE = "
                                        "\"rpkc\")",
                                        {},
                                        {},
                                        "#include <Rinternals.h>\n"
                                        "SEXP rpkc_answer(void) { return ScalarInteger(4242); }\n"},
                                       &error),
                     qPrintable(error));
        m_options.extraEnv.insert("RUNBOX_ENV_CRAN_REPOSITORY", m_repository.path());
        m_options.extraEnv.insert("RUNBOX_STRONG_UID_FIRST", "1879900000");
        QVERIFY2(m_agent.start(m_options), qPrintable(m_agent.errorString()));
    }

    void testCreateAndInstallBuildRevisionsFromTheLocalRepository() {
        const QJsonObject r_lib = client()
                                      .call("GET", "/v1/health")
                                      .json()
                                      .value("scientificEnvs")
                                      .toObject()
                                      .value("provisioners")
                                      .toObject()
                                      .value("r-lib")
                                      .toObject();
        QVERIFY2(r_lib.value("available").toBool(), qPrintable(r_lib.value("reason").toString()));
        const ApiResponse created = client().call(
            "POST", "/v1/environments", QJsonObject{{"name", "r env"}, {"language", "r"}});
        QCOMPARE(created.status, 201);
        m_envId = created.json().value("id").toString();
        QCOMPARE(created.json().value("provisioner").toString(), QStringLiteral("r-lib"));
        QCOMPARE(waitForBuild(created.json().value("executionId").toString()),
                 QStringLiteral("completed"));
        const ApiResponse installed = install("install", {"rpkb"});
        QCOMPARE(installed.status, 202);
        QCOMPARE(waitForBuild(installed.json().value("executionId").toString()),
                 QStringLiteral("completed"));
        const QString revision = installed.json().value("revisionId").toString();
        QCOMPARE(environment().value("currentRevisionId").toString(), revision);
        QCOMPARE(snapshotOf(revision), QStringList({"rpka=1.0", "rpkb=0.1"}));
    }

    void testTheRKindRunsInTheEnvironmentAndNotTheHostR() {
        m_ws = m_agent.createWorkspace();
        const QJsonObject probe{{"kind", "r"},
                                {"code", "cat(requireNamespace('rpkb', quietly = TRUE), "
                                         ".libPaths()[1], sep = '\\n')"}};
        // Positive control: the host's R, without the package.
        const ExecOutcome plain = m_agent.exec(m_ws, probe);
        QCOMPARE(plain.status(), QStringLiteral("completed"));
        QCOMPARE(plain.stdoutText().split('\n').value(0), QStringLiteral("FALSE"));
        QJsonObject inEnv = probe;
        inEnv.insert("environmentId", m_envId);
        const ExecOutcome env = m_agent.exec(m_ws, inEnv);
        QCOMPARE(env.status(), QStringLiteral("completed"));
        QCOMPARE(env.stdoutText().trimmed().split('\n'),
                 QStringList({"TRUE", "/opt/science-env/library"}));
        const ExecOutcome twice = m_agent.exec(
            m_ws, {{"kind", "r"}, {"code", "cat(rpkb::twice())"}, {"environmentId", m_envId}});
        QCOMPARE(twice.stdoutBytes, QByteArray("84"));
        // In a shell: Rscript is the environment's, the host's are masked, the library is
        // read-only.
        const QString shellProbe =
            "command -v Rscript\n"
            "wc -c < /usr/bin/Rscript\n"
            "wc -c < /usr/bin/R\n"
            "Rscript -e 'cat(requireNamespace(\"rpka\", quietly = TRUE))'; echo\n"
            "touch /opt/science-env/library/x 2>/dev/null && echo writable || echo read-only\n";
        // Positive control: without the environment the host's R is there, whole.
        const QStringList host = m_agent.shell(m_ws, shellProbe).stdoutText().trimmed().split('\n');
        QCOMPARE(host.value(0), QStringLiteral("/usr/bin/Rscript"));
        QVERIFY2(host.value(1).toLongLong() > 0 && host.value(2).toLongLong() > 0,
                 qPrintable(host.join(' ')));
        QCOMPARE(host.value(3), QStringLiteral("FALSE"));
        const ExecOutcome shell = m_agent.shell(m_ws, shellProbe, {{"environmentId", m_envId}});
        QCOMPARE(shell.stdoutText().trimmed().split('\n'),
                 QStringList({"/opt/science-env/bin/Rscript", "0", "0", "TRUE", "read-only"}));
        // The python kind cannot run in an R environment.
        const ExecOutcome python = m_agent.exec(
            m_ws, {{"kind", "python"}, {"code", "print(1)"}, {"environmentId", m_envId}});
        QCOMPARE(python.httpStatus, 400);
        QVERIFY2(python.errorBody.contains("environment_language_mismatch"),
                 python.errorBody.constData());
    }

    void testPackageSpecsOtherThanNamesAreRefusedWithNothingBuilt() {
        const int revisions = revisionCount();
        QVERIFY(revisions >= 2); // positive control: the count is read
        for (const QString& spec :
             {QStringLiteral("rpkb (>= 1.0)"), QStringLiteral("rpkb>=1"), QStringLiteral("../rpkb"),
              QStringLiteral("-e"), QStringLiteral("file:///tmp/x.tar.gz"), QStringLiteral("a"),
              QStringLiteral("rpkb.'); system('id')")}) {
            const ApiResponse r = install("install", {"rpka", spec});
            QCOMPARE(r.status, 400);
            QCOMPARE(error(r).value("code").toString(), QStringLiteral("invalid_packages"));
            QVERIFY2(error(r).value("message").toString().contains("packages[1]"),
                     qPrintable(error(r).value("message").toString()));
        }
        QCOMPARE(revisionCount(), revisions);
    }

    void testAPackageTheRepositoryLacksFailsTheBuildAndKeepsTheRevision() {
        const QString current = environment().value("currentRevisionId").toString();
        const ApiResponse installed = install("install", {"rpkmissing"});
        QCOMPARE(installed.status, 202);
        QCOMPARE(waitUntilFinal(client(), installed.json().value("executionId").toString(), 180000)
                     .value("state")
                     .toString(),
                 QStringLiteral("failed"));
        QCOMPARE(environment().value("currentRevisionId").toString(), current);
        QVERIFY2(environment().value("lastBuildFailure").toString().contains("build ended"),
                 qPrintable(environment().value("lastBuildFailure").toString()));
    }

    void testAHostilePackageBuildLeavesNoTraceOnTheHost() {
        const ApiResponse installed = install("install", {"rpkhostile"});
        QCOMPARE(installed.status, 202);
        QCOMPARE(waitForBuild(installed.json().value("executionId").toString()),
                 QStringLiteral("completed"));
        m_buildWorkspace =
            executionRecord(client(), installed.json().value("executionId").toString())
                .value("workspace")
                .toString();
        // The revision is sealed: what the build made setuid or writable by others is not
        // (positive control: the modes it had in the build), and only the agent owns it.
        const QString prefix = m_agent.stateDir() + "/environments/" + m_envId + '/' +
                               installed.json().value("revisionId").toString();
        QFile modes(prefix + "/modes-in-build");
        QVERIFY(modes.open(QIODevice::ReadOnly));
        QCOMPARE(modes.readAll().trimmed().split('\n'), QList<QByteArray>({"6755", "777"}));
        struct stat agentSt {};
        QVERIFY(::stat(QFile::encodeName(m_agent.stateDir()).constData(), &agentSt) == 0);
        QDirIterator it(prefix,
                        QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                        QDirIterator::Subdirectories);
        int entries = 0;
        while (it.hasNext()) {
            const QString path = it.next();
            struct stat st {};
            QVERIFY(::lstat(QFile::encodeName(path).constData(), &st) == 0);
            ++entries;
            QCOMPARE(st.st_uid, agentSt.st_uid);
            if (!S_ISLNK(st.st_mode))
                QVERIFY2((st.st_mode & (S_ISUID | S_ISGID | S_IWGRP | S_IWOTH)) == 0,
                         qPrintable(QStringLiteral("%1 %2").arg(path).arg(st.st_mode, 0, 8)));
        }
        QVERIFY(entries > 10);
        struct stat envDir {};
        QVERIFY(::stat(QFile::encodeName(m_agent.stateDir() + "/environments").constData(),
                       &envDir) == 0);
        QCOMPARE(envDir.st_mode & 0777, mode_t(0711)); // no listing of ids
        // Its planted entries are in the build workspace until the next build empties it.
        QVERIFY(QFileInfo::exists(m_agent.workspaceDir(m_buildWorkspace) + "/planted/x"));
        // Positive control: its configure script ran, and could write its prefix.
        const ExecOutcome seen =
            m_agent.shell(m_ws, "cat /opt/science-env/configure-ran; wc -c < /opt/science-env/leak",
                          {{"environmentId", m_envId}});
        QCOMPARE(seen.stdoutText().trimmed().split('\n'), QStringList({"ran", "0"}));
        QVERIFY(!QFileInfo::exists(m_host.path() + "/canary"));
    }

    void testABuildFillingThePrefixStopsAtTheWorkspaceQuota() {
        const QString current = environment().value("currentRevisionId").toString();
        const QJsonValue before = client()
                                      .call("GET", "/v1/settings/quotas")
                                      .json()
                                      .value("quotas")
                                      .toObject()
                                      .value("maxWorkspaceBytes");
        QVERIFY(before.isDouble());
        QCOMPARE(client()
                     .call("PUT", "/v1/settings/quotas",
                           QJsonObject{{"maxWorkspaceBytes", 8 * 1024 * 1024}})
                     .status,
                 200);
        const ApiResponse installed = install("install", {"rpkbig"});
        QCOMPARE(installed.status, 202);
        const QJsonObject record =
            waitForBuildRecord(client(), installed.json().value("executionId").toString());
        QCOMPARE(client()
                     .call("PUT", "/v1/settings/quotas", QJsonObject{{"maxWorkspaceBytes", before}})
                     .status,
                 200);
        QCOMPARE(record.value("state").toString(), QStringLiteral("quota_exceeded"));
        QVERIFY2(record.value("statusReason").toString().contains("environment prefix"),
                 qPrintable(record.value("statusReason").toString()));
        QCOMPARE(environment().value("currentRevisionId").toString(), current);
        QVERIFY(!QFileInfo::exists(m_agent.stateDir() + "/environments/" + m_envId + '/' +
                                   installed.json().value("revisionId").toString()));
    }

    void testUninstallRebuildsWithoutThePackageAndItsDependency() {
        const ApiResponse unknown = install("uninstall", {"rpkz"});
        QCOMPARE(unknown.status, 400);
        QCOMPARE(error(unknown).value("code").toString(), QStringLiteral("package_not_requested"));
        const ApiResponse removed = install("uninstall", {"rpkb"});
        QCOMPARE(removed.status, 202);
        QCOMPARE(waitForBuild(removed.json().value("executionId").toString()),
                 QStringLiteral("completed"));
        // This build started from an emptied build workspace: the hostile package, built again,
        // found nothing of what it planted the first time (which was there: checked above).
        QVERIFY(!m_buildWorkspace.isEmpty());
        const ExecOutcome seen = m_agent.shell(m_ws,
                                               "cat /opt/science-env/configure-ran; "
                                               "wc -c < /opt/science-env/workspace-at-build",
                                               {{"environmentId", m_envId}});
        QCOMPARE(seen.stdoutText().trimmed().split('\n'), QStringList({"ran", "0"}));
        QCOMPARE(snapshotOf(removed.json().value("revisionId").toString()),
                 QStringList({"rpkhostile=1.0"}));
        const ExecOutcome gone =
            m_agent.exec(m_ws, {{"kind", "r"},
                                {"code", "cat(requireNamespace('rpkb', quietly = TRUE))"},
                                {"environmentId", m_envId}});
        QCOMPARE(gone.stdoutBytes, QByteArray("FALSE"));
    }

    /// A package with compiled code builds in the sandbox with the host's compiler and R's
    /// headers (r-base-dev, bound read-only with /usr) and runs from the environment.
    void testACompiledPackageBuildsAndRuns() {
        if (!compilerPresent())
            QSKIP("no C compiler or R headers on the host (install r-base-dev)");
        const ApiResponse created = client().call(
            "POST", "/v1/environments", QJsonObject{{"name", "r compiled"}, {"language", "r"}});
        QCOMPARE(created.status, 201);
        const QString envId = created.json().value("id").toString();
        QCOMPARE(waitForBuild(created.json().value("executionId").toString()),
                 QStringLiteral("completed"));
        const ApiResponse installed =
            client().call("POST", "/v1/environments/" + envId.toUtf8() + "/install",
                          QJsonObject{{"packages", QJsonArray{"rpkc"}}, {"manager", "cran"}});
        QCOMPARE(installed.status, 202);
        const QJsonObject build =
            waitForBuildRecord(client(), installed.json().value("executionId").toString());
        QVERIFY2(build.value("state").toString() == QLatin1String("completed"),
                 qPrintable(QJsonDocument(build).toJson()));
        const QString ws = m_agent.createWorkspace();
        const ExecOutcome answer = m_agent.exec(
            ws, {{"kind", "r"}, {"code", "cat(rpkc::answer_c())"}, {"environmentId", envId}});
        QVERIFY2(answer.status() == QLatin1String("completed"), qPrintable(answer.describe()));
        QCOMPARE(answer.stdoutBytes, QByteArray("4242"));
        // The shared object is in the read-only revision, not anywhere on the host's R.
        const ExecOutcome so =
            m_agent.shell(ws, "ls /opt/science-env/library/rpkc/libs/", {{"environmentId", envId}});
        QCOMPARE(so.stdoutText().trimmed(), QStringLiteral("rpkc.so"));
    }

private:
    static bool compilerPresent() {
        return QFileInfo(QStringLiteral("/usr/share/R/include/Rinternals.h")).exists() &&
               QFileInfo(QStringLiteral("/usr/bin/gcc")).isExecutable();
    }
};

QTEST_GUILESS_MAIN(TestScienceEnvironmentsR)
#include "test_science_environments_r.moc"
