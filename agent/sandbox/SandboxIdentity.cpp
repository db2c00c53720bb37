#include "agent/sandbox/SandboxIdentity.h"

#include "agent/config/StateDir.h"

#include <QDir>
#include <QRegularExpression>

#include <pwd.h>
#include <unistd.h>

namespace runbox::sandbox {

QString SandboxIdentity::write(const QString& dir) {
    if (!QDir().mkpath(dir))
        return QStringLiteral("cannot create %1").arg(dir);
    const uid_t uid = getuid();
    const gid_t gid = getgid();
    QString name;
    if (const passwd* pw = getpwuid(uid))
        name = QString::fromLocal8Bit(pw->pw_name);
    name.remove(QRegularExpression(QStringLiteral("[^A-Za-z0-9._-]")));
    if (name.isEmpty())
        name = QStringLiteral("runbox");
    const QByteArray passwdLine = QStringLiteral("%1:x:%2:%3:Runbox sandbox:/tmp:/bin/sh\n")
                                      .arg(name)
                                      .arg(uid)
                                      .arg(gid)
                                      .toUtf8();
    const QByteArray groupLine = QStringLiteral("%1:x:%2:\n").arg(name).arg(gid).toUtf8();
    QString error;
    if (!config::writeFileAtomically(passwdPath(dir), passwdLine, 0644, &error) ||
        !config::writeFileAtomically(groupPath(dir), groupLine, 0644, &error))
        return error;
    return {};
}

} // namespace runbox::sandbox
