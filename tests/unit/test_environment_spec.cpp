// What a client may ask of a science environment (docs/environments.md "Validation") and the
// package snapshot's hash check ("Snapshot"). Each refusal list starts with accepted specs.
#include "agent/environments/EnvironmentSnapshot.h"
#include "agent/environments/EnvironmentSpec.h"
#include "agent/environments/EnvironmentStage.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

using namespace runbox;
using namespace runbox::environments;

class TestEnvironmentSpec final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void testNamesAndVersionConstraintsAreAccepted() {
        for (const char* spec :
             {"numpy", "pandas>=2,<3", "scikit-learn==1.4.2", "a", "Pkg_b.c",
              "requests[socks,security]>=2.31", "x ~= 1.2", "y===1.0+local", "z!=1.*"}) {
            QString why;
            QVERIFY2(!EnvironmentSpec::normalisePackage(QString::fromLatin1(spec), &why).isEmpty(),
                     qPrintable(QStringLiteral("%1: %2").arg(QLatin1String(spec), why)));
        }
    }

    void testOptionsPathsUrlsAndMarkersAreRefused() {
        for (const char* spec :
             {"--extra-index-url=https://evil.example/simple", "-e .", "-r req.txt", "../x",
              "./pkg", "/tmp/x.whl", "https://evil.example/x.whl", "pkg @ file:///x",
              "pkg; os_name=='posix'", "pkg>=1 --index-url x", "pkg\n--pre", "", "  ", "pkg==", "-",
              "pkg$(id)", "pkg`id`", "C:\\x"}) {
            QString why;
            QVERIFY2(EnvironmentSpec::normalisePackage(QString::fromLatin1(spec), &why).isEmpty(),
                     spec);
            QVERIFY(!why.isEmpty());
        }
        QString why;
        QVERIFY(EnvironmentSpec::normalisePackage(QString(160, 'a'), &why).size() == 160);
        QVERIFY(EnvironmentSpec::normalisePackage(QString(161, 'a'), &why).isEmpty());
    }

    void testPackagesFieldNamesTheItem() {
        QStringList out;
        QVERIFY(!EnvironmentSpec::checkPackages(QJsonArray{"a", "b>=1"}, &out));
        QCOMPARE(out, QStringList({"a", "b>=1"}));
        const auto err = EnvironmentSpec::checkPackages(QJsonArray{"a", "-e ."}, &out);
        QVERIFY(err);
        QCOMPARE(err->kind, ErrorKind::InvalidArgument);
        QCOMPARE(err->code, QStringLiteral("invalid_packages"));
        QVERIFY2(err->message.startsWith("packages[1]"), qPrintable(err->message));
        QVERIFY(EnvironmentSpec::checkPackages(QJsonArray{}, &out));
        QVERIFY(EnvironmentSpec::checkPackages(QJsonArray{1}, &out));
        QVERIFY(EnvironmentSpec::checkPackages(QJsonValue("a"), &out));
    }

    void testPackagesNamedAgainTakeTheirNewConstraint() {
        QCOMPARE(EnvironmentSpec::packageName("Foo_Bar.baz[x]>=1"), QStringLiteral("foo-bar-baz"));
        QCOMPARE(EnvironmentSpec::mergePackages({"pkgb", "pkga==2.0"}, {"PKGA==1.0", "numpy"}),
                 QStringList({"pkgb", "PKGA==1.0", "numpy"}));
        QCOMPARE(EnvironmentSpec::mergePackages({}, {"a", "b"}), QStringList({"a", "b"}));
        // R names are compared as they are (R is case-sensitive).
        QCOMPARE(EnvironmentSpec::mergePackages({"Rcpp", "data.table"}, {"rcpp", "data.table"},
                                                EnvironmentSpec::Grammar::Cran),
                 QStringList({"Rcpp", "data.table", "rcpp"}));
    }

    void testUninstallTakesOutOnlyRequestedPackages() {
        QStringList out;
        QVERIFY(!EnvironmentSpec::removePackages({"pkgb", "pkga==1.0"}, {"PKGA"},
                                                 EnvironmentSpec::Grammar::Pip, &out));
        QCOMPARE(out, QStringList({"pkgb"}));
        const auto err = EnvironmentSpec::removePackages({"pkgb"}, {"pkgb", "numpy"},
                                                         EnvironmentSpec::Grammar::Pip, &out);
        QVERIFY(err);
        QCOMPARE(err->code, QStringLiteral("package_not_requested"));
        QVERIFY2(err->message.contains("packages[1]"), qPrintable(err->message));
        QCOMPARE(out, QStringList({"pkgb"})); // unchanged
        QVERIFY(EnvironmentSpec::removePackages({"Rcpp"}, {"rcpp"}, EnvironmentSpec::Grammar::Cran,
                                                &out));
    }

    /// Inputs an attack on the environments found accepted.
    void testSpecsAnAttackFoundAcceptedAreRefused() {
        QString why;
        // pip reads these as file names in its current directory.
        for (const char* bad : {"pkga-1.0-py3-none-any.whl", "x.tar.gz", "x.zip", "pkga.WHL",
                                "pkga[x,--y]", "pkga[-y]"}) {
            why.clear();
            QVERIFY2(EnvironmentSpec::normalisePackage(QString::fromLatin1(bad), &why).isEmpty(),
                     bad);
        }
        QVERIFY(!EnvironmentSpec::normalisePackage("zope.interface>=5", &why).isEmpty());
        QVERIFY(!EnvironmentSpec::normalisePackage("pkga[x,y]", &why).isEmpty());
        // A name ending in a newline passed the pattern's $.
        QCOMPARE(EnvironmentSpec::checkName(QJsonValue("lookalike\n"))->code,
                 QStringLiteral("invalid_environment_name"));
        QVERIFY(EnvironmentSpec::normaliseRPackage("rpka\nx", &why).isEmpty());
    }

    void testCondaSpecs() {
        QString why;
        for (const char* good : {"numpy", "numpy=1.26", "numpy=1.26=py311h0", "scipy>=1.11,<2",
                                 "r-base", "_libgcc_mutex", "python==3.11.*", "libstdcxx-ng"})
            QVERIFY2(
                !EnvironmentSpec::normaliseCondaPackage(QString::fromLatin1(good), &why).isEmpty(),
                good);
        for (const char* bad :
             {"conda-forge::numpy", "--override-channels", "-c", "./numpy.tar.bz2",
              "https://x.example/numpy.conda", "numpy[version='>1']", "numpy 1.26",
              "numpy=1.26; id", "/opt/x", "numpy@1", "", "numpy=", "numpy>=1,"}) {
            why.clear();
            QVERIFY2(
                EnvironmentSpec::normaliseCondaPackage(QString::fromLatin1(bad), &why).isEmpty(),
                bad);
            QVERIFY(!why.isEmpty());
        }
        QCOMPARE(EnvironmentSpec::packageName("NumPy=1.26", EnvironmentSpec::Grammar::Conda),
                 QStringLiteral("numpy"));
        QCOMPARE(EnvironmentSpec::mergePackages({"python", "numpy=1.25"}, {"numpy>=1.26"},
                                                EnvironmentSpec::Grammar::Conda),
                 QStringList({"python", "numpy>=1.26"}));
    }

    void testRPackageNames() {
        QString why;
        for (const char* good : {"rpka", "data.table", "Rcpp", "R6", "ggplot2", "  x1  "})
            QVERIFY2(!EnvironmentSpec::normaliseRPackage(QString::fromLatin1(good), &why).isEmpty(),
                     good);
        for (const char* bad :
             {"a", "1abc", ".hidden", "abc.", "rpkb (>= 1.0)", "rpkb>=1", "../x", "-e",
              "file:///x.tar.gz", "a_b", "x'); system('id", "rpkb==1.0", "a b"}) {
            why.clear();
            QVERIFY2(EnvironmentSpec::normaliseRPackage(QString::fromLatin1(bad), &why).isEmpty(),
                     bad);
            QVERIFY(!why.isEmpty());
        }
        QStringList out;
        QVERIFY(!EnvironmentSpec::checkPackages(QJsonArray{"rpka", "data.table"}, &out,
                                                EnvironmentSpec::Grammar::Cran));
        QVERIFY(EnvironmentSpec::checkPackages(QJsonArray{"numpy>=1"}, &out,
                                               EnvironmentSpec::Grammar::Cran));
        QVERIFY(!EnvironmentSpec::checkPackages(QJsonArray{"numpy>=1"}, &out));
    }

    void testEnvironmentNames() {
        QVERIFY(!EnvironmentSpec::checkName(QJsonValue("sci env 1.0_a-b")));
        for (const QJsonValue& bad :
             {QJsonValue(""), QJsonValue(" x"), QJsonValue(".x"), QJsonValue("a/b"),
              QJsonValue(QString(81, 'a')), QJsonValue(3)})
            QCOMPARE(EnvironmentSpec::checkName(bad)->code,
                     QStringLiteral("invalid_environment_name"));
        QVERIFY(!EnvironmentSpec::checkName(QJsonValue(QString(80, 'a'))));
    }

    void testLanguageAndProvisioner() {
        QVERIFY(!EnvironmentSpec::checkLanguage(QJsonValue("python")));
        QVERIFY(!EnvironmentSpec::checkLanguage(QJsonValue("r")));
        QCOMPARE(EnvironmentSpec::checkLanguage(QJsonValue("julia"))->code,
                 QStringLiteral("invalid_language"));
        QString p;
        QVERIFY(!EnvironmentSpec::checkProvisioner(QJsonValue(), "python", &p));
        QCOMPARE(p, QStringLiteral("venv"));
        QVERIFY(!EnvironmentSpec::checkProvisioner(QJsonValue(), "r", &p));
        QCOMPARE(p, QStringLiteral("r-lib"));
        QVERIFY(!EnvironmentSpec::checkProvisioner(QJsonValue("r-lib"), "r", &p));
        QVERIFY(!EnvironmentSpec::checkProvisioner(QJsonValue("micromamba"), "python", &p));
        QCOMPARE(p, QStringLiteral("micromamba"));
        QVERIFY(!EnvironmentSpec::checkProvisioner(QJsonValue("micromamba"), "r", &p));
        QCOMPARE(EnvironmentSpec::checkProvisioner(QJsonValue("conda"), "python", &p)->code,
                 QStringLiteral("invalid_provisioner"));
        QCOMPARE(EnvironmentSpec::checkProvisioner(QJsonValue("venv"), "r", &p)->code,
                 QStringLiteral("invalid_provisioner"));
        QCOMPARE(EnvironmentSpec::checkProvisioner(QJsonValue("r-lib"), "python", &p)->code,
                 QStringLiteral("invalid_provisioner"));
    }

    void testSnapshotIsCanonicalAndItsHashIsChecked() {
        EnvironmentSnapshot a, b;
        QVERIFY(!EnvironmentSnapshot::fromPipList(
            R"([{"name":"pkgb","version":"1.0"},{"name":"Pip","version":"23.0","x":1}])", &a));
        QVERIFY(!EnvironmentSnapshot::fromPipList(
            R"([{"name":"Pip","version":"23.0"},{"name":"pkgb","version":"1.0"}])", &b));
        QCOMPARE(a.json, b.json); // order and extra members do not matter
        QCOMPARE(
            a.json,
            QByteArray(R"([{"name":"Pip","version":"23.0"},{"name":"pkgb","version":"1.0"}])"));
        QJsonArray packages;
        QVERIFY(!EnvironmentSnapshot::verify(a.json, a.sha256, &packages)); // positive control
        QCOMPARE(packages.size(), 2);
        QByteArray tampered = a.json;
        tampered.replace("1.0", "6.6");
        const auto err = EnvironmentSnapshot::verify(tampered, a.sha256, &packages);
        QVERIFY(err);
        QCOMPARE(err->code, QStringLiteral("snapshot_corrupt"));
        QVERIFY(EnvironmentSnapshot::fromPipList("{}", &a));
        QVERIFY(EnvironmentSnapshot::fromPipList(R"([{"name":1}])", &a));
        QVERIFY(EnvironmentSnapshot::fromPipList(QByteArray(100, '['), &a, 10));
    }

    void testHostInterpretersAreRegularFilesAndLinkTargets() {
        QTemporaryDir dir;
        const QString bin = dir.path();
        auto touch = [&](const QString& name) {
            QFile f(bin + '/' + name);
            QVERIFY(f.open(QIODevice::WriteOnly));
        };
        touch("python3.11");
        touch("pip3");
        touch("ls");
        touch("R");
        touch("Rscript");
        touch("Rprof");                                         // not an interpreter
        QVERIFY(QFile::link("python3.11", bin + "/python3"));   // relative, in the dir
        QVERIFY(QFile::link("/etc/hostname", bin + "/python")); // outside /usr: not masked
        QVERIFY(QDir(bin).mkdir("pip-dir"));
        const QStringList masked = EnvironmentStage::hostInterpreters(bin);
        QVERIFY2(masked.contains(bin + "/python3.11") && masked.contains(bin + "/pip3"),
                 qPrintable(masked.join(' ')));
        QVERIFY(!masked.contains(bin + "/ls"));
        QVERIFY(masked.contains(bin + "/R") && masked.contains(bin + "/Rscript"));
        QVERIFY(!masked.contains(bin + "/Rprof"));
        QVERIFY(!masked.contains(bin + "/python3")); // a link: its target is masked instead
        QVERIFY(!masked.contains("/etc/hostname"));
        QVERIFY(!masked.contains(bin + "/pip-dir"));
        // On this host: the real interpreter is among them.
        QVERIFY(EnvironmentStage::hostInterpreters().contains(
            QFileInfo("/usr/bin/python3").canonicalFilePath()));
    }
};

QTEST_GUILESS_MAIN(TestEnvironmentSpec)
#include "test_environment_spec.moc"
