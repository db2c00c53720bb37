#pragma once

#include "agent/Error.h"

#include <QJsonArray>
#include <QString>

#include <optional>

namespace runbox::environments {

/// What the agent itself does with a revision's prefix once its build has ended and every
/// process of the build sandbox is gone (docs/environments.md "Sealing and the snapshot"):
/// nothing that ran in the build decides what the revision is said to contain or who may change
/// it. Neither follows a symbolic link or opens a FIFO or device: the seal walks the prefix
/// through descriptors (workspace::WorkspaceTreeWalker), the snapshot reads it through the
/// workspace file layer (workspace::WorkspaceFs: beneath its root, links refused, types checked
/// before opening).
namespace RevisionFiles {

/// Where a provisioner's installed packages say who they are.
enum class PackageLayout {
    PythonSitePackages, ///< lib/python3*/site-packages/*.dist-info/METADATA: Name, Version
    RLibrary,           ///< library/*/DESCRIPTION (with Meta/package.rds): Package, Version
    CondaMeta,          ///< conda-meta/*.json: "name", "version"
};

/// Most packages read from one prefix.
inline constexpr int kMaxPackages = 20000;

/// Makes the prefix immutable to everyone but the agent: every entry gets the agent's uid and
/// gid (lchown, when the agent runs as root: the build ran as the build workspace's uid), and
/// every entry that is not a link loses its setuid, setgid and group/other write bits
/// (chmod(2)); the prefix itself becomes 0755. Errors: Internal `environment_seal_failed`.
std::optional<Error> seal(const QString& prefix);

/// The packages installed in @p prefix by @p layout, as `[{"name","version"}…]` read from
/// their metadata (each file at most 64 KiB read, conda records at most 16 MiB). Entries that
/// are not regular files or directories where expected are skipped. Errors: InvalidArgument
/// `invalid_snapshot` (no such layout in the prefix, more than kMaxPackages).
std::optional<Error> installedPackages(const QString& prefix, PackageLayout layout,
                                       QJsonArray* out);

} // namespace RevisionFiles

} // namespace runbox::environments
