// Uploaded wheels of science environments (docs/environments.md "Uploaded wheels"): which file
// names count as wheels (PyPA "Binary distribution format"), how a revision's wheels merge, how a
// spec's list is read back, and the copy into the store (by SHA-256, never through a link).
#include "agent/environments/UploadedWheels.h"
#include "agent/workspace/WorkspaceFs.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace runbox;
using namespace runbox::environments;

class TestUploadedWheels final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void testWheelFileNames() {
        for (const char* name :
             {"pkgc-1.0-py3-none-any.whl", "numpy-1.26.4-cp311-cp311-manylinux_2_17_x86_64.whl",
              "My_Pkg-2.0.post1-1build-py2.py3-none-any.whl", "a-1!2.0+local.7-py3-none-any.whl"})
            QVERIFY2(UploadedWheels::isWheelFileName(QLatin1String(name)), name);
        for (const char* name :
             {"", "pkgc-1.0.whl", "pkgc-1.0-py3-none-any.zip", "-x-1.0-py3-none-any.whl",
              "--index-url=x-1-py3-none-any.whl", "../pkgc-1.0-py3-none-any.whl",
              "dist/pkgc-1.0-py3-none-any.whl", "pkg c-1.0-py3-none-any.whl",
              "pkgc-1.0-xbuild-py3-none-any.whl", ".pkgc-1.0-py3-none-any.whl"})
            QVERIFY2(!UploadedWheels::isWheelFileName(QLatin1String(name)), name);
    }

    void testAWheelOfTheSameProjectReplacesTheStoredOne() {
        const QString a(64, QLatin1Char('a')), b(64, QLatin1Char('b')), c(64, QLatin1Char('c'));
        const QList<UploadedWheels::Wheel> base{{"My.Pkg-1.0-py3-none-any.whl", a},
                                                {"other-1.0-py3-none-any.whl", b}};
        const auto merged = UploadedWheels::merge(
            base, {{"my_pkg-2.0-py3-none-any.whl", c}, {"third-1.0-py3-none-any.whl", a}});
        QCOMPARE(merged.size(), 3);
        QCOMPARE(merged.at(0).file, QStringLiteral("my_pkg-2.0-py3-none-any.whl"));
        QCOMPARE(merged.at(0).project(), QStringLiteral("my-pkg"));
        QCOMPARE(merged.at(1).file, QStringLiteral("other-1.0-py3-none-any.whl"));
        QCOMPARE(merged.at(2).buildPath(),
                 QStringLiteral("/opt/uploaded-wheels/") + a + "/third-1.0-py3-none-any.whl");
    }

    void testASpecReadsBackOnlyWellFormedWheels() {
        const QList<UploadedWheels::Wheel> wheels{
            {"pkgc-1.0-py3-none-any.whl", QString(64, QLatin1Char('0'))}};
        QJsonArray array = UploadedWheels::toJson(wheels);
        array.append(
            QJsonObject{{"file", "../x-1.0-py3-none-any.whl"}, {"sha256", QString(64, '1')}});
        array.append(QJsonObject{{"file", "y-1.0-py3-none-any.whl"}, {"sha256", "short"}});
        array.append(QStringLiteral("z-1.0-py3-none-any.whl"));
        const auto read = UploadedWheels::fromJson(array);
        QCOMPARE(read.size(), 1);
        QCOMPARE(read.at(0).file, wheels.at(0).file);
    }

    void testImportCopiesByHashAndRefusesLinks() {
        QTemporaryDir root, store;
        QVERIFY(root.isValid() && store.isValid());
        QVERIFY(QDir(root.path()).mkdir("dist"));
        QFile wheel(root.filePath("dist/pkgc-1.0-py3-none-any.whl"));
        const QByteArray bytes = "not really a zip, but bytes all the same";
        QVERIFY(wheel.open(QIODevice::WriteOnly) && wheel.write(bytes) == bytes.size());
        wheel.close();
        QVERIFY(QFile::link(root.filePath("dist/pkgc-1.0-py3-none-any.whl"),
                            root.filePath("dist/link-1.0-py3-none-any.whl")));
        auto fs = workspace::WorkspaceFs::open(root.path());
        QVERIFY(fs.ok());
        UploadedWheels::Wheel out;
        QVERIFY(!UploadedWheels::import(fs.value(), "dist/pkgc-1.0-py3-none-any.whl",
                                        store.filePath("w"), &out)); // positive control
        const QString sha = QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
        QCOMPARE(out.sha256, sha);
        QFile stored(store.filePath("w/" + sha + "/pkgc-1.0-py3-none-any.whl"));
        QVERIFY(stored.open(QIODevice::ReadOnly));
        QCOMPARE(stored.readAll(), bytes);
        // Importing the same bytes again is fine and leaves one copy.
        QVERIFY(!UploadedWheels::import(fs.value(), "dist/pkgc-1.0-py3-none-any.whl",
                                        store.filePath("w"), &out));
        QCOMPARE(QDir(store.filePath("w"))
                     .entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
                 QStringList{sha});
        const auto link = UploadedWheels::import(fs.value(), "dist/link-1.0-py3-none-any.whl",
                                                 store.filePath("w"), &out);
        QVERIFY(link);
        QCOMPARE(link->code, QStringLiteral("symlink_not_followed"));
        // A sparse file (40 KiB of disk became 2 GiB in the store when it was copied dense).
        QFile sparse(root.filePath("dist/holes-1.0-py3-none-any.whl"));
        QVERIFY(sparse.open(QIODevice::WriteOnly) && sparse.resize(32 << 20) &&
                sparse.putChar('x'));
        sparse.close();
        const auto holes = UploadedWheels::import(fs.value(), "dist/holes-1.0-py3-none-any.whl",
                                                  store.filePath("w"), &out);
        QVERIFY(holes);
        QCOMPARE(holes->code, QStringLiteral("invalid_wheels"));
        const auto traversal = UploadedWheels::import(fs.value(), "../pkgc-1.0-py3-none-any.whl",
                                                      store.filePath("w"), &out);
        QVERIFY(traversal);
        QCOMPARE(traversal->code, QStringLiteral("invalid_path"));
    }
};

QTEST_GUILESS_MAIN(TestUploadedWheels)
#include "test_uploaded_wheels.moc"
