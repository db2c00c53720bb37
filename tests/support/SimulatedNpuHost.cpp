#include "support/SimulatedNpuHost.h"

#include <QDir>
#include <QFile>
#include <QSet>
#include <QTextStream>

#include <cerrno>
#include <cstring>
#include <sys/stat.h>
#include <sys/sysmacros.h>

namespace runbox::tests {

namespace {

const char* const kFakeNpuSmi = R"SH(#!/bin/sh
# Simulated Huawei npu-smi (tests only); see tests/support/SimulatedNpuHost.h.
state='@STATE@'
echo "$*" >> "$state/calls" 2>/dev/null
devdir=/dev
ls /dev/davinci[0-9]* >/dev/null 2>&1 || devdir='@ROOT@'
echo "[INFO] DrvMngGetConsoleLogLevel failed. (g_conLogLevel=3)"
nodes=$(ls -1 "$devdir" | grep -E '^davinci[0-9]+$' | sed 's/^davinci//' | sort -n)
if [ -z "$nodes" ]; then
  echo "dcmi module initialize failed. ret is -8005"
  exit 255
fi
if [ "$devdir" = /dev ] && [ -r "$state/occupied" ]; then
  for n in $nodes; do
    ino=$(stat -c %i "/dev/davinci$n")
    if grep -qx "$ino" "$state/occupied"; then
      echo "[ERROR] DCMI(1234,npu-smi): open device failed"
      echo "dcmi model initialized failed, because the device is used. ret is -8020"
      exit 255
    fi
  done
fi
if [ "$1" = info ] && [ "$2" = -m ]; then
  printf '        %-31s%-31s%-31s%-30s\n' 'NPU ID' 'Chip ID' 'Chip Logic ID' 'Chip Name'
  for n in $nodes; do
    printf '        %-31s%-31s%-31s%-30s\n' "$n" 0 "$n" 'Ascend 910B3'
    printf '        %-31s%-31s%-31s%-30s\n' "$n" 1 - Mcu
  done
  exit 0
fi
if [ "$1" = info ]; then
  border='+===========================+===============+====================================================+'
  echo '+------------------------------------------------------------------------------------------------+'
  echo '| npu-smi 23.0.rc3                 Version: 23.0.rc3                                             |'
  echo '+---------------------------+---------------+----------------------------------------------------+'
  echo '| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|'
  echo '| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |'
  echo "$border"
  for n in $nodes; do
    printf '| %-6s%-20s| %-14s| %-12s%-18s%-5s/ %-14s|\n' "$n" 910B3 OK 93.5 "3$n" 0 0
    printf '| %-26s| %-14s| %-12s%-18s%-5s/ %-14s|\n' 0 "0000:C$n:00.0" 0 '0    / 0' 3392 65536
    echo "$border"
  done
  exit 0
fi
echo "npu-smi: unknown command $*" >&2
exit 2
)SH";

bool makeNode(const QString& path, QString* error) {
    if (::mknod(QFile::encodeName(path).constData(), S_IFCHR | 0666, makedev(1, 3)) != 0) {
        *error = QStringLiteral("mknod %1: %2").arg(path, QString::fromLocal8Bit(strerror(errno)));
        return false;
    }
    return true;
}

} // namespace

SimulatedNpuHost::SimulatedNpuHost(int chips, bool managementNodes) {
    if (!m_dir.isValid()) {
        m_error = QStringLiteral("no temporary directory");
        return;
    }
    QDir dir(m_dir.path());
    if (!dir.mkpath(QStringLiteral("dev")) || !dir.mkpath(QStringLiteral("bin")) ||
        !dir.mkpath(QStringLiteral("state"))) {
        m_error = QStringLiteral("mkdir failed");
        return;
    }
    for (int i = 0; i < chips; ++i)
        if (!makeNode(deviceRoot() + QStringLiteral("/davinci%1").arg(i), &m_error))
            return;
    if (managementNodes)
        for (const char* name : {"davinci_manager", "devmm_svm", "hisi_hdc"})
            if (!makeNode(deviceRoot() + QLatin1Char('/') + QLatin1String(name), &m_error))
                return;
    QFile script(npuSmiPath());
    if (!script.open(QIODevice::WriteOnly)) {
        m_error = script.errorString();
        return;
    }
    QString text = QString::fromLatin1(kFakeNpuSmi);
    text.replace(QStringLiteral("@STATE@"), stateDir())
        .replace(QStringLiteral("@ROOT@"), deviceRoot());
    script.write(text.toUtf8());
    script.close();
    script.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner |
                          QFile::ReadGroup | QFile::ExeGroup | QFile::ReadOther | QFile::ExeOther);
    QFile info(installInfoPath());
    if (info.open(QIODevice::WriteOnly))
        info.write("UserName=HwHiAiUser\nUserGroup=HwHiAiUser\nDriver_Install_Type=full\n"
                   "Driver_Install_Path_Param=/usr/local/Ascend\n");
    m_valid = true;
}

qulonglong SimulatedNpuHost::inodeOf(int logicId) const {
    struct stat st {};
    const QString path = deviceRoot() + QStringLiteral("/davinci%1").arg(logicId);
    if (::stat(QFile::encodeName(path).constData(), &st) != 0)
        return 0;
    return st.st_ino;
}

void SimulatedNpuHost::setOccupied(int logicId, bool occupied) {
    QFile file(stateDir() + QStringLiteral("/occupied"));
    QSet<QString> lines;
    if (file.open(QIODevice::ReadOnly)) {
        for (const QByteArray& line : file.readAll().split('\n'))
            if (!line.isEmpty())
                lines.insert(QString::fromLatin1(line));
        file.close();
    }
    const QString inode = QString::number(inodeOf(logicId));
    if (occupied)
        lines.insert(inode);
    else
        lines.remove(inode);
    if (file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        for (const QString& line : lines)
            file.write(line.toLatin1() + '\n');
}

int SimulatedNpuHost::callCount() const {
    QFile file(stateDir() + QStringLiteral("/calls"));
    if (!file.open(QIODevice::ReadOnly))
        return 0;
    return file.readAll().count('\n');
}

} // namespace runbox::tests
