#include "agent/environments/RevisionFiles.h"

#include "agent/workspace/WorkspaceFs.h"
#include "agent/workspace/WorkspacePath.h"
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

/// The entries of directory @p rel of @p fs, every page, in name order (empty when it is not
/// a directory: the file layer refuses links and other types).
QList<workspace::FileInfo> entriesOf(const workspace::WorkspaceFs& fs, const QByteArray& rel) {
    QList<workspace::FileInfo> out;
    const auto path = workspace::WorkspacePath::fromPlain(rel);
    if (!path)
        return out;
    qint64 offset = 0;
    while (offset >= 0) {
        const auto page = fs.list(path.value(), offset, workspace::WorkspaceFs::kMaxListLimit);
        if (!page)
            break;
        out += page->entries;
        offset = page->nextOffset;
    }
    return out;
}

/// The first @p maxBytes of regular file @p rel of @p fs (WorkspaceFs::openForRead: no link
/// followed, no FIFO or device opened); false when it is not one.
bool readHead(const workspace::WorkspaceFs& fs, const QByteArray& rel, qint64 maxBytes,
              QByteArray* out) {
    const auto path = workspace::WorkspacePath::fromPlain(rel);
    if (!path)
        return false;
    const auto handle = fs.openForRead(path.value());
    if (!handle)
        return false;
    out->resize(qsizetype(std::min(handle->info.size, maxBytes)));
    const qint64 n = handle->readAt(0, out->data(), out->size());
    out->resize(qsizetype(std::max<qint64>(n, 0)));
    return n >= 0;
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

bool isDirectory(const workspace::FileInfo& e) {
    return e.type == workspace::FileType::Directory;
}

void readPython(const workspace::WorkspaceFs& fs, Collector* c) {
    for (const workspace::FileInfo& py : entriesOf(fs, "lib")) {
        if (!isDirectory(py) || !py.name.startsWith("python3"))
            continue;
        const QByteArray site = "lib/" + py.name + "/site-packages";
        for (const workspace::FileInfo& info : entriesOf(fs, site)) {
            QByteArray text;
            if (isDirectory(info) && info.name.endsWith(".dist-info") &&
                readHead(fs, site + '/' + info.name + "/METADATA", 64 << 10, &text))
                c->add(headerValue(text, "Name"), headerValue(text, "Version"));
        }
    }
}

void readRLibrary(const workspace::WorkspaceFs& fs, Collector* c) {
    // An installed package, as installed.packages() counts them: DESCRIPTION and
    // Meta/package.rds.
    for (const workspace::FileInfo& pkg : entriesOf(fs, "library")) {
        const QByteArray dir = "library/" + pkg.name;
        QByteArray text, rds;
        if (isDirectory(pkg) && !pkg.name.startsWith('.') &&
            readHead(fs, dir + "/Meta/package.rds", 1, &rds) &&
            readHead(fs, dir + "/DESCRIPTION", 64 << 10, &text))
            c->add(headerValue(text, "Package"), headerValue(text, "Version"));
    }
}

void readCondaMeta(const workspace::WorkspaceFs& fs, Collector* c) {
    for (const workspace::FileInfo& record : entriesOf(fs, "conda-meta")) {
        QByteArray text;
        if (record.type != workspace::FileType::File || !record.name.endsWith(".json") ||
            !readHead(fs, "conda-meta/" + record.name, 16 << 20, &text))
            continue;
        const QJsonObject o = QJsonDocument::fromJson(text).object();
        c->add(o.value(QLatin1String("name")).toString(),
               o.value(QLatin1String("version")).toString());
    }
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
    const auto fs = workspace::WorkspaceFs::open(prefix);
    if (!fs)
        return invalidSnapshot(QStringLiteral("the prefix cannot be opened"));
    QJsonArray packages;
    Collector collector{&packages};
    switch (layout) {
    case PackageLayout::PythonSitePackages:
        readPython(fs.value(), &collector);
        break;
    case PackageLayout::RLibrary:
        readRLibrary(fs.value(), &collector);
        break;
    case PackageLayout::CondaMeta:
        readCondaMeta(fs.value(), &collector);
        break;
    }
    if (collector.tooMany)
        return invalidSnapshot(
            QStringLiteral("the prefix has more than %1 packages").arg(kMaxPackages));
    *out = packages;
    return std::nullopt;
}

} // namespace runbox::environments::RevisionFiles
