#include "agent/environments/RevisionFiles.h"

#include "agent/workspace/WorkspaceTreeWalker.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace runbox::environments::RevisionFiles {

namespace {

Error invalidSnapshot(const QString& message) {
    return Error{ErrorKind::InvalidArgument, QStringLiteral("invalid_snapshot"), message};
}

/// A directory entry of @p dirFd, opened without following a link (-1 when it is not one).
int openDirectoryAt(int dirFd, const char* name) {
    return ::openat(dirFd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/// The first @p maxBytes of regular file @p name in @p dirFd: never a link (O_NOFOLLOW), never
/// a FIFO or device left blocking (O_NONBLOCK, then S_ISREG).
bool readRegularFileAt(int dirFd, const char* name, qint64 maxBytes, QByteArray* out) {
    const int fd = ::openat(dirFd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return false;
    struct stat st {};
    bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    if (ok) {
        out->resize(qsizetype(std::min<qint64>(st.st_size, maxBytes)));
        qsizetype done = 0;
        while (done < out->size()) {
            const ssize_t n = ::read(fd, out->data() + done, size_t(out->size() - done));
            if (n <= 0)
                break;
            done += n;
        }
        out->resize(done);
    }
    ::close(fd);
    return ok;
}

/// The value of header @p key in RFC 822-style @p text (METADATA, DESCRIPTION), "" if absent.
QString headerValue(const QByteArray& text, const QByteArray& key) {
    for (const QByteArray& line : text.split('\n')) {
        if (line.trimmed().isEmpty())
            break; // the body starts
        if (line.startsWith(key + ':'))
            return QString::fromUtf8(line.mid(key.size() + 1).trimmed());
    }
    return {};
}

/// Calls @p visit(dirFd, name) for each entry of the directory open at @p dirFd whose name
/// @p accept takes; false when the directory could not be listed.
template <typename Accept, typename Visit>
bool forEachEntry(int dirFd, Accept accept, Visit visit) {
    const auto names = workspace::DirectoryNames::read(dirFd, QByteArray());
    if (!names)
        return false;
    workspace::DirectoryNames sorted = names.value();
    sorted.sort();
    for (qsizetype i = 0; i < sorted.size(); ++i)
        if (accept(QByteArray(sorted.at(i).data(), sorted.at(i).size())))
            visit(dirFd, sorted.cstr(i));
    return true;
}

struct Collector {
    QJsonArray* out;
    bool tooMany = false;
    void add(const QString& name, const QString& version) {
        if (name.isEmpty() || version.isEmpty())
            return;
        if (out->size() >= kMaxPackages) {
            tooMany = true;
            return;
        }
        out->append(QJsonObject{{"name", name}, {"version", version}});
    }
};

void readPython(int prefixFd, Collector* c) {
    const int lib = openDirectoryAt(prefixFd, "lib");
    if (lib < 0)
        return;
    forEachEntry(
        lib, [](const QByteArray& n) { return n.startsWith("python3"); },
        [c](int dir, const char* version) {
            const int pyDir = openDirectoryAt(dir, version);
            const int site = pyDir < 0 ? -1 : openDirectoryAt(pyDir, "site-packages");
            if (site >= 0)
                forEachEntry(
                    site, [](const QByteArray& n) { return n.endsWith(".dist-info"); },
                    [c](int siteFd, const char* info) {
                        const int infoFd = openDirectoryAt(siteFd, info);
                        QByteArray text;
                        if (infoFd >= 0 && readRegularFileAt(infoFd, "METADATA", 64 << 10, &text))
                            c->add(headerValue(text, "Name"), headerValue(text, "Version"));
                        if (infoFd >= 0)
                            ::close(infoFd);
                    });
            for (int fd : {site, pyDir})
                if (fd >= 0)
                    ::close(fd);
        });
    ::close(lib);
}

void readRLibrary(int prefixFd, Collector* c) {
    const int library = openDirectoryAt(prefixFd, "library");
    if (library < 0)
        return;
    forEachEntry(
        library, [](const QByteArray& n) { return !n.startsWith('.'); },
        [c](int dir, const char* package) {
            // An installed package, as installed.packages() counts them: DESCRIPTION and
            // Meta/package.rds.
            const int pkg = openDirectoryAt(dir, package);
            const int meta = pkg < 0 ? -1 : openDirectoryAt(pkg, "Meta");
            QByteArray text, rds;
            if (meta >= 0 && readRegularFileAt(meta, "package.rds", 1, &rds) &&
                readRegularFileAt(pkg, "DESCRIPTION", 64 << 10, &text))
                c->add(headerValue(text, "Package"), headerValue(text, "Version"));
            if (meta >= 0)
                ::close(meta);
            if (pkg >= 0)
                ::close(pkg);
        });
    ::close(library);
}

void readCondaMeta(int prefixFd, Collector* c) {
    const int meta = openDirectoryAt(prefixFd, "conda-meta");
    if (meta < 0)
        return;
    forEachEntry(
        meta, [](const QByteArray& n) { return n.endsWith(".json"); },
        [c](int dir, const char* file) {
            QByteArray text;
            if (!readRegularFileAt(dir, file, 16 << 20, &text))
                return;
            const QJsonObject o = QJsonDocument::fromJson(text).object();
            c->add(o.value(QLatin1String("name")).toString(),
                   o.value(QLatin1String("version")).toString());
        });
    ::close(meta);
}

} // namespace

std::optional<Error> seal(const QString& prefix) {
    const QByteArray path = QFile::encodeName(prefix);
    const int root = ::open(path.constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    const auto failed = [&](const QString& why) {
        return Error{ErrorKind::Internal, QStringLiteral("environment_seal_failed"),
                     QStringLiteral("cannot seal the prefix %1: %2").arg(prefix, why)};
    };
    if (root < 0)
        return failed(QString::fromLocal8Bit(std::strerror(errno)));
    const bool asRoot = ::geteuid() == 0;
    const uid_t uid = ::geteuid();
    const gid_t gid = ::getegid();
    QString problem;
    const auto fix = [&](int dirFd, const char* name, const struct stat& st) {
        if (asRoot && (st.st_uid != uid || st.st_gid != gid) &&
            ::fchownat(dirFd, name, uid, gid, AT_SYMLINK_NOFOLLOW) != 0)
            problem = QStringLiteral("chown: %1").arg(QString::fromLocal8Bit(std::strerror(errno)));
        if (S_ISLNK(st.st_mode))
            return;
        const mode_t mode = st.st_mode & 07777 & ~mode_t(S_ISUID | S_ISGID | S_IWGRP | S_IWOTH);
        if (mode != (st.st_mode & 07777) && ::fchmodat(dirFd, name, mode, 0) != 0)
            problem = QStringLiteral("chmod: %1").arg(QString::fromLocal8Bit(std::strerror(errno)));
    };
    workspace::WorkspaceTreeWalker::Options options;
    options.makeUnreadableDirectoriesAccessible = true; // a mode-000 directory left by the build
    const workspace::Status walked = workspace::WorkspaceTreeWalker::walk(
        root, options, [&](const workspace::WorkspaceTreeWalker::Entry& e) {
            fix(e.parentFd, e.name, *e.st);
            return workspace::WorkspaceTreeWalker::Action::Continue;
        });
    if (asRoot && ::fchown(root, uid, gid) != 0)
        problem = QStringLiteral("chown of the prefix");
    if (::fchmod(root, 0755) != 0)
        problem = QStringLiteral("chmod of the prefix");
    ::close(root);
    if (!walked)
        return failed(walked.error().message);
    if (!problem.isEmpty())
        return failed(problem);
    return std::nullopt;
}

std::optional<Error> installedPackages(const QString& prefix, PackageLayout layout,
                                       QJsonArray* out) {
    const int root = ::open(QFile::encodeName(prefix).constData(),
                            O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (root < 0)
        return invalidSnapshot(QStringLiteral("the prefix cannot be opened"));
    QJsonArray packages;
    Collector collector{&packages};
    switch (layout) {
    case PackageLayout::PythonSitePackages:
        readPython(root, &collector);
        break;
    case PackageLayout::RLibrary:
        readRLibrary(root, &collector);
        break;
    case PackageLayout::CondaMeta:
        readCondaMeta(root, &collector);
        break;
    }
    ::close(root);
    if (collector.tooMany)
        return invalidSnapshot(
            QStringLiteral("the prefix has more than %1 packages").arg(kMaxPackages));
    *out = packages;
    return std::nullopt;
}

} // namespace runbox::environments::RevisionFiles
