#include "support/Wheelhouse.h"

#include <QFile>
#include <QProcess>
#include <QStringList>

namespace runbox::testsupport {

bool writeWheel(const QString& dir, const QString& name, const QString& version,
                const QString& code, const QString& dependsOn,
                const QMap<QString, QString>& extraFiles) {
    const char* script = R"PY(
import base64, hashlib, sys, zipfile
out, name, version, code, requires = sys.argv[1:6]
extra = dict(zip(sys.argv[6::2], sys.argv[7::2]))
info = f"{name}-{version}.dist-info"
meta = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
if requires:
    meta += f"Requires-Dist: {requires}\n"
files = {f"{name}/__init__.py": code + "\n", f"{info}/METADATA": meta,
         f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: runbox-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
files.update(extra)
record = ""
for path, text in files.items():
    digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
    record += f"{path},sha256={digest},{len(text.encode())}\n"
record += f"{info}/RECORD,,\n"
files[f"{info}/RECORD"] = record
with zipfile.ZipFile(f"{out}/{name}-{version}-py3-none-any.whl", "w") as z:
    for path, text in files.items():
        z.writestr(path, text)
)PY";
    QStringList args{
        QStringLiteral("-c"), QString::fromLatin1(script), dir, name, version, code, dependsOn};
    for (auto it = extraFiles.cbegin(); it != extraFiles.cend(); ++it)
        args << it.key() << it.value();
    QProcess p;
    p.start(QStringLiteral("/usr/bin/python3"), args);
    if (!p.waitForFinished(30000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
        return false;
    return QFile::setPermissions(
        QStringLiteral("%1/%2-%3-py3-none-any.whl").arg(dir, name, version),
        QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup | QFile::ReadOther);
}

bool openToSandboxes(const QString& dir) {
    return QFile::setPermissions(dir, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner |
                                          QFile::ReadGroup | QFile::ExeGroup | QFile::ReadOther |
                                          QFile::ExeOther);
}

} // namespace runbox::testsupport
