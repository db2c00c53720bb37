#include "support/HostProcesses.h"

#include <QDir>
#include <QFile>
#include <QRandomGenerator>

namespace runbox::testsupport {

namespace {
bool readProcess(qint64 pid, HostProcess* out) {
    QFile status(QStringLiteral("/proc/%1/status").arg(pid));
    if (!status.open(QIODevice::ReadOnly))
        return false;
    out->pid = pid;
    for (const QByteArray& line : status.readAll().split('\n')) {
        if (line.startsWith("State:"))
            out->state = line.mid(6).trimmed().left(1).at(0);
        else if (line.startsWith("Uid:"))
            out->uid = uid_t(line.mid(4).simplified().split(' ').first().toUInt());
    }
    QFile cmdline(QStringLiteral("/proc/%1/cmdline").arg(pid));
    if (cmdline.open(QIODevice::ReadOnly))
        out->cmdline = cmdline.readAll().replace('\0', ' ').trimmed();
    return true;
}
} // namespace

QList<HostProcess> HostProcesses::all() {
    QList<HostProcess> out;
    const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs);
    for (const QString& name : entries) {
        bool ok = false;
        const qint64 pid = name.toLongLong(&ok);
        HostProcess p;
        if (ok && readProcess(pid, &p))
            out.append(p);
    }
    return out;
}

QList<HostProcess> HostProcesses::withCmdlineContaining(const QByteArray& needle) {
    QList<HostProcess> out;
    for (const HostProcess& p : all())
        if (p.cmdline.contains(needle))
            out.append(p);
    return out;
}

QList<HostProcess> HostProcesses::ofUid(uid_t uid) {
    QList<HostProcess> out;
    for (const HostProcess& p : all())
        if (p.uid == uid)
            out.append(p);
    return out;
}

QByteArray HostProcesses::describe(const QList<HostProcess>& processes) {
    QByteArray out;
    for (const HostProcess& p : processes)
        out += QByteArray::number(p.pid) + ' ' + QByteArray::number(p.uid) + ' ' + p.state + ' ' +
               p.cmdline.left(200) + '\n';
    return out;
}

QByteArray HostProcesses::uniqueSleepArgument(int seconds) {
    return QByteArray::number(seconds) + '.' +
           QByteArray::number(QRandomGenerator::global()->bounded(1000000, 9999999));
}

} // namespace runbox::testsupport
