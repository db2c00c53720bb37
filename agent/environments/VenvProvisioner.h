#pragma once

#include "agent/execution/ExecRequest.h"

#include <QString>
#include <QStringList>

namespace runbox::environments {

/// The `venv` provisioner (docs/environments.md "Building a revision"): the command of the
/// provisioning execution that builds one revision. It runs inside a strong sandbox where the new
/// revision's prefix is the writable bind at kPrefixMount and the operator's wheelhouse the
/// read-only one at kWheelhouseMount (EnvironmentStage), with no network:
///
///     python3 -m venv --copies /opt/science-env
///     /opt/science-env/bin/python3 -m pip install --no-index --find-links /opt/wheelhouse
///         --no-cache-dir --disable-pip-version-check --no-input -- PKG…
///     /opt/science-env/bin/python3 -m pip list --format json > /workspace/<kSnapshotFile>
///
/// `--copies` gives the prefix its own interpreter, so masking the host's under /usr/bin does
/// not break it (venv(1)); the packages reach pip only after `--`, as positional arguments of
/// `sh -c` ("$@"), never where pip or the shell parses options (CODING_GUIDELINES.md "System
/// resources"), and they were validated by EnvironmentSpec::checkPackages first.
namespace VenvProvisioner {

inline constexpr char kPrefixMount[] = "/opt/science-env";
inline constexpr char kWheelhouseMount[] = "/opt/wheelhouse";
/// Where the build writes `pip list --format json` in its (agent-owned) build workspace.
inline constexpr char kSnapshotFile[] = ".runbox-snapshot.json";

/// The request of the build: kind `provision`, argv `/bin/sh -c SCRIPT sh PKG…`, the execution
/// timeout and output limit of @p limits' defaults. @p withWheelhouse: pip gets
/// `--no-index --find-links`, otherwise no package may be named (no index is configured).
execution::ExecRequest buildRequest(const QStringList& packages, bool withWheelhouse,
                                    const execution::ExecLimits& limits);

} // namespace VenvProvisioner

} // namespace runbox::environments
