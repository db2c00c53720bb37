#include "agent/sandbox/SandboxIdentity.h"

#include <QRegularExpression>

#include <pwd.h>
#include <unistd.h>

namespace runbox::sandbox {

SandboxIdentity::Entry SandboxIdentity::forAgent() {
    Entry entry;
    entry.uid = ::getuid();
    QString name;
    if (const struct ::passwd* pw = ::getpwuid(entry.uid))
        name = QString::fromLocal8Bit(pw->pw_name);
    name.remove(QRegularExpression(QStringLiteral("[^A-Za-z0-9._-]")));
    if (!name.isEmpty())
        entry.name = name;
    return entry;
}

QByteArray SandboxIdentity::passwd(const Entry& entry) {
    return QStringLiteral("%1:x:%2:%2:Runbox sandbox:/tmp:/bin/sh\n")
        .arg(entry.name)
        .arg(entry.uid)
        .toUtf8();
}

QByteArray SandboxIdentity::group(const Entry& entry) {
    return QStringLiteral("%1:x:%2:\n").arg(entry.name).arg(entry.uid).toUtf8();
}

} // namespace runbox::sandbox
