#pragma once

#include <QString>
#include <QStringList>

namespace runbox::config {

/// The directories where runbox-agent looks for its helper programs (runbox-light-supervisor,
/// runbox-sandbox-guard, runbox-egress-bridge), in order: the running program's own directory
/// (the build tree, where CMake puts them next to runbox-agent) and `<bindir>/../libexec/runbox`
/// (the installed layout of docs/service.md, GNU Coding Standards' libexecdir for programs that
/// only other programs run). Empty when there is no QCoreApplication.
QStringList helperBinaryDirs();

/// Where helper program @p name is: @p configured when it is an executable file, else the first
/// executable `DIR/name` of helperBinaryDirs(). Canonical path; "" when none exists.
QString helperBinaryPath(const QString& name, const QString& configured = QString());

} // namespace runbox::config
