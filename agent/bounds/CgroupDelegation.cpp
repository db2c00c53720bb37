#include "agent/bounds/CgroupDelegation.h"

#include "agent/bounds/CgroupFile.h"

#include <QDir>
#include <QFile>

#include <unistd.h>

namespace runbox::bounds {

namespace {

/// mountinfo escapes space, tab, newline and backslash as \ooo (proc(5)).
QString decodeMountField(const QByteArray& field) {
    QByteArray out;
    for (qsizetype i = 0; i < field.size(); ++i) {
        if (field[i] == '\\' && i + 3 < field.size()) {
            bool ok = false;
            const int code = field.mid(i + 1, 3).toInt(&ok, 8);
            if (ok) {
                out += char(code);
                i += 3;
                continue;
            }
        }
        out += field[i];
    }
    return QString::fromUtf8(out);
}

} // namespace

QString CgroupDelegation::cgroup2MountOf(const QByteArray& mountinfo) {
    // "36 35 0:30 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw": the fields after " - " are
    // fstype, source, super options; field 5 is the mount point.
    for (const QByteArray& line : mountinfo.split('\n')) {
        const qsizetype dash = line.indexOf(" - ");
        if (dash < 0)
            continue;
        const QList<QByteArray> tail = line.mid(dash + 3).split(' ');
        const QList<QByteArray> head = line.left(dash).split(' ');
        if (!tail.isEmpty() && tail[0] == "cgroup2" && head.size() >= 5)
            return decodeMountField(head[4]);
    }
    return {};
}

QString CgroupDelegation::unifiedPathOf(const QByteArray& procCgroup) {
    for (const QByteArray& line : procCgroup.split('\n')) {
        if (line.startsWith("0::"))
            return QString::fromUtf8(line.mid(3));
    }
    return {};
}

CgroupDelegation CgroupDelegation::detect(const CgroupPaths& paths) {
    CgroupDelegation d;
    const QString mount = !paths.mountOverride.isEmpty()
                              ? paths.mountOverride
                              : cgroup2MountOf(cgroupfile::read(paths.procSelfMountinfo));
    if (mount.isEmpty()) {
        d.m_reason =
            QStringLiteral("no cgroup2 file system is mounted (%1)").arg(paths.procSelfMountinfo);
        return d;
    }
    const QString path = unifiedPathOf(cgroupfile::read(paths.procSelfCgroup));
    if (path.isEmpty()) {
        d.m_reason = QStringLiteral("%1 has no cgroup v2 (0::) line").arg(paths.procSelfCgroup);
        return d;
    }
    d.m_isRootCgroup = path == QLatin1String("/");
    d.m_directory = QDir::cleanPath(mount + QLatin1Char('/') + path);
    bool readable = false;
    const QByteArray offered =
        cgroupfile::read(d.m_directory + QStringLiteral("/cgroup.controllers"), &readable);
    if (!readable) {
        d.m_reason = QStringLiteral("%1/cgroup.controllers cannot be read").arg(d.m_directory);
        return d;
    }
    d.m_controllers =
        QString::fromLatin1(offered.simplified()).split(QLatin1Char(' '), Qt::SkipEmptyParts);
    QStringList missing;
    for (const char* needed : {"memory", "pids"})
        if (!d.m_controllers.contains(QLatin1String(needed)))
            missing << QLatin1String(needed);
    if (!missing.isEmpty()) {
        d.m_reason =
            QStringLiteral("the cgroup v2 hierarchy at %1 offers %2 only [%3]; %4 not "
                           "delegated to it (cgroup v1 may hold them)")
                .arg(mount, d.m_directory, d.m_controllers.join(QLatin1Char(' ')),
                     missing.join(QStringLiteral(" and ")) +
                         (missing.size() > 1 ? QStringLiteral(" are") : QStringLiteral(" is")));
        return d;
    }
    const QByteArray dir = QFile::encodeName(d.m_directory);
    const QByteArray subtree = QFile::encodeName(d.m_directory + "/cgroup.subtree_control");
    if (::access(dir.constData(), W_OK) != 0 || ::access(subtree.constData(), W_OK) != 0) {
        d.m_reason = QStringLiteral("the agent's cgroup %1 is not writable by it (a systemd "
                                    "service needs Delegate=yes)")
                         .arg(d.m_directory);
        return d;
    }
    d.m_usable = true;
    return d;
}

bool CgroupDelegation::prepare(QString* error) {
    if (!m_usable) {
        if (error)
            *error = m_reason;
        return false;
    }
    if (!m_isRootCgroup) {
        const QString leaf = m_directory + QStringLiteral("/agent");
        if (!QDir().mkpath(leaf)) {
            m_usable = false;
            m_reason = QStringLiteral("cannot create %1").arg(leaf);
            if (error)
                *error = m_reason;
            return false;
        }
        // Every process of the agent's cgroup (the agent, helpers it started) moves to the leaf;
        // a cgroup with processes cannot enable controllers for its children.
        const QByteArray procs = cgroupfile::read(m_directory + QStringLiteral("/cgroup.procs"));
        for (const QByteArray& pid : procs.split('\n')) {
            if (pid.trimmed().isEmpty())
                continue;
            QString moveError;
            if (!cgroupfile::write(leaf + QStringLiteral("/cgroup.procs"), pid.trimmed(),
                                   &moveError) &&
                pid.trimmed().toLongLong() == ::getpid()) {
                m_usable = false;
                m_reason = moveError;
                if (error)
                    *error = moveError;
                return false;
            }
        }
    }
    QByteArray enable = "+memory +pids";
    if (hasCpu())
        enable += " +cpu";
    QString writeError;
    if (!cgroupfile::write(m_directory + QStringLiteral("/cgroup.subtree_control"), enable,
                           &writeError)) {
        m_usable = false;
        m_reason = writeError;
        if (error)
            *error = writeError;
        return false;
    }
    return true;
}

} // namespace runbox::bounds
