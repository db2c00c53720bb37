#include "agent/environments/UploadedWheels.h"

#include "agent/workspace/WorkspaceFs.h"
#include "agent/workspace/WorkspacePath.h"
#include "shared/Crypto.h"

#include <QDir>
#include <QFile>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryFile>

#include <sys/stat.h>

namespace runbox::environments::UploadedWheels {

namespace {

Error storeFailed(const QString& message) {
    return Error{ErrorKind::Internal, QStringLiteral("wheel_store_failed"), message};
}

} // namespace

QString Wheel::project() const {
    static const QRegularExpression separators(QStringLiteral("[-_.]+"));
    return file.section(QLatin1Char('-'), 0, 0).toLower().replace(separators, QStringLiteral("-"));
}

QString Wheel::buildPath() const {
    return QStringLiteral("%1/%2/%3").arg(QLatin1String(kBuildMount), sha256, file);
}

bool isWheelFileName(const QString& name) {
    static const QRegularExpression wheel(
        QStringLiteral("^[A-Za-z0-9](?:[A-Za-z0-9_.]*[A-Za-z0-9])?"    // distribution
                       "-[A-Za-z0-9_.!+]+"                             // version
                       "(?:-[0-9][A-Za-z0-9_.]*)?"                     // build tag
                       "-[A-Za-z0-9_.]+-[A-Za-z0-9_.]+-[A-Za-z0-9_.]+" // python, abi, platform
                       "\\.whl$"));
    return name.size() <= 255 && wheel.match(name).hasMatch();
}

std::optional<Error> import(const workspace::WorkspaceFs& fs, const QString& path,
                            const QString& storeDir, Wheel* out) {
    const workspace::Result<workspace::WorkspacePath> parsed =
        workspace::WorkspacePath::fromPlain(path.toUtf8());
    if (!parsed)
        return parsed.error();
    const QString file = path.section(QLatin1Char('/'), -1);
    if (!isWheelFileName(file))
        return Error{ErrorKind::InvalidArgument, QStringLiteral("invalid_wheels"),
                     QStringLiteral("wheels: %1 is not a wheel file name "
                                    "(NAME-VERSION-PYTHON-ABI-PLATFORM.whl)")
                         .arg(file)};
    workspace::Result<workspace::ReadHandle> handle = fs.openForRead(parsed.value());
    if (!handle)
        return handle.error();
    if (handle->info.size > kMaxWheelBytes)
        return Error{ErrorKind::TooLarge, QStringLiteral("wheel_too_large"),
                     QStringLiteral("wheels: %1 is %2 bytes; a wheel may have %3")
                         .arg(path)
                         .arg(handle->info.size)
                         .arg(kMaxWheelBytes)};
    // A zip archive is written whole; one mostly made of holes would be copied dense into the
    // host's store (40 KiB of workspace disk became 2 GiB there).
    if (handle->info.allocatedBytes + 65536 < handle->info.size)
        return Error{ErrorKind::InvalidArgument, QStringLiteral("invalid_wheels"),
                     QStringLiteral("wheels: %1 is a sparse file (%2 of its %3 bytes allocated), "
                                    "which no wheel is")
                         .arg(path)
                         .arg(handle->info.allocatedBytes)
                         .arg(handle->info.size)};
    if (!QDir().mkpath(storeDir) || ::chmod(QFile::encodeName(storeDir).constData(), 0755) != 0)
        return storeFailed(QStringLiteral("cannot make the wheel store %1").arg(storeDir));
    QTemporaryFile copy(storeDir + QStringLiteral("/.import-XXXXXX"));
    if (!copy.open())
        return storeFailed(QStringLiteral("cannot write into the wheel store %1").arg(storeDir));
    crypto::Sha256Stream sha;
    QByteArray buffer(1 << 20, Qt::Uninitialized);
    qint64 offset = 0;
    for (;;) {
        const qint64 n = handle->readAt(offset, buffer.data(), buffer.size());
        if (n < 0)
            return storeFailed(QStringLiteral("cannot read %1 in the workspace").arg(path));
        if (n == 0)
            break;
        offset += n;
        if (offset > kMaxWheelBytes)
            return Error{ErrorKind::TooLarge, QStringLiteral("wheel_too_large"),
                         QStringLiteral("wheels: %1 grew past %2 bytes while it was read")
                             .arg(path)
                             .arg(kMaxWheelBytes)};
        sha.addData(buffer.constData(), n);
        if (copy.write(buffer.constData(), n) != n)
            return storeFailed(QStringLiteral("cannot write %1 into the wheel store").arg(path));
    }
    if (!copy.flush() || ::fsync(copy.handle()) != 0 || ::fchmod(copy.handle(), 0644) != 0)
        return storeFailed(QStringLiteral("cannot write %1 into the wheel store").arg(path));
    Wheel wheel{file, QString::fromLatin1(sha.finalHex())};
    const QString dir = storeDir + QLatin1Char('/') + wheel.sha256;
    const QString target = dir + QLatin1Char('/') + file;
    if (!QFileInfo::exists(target)) { // the same bytes under the same name: stored already
        if (!QDir().mkpath(dir) || ::chmod(QFile::encodeName(dir).constData(), 0755) != 0 ||
            !copy.rename(target))
            return storeFailed(QStringLiteral("cannot store %1 as %2").arg(path, target));
        copy.setAutoRemove(false);
    }
    *out = wheel;
    return std::nullopt;
}

QList<Wheel> merge(const QList<Wheel>& base, const QList<Wheel>& added) {
    QList<Wheel> out = base;
    for (const Wheel& wheel : added) {
        qsizetype at = -1;
        for (qsizetype i = 0; i < out.size() && at < 0; ++i)
            if (out.at(i).project() == wheel.project())
                at = i;
        if (at >= 0)
            out[at] = wheel;
        else
            out.append(wheel);
    }
    return out;
}

QJsonArray toJson(const QList<Wheel>& wheels) {
    QJsonArray array;
    for (const Wheel& w : wheels)
        array.append(QJsonObject{{"file", w.file}, {"sha256", w.sha256}});
    return array;
}

QList<Wheel> fromJson(const QJsonArray& array) {
    QList<Wheel> out;
    for (const QJsonValue& v : array) {
        const Wheel w{v.toObject().value(QLatin1String("file")).toString(),
                      v.toObject().value(QLatin1String("sha256")).toString()};
        if (isWheelFileName(w.file) && crypto::isHex(w.sha256.toLatin1(), 64))
            out.append(w);
    }
    return out;
}

} // namespace runbox::environments::UploadedWheels
