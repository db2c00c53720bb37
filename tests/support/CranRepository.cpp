#include "support/CranRepository.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>

namespace runbox::testsupport {

namespace {

bool writeFile(const QString& path, const QString& text, bool executable = false) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(text.toUtf8()) != text.toUtf8().size())
        return false;
    f.close();
    return !executable ||
           f.setPermissions(f.permissions() | QFile::ExeOwner | QFile::ExeGroup | QFile::ExeOther);
}

bool run(const QString& program, const QStringList& args, const QString& cwd, QString* error) {
    QProcess p;
    p.setWorkingDirectory(cwd);
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(program, args);
    if (p.waitForFinished(120000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0)
        return true;
    *error =
        QStringLiteral("%1 %2: %3").arg(program, args.join(' '), QString::fromUtf8(p.readAll()));
    return false;
}

} // namespace

bool addRSourcePackage(const QString& repoDir, const RSourcePackage& package, QString* error) {
    QTemporaryDir work;
    const QString source = work.path() + '/' + package.name;
    const QString contrib = repoDir + QStringLiteral("/src/contrib");
    if (!work.isValid() || !QDir().mkpath(source + QStringLiteral("/R")) ||
        !QDir().mkpath(contrib)) {
        *error = QStringLiteral("cannot make the package's directories");
        return false;
    }
    QString description = QStringLiteral("Package: %1\nVersion: %2\nTitle: Test Package\n"
                                         "Description: A package of a Runbox test.\n"
                                         "License: MIT\nAuthor: Runbox\n"
                                         "Maintainer: Runbox <runbox@example.org>\n")
                              .arg(package.name, package.version);
    if (!package.imports.isEmpty())
        description += QStringLiteral("Imports: %1\n").arg(package.imports);
    QString nameSpace = QStringLiteral("exportPattern(\"^[a-z]\")\n");
    if (!package.cSource.isEmpty())
        nameSpace += QStringLiteral("useDynLib(%1)\n").arg(package.name);
    bool ok = writeFile(source + QStringLiteral("/DESCRIPTION"), description) &&
              writeFile(source + QStringLiteral("/NAMESPACE"), nameSpace) &&
              writeFile(source + QStringLiteral("/R/code.R"), package.code + '\n');
    if (ok && !package.cSource.isEmpty())
        ok = QDir().mkpath(source + QStringLiteral("/src")) &&
             writeFile(source + QStringLiteral("/src/%1.c").arg(package.name), package.cSource);
    if (ok && !package.configure.isEmpty())
        ok = writeFile(source + QStringLiteral("/configure"), package.configure, true);
    if (!ok) {
        *error = QStringLiteral("cannot write the package's files");
        return false;
    }
    const QString tarball = QStringLiteral("%1_%2.tar.gz").arg(package.name, package.version);
    if (!run(QStringLiteral("R"),
             {QStringLiteral("CMD"), QStringLiteral("build"),
              QStringLiteral("--no-build-vignettes"), QStringLiteral("--no-manual"), package.name},
             work.path(), error))
        return false;
    QFile::remove(contrib + '/' + tarball);
    if (!QFile::rename(work.path() + '/' + tarball, contrib + '/' + tarball)) {
        *error = QStringLiteral("cannot move %1 into %2").arg(tarball, contrib);
        return false;
    }
    if (!run(QStringLiteral("Rscript"),
             {QStringLiteral("--vanilla"), QStringLiteral("-e"),
              QStringLiteral("tools::write_PACKAGES('%1', type = 'source')").arg(contrib)},
             repoDir, error))
        return false;
    // The agent may run as another user: everything readable, directories searchable.
    for (const QString& dir : {repoDir, repoDir + QStringLiteral("/src"), contrib})
        QFile::setPermissions(dir, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner |
                                       QFile::ReadGroup | QFile::ExeGroup | QFile::ReadOther |
                                       QFile::ExeOther);
    QDirIterator files(contrib, QDir::Files);
    while (files.hasNext())
        QFile::setPermissions(files.next(), QFile::ReadOwner | QFile::WriteOwner |
                                                QFile::ReadGroup | QFile::ReadOther);
    return true;
}

} // namespace runbox::testsupport
